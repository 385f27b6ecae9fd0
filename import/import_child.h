/* SPDX-License-Identifier: MIT */
/* import_child.h - run an import in a child process (why: import_child.c). */
#ifndef IMPORT_CHILD_H
#define IMPORT_CHILD_H

#include <stdbool.h>
#include <stddef.h>

#include "import/import.h"

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

/* What an isolated import does: import.h's import_capture arguments. */
struct import_job {
	const char *const *inputs;   /* a capture of one or several files (dec_open_set) */
	size_t n;
	enum import_mode mode;       /* IMPORT_EXTEND: TMP is a copy of a database to add TYPES to */
	const struct import_types *types; /* NULL: every type */
};
/* The same for any capture and request (import.h import_capture). */
int import_isolated_job(const struct import_job *job, const char *tmp, bool *damaged,
			int (*finish)(void *arg), void *arg);

#endif
