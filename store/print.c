// SPDX-License-Identifier: MIT
/*
 * print.c - query results as an aligned table (default), CSV (RFC 4180) or a
 * JSON array of objects. The table needs every row to size its columns, so it
 * buffers the rendered text; CSV and JSON stream.
 *
 * Values come from captures someone else made, so no byte a terminal acts on is
 * printed raw: in the table and in CSV, text goes through text_escape.h (C0 and
 * C1 controls, DEL, bytes that are not UTF-8 as \xNN; CSV keeps TAB, CR and LF
 * inside quotes). Column names too: they may be field names from the file.
 * JSON is valid for any bytes: controls as \uNNNN, bytes that are not UTF-8 as
 * U+FFFD (JSON strings are Unicode text; the table and CSV show those bytes).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/text_escape.h"
#include "store/print.h"

/* A table cell: its text (NULL for SQL NULL) and, for numbers, the value (PRINT_UNITS). */
struct cell {
	char *s;
	int type;
	double r;
	sqlite3_int64 i;
};

struct cell_buf {
	struct cell *cells; /* rows * cols */
	size_t nr, cap;
};

/*
 * Length of the well-formed UTF-8 sequence at p (n bytes available; no overlong
 * forms, no surrogates, nothing past U+10FFFF), its code point in *cp; 0 if none.
 * JSON needs the code point (C1 controls become \\u0080..\\u009f), which
 * text_escape.h does not give out: the table and CSV escape through text_escape.
 */
static size_t utf8_seq(const unsigned char *p, size_t n, uint32_t *cp)
{
	size_t len = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : 2;
	uint32_t v = *p & (0x7f >> len);

	if (*p < 0xc2 || *p > 0xf4 || n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) ||
	    (len == 4 && (v < 0x10000 || v > 0x10ffff)))
		return 0;
	*cp = v;
	return len;
}

/* Table cells keep nothing raw (a tab would break the columns); quoted CSV fields
 * keep tab, CR and LF. */
static char *escape(const char *s, size_t n, bool csv)
{
	return text_escape_n(s, n, csv ? TEXT_KEEP_LINES : TEXT_KEEP_NONE);
}

/* x'..': "x'", two digits a byte, "'" and the NUL (fuzz_db found the NUL one byte
 * past a buffer of 2n + 3). */
static char *hex(const unsigned char *p, int n)
{
	char *s = n >= 0 ? malloc(2 * (size_t)n + 4) : NULL;

	if (!s)
		return NULL;
	strcpy(s, "x'");
	for (int i = 0; i < n; i++)
		sprintf(s + 2 + 2 * i, "%02x", p[i]);
	strcpy(s + 2 + 2 * n, "'");
	return s;
}

/*
 * The text of column i as sqlite3 would show it, blobs as x'..', and text escaped
 * for fmt (JSON: raw, json_string escapes). *len: its length. Caller frees.
 */
static char *cell_text(sqlite3_stmt *st, int i, enum out_format fmt, size_t *len)
{
	char *s = NULL;

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		return NULL;
	case SQLITE_BLOB:
		s = hex(sqlite3_column_blob(st, i), sqlite3_column_bytes(st, i));
		break;
	case SQLITE_TEXT: {
		const char *t = (const char *)sqlite3_column_text(st, i);
		size_t n = sqlite3_column_bytes(st, i);

		if (fmt != OUT_JSON) {
			s = escape(t, n, fmt == OUT_CSV);
			break;
		}
		s = malloc(n + 1);
		if (s) {
			memcpy(s, t, n);
			s[n] = '\0';
			*len = n;
		}
		return s;
	}
	default:
		s = strdup((const char *)sqlite3_column_text(st, i));
	}
	*len = s ? strlen(s) : 0;
	return s;
}

/* A column name, escaped like a value. */
static char *name_text(sqlite3_stmt *st, int i, enum out_format fmt)
{
	const char *name = sqlite3_column_name(st, i);

	return name ? escape(name, strlen(name), fmt == OUT_CSV) : NULL;
}

static int push(struct cell_buf *b, char *s, sqlite3_stmt *st, int col)
{
	if (b->nr == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 256;
		struct cell *n = realloc(b->cells, cap * sizeof(*n));

		if (!n)
			return -1;
		b->cells = n;
		b->cap = cap;
	}
	b->cells[b->nr++] = (struct cell){ s, sqlite3_column_type(st, col), sqlite3_column_double(st, col),
					   sqlite3_column_int64(st, col) };
	return 0;
}

/*
 * PRINT_UNITS: the decimals of a column of numbers with a fraction, chosen by the unit
 * its name ends with (README, "Numbers in text tables"): times of day to the
 * nanosecond (they are typed back to --since), durations in us and ms to the ns and
 * the us, in s to the us, percentages to 2, I/O per second to 1, rates, MB,
 * ratios and diff's differences (of rates) to 3.
 * -1: no unit known.
 */
int print_unit_decimals(const char *name)
{
	static const struct { const char *suffix; int decimals; } units[] = {
		{ "time_s", 9 }, { "ts_s", 9 }, { "start_s", 9 }, { "end_s", 9 },
		{ "per_s", 3 }, { "mb_s", 3 }, { "_ns", 0 }, { "_us", 3 }, { "_ms", 3 }, { "_s", 6 },
		{ "pct", 2 }, { "iops", 1 }, { "mb", 3 }, { "ratio", 3 },
		{ "diff", 3 }, /* ftana diff's: after per second minus before (cmd_diff.c) */
	};
	size_t n = name ? strlen(name) : 0;

	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		size_t k = strlen(units[u].suffix);

		if (n >= k && !strcmp(name + n - k, units[u].suffix) &&
		    (n == k || units[u].suffix[0] == '_' || name[n - k - 1] == '_'))
			return units[u].decimals;
	}
	return -1;
}

/* The decimals SQLite's text of a real shows (its %!.15g), at most 6. */
static int shown_decimals(const char *s)
{
	const char *dot = s ? strchr(s, '.') : NULL;

	if (s && strpbrk(s, "eE"))
		return 6;
	return dot ? (int)(strlen(dot + 1) < 6 ? strlen(dot + 1) : 6) : 0;
}

/* v with d decimals, never "-0.000"; NULL out of memory. */
static char *fixed(const struct cell *c, int d)
{
	char buf[400];

	if (c->type == SQLITE_INTEGER)
		snprintf(buf, sizeof(buf), "%lld%s%.*s", (long long)c->i, d ? "." : "", d, "000000000");
	else
		snprintf(buf, sizeof(buf), "%.*f", d, c->r);
	if (buf[0] == '-' && !buf[strspn(buf + 1, "0.") + 1])
		return strdup(buf + 1);
	return strdup(buf);
}

/* PRINT_UNITS: every number of a column holding a finite real, with one count of
 * decimals (so the points align); of a column whose decimals are given (DECIMALS[i] >=
 * 0), every number, integers too. 0, or -1 out of memory. */
static int fix_decimals(struct cell_buf *b, sqlite3_stmt *st, int cols, const int *decimals)
{
	for (int i = 0; i < cols; i++) {
		int given = decimals ? decimals[i] : -1, seen = -1;
		int d = given >= 0 ? given : print_unit_decimals(sqlite3_column_name(st, i));

		for (size_t r = i; r < b->nr; r += cols) {
			const struct cell *c = &b->cells[r];

			if (c->type == SQLITE_FLOAT && isfinite(c->r) && shown_decimals(c->s) > seen)
				seen = shown_decimals(c->s);
		}
		if (seen < 0 && given < 0)
			continue; /* no real: integers as they are */
		if (d < 0)
			d = seen;
		for (size_t r = i; r < b->nr; r += cols) {
			struct cell *c = &b->cells[r];
			char *s;

			if (!(c->type == SQLITE_INTEGER || (c->type == SQLITE_FLOAT && isfinite(c->r))))
				continue;
			if (!(s = fixed(c, d)))
				return -1;
			free(c->s);
			c->s = s;
		}
	}
	return 0;
}

static bool numeric(int type)
{
	return type == SQLITE_INTEGER || type == SQLITE_FLOAT;
}

static void free_names(char **names, int cols)
{
	for (int i = 0; names && i < cols; i++)
		free(names[i]);
	free(names);
}

static char **column_names(sqlite3_stmt *st, enum out_format fmt)
{
	int cols = sqlite3_column_count(st);
	char **names = calloc(cols + 1, sizeof(*names));

	for (int i = 0; names && i < cols; i++) {
		names[i] = name_text(st, i, fmt);
		if (!names[i]) {
			free_names(names, cols);
			return NULL;
		}
	}
	return names;
}

static int print_table(sqlite3_stmt *st, FILE *out, unsigned flags, const int *decimals)
{
	int cols = sqlite3_column_count(st), rc = SQLITE_NOMEM;
	size_t *width = calloc(cols + 1, sizeof(*width));
	bool *right = calloc(cols + 1, sizeof(*right));
	char **names = column_names(st, OUT_TEXT);
	struct cell_buf b = { 0 };

	if (!width || !right || !names)
		goto out;
	for (int i = 0; i < cols; i++)
		width[i] = strlen(names[i]);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < cols; i++) {
			size_t w = 0;
			char *s = cell_text(st, i, OUT_TEXT, &w);

			if (push(&b, s, st, i) < 0) {
				free(s);
				rc = SQLITE_NOMEM;
				goto out;
			}
			right[i] |= numeric(sqlite3_column_type(st, i));
		}
	}
	if (rc == SQLITE_DONE && (flags & PRINT_UNITS) && fix_decimals(&b, st, cols, decimals)) {
		rc = SQLITE_NOMEM;
		goto out;
	}
	for (size_t r = 0; r < b.nr; r++) {
		size_t w = b.cells[r].s ? strlen(b.cells[r].s) : 0;

		if (w > width[r % cols])
			width[r % cols] = w;
	}
	for (int i = 0; !(flags & PRINT_NO_HEADER) && i < cols; i++)
		fprintf(out, "%s%-*s%s", i ? "  " : "", i + 1 < cols ? (int)width[i] : 0, names[i],
			i + 1 < cols ? "" : "\n");
	for (size_t r = 0; cols && r < b.nr / cols; r++) {
		for (int i = 0; i < cols; i++) {
			const char *s = b.cells[r * cols + i].s;
			int w = (right[i] || i + 1 < cols) ? (int)width[i] : 0;

			fprintf(out, "%s%*s", i ? "  " : "", right[i] ? w : -w, s ? s : "");
		}
		fputc('\n', out);
	}
out:
	for (size_t i = 0; i < b.nr; i++)
		free(b.cells[i].s);
	free(b.cells);
	free(width);
	free(right);
	free_names(names, cols);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* s is escaped already (escape(.., true)): only quoting is left. */
static void csv_field(const char *s, FILE *out)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* A JSON string for any n bytes (RFC 8259), see the top of this file. */
static void json_string(const char *s, size_t n, FILE *out)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	fputc('"', out);
	while (p < end) {
		uint32_t cp = 0;
		size_t len;

		if (*p == '"' || *p == '\\') {
			fprintf(out, "\\%c", *p++);
		} else if (*p == '\n' || *p == '\t') {
			fputs(*p++ == '\n' ? "\\n" : "\\t", out);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(out, "\\u%04x", *p++);
		} else if (*p < 0x80) {
			fputc(*p++, out);
		} else if ((len = utf8_seq(p, end - p, &cp)) && cp >= 0xa0) {
			fwrite(p, 1, len, out);
			p += len;
		} else if (len) {
			fprintf(out, "\\u%04x", cp); /* C1 control */
			p += len;
		} else {
			fputs("\\ufffd", out);
			p++;
		}
	}
	fputc('"', out);
}

/* JSON has no Inf or NaN: SQLite's "Inf" text goes out as a string. */
static bool json_number(sqlite3_stmt *st, int i)
{
	int type = sqlite3_column_type(st, i);

	return type == SQLITE_INTEGER || (type == SQLITE_FLOAT && isfinite(sqlite3_column_double(st, i)));
}

static int print_stream(sqlite3_stmt *st, enum out_format fmt, FILE *out, unsigned flags)
{
	int cols = sqlite3_column_count(st), rc;
	bool first = true;
	char **names = fmt == OUT_CSV ? column_names(st, OUT_CSV) : NULL;

	if (fmt == OUT_CSV) {
		if (!names)
			return -1;
		for (int i = 0; !(flags & PRINT_NO_HEADER) && i < cols; i++) {
			if (i)
				fputc(',', out);
			csv_field(names[i], out);
			if (i + 1 == cols)
				fputc('\n', out);
		}
	} else {
		fputc('[', out);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (fmt == OUT_JSON)
			fputs(first ? "\n{" : ",\n{", out);
		first = false;
		for (int i = 0; i < cols; i++) {
			size_t len = 0;
			char *s = cell_text(st, i, fmt, &len);

			if (i)
				fputc(',', out);
			if (fmt == OUT_CSV) {
				csv_field(s, out);
			} else {
				const char *name = sqlite3_column_name(st, i);

				json_string(name ? name : "", name ? strlen(name) : 0, out);
				fputc(':', out);
				if (!s && sqlite3_column_type(st, i) != SQLITE_NULL)
					rc = SQLITE_NOMEM;
				if (!s)
					fputs("null", out);
				else if (json_number(st, i))
					fputs(s, out);
				else
					json_string(s, len, out);
			}
			free(s);
		}
		fputs(fmt == OUT_CSV ? "\n" : "}", out);
		if (rc == SQLITE_NOMEM)
			break;
	}
	if (fmt == OUT_JSON)
		fputs(first ? "]\n" : "\n]\n", out);
	free_names(names, cols);
	return rc == SQLITE_DONE ? 0 : -1;
}

int print_rows_flags(sqlite3_stmt *stmt, enum out_format fmt, FILE *out, unsigned flags)
{
	return print_rows_decimals(stmt, fmt, out, flags, NULL);
}

int print_rows_decimals(sqlite3_stmt *stmt, enum out_format fmt, FILE *out, unsigned flags,
			const int *decimals)
{
	return fmt == OUT_TEXT ? print_table(stmt, out, flags, decimals) : print_stream(stmt, fmt, out, flags);
}

int print_rows(sqlite3_stmt *stmt, enum out_format fmt, FILE *out)
{
	return print_rows_flags(stmt, fmt, out, 0);
}

void print_json_string(FILE *out, const char *s)
{
	if (!s)
		fputs("null", out);
	else
		json_string(s, strlen(s), out);
}
