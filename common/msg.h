/* SPDX-License-Identifier: MIT */
/*
 * msg.h - the one way ftrec and ftana say something on stderr (git's error(),
 * warning(), die()). The message path owns everything around the text:
 *
 *   - the prefix: the program and its command ("ftana report iolat", "ftrec
 *     triage"), set once by the dispatcher (common/cmd.c), so a message from deep in
 *     the decoder or the cache still says which command it belongs to;
 *   - the newline: callers give one line's text, without "\n";
 *   - the escaping: every control character of the formatted text (a file name,
 *     a comm, a ring's prefix from someone else's capture) is printed as \xHH
 *     (common/text_escape.h), so one message is always one line on the terminal;
 *   - the status: msg_error returns -1, the convention of every helper in the
 *     tree (or a documented negative errno); only a command's top turns that
 *     into an exit status;
 *   - the record: warnings are also kept, in order, for the JSON documents'
 *     "warnings" list (msg_warnings).
 *
 *   PREFIX: TEXT                   msg_error
 *   PREFIX: warning: TEXT          msg_warn
 *   PREFIX: WHAT: warning: TEXT    msg_warn_at (a warning about one file or name)
 *   PREFIX: note: TEXT             msg_note (ftana: only with -v, msg_set_notes)
 */
#ifndef COMMON_MSG_H
#define COMMON_MSG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* The prefix of every message ("ftana" until set); copied. NULL: back to the program's. */
void msg_set_prefix(const char *prefix);
/* The program's own name, the prefix of messages outside any command ("ftrec"). */
void msg_set_program(const char *program);
const char *msg_prefix(void);

/* "PREFIX: TEXT" (TEXT escaped, newline added) on stderr. Returns -1. */
int msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int msg_verror(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* "PREFIX: TEXT: strerror(err)". err is a positive or negative errno. Returns -1. */
int msg_error_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* msg_error, then exit(status). */
void msg_die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

/* "PREFIX: warning: TEXT", also kept for msg_warnings(). */
void msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "PREFIX: WHAT: warning: TEXT" (WHAT escaped as the text is), kept as "WHAT: TEXT". */
void msg_warn_at(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A warning another process said (ftana's import child): kept as if said here, so that
 * it is not said again (and is in msg_warnings), but not printed. */
void msg_warn_said_at(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "PREFIX: note: TEXT" when notes are on (ftrec: always; ftana: with -v). */
void msg_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_set_notes(bool on);
/* From now on an error whose text ends in "interrupted" (SQLite's, after a progress
 * handler stopped a statement) is said as WHY instead, once (a static string). */
void msg_set_interrupted(const char *why);

/* Keep the warnings from now on for msg_warnings (ftana's JSON documents; off by
 * default, so a long-running ftrec does not accumulate them). While kept, a warning
 * identical to one already said is not said again. */
void msg_keep_warnings(bool on);
/* The warnings kept so far, oldest first (unescaped: JSON escapes by itself). */
size_t msg_warnings(const char *const **list);
/* Forget them (a test running several reports in one process). */
void msg_warnings_clear(void);

#endif
