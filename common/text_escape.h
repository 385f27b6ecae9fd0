/* SPDX-License-Identifier: MIT */
/*
 * text_escape.h - text from a capture (comms, symbol names, string fields, whole
 * libtraceevent lines) made safe to print on the analyst's terminal.
 *
 * A capture is someone else's file: a comm of "\x1b]0;pwned\x07" or a string field
 * holding "\x1b[2J" would otherwise drive the terminal that shows the report. Every
 * text report prints file-derived strings through these; CSV/JSON output carries
 * values unchanged (their consumers are programs, and JSON escapes by itself).
 *
 * Escaped as \xHH: C0 controls except tab (newline and carriage return included: a
 * value must not fake report lines; text_escape_n chooses what to keep), DEL, C1 controls (U+0080..U+009F, which some
 * terminals obey as ESC sequences when UTF-8 encoded), and every byte that is not
 * part of valid UTF-8 (a lone 0x9b is CSI to an 8-bit terminal). Everything else,
 * backslash included, is printed as is, so text without control characters reads
 * exactly as the kernel and trace-cmd print it.
 */
#ifndef TEXT_ESCAPE_H
#define TEXT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What text_escape_n leaves raw besides printable text (flags). */
enum text_keep {
	TEXT_KEEP_NONE = 0,
	TEXT_KEEP_TAB = 1,   /* the reports' default: tab is layout, not a command */
	TEXT_KEEP_LINES = 2, /* tab, CR and LF: inside a quoted CSV field */
};

/* LEN bytes of TEXT (NULs included) escaped, keeping KEEP; malloc'd, NULL without memory. */
char *text_escape_n(const char *text, size_t len, unsigned keep);

/* Does TEXT (LEN bytes) hold anything that must be escaped? (tab kept) */
bool text_needs_escape(const char *text, size_t len);

/*
 * TEXT (NUL-terminated) escaped, tab kept, in a new malloc'd string the caller
 * frees; NULL for NULL TEXT, or when out of memory.
 */
char *text_escaped(const char *text);

/* Write LEN bytes of TEXT to OUT escaped, tab kept. */
void text_put(FILE *out, const char *text, size_t len);

/* Write NUL-terminated TEXT to OUT escaped; NULL writes nothing. */
void text_fputs(FILE *out, const char *text);

#endif
