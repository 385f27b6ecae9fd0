/* SPDX-License-Identifier: MIT */
/*
 * report_kprobe.c - `ftana report kprobe [--probe NAME]`: each probe hit as
 * perf-tools kprobe printed it (the kernel's trace line),
 *     COMM-PID [CPU] TIME: NAME: (FUNC+0xOFF) arg=value ...
 * return probes as (CALLER+0xOFF <- FUNC), with the kernel stack below each hit
 * when recorded with -s. SQL: schema/reports/kprobe.sql.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/ftana.h"
#include "reports/report_func.h"
#include "reports/report_front.h"
#include "reports/report_util.h"
#include "analyze/text_escape.h"

static const char usage[] = "usage: ftana report kprobe FILE [--probe NAME]\n";

/* Add the probe's addresses to func_ips so kprobe_sym names them. */
static int resolve_addresses(sqlite3 *db, const char *table, bool is_return)
{
	char *sql = sqlite3_mprintf(is_return ?
		"INSERT OR IGNORE INTO func_ips SELECT __probe_func FROM \"%w\" "
		"UNION SELECT __probe_ret_ip FROM \"%w\"" :
		"INSERT OR IGNORE INTO func_ips SELECT DISTINCT __probe_ip FROM \"%w\"", table, table);
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);

	sqlite3_free(sql);
	return rc == SQLITE_OK ? 0 : -1;
}

/* "col1, col2": the probe's argument columns, and how many. */
static char *argument_columns(sqlite3 *db, const char *table, int *n)
{
	sqlite3_stmt *st;
	char *list = sqlite3_mprintf("%s", "");

	*n = 0;
	if (sqlite3_prepare_v2(db, "SELECT col FROM kprobe_columns WHERE tbl = ?", -1, &st, NULL))
		return list;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		char *l = sqlite3_mprintf("%z, e.\"%w\"", list, sqlite3_column_text(st, 0));
		list = l;
		(*n)++;
	}
	sqlite3_finalize(st);
	return list;
}

static void print_stack(sqlite3_stmt *frames, sqlite3_int64 stack_id)
{
	sqlite3_reset(frames);
	sqlite3_bind_int64(frames, 1, stack_id);
	while (sqlite3_step(frames) == SQLITE_ROW) {
		fputs(" => ", stdout);
		text_fputs(stdout, (const char *)sqlite3_column_text(frames, 0));
		putchar('\n');
	}
}

static int print_probe(sqlite3 *db, const char *table, bool is_return)
{
	sqlite3_stmt *st, *frames = NULL;
	int nargs;

	if (resolve_addresses(db, table, is_return))
		return -1;
	char *args = argument_columns(db, table, &nargs);
	char *sql = sqlite3_mprintf(
		"SELECT coalesce(t.comm, '<...>') || '-' || e.pid, e.cpu, e.ts, e.stack_id, %s%s "
		"FROM \"%w\" e LEFT JOIN tasks t ON t.pid = e.pid ORDER BY e.id",
		is_return ? "(SELECT sym FROM kprobe_sym WHERE ip = e.__probe_ret_ip) || ' <- ' || "
			    "(SELECT name FROM func_ip_names WHERE ip = e.__probe_func)" :
			    "(SELECT sym FROM kprobe_sym WHERE ip = e.__probe_ip)",
		args, table);
	sqlite3_free(args);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "ftana report kprobe: %s\n", sqlite3_errmsg(db));
		sqlite3_free(sql);
		return -1;
	}
	sqlite3_free(sql);
	if (rf_has_table(db, "stacks"))
		sqlite3_prepare_v2(db, "SELECT frame FROM kprobe_stack_frames WHERE stack_id = ?",
				   -1, &frames, NULL);
	while (sqlite3_step(st) == SQLITE_ROW) {
		/* comm, probe, symbol, argument names and values all come from the
		 * capture: every one is escaped */
		char *task = text_escaped((const char *)sqlite3_column_text(st, 0));
		printf("%16s [%03d] %.6f: ", task ? task : "?", sqlite3_column_int(st, 1),
		       sqlite3_column_int64(st, 2) / 1e9);
		free(task);
		text_fputs(stdout, table);
		fputs(": (", stdout);
		text_fputs(stdout, (const char *)sqlite3_column_text(st, 4));
		putchar(')');
		for (int i = 0; i < nargs; i++) {
			int col = 5 + i;
			const char *quote = sqlite3_column_type(st, col) == SQLITE_TEXT ? "\"" : "";

			putchar(' ');
			text_fputs(stdout, sqlite3_column_name(st, col));
			printf("=%s", quote);
			text_fputs(stdout, sqlite3_column_type(st, col) == SQLITE_NULL ? "(fault)" :
					   (const char *)sqlite3_column_text(st, col));
			fputs(quote, stdout);
		}
		putchar('\n');
		if (frames && sqlite3_column_type(st, 3) != SQLITE_NULL)
			print_stack(frames, sqlite3_column_int64(st, 3));
	}
	sqlite3_finalize(st);
	sqlite3_finalize(frames);
	return 0;
}

int report_kprobe(sqlite3 *db, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "probe", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *probe = NULL;
	sqlite3_stmt *st;
	int c, found = 0, rc = 0;

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': probe = optarg; break;
		case 'h': fputs(usage, stdout); return FTANA_EXIT_OK;
		default: fputs(usage, stderr); return FTANA_EXIT_ERROR;
		}
	}
	/* Like every report: say first whether the capture lost events. */
	if (ru_warn_lost(db, "SELECT min(ts), max(ts) FROM events", stdout))
		return FTANA_EXIT_ERROR;
	if (rf_setup(db) || ftana_exec_sql_file(db, "schema/reports/kprobe.sql") ||
	    sqlite3_prepare_v2(db, "SELECT name, is_return FROM kprobe_tables "
			       "WHERE ?1 IS NULL OR name = ?1", -1, &st, NULL) != SQLITE_OK)
		return FTANA_EXIT_ERROR;
	sqlite3_bind_text(st, 1, probe, -1, SQLITE_STATIC);
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		found++;
		rc = print_probe(db, (const char *)sqlite3_column_text(st, 0),
				 sqlite3_column_int(st, 1));
	}
	sqlite3_finalize(st);
	if (!found) {
		if (probe)
			fprintf(stderr, "ftana report kprobe: no probe named '%s' in this capture\n", probe);
		else
			rf_missing("kprobe", "kprobe", "record with 'ftrec kprobe'");
		return FTANA_EXIT_ERROR;
	}
	return rc ? FTANA_EXIT_ERROR : FTANA_EXIT_OK;
}

/* TRANSITION: not yet on the report front end (report_front.h). */
const struct report_def report_kprobe_def = {
	.name = "kprobe",
	.summary = "hits of a dynamic probe with its arguments (kprobe)",
	.legacy = report_kprobe,
};
