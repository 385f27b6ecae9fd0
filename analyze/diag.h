/* SPDX-License-Identifier: MIT */
/*
 * diag.h - ftana's one convention for messages on stderr: every error and warning
 * starts with the program's prefix, "ftana" or, inside a report, "ftana report NAME",
 * so a message from deep in the decoder or the cache still says which command it
 * belongs to. Callers write the rest ("FILE: warning: ...\n", newline included).
 */
#ifndef FTANA_DIAG_H
#define FTANA_DIAG_H

/* "ftana" until set; the string must outlive its use (argv, a literal). */
void diag_set_prefix(const char *prefix);
const char *diag_prefix(void);

/* "<prefix>: " then the message, on stderr. */
void ftana_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
