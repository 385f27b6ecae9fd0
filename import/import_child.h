/* SPDX-License-Identifier: MIT */
/* import_child.h - run an import in a child process (why: import_child.c). */
#ifndef IMPORT_CHILD_H
#define IMPORT_CHILD_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Import FTZ into the new database TMP in a child process, then call finish(arg)
 * (sign and rename TMP; it prints its own error and returns -1 on failure).
 * 0 when both succeeded (*damaged: the input was damaged, a warning was printed);
 * -1 after one line on stderr, with TMP (and its journal) removed. A SIGINT,
 * SIGTERM or SIGHUP meanwhile is passed to the child; once it is gone TMP is
 * removed and ftana dies of the same signal.
 */
int import_isolated(const char *ftz, const char *tmp, bool *damaged,
		    int (*finish)(void *arg), void *arg);
/* The same for a capture of several files (decode.h dec_open_set: a --rotate series). */
int import_isolated_set(const char *const *inputs, size_t n, const char *tmp, bool *damaged,
			int (*finish)(void *arg), void *arg);

#endif
