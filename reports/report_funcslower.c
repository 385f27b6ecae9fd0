/* SPDX-License-Identifier: MIT */
/*
 * report_funcslower.c - `ftana report funcslower`: one row per slow call (CPU,
 * duration, function; -t adds the time, -P the process, as perf-tools funcslower's
 * options did), or with --hist a log2 histogram of the durations.
 * SQL: schema/reports/funcslower.sql (the slow_calls view, also for `ftana sql`).
 */
#include <stdio.h>

#include "analyze/ftana.h"
#include "reports/report_front.h"
#include "reports/report_func.h"

struct funcslower_opts {
	bool times, procs, hist;
};

enum { OPT_TIMES, OPT_PROCS, OPT_HIST };

static const struct report_option options[] = {
	[OPT_TIMES] = { NULL, 't', NULL, "text: add the time column (ts_s; ts_wall with --wall)" },
	[OPT_PROCS] = { NULL, 'P', NULL, "text: add the process columns (comm, pid)" },
	[OPT_HIST]  = { "hist", 0, NULL, "a log2 histogram of the durations instead of the calls" },
	{ 0 }
};

static int option(struct report_ctx *ctx, int index, const char *arg)
{
	struct funcslower_opts *o = ctx->opts;

	switch (index) {
	case OPT_TIMES: o->times = true; break;
	case OPT_PROCS: o->procs = true; break;
	case OPT_HIST: o->hist = true; break;
	}
	return 0;
}

static int run(struct report_ctx *ctx)
{
	const struct funcslower_opts *o = ctx->opts;
	bool all = ctx->fmt != OUT_TEXT; /* CSV and JSON carry every column */
	sqlite3 *db = ctx->db;

	if (!rf_has_table(db, "funcgraph_exit"))
		return rf_missing("funcslower", "funcgraph_exit", "record with 'ftrec funcslower'");
	if (report_warn_lost(ctx, "SELECT min(ts), max(ts) FROM events") ||
	    rf_setup(db) || ftana_exec_sql_file(db, "schema/reports/funcslower.sql") ||
	    ftana_exec_sql_file(db, "schema/reports/funcslower_report.sql"))
		return FTANA_EXIT_ERROR;
	if (o->hist)
		return report_table(ctx, "histogram", "SELECT * FROM funcslower_hist") ?
		       FTANA_EXIT_ERROR : FTANA_EXIT_OK;

	bool times = all || o->times, procs = all || o->procs;
	char *sql = sqlite3_mprintf("SELECT %s%s%scpu, %sdur_us, func FROM funcslower_sel ORDER BY id",
				    times ? "report_ts(ts) AS ts" : "", times ? report_ts_suffix(ctx) : "",
				    times ? ", " : "", procs ? "comm, pid, " : "");
	int rc = sql ? report_table(ctx, "rows", sql) : -1;

	sqlite3_free(sql);
	return rc ? FTANA_EXIT_ERROR : FTANA_EXIT_OK;
}

const struct report_def report_funcslower_def = {
	.name = "funcslower",
	.summary = "calls slower than the recording's threshold, or their histogram (funcslower)",
	.options = options,
	.opts_size = sizeof(struct funcslower_opts),
	.option = option,
	.run = run,
	.details = "columns (CSV/JSON carry all of them): ts_s (trace clock, s), cpu, comm, pid,\n"
		   "dur_us (the kernel's own rettime - calltime, us), func; --hist: low_us, high_us,\n"
		   "count (and a bar in text)\n",
};
