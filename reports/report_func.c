/* SPDX-License-Identifier: MIT */
/* report_func.c - helpers shared by the function reports (see report_func.h). */
#include <stdlib.h>
#include <string.h>

#include "analyze/ftana.h"
#include "reports/report_func.h"

int rf_setup(sqlite3 *db)
{
	return ftana_exec_sql_file(db, "schema/reports/func_symbols.sql");
}

int rf_arg(sqlite3 *db, const char *key, int64_t value)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO temp.report_args VALUES (?, ?)",
				    -1, &st, NULL);

	if (rc != SQLITE_OK) {
		fprintf(stderr, "ftana: %s\n", sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, value);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

bool rf_has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	bool found = false;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE name = ?1 UNION ALL "
			       "SELECT 1 FROM sqlite_temp_master WHERE name = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

bool rf_meta_int(sqlite3 *db, const char *key, int64_t *value)
{
	sqlite3_stmt *st;
	bool found = false;

	if (!rf_has_table(db, "meta") ||
	    sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(st, 0);
		char *end;

		if (text && *text) {
			long long v = strtoll(text, &end, 0);
			if (*end == '\0') {
				*value = v;
				found = true;
			}
		}
	}
	sqlite3_finalize(st);
	return found;
}

int rf_print(sqlite3 *db, const char *sql, FILE *out)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "ftana: %s\n", sqlite3_errmsg(db));
		return -1;
	}
	rc = ftana_print_rows(st, OUT_TEXT, out);
	sqlite3_finalize(st);
	return rc;
}

int rf_missing(const char *report, const char *table, const char *hint)
{
	fprintf(stderr, "ftana report %s: this capture has no %s events (%s)\n",
		report, table, hint);
	return FTANA_EXIT_ERROR;
}
