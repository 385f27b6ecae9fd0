/* SPDX-License-Identifier: MIT */
/* msg.c - messages on stderr: prefix, escaping, newline, the warnings kept (msg.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/text_escape.h"

static char program[32] = "ftana";
static char *prefix;
static bool notes = true, keeping;
static char **warnings;
static size_t nr_warnings;

void msg_set_program(const char *p)
{
	snprintf(program, sizeof(program), "%s", p);
}

void msg_set_prefix(const char *p)
{
	free(prefix);
	prefix = p ? strdup(p) : NULL;
}

const char *msg_prefix(void)
{
	return prefix ? prefix : program;
}

void msg_set_notes(bool on)
{
	notes = on;
}

/* "PREFIX: [WHAT: ]KIND TEXT\n" in one write, TEXT and WHAT escaped. */
static void put(const char *what, const char *kind, const char *text)
{
	char *t = text_escape_n(text, strlen(text), TEXT_KEEP_TAB);
	char *w = what ? text_escaped(what) : NULL;

	fprintf(stderr, "%s: %s%s%s%s\n", msg_prefix(), w ? w : what ? "?" : "",
		what ? ": " : "", kind, t ? t : text);
	free(t);
	free(w);
}

__attribute__((format(printf, 1, 0)))
static char *vformat(const char *fmt, va_list ap)
{
	char *s;

	return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

/* msg_set_interrupted: why SQLite's statements now fail with "interrupted". */
static const char *interrupted_why;
static bool interrupted_said;

void msg_set_interrupted(const char *why)
{
	interrupted_why = why;
}

int msg_verror(const char *fmt, va_list ap)
{
	char *s = vformat(fmt, ap);
	size_t n = s ? strlen(s) : 0;

	/* SQLite says only "interrupted": say why instead, once for the whole run */
	if (interrupted_why && n >= 11 && !strcmp(s + n - 11, "interrupted")) {
		if (!interrupted_said)
			put(NULL, "", interrupted_why);
		interrupted_said = true;
		free(s);
		return -1;
	}
	put(NULL, "", s ? s : "out of memory (formatting a message)");
	free(s);
	return -1;
}

int msg_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_verror(fmt, ap);
	va_end(ap);
	return -1;
}

int msg_error_errno(int err, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vformat(fmt, ap);
	va_end(ap);
	msg_error("%s: %s", s ? s : "?", strerror(err < 0 ? -err : err));
	free(s);
	return -1;
}

void msg_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_verror(fmt, ap);
	va_end(ap);
	exit(status);
}

static void keep(char *s)
{
	char **grown = realloc(warnings, (nr_warnings + 1) * sizeof(*grown));

	if (!grown) {
		free(s);
		return;
	}
	warnings = grown;
	warnings[nr_warnings++] = s;
}

static bool kept_already(const char *s)
{
	for (size_t i = 0; i < nr_warnings; i++)
		if (!strcmp(warnings[i], s))
			return true;
	return false;
}

/* SAY false: only kept (another process said it). */
__attribute__((format(printf, 2, 0)))
static void vwarn_say(const char *what, const char *fmt, va_list ap, bool say)
{
	char *s = vformat(fmt, ap), *kept = NULL;

	if (!s)
		return;
	if (keeping) {
		if (what && asprintf(&kept, "%s: %s", what, s) < 0)
			kept = NULL;
		/* a warning is said once per command (a report that opens its capture again,
		 * for the rows its totals could not stand for, meets the same damage again) */
		if (kept_already(what ? (kept ? kept : "") : s)) {
			free(s);
			free(kept);
			return;
		}
	}
	if (say)
		put(what, "warning: ", s);
	if (!keeping) {
		free(s);
		return;
	}
	if (what) {
		free(s);
		s = kept;
	}
	if (s)
		keep(s);
}

__attribute__((format(printf, 2, 0)))
static void vwarn(const char *what, const char *fmt, va_list ap)
{
	vwarn_say(what, fmt, ap, true);
}

void msg_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(NULL, fmt, ap);
	va_end(ap);
}

void msg_warn_said_at(const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn_say(what, fmt, ap, false);
	va_end(ap);
}

void msg_warn_at(const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(what, fmt, ap);
	va_end(ap);
}

void msg_note(const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (!notes)
		return;
	va_start(ap, fmt);
	s = vformat(fmt, ap);
	va_end(ap);
	if (s)
		put(NULL, "note: ", s);
	free(s);
}

void msg_keep_warnings(bool on)
{
	keeping = on;
}

size_t msg_warnings(const char *const **list)
{
	*list = (const char *const *)warnings;
	return nr_warnings;
}

void msg_warnings_clear(void)
{
	for (size_t i = 0; i < nr_warnings; i++)
		free(warnings[i]);
	free(warnings);
	warnings = NULL;
	nr_warnings = 0;
}
