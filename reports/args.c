/* SPDX-License-Identifier: MIT */
/* args.c - a report's options for its SQL (args.h). */
#include <stddef.h>

#include "reports/args.h"
#include "store/db.h"

int args_setup(sqlite3 *db)
{
	return db_exec_file(db, "schema/reports/func_symbols.sql");
}

/* KEY's value: text when TEXT is given, else VALUE. */
static int set(sqlite3 *db, const char *key, int64_t value, const char *text)
{
	sqlite3_stmt *st = db_prepare(db, "INSERT OR REPLACE INTO temp.report_args VALUES (?, ?)");
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (text)
		sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(st, 2, value);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_step_error(db);
}

int args_set(sqlite3 *db, const char *key, int64_t value)
{
	return set(db, key, value, NULL);
}

int args_set_text(sqlite3 *db, const char *key, const char *text)
{
	return text ? set(db, key, 0, text) : 0;
}
