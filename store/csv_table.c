/* SPDX-License-Identifier: MIT */
/*
 * csv_table.c - a CSV document (RFC 4180, as store/print.c writes it) into a table of
 * its own (csv_table.h): `ftana diff` reads each side's report this way.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/msg.h"
#include "store/csv_table.h"

/* The next field at *p: its text into f (unquoted), *eol at a line's end. */
static bool csv_field(const char **p, const char *end, FILE *f, bool *eol)
{
	const char *s = *p;

	*eol = false;
	if (s >= end)
		return false;
	if (*s == '"') {
		for (s++; s < end; s++) {
			if (*s == '"' && s + 1 < end && s[1] == '"')
				fputc(*s++, f);
			else if (*s == '"')
				break;
			else
				fputc(*s, f);
		}
		s++;
	} else {
		for (; s < end && *s != ',' && *s != '\n' && *s != '\r'; s++)
			fputc(*s, f);
	}
	if (s < end && *s == '\r')
		s++;
	if (s >= end || *s == '\n')
		*eol = true;
	*p = s < end ? s + 1 : end;
	return true;
}

int csv_table_load(sqlite3 *db, const char *name, const char *csv, size_t len, const char *what,
		   char ***cols, int *ncols)
{
	const char *p = csv, *end = csv + len;
	sqlite3_str *sql = sqlite3_str_new(db);
	sqlite3_stmt *ins = NULL;
	int n = 0, rc = 0;
	bool eol = false;
	char *text;
	size_t tlen;

	*cols = NULL;
	while (!eol) {
		FILE *f = open_memstream(&text, &tlen);

		if (!f || !csv_field(&p, end, f, &eol)) {
			if (f)
				fclose(f);
			free(text);
			break;
		}
		fclose(f);
		*cols = realloc(*cols, (size_t)(n + 1) * sizeof(**cols));
		(*cols)[n++] = text;
	}
	*ncols = n;
	if (!n)
		return msg_error("%s: the report printed no table", what);
	sqlite3_str_appendf(sql, "CREATE TABLE \"%w\" (", name);
	for (int i = 0; i < n; i++)
		sqlite3_str_appendf(sql, "%s\"%w\" NUMERIC", i ? ", " : "", (*cols)[i]);
	sqlite3_str_appendall(sql, ")");
	char *q = sqlite3_str_finish(sql);

	if (!q || sqlite3_exec(db, q, NULL, NULL, NULL) != SQLITE_OK)
		rc = msg_error("%s", sqlite3_errmsg(db));
	sqlite3_free(q);
	sql = sqlite3_str_new(db);
	sqlite3_str_appendf(sql, "INSERT INTO \"%w\" VALUES (", name);
	for (int i = 0; i < n; i++)
		sqlite3_str_appendf(sql, "%s?", i ? ", " : "");
	sqlite3_str_appendall(sql, ")");
	q = sqlite3_str_finish(sql);
	if (!rc && (!q || sqlite3_prepare_v2(db, q, -1, &ins, NULL) != SQLITE_OK))
		rc = msg_error("%s", sqlite3_errmsg(db));
	while (!rc && p < end) {
		for (int i = 0; i < n; i++) {
			FILE *f = open_memstream(&text, &tlen);

			if (!f || !csv_field(&p, end, f, &eol)) {
				if (f)
					fclose(f);
				free(text);
				sqlite3_bind_null(ins, i + 1);
				continue;
			}
			fclose(f);
			if (*text) {
				sqlite3_bind_text(ins, i + 1, text, -1, free);
			} else {
				sqlite3_bind_null(ins, i + 1);
				free(text);
			}
		}
		if (sqlite3_step(ins) != SQLITE_DONE)
			rc = msg_error("%s", sqlite3_errmsg(db));
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	sqlite3_free(q);
	return rc;
}

void csv_table_free_cols(char **cols, int n)
{
	for (int i = 0; i < n; i++)
		free(cols[i]);
	free(cols);
}
