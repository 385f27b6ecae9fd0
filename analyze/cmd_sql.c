// SPDX-License-Identifier: MIT
/* cmd_sql.c - `ftana sql FILE 'SELECT ...' [--csv|--json]`: run the statements
 * in order and print the rows of each one that returns columns. */
#include <stdio.h>
#include <string.h>

#include "analyze/ftana.h"
#include "analyze/report_util.h"

static int usage(void)
{
	fprintf(stderr, "usage: ftana sql FILE 'SELECT ...' [--csv|--json]\n");
	return FTANA_EXIT_ERROR;
}

static int run_all(sqlite3 *db, const char *sql, enum out_format fmt)
{
	const char *tail = sql;

	while (tail && *tail) {
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK) {
			fprintf(stderr, "ftana: sql: %s\n", sqlite3_errmsg(db));
			return -1;
		}
		if (!st)
			continue; /* whitespace or a comment */
		int rc = sqlite3_column_count(st) ? ftana_print_rows(st, fmt, stdout)
						  : (sqlite3_step(st) == SQLITE_DONE ? 0 : -1);
		if (rc < 0)
			fprintf(stderr, "ftana: sql: %s\n", sqlite3_errmsg(db));
		sqlite3_finalize(st);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int cmd_sql(int argc, char **argv)
{
	const char *file = NULL, *sql = NULL;
	enum out_format fmt = OUT_TEXT;
	bool damaged = false;
	sqlite3 *db;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--csv"))
			fmt = OUT_CSV;
		else if (!strcmp(argv[i], "--json"))
			fmt = OUT_JSON;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage(), FTANA_EXIT_OK;
		else if (!file)
			file = argv[i];
		else if (!sql)
			sql = argv[i];
		else
			return usage();
	}
	if (!file || !sql)
		return usage();
	db = ftana_open(file, &damaged);
	if (!db)
		return damaged ? FTANA_EXIT_DAMAGED : FTANA_EXIT_ERROR;
	report_sql_views(db); /* `io` and other report views, TEMP: see report_util.h */
	rc = run_all(db, sql, fmt);
	sqlite3_close(db);
	if (rc < 0)
		return FTANA_EXIT_ERROR;
	return damaged ? FTANA_EXIT_DAMAGED : FTANA_EXIT_OK;
}
