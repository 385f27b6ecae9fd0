/* SPDX-License-Identifier: MIT */
/*
 * report_funcslower.c - `ftana report funcslower`: one row per slow call (CPU,
 * duration, function; -t adds the time, -P the process, as perf-tools funcslower's
 * options did), with --graph the kernel's function_graph return lines as perf-tools
 * funcslower prints them, with --hist a log2 histogram of the durations, or with
 * --heatmap a heat map of them over time (reports/heatmap.c).
 * SQL: schema/reports/funcslower.sql (the slow_calls view, also for `ftana sql`).
 */
#include <stdio.h>

#include "common/text_escape.h"
#include "reports/args.h"
#include "reports/funcgraph_print.h"
#include "reports/heatmap.h"
#include "reports/lost.h"
#include "reports/report.h"
#include "reports/views.h"
#include "store/db.h"

struct funcslower_opts {
	bool times, procs, hist, graph, heatmap;
	const char *out, *col; /* --heatmap's -o and --col, NULL: not given */
};

enum { OPT_TIMES, OPT_PROCS, OPT_HIST, OPT_GRAPH, OPT_HEATMAP, OPT_OUT, OPT_COL };

static const struct report_option options[] = {
	[OPT_TIMES] = { NULL, 't', NULL, "text: add the time column (ts_s; ts_wall with --wall)" },
	[OPT_PROCS] = { NULL, 'P', NULL, "text: add the process columns (comm, pid)" },
	[OPT_HIST]  = { "hist", 0, NULL, "a log2 histogram of the durations instead of the calls" },
	[OPT_GRAPH] = { "graph", 0, NULL, "text: the kernel's function_graph return lines, as\n"
			"perf-tools funcslower prints them (-t, -P, -H apply)" },
	[OPT_HEATMAP] = { "heatmap", 0, NULL, "a duration heat map (SVG) instead of the calls: x the\n"
			  "return's time in columns of --col, y the duration in log2\n"
			  "buckets, colour the calls in the cell; row totals, legend" },
	[OPT_OUT] = HEATMAP_OPTION_OUT,
	[OPT_COL] = HEATMAP_OPTION_COL,
	{ 0 }
};

static int option(struct report_ctx *ctx, int index, const char *arg)
{
	struct funcslower_opts *o = ctx->opts;

	switch (index) {
	case OPT_TIMES: o->times = true; break;
	case OPT_PROCS: o->procs = true; break;
	case OPT_HIST: o->hist = true; break;
	case OPT_GRAPH: o->graph = true; break;
	case OPT_HEATMAP: o->heatmap = true; break;
	case OPT_OUT: o->out = arg; break;
	case OPT_COL: o->col = arg; break;
	}
	return 0;
}

static int check(struct report_ctx *ctx)
{
	const struct funcslower_opts *o = ctx->opts;

	if (o->graph && o->hist)
		return msg_error("--graph and --hist are different views: give one");
	return heatmap_check(ctx, o->heatmap, o->hist ? "--hist" : o->graph ? "--graph" : NULL,
			     o->out, o->col);
}

/* --heatmap: the selected calls by return time and duration. */
static int print_heatmap(struct report_ctx *ctx, const struct funcslower_opts *o)
{
	struct heatmap *hm = heatmap_new();
	sqlite3_stmt *st = NULL;
	int step = SQLITE_NOMEM, rc = -1;

	if (sqlite3_prepare_v2(ctx->db, "SELECT ts, dur_ns FROM funcslower_sel", -1, &st, NULL) != SQLITE_OK)
		step = SQLITE_ERROR;
	while (hm && st && (step = sqlite3_step(st)) == SQLITE_ROW)
		if (heatmap_add(hm, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1))) {
			step = SQLITE_NOMEM;
			break;
		}
	sqlite3_finalize(st);
	if (step == SQLITE_DONE) {
		struct heatmap_style style = { .title = "Slow function calls", .what = "calls",
					       .y_name = "duration", .x_name = "return" };

		rc = heatmap_report(ctx, hm, &style, o->col, o->out);
	} else {
		msg_error("%s", step == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(ctx->db));
	}
	heatmap_free(hm);
	return rc;
}

/*
 * perf-tools funcslower: function_graph under tracing_thresh records only returns,
 * which the kernel prints as "} /" "* func *" "/" lines at the call's depth; with -P
 * perf-tools drops the context-switch markers (the task is on every line).
 */
static int print_graph(struct report_ctx *ctx, const struct funcslower_opts *o)
{
	struct fg_style style = { .abstime = o->times, .proc = o->procs, .duration = true, .cpu_width = 1 };
	struct fg_switches sw = { 0 };
	int64_t nr_cpus = 0;
	sqlite3_stmt *st;
	bool deep = false;
	int step;

	if (!db_meta_int(ctx->db, "nr_cpus", &nr_cpus) &&
	    sqlite3_prepare_v2(ctx->db, "SELECT max(cpu) + 1 FROM funcslower_sel", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			nr_cpus = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	for (int64_t n = nr_cpus - 1; n >= 10; n /= 10)
		style.cpu_width++;
	if (sqlite3_prepare_v2(ctx->db, ctx->slice.wall ?
			       "SELECT ts, cpu, comm, pid, dur_ns, func, depth, report_ts(ts) "
			       "FROM funcslower_sel ORDER BY id" :
			       "SELECT ts, cpu, comm, pid, dur_ns, func, depth, NULL "
			       "FROM funcslower_sel ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return msg_error("%s", sqlite3_errmsg(ctx->db));
	if (ctx->header)
		fg_header(stdout, &style);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int cpu = sqlite3_column_int(st, 1);
		const char *comm = (const char *)sqlite3_column_text(st, 2);
		int64_t pid = sqlite3_column_int64(st, 3);

		if (!o->procs && fg_switch(stdout, &sw, &style, cpu, pid, comm)) {
			step = SQLITE_NOMEM;
			break;
		}
		fg_prologue(stdout, &style, sqlite3_column_int64(st, 0),
			    (const char *)sqlite3_column_text(st, 7), cpu, comm, pid);
		fg_duration(stdout, &style, sqlite3_column_int64(st, 4));
		deep |= fg_indent(stdout, sqlite3_column_int64(st, 6));
		fputs("} /* ", stdout);
		text_fputs(stdout, (const char *)sqlite3_column_text(st, 5));
		fputs(" */\n", stdout);
	}
	sqlite3_finalize(st);
	fg_switches_free(&sw);
	if (step != SQLITE_DONE)
		return msg_error("%s", sqlite3_errmsg(ctx->db));
	fg_indent_done(deep);
	return 0;
}

int funcslower_views(sqlite3 *db)
{
	return args_setup(db) || db_exec_file(db, "schema/reports/funcslower.sql") ? -1 : 0;
}

static int views_slow_calls_build(sqlite3 *db)
{
	return db_has_capture_table(db, "funcgraph_exit") ? funcslower_views(db) : 0;
}

const struct report_views views_slow_calls = { "slow_calls", views_slow_calls_build, false };

static int run(struct report_ctx *ctx)
{
	const struct funcslower_opts *o = ctx->opts;
	bool all = ctx->fmt != OUT_TEXT; /* CSV and JSON carry every column */
	sqlite3 *db = ctx->db;

	if (!db_has_table(db, "funcgraph_exit"))
		return front_missing("funcgraph_exit", "record with 'ftrec funcslower'");
	if (lost_warn(ctx->db, NULL, &ctx->slice) || funcslower_views(db) ||
	    db_exec_file(db, "schema/reports/funcslower_report.sql"))
		return -1;
	if (o->heatmap)
		return print_heatmap(ctx, o) ? -1 : 0;
	if (o->hist)
		return doc_table(ctx, "histogram", "SELECT * FROM funcslower_hist") ?
		       -1 : 0;
	if (o->graph && !all)
		return print_graph(ctx, o) ? -1 : 0;

	bool times = all || o->times, procs = all || o->procs;
	char *sql = sqlite3_mprintf("SELECT %s%s%scpu, %sdur_us, func%s FROM funcslower_sel ORDER BY id",
				    times ? "report_ts(ts) AS ts" : "", times ? slice_ts_suffix(&ctx->slice) : "",
				    times ? ", " : "", procs ? "comm, pid, " : "",
				    all ? ", dur_ns, depth, id" : "");
	int rc = sql ? doc_table(ctx, "rows", sql) : -1;

	sqlite3_free(sql);
	return rc ? -1 : 0;
}

const struct report_def report_funcslower_def = {
	.name = "funcslower",
	.summary = "calls slower than the recording's threshold, as rows, graph lines or a histogram",
	.options = options,
	.opts_size = sizeof(struct funcslower_opts),
	.option = option,
	.check = check,
	.run = run,
	.details = "A call is in the slice by its return event (ts, cpu, pid): tracing_thresh records\n"
		   "no entries.\n"
		   "columns (CSV/JSON carry all of them): ts_s (trace clock, s), cpu, comm, pid,\n"
		   "dur_us (the kernel's own rettime - calltime, us), func, dur_ns, depth, id (the\n"
		   "return event); --hist: low_us, high_us, count (and a bar in text). --graph is a\n"
		   "text view: with --csv/--json it gives the rows.\n"
		   "--heatmap: the #heatmap group carries data-total (calls), data-columns,\n"
		   "data-col-ns; each cell data-n (its calls): the rows of the listing.\n",
	.views = &views_slow_calls,
	.needs = (const char *const[]){ "ftrace:funcgraph_entry", "ftrace:funcgraph_exit", NULL },
};
