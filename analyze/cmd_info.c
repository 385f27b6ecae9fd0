// SPDX-License-Identifier: MIT
/* cmd_info.c - `ftana info FILE...` (several: one --rotate series, as one capture): host, kernel, clock, duration, CPUs, events per
 * type, losses per CPU, sizes. The figures come from schema/info.sql's views. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cmd.h"
#include "common/msg.h"
#include "common/text_escape.h"
#include "import/dbcache.h"
#include "reports/report.h"
#include "store/db.h"

static const char usage_text[] =
	"usage: ftana info FILE...\n"
	"(a ring's head finds its segments; several FILEs: the files of one ftrec --rotate\n"
	"series, as one capture, with each file's losses)\n"
	"What the capture holds: host, kernel, clock, start time and duration, CPUs, how the\n"
	"recording ended, events per type, and losses per CPU (pages the kernel flagged, its\n"
	"ring-buffer counters over the recording).\n";

static int print_query(sqlite3 *db, const char *title, const char *sql)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		msg_error("%s", sqlite3_errmsg(db));
		return -1;
	}
	printf("\n%s\n", title);
	rc = print_rows(st, OUT_TEXT, stdout);
	sqlite3_finalize(st);
	return rc;
}

static int summary(sqlite3 *db)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT key, value FROM info_summary WHERE value IS NOT NULL"
			       " ORDER BY ord", -1, &st, NULL) != SQLITE_OK) {
		msg_error("%s", sqlite3_errmsg(db));
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		/* host names, kernel versions and the like come from the file: escaped */
		char *key = text_escaped((const char *)sqlite3_column_text(st, 0));

		printf("%-10s ", key ? key : "?");
		text_put(stdout, (const char *)sqlite3_column_text(st, 1), sqlite3_column_bytes(st, 1));
		putchar('\n');
		free(key);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* A disk ring or joined series (schema/info_segments.sql): trimmed, gaps, each file's losses. */
static int set_lines(sqlite3 *db)
{
	sqlite3_stmt *st;
	int rc;

	if (db_exec_file(db, "schema/info_segments.sql") < 0)
		return -1;
	if (sqlite3_prepare_v2(db, "SELECT key, value FROM info_set WHERE value IS NOT NULL ORDER BY ord",
			       -1, &st, NULL) != SQLITE_OK) {
		msg_error("%s", sqlite3_errmsg(db));
		return -1;
	}
	bool any = false;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!any)
			putchar('\n');
		any = true;
		printf("%-10s ", (const char *)sqlite3_column_text(st, 0));
		text_put(stdout, (const char *)sqlite3_column_text(st, 1), sqlite3_column_bytes(st, 1));
		putchar('\n');
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return -1;
	return any ? print_query(db, "files of the capture (losses their pages flag):",
				 "SELECT * FROM info_set_files") : 0;
}

int cmd_info(int argc, char **argv)
{
	bool damaged = false;
	sqlite3 *db;
	int rc;

	if (cmd_wants_help(argc, argv) || argc < 2)
		return cmd_usage(usage_text, cmd_wants_help(argc, argv));
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1]) {
			msg_error("unknown option '%s' (see 'ftana info --help')", argv[i]);
			return CMD_EXIT_ERROR;
		}
	db = dbcache_summary((const char *const *)argv + 1, (size_t)argc - 1, &damaged);
	if (!db)
		return damaged ? CMD_EXIT_DAMAGED : CMD_EXIT_ERROR;
	rc = db_exec_file(db, "schema/info.sql");
	if (!rc)
		rc = summary(db);
	if (!rc)
		rc = print_query(db, "events per type:",
				 "SELECT type, system, count FROM info_event_counts");
	if (!rc)
		rc = print_query(db, "losses per CPU (pages flagged by the kernel; its counters over the recording):",
				 "SELECT * FROM info_losses");
	if (!rc)
		rc = set_lines(db);
	sqlite3_close(db);
	if (rc < 0)
		return CMD_EXIT_ERROR;
	return damaged ? CMD_EXIT_DAMAGED : CMD_EXIT_OK;
}
