/* SPDX-License-Identifier: MIT */
/*
 * report_funclatency.c - `ftana report funclatency -f FUNC`: the durations of one kernel
 * function as a log2 histogram or a summary (bcc funclatency), from a function_graph
 * capture (ftrec funcgraph / funcslower: one duration per call, the `calls` view; a
 * return carries its call's duration, so funcslower's returns alone are enough), or
 * from the function profiler's totals (ftrec funccount --profile: count and mean only).
 * SQL: schema/reports/funclatency_report.sql, then sched_hist.sql as runqlat's;
 * funclatency_profile.sql for the profiler.
 */
#include <stdbool.h>

#include "reports/args.h"
#include "reports/lost.h"
#include "reports/report.h"
#include "reports/sched_common.h"
#include "reports/views.h"
#include "store/db.h"

struct funclat_opts {
	const char *func;
	enum sched_by by;
	bool summary;
};

enum { OPT_FUNC, OPT_BY, OPT_SUMMARY };

static const struct report_option options[] = {
	[OPT_FUNC] = { "func", 'f', "FUNC", "the kernel function (its exact name; required)" },
	[OPT_BY] = { "by", 0, "GROUP", SCHED_BY_HELP },
	[OPT_SUMMARY] = { "summary", 0, NULL, "a table (count, total, mean, percentiles, max) instead\n"
			  "of the histogram" },
	{ 0 }
};

enum source { FROM_CALLS, FROM_PROFILE };

static int option(struct report_ctx *ctx, int index, const char *arg)
{
	struct funclat_opts *o = ctx->opts;

	switch (index) {
	case OPT_FUNC: o->func = arg; return 0;
	case OPT_BY: return sched_parse_by(ctx, arg, &o->by, false);
	default: o->summary = true; return 0;
	}
}

static int check(struct report_ctx *ctx)
{
	const struct funclat_opts *o = ctx->opts;

	if (!o->func || !*o->func)
		return msg_error("which function? give -f FUNC");
	return 0;
}

/* temp.funclat_func: the name, bound (it is the user's text). */
static int set_func(struct report_ctx *ctx, const char *func)
{
	sqlite3_stmt *st;

	if (db_exec(ctx->db, "DROP TABLE IF EXISTS temp.funclat_func;"
		    "CREATE TEMP TABLE funclat_func(func TEXT)") ||
	    !(st = db_prepare(ctx->db, "INSERT INTO temp.funclat_func VALUES (?)")))
		return -1;
	sqlite3_bind_text(st, 1, func, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : msg_error("%s", sqlite3_errmsg(ctx->db));

	sqlite3_finalize(st);
	return rc;
}

static int64_t count_of(struct report_ctx *ctx, const char *sql)
{
	sqlite3_stmt *st = db_prepare(ctx->db, sql);
	int64_t n = -1;

	if (st && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Which data the capture has: function_graph calls first, else the profiler's times. */
static int pick_source(struct report_ctx *ctx, enum source *src)
{
	sqlite3 *db = ctx->db;

	/* a return carries its call's duration (calltime, rettime): returns alone, as
	 * funcslower records them, give a duration per call (a call without entry) */
	if (db_has_table(db, "funcgraph_exit")) {
		*src = FROM_CALLS;
		if (lost_warn(ctx->db, NULL, &ctx->slice) || funcgraph_views(db))
			return -1;
		if (!db_has_table(db, "funcgraph_entry"))
			msg_warn("this capture has function_graph returns only (ftrec funcslower: "
				 "calls faster than its threshold were not recorded): the durations "
				 "are those of the slow calls, not of every call");
		return 0;
	}
	if (db_has_table(db, "function_profile") && db_has_table(db, "profile_rounds") &&
	    count_of(ctx, "SELECT count(*) FROM function_profile WHERE time_ns IS NOT NULL") > 0) {
		*src = FROM_PROFILE;
		if (slice_active(&ctx->slice) &&
		    (ctx->slice.pid >= 0 || ctx->slice.tid >= 0 || ctx->slice.comm_re))
			return msg_error("-p/-L/-n: the profiler counts per CPU, not per task "
					    "(a function_graph capture has tasks: ftrec funcgraph)");
		return 0;
	}
	front_missing("funcgraph_exit",
		   "record with 'ftrec funcgraph FUNC' or 'ftrec funcslower FUNC 0', or the "
		   "profiler's times with 'ftrec funccount --profile' on a kernel with function_graph");
	return -1;
}

static int run_profile(struct report_ctx *ctx)
{
	msg_warn("the function profiler keeps totals, not each call's duration: "
		    "count and mean only (record with 'ftrec funcgraph' for the histogram)");
	return doc_table(ctx, "summary",
		"SELECT (SELECT func FROM temp.funclat_func) AS func, sum(calls) AS count, "
		"sum(time_ns) / 1e6 AS total_ms, sum(time_ns) / 1e3 / nullif(sum(calls), 0) AS avg_us "
		"FROM funclat_profile");
}

static int run(struct report_ctx *ctx)
{
	const struct funclat_opts *o = ctx->opts;
	enum source src;

	if (pick_source(ctx, &src) || set_func(ctx, o->func) ||
	    (src == FROM_CALLS ? sched_select(ctx, o->by, "schema/reports/funclatency_report.sql") :
	     args_setup(ctx->db) || db_exec_file(ctx->db, "schema/reports/funclatency_profile.sql")))
		return -1;
	int64_t known = count_of(ctx, src == FROM_CALLS ?
		"SELECT count(*) FROM calls WHERE func = (SELECT func FROM temp.funclat_func)" :
		"SELECT count(*) FROM function_profile WHERE func = (SELECT func FROM temp.funclat_func)");

	if (known < 0)
		return -1;
	if (!known) {
		msg_error("no calls of '%s' in this capture (the functions it has: "
			     "ftana report %s FILE)", o->func, src == FROM_CALLS ? "funcgraph" : "funccount");
		return -1;
	}
	if (src == FROM_PROFILE)
		return run_profile(ctx) ? -1 : 0;
	if (sched_print_dist(ctx, o->by, o->summary, "usecs") ||
	    sched_note_status_rows(ctx, "SELECT CASE WHEN flags & 2 THEN 'no return recorded' "
				"ELSE 'ok' END, count(*) FROM calls "
				"WHERE func = (SELECT func FROM temp.funclat_func) GROUP BY 1", "calls"))
		return -1;
	return 0;
}

const struct report_def report_funclatency_def = {
	.name = "funclatency",
	.summary = "durations of one kernel function, log2 histogram (bcc funclatency)",
	.options = options,
	.opts_size = sizeof(struct funclat_opts),
	.option = option,
	.check = check,
	.run = run,
	.details =
	"from a function_graph capture (ftrec funcgraph, funcslower): every call of FUNC whose\n"
	"return was recorded, its duration the kernel's own (rettime - calltime); a call\n"
	"belongs to the slice by its entry (time, CPU, task), or its return when the entry\n"
	"was not recorded. A funcslower capture holds returns only, of the calls at least as\n"
	"slow as its threshold: their durations, with a warning that faster calls are not\n"
	"there. From the function profiler's times (ftrec funccount --profile)\n"
	"when there are no function_graph events: count, total and mean only, sliced by\n"
	"round time and CPU (no task filters).\n"
	"\n"
	"columns: histogram (CSV/JSON): [tid comm | pid comm | comm], low_us, high_us\n"
	"  (low_us <= duration in whole us <= high_us), count; --summary: [group], count,\n"
	"  total_ms, avg_us, p50_us, p90_us, p99_us (nearest rank), max_us; from the\n"
	"  profiler: func, count, total_ms, avg_us.\n"
	"SQL: `ftana sql FILE 'select * from calls'` (docs/SQL.md).\n",
	.views = &views_calls,
	.needs = (const char *const[]){ "ftrace:funcgraph_entry", "ftrace:funcgraph_exit", NULL },
};
