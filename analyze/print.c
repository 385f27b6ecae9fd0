// SPDX-License-Identifier: MIT
/*
 * print.c - query results as an aligned table (default), CSV (RFC 4180) or a
 * JSON array of objects. The table needs every row to size its columns, so it
 * buffers the rendered text; CSV and JSON stream.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/ftana.h"

struct cell_buf {
	char **cells;  /* rows * cols strings, NULL for SQL NULL */
	size_t nr, cap;
};

static char *hex(const unsigned char *p, int n)
{
	char *s = malloc(2 * n + 3);

	if (!s)
		return NULL;
	strcpy(s, "x'");
	for (int i = 0; i < n; i++)
		sprintf(s + 2 + 2 * i, "%02x", p[i]);
	strcpy(s + 2 + 2 * n, "'");
	return s;
}

/* The text of column i as sqlite3 would show it; blobs as x'..'. Caller frees. */
static char *cell_text(sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		return NULL;
	case SQLITE_BLOB:
		return hex(sqlite3_column_blob(st, i), sqlite3_column_bytes(st, i));
	default:
		return strdup((const char *)sqlite3_column_text(st, i));
	}
}

static int push(struct cell_buf *b, char *s)
{
	if (b->nr == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 256;
		char **n = realloc(b->cells, cap * sizeof(*n));

		if (!n)
			return -1;
		b->cells = n;
		b->cap = cap;
	}
	b->cells[b->nr++] = s;
	return 0;
}

static bool numeric(int type)
{
	return type == SQLITE_INTEGER || type == SQLITE_FLOAT;
}

static int print_table(sqlite3_stmt *st, FILE *out)
{
	int cols = sqlite3_column_count(st), rc;
	size_t *width = calloc(cols + 1, sizeof(*width));
	bool *right = calloc(cols + 1, sizeof(*right));
	struct cell_buf b = { 0 };

	if (!width || !right)
		goto oom;
	for (int i = 0; i < cols; i++)
		width[i] = strlen(sqlite3_column_name(st, i));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < cols; i++) {
			char *s = cell_text(st, i);
			size_t w = s ? strlen(s) : 0;

			if (push(&b, s) < 0)
				goto oom;
			right[i] |= numeric(sqlite3_column_type(st, i));
			if (w > width[i])
				width[i] = w;
		}
	}
	for (int i = 0; i < cols; i++)
		fprintf(out, "%s%-*s", i ? "  " : "", i + 1 < cols ? (int)width[i] : 0,
			sqlite3_column_name(st, i));
	fputc('\n', out);
	for (size_t r = 0; cols && r < b.nr / cols; r++) {
		for (int i = 0; i < cols; i++) {
			const char *s = b.cells[r * cols + i];
			int w = (right[i] || i + 1 < cols) ? (int)width[i] : 0;

			fprintf(out, "%s%*s", i ? "  " : "", right[i] ? w : -w, s ? s : "");
		}
		fputc('\n', out);
	}
	for (size_t i = 0; i < b.nr; i++)
		free(b.cells[i]);
	free(b.cells);
	free(width);
	free(right);
	return rc == SQLITE_DONE ? 0 : -1;
oom:
	for (size_t i = 0; i < b.nr; i++)
		free(b.cells[i]);
	free(b.cells);
	free(width);
	free(right);
	return -1;
}

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

static void json_string(const char *s, FILE *out)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

static int print_stream(sqlite3_stmt *st, enum out_format fmt, FILE *out)
{
	int cols = sqlite3_column_count(st), rc;
	bool first = true;

	if (fmt == OUT_CSV) {
		for (int i = 0; i < cols; i++) {
			if (i)
				fputc(',', out);
			csv_field(sqlite3_column_name(st, i), out);
		}
		fputc('\n', out);
	} else {
		fputc('[', out);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (fmt == OUT_JSON)
			fputs(first ? "\n{" : ",\n{", out);
		first = false;
		for (int i = 0; i < cols; i++) {
			int type = sqlite3_column_type(st, i);
			char *s = cell_text(st, i);

			if (fmt == OUT_CSV) {
				if (i)
					fputc(',', out);
				csv_field(s, out);
			} else {
				if (i)
					fputc(',', out);
				json_string(sqlite3_column_name(st, i), out);
				fputc(':', out);
				if (!s)
					fputs("null", out);
				else if (numeric(type))
					fputs(s, out);
				else
					json_string(s, out);
			}
			free(s);
		}
		fputs(fmt == OUT_CSV ? "\n" : "}", out);
	}
	if (fmt == OUT_JSON)
		fputs(first ? "]\n" : "\n]\n", out);
	return rc == SQLITE_DONE ? 0 : -1;
}

int ftana_print_rows(sqlite3_stmt *stmt, enum out_format fmt, FILE *out)
{
	return fmt == OUT_TEXT ? print_table(stmt, out) : print_stream(stmt, fmt, out);
}
