/* SPDX-License-Identifier: MIT */
/* args.c - a report's options for its SQL (args.h). */
#include "reports/args.h"
#include "store/db.h"

int args_setup(sqlite3 *db)
{
	return db_exec_file(db, "schema/reports/func_symbols.sql");
}

int args_set(sqlite3 *db, const char *key, int64_t value)
{
	sqlite3_stmt *st = db_prepare(db, "INSERT OR REPLACE INTO temp.report_args VALUES (?, ?)");
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, value);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_step_error(db);
}
