/* SPDX-License-Identifier: MIT */
/*
 * report_stacks.c - `ftana report stacks FILE [--event E] [--folded]`: the kernel
 * stacks recorded with `ftrec ... -s`, identical ones counted together, most frequent
 * first; --folded prints "root;...;leaf count" lines for FlameGraph and speedscope.
 * The aggregation is schema/reports/stacks.sql.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/ftana.h"
#include "reports/report_func.h"
#include "reports/report_front.h"
#include "reports/report_util.h"
#include "analyze/text_escape.h"

/*
 * A UNION ALL over the event tables to count, each as "SELECT id, ts, stack_id FROM t":
 * the one --event names, or every table with a stack_id column. NULL with a message
 * if there is none.
 */
static char *events_sql(sqlite3 *db, const char *event)
{
	char *table = event ? ru_event_table(db, "stacks", event) : NULL;
	sqlite3_stmt *st = NULL;
	char *sql = NULL;

	if (event && !table)
		return NULL;
	st = ru_prepare(db, "stacks",
		"SELECT m.name FROM sqlite_master m WHERE m.type = 'table' "
		"AND (SELECT count(*) FROM pragma_table_info(m.name) c "
		"     WHERE c.name IN ('id', 'ts', 'stack_id')) = 3 "
		"AND (?1 IS NULL OR m.name = ?1) ORDER BY m.name");
	if (st && table)
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		char *more = sqlite3_mprintf("%s%sSELECT id, ts, stack_id FROM \"%w\"",
					     sql ? sql : "", sql ? " UNION ALL " : "",
					     sqlite3_column_text(st, 0));
		sqlite3_free(sql);
		sql = more;
	}
	sqlite3_finalize(st);
	free(table);
	if (!sql)
		fprintf(stderr, "ftana report stacks: this capture has no events with a "
			"stack_id column (see 'ftana info FILE')\n");
	return sql;
}

/* Leaf first, one indented frame a line, then the count: bcc stackcount's layout. */
static int stack_row(sqlite3_stmt *st, void *ctx)
{
	FILE *out = ctx;
	/* frames are symbol names from the capture's kallsyms: escaped */
	char *folded = text_escaped((const char *)sqlite3_column_text(st, 0));
	long long count = sqlite3_column_int64(st, 1), total = sqlite3_column_int64(st, 2);

	if (!folded)
		return -1;
	fputc('\n', out);
	for (char *semi; (semi = strrchr(folded, ';')); *semi = '\0')
		fprintf(out, "  %s\n", semi + 1);
	fprintf(out, "  %s\n    %lld (%.1f%%)\n", folded, count, 100.0 * count / total);
	free(folded);
	return 0;
}

static int header_row(sqlite3_stmt *st, void *ctx)
{
	if (sqlite3_column_int64(st, 0) == 0)
		fprintf(ctx, "no events with a kernel stack (record with -s)\n");
	else
		fprintf(ctx, "%lld events with a kernel stack, %lld distinct stacks\n",
			(long long)sqlite3_column_int64(st, 0),
			(long long)sqlite3_column_int64(st, 1));
	return 0;
}

static int folded_row(sqlite3_stmt *st, void *ctx)
{
	/* FlameGraph reads one stack a line: a control character must not split or hide one */
	text_fputs(ctx, (const char *)sqlite3_column_text(st, 0));
	fprintf(ctx, " %lld\n", (long long)sqlite3_column_int64(st, 1));
	return 0;
}

int report_stacks(sqlite3 *db, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "folded", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *event = NULL;
	bool folded = false;
	int c, rc = -1;

	optind = 0;
	while ((c = getopt_long(argc, argv, "e:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': event = optarg; break;
		case 'F': folded = true; break;
		case 'h':
			printf("usage: ftana report stacks FILE [--event [SYSTEM:]EVENT] [--folded]\n");
			return FTANA_EXIT_OK;
		default: return FTANA_EXIT_ERROR;
		}
	}
	if (ru_extra_args("stacks", argc, argv))
		return FTANA_EXIT_ERROR;
	if (!rf_has_table(db, "stacks"))
		return rf_missing("stacks", "stacks", "record with -s");

	char *events = events_sql(db, event);
	if (!events)
		return FTANA_EXIT_ERROR;
	char *range = sqlite3_mprintf("SELECT min(ts), max(ts) FROM (%s)", events);
	char *refs = sqlite3_mprintf("DROP TABLE IF EXISTS temp.stack_refs; "
				     "CREATE TEMP TABLE stack_refs AS SELECT stack_id FROM (%s) "
				     "WHERE stack_id IS NOT NULL", events);
	/* Folded output is for other programs: the warning goes to stderr then. */
	if (!ru_warn_lost(db, range, folded ? stderr : stdout) &&
	    !ru_exec(db, "stacks", refs) &&
	    !ftana_exec_sql_file(db, "schema/reports/stacks.sql"))
		rc = folded ? ru_each_row(db, "stacks", "SELECT folded, count FROM stack_counts "
					  "ORDER BY count DESC, folded", 0,
					  folded_row, stdout)
			    : ru_each_row(db, "stacks", "SELECT coalesce(sum(count), 0), count(*) "
					  "FROM stack_counts", 0, header_row, stdout) ||
			      ru_each_row(db, "stacks", "SELECT folded, count, sum(count) OVER () "
					  "FROM stack_counts ORDER BY count DESC, folded", 0,
					  stack_row, stdout);
	sqlite3_free(range);
	sqlite3_free(refs);
	sqlite3_free(events);
	return rc ? FTANA_EXIT_ERROR : FTANA_EXIT_OK;
}

/* TRANSITION: not yet on the report front end (report_front.h). */
const struct report_def report_stacks_def = {
	.name = "stacks",
	.summary = "kernel stacks of an event, most frequent first, or folded",
	.legacy = report_stacks,
};
