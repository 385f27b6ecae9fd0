/* SPDX-License-Identifier: MIT */
/*
 * report_funccount.c - `ftana report funccount [-i SECS] [-t TOP] [-T] [--totals]`: calls per
 * kernel function within the slice, per interval (largest last, as perf-tools
 * funccount printed them), then totals with the mean rate per second.
 * Counts come from `function` events (ftrec funccount: the slice is each call's own
 * ts/cpu/pid), or from the rounds of the kernel's function profiler (ftrec funccount
 * --profile: no event per call, so a time window maps to whole rounds, --cpu to the
 * profiler's per-CPU counts, and task filters are refused).
 * SQL: schema/reports/funccount.sql or funccount_rounds.sql (views for `ftana sql`),
 * funccount_report.sql, then funccount_events.sql or funccount_profile.sql.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reports/args.h"
#include "reports/lost.h"
#include "reports/report.h"
#include "reports/views.h"
#include "store/db.h"

struct funccount_opts {
	double interval_s, top;
	bool totals_only;
};

enum { OPT_INTERVAL, OPT_TOP, OPT_TOTALS, OPT_TIMESTAMPS };

static const struct report_option options[] = {
	[OPT_INTERVAL] = { "interval", 'i', "SECS", "counts per interval of SECS too (table \"intervals\")" },
	[OPT_TOP]      = { "top", 't', "TOP", "only the TOP most called functions (per interval and in total)" },
	[OPT_TOTALS]   = { "totals", 0, NULL, "totals only: no per-interval tables (with -i, CSV gives\n"
			   "the intervals unless --totals)" },
	[OPT_TIMESTAMPS] = { NULL, 'T', NULL, "each interval's times as UTC wall-clock time (perf-tools'\n"
			     "funccount -T: a timestamp per interval); the same as --wall" },
	{ 0 }
};

static int option(struct report_ctx *ctx, int index, const char *arg)
{
	struct funccount_opts *o = ctx->opts;

	switch (index) {
	case OPT_INTERVAL:
		if (front_number("-i", arg, 0, &o->interval_s))
			return -1;
		/* in whole ns, and interval ends that stay inside int64 ns */
		if (o->interval_s > 1e8 || (o->interval_s > 0 && o->interval_s < 1e-9))
			return msg_error("bad -i '%s' (seconds from 0.000000001 to 100000000; "
					    "0: no intervals)", arg);
		return 0;
	case OPT_TOP:
		if (front_number("-t", arg, 0, &o->top))
			return -1;
		if (o->top != (double)(int64_t)o->top)
			return msg_error("bad -t '%s' (a whole number of functions)", arg);
		return 0;
	case OPT_TOTALS: o->totals_only = true; return 0;
	case OPT_TIMESTAMPS: ctx->slice.wall = true; return 0;
	}
	return 0;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/*
 * The time the function events cover, within the slice's window: the time events
 * could be recorded (slice.h from_ns/to_ns: tracing on to the stop, so a quiet function
 * still counts over the whole -d, and the set-up before tracing on is not in it).
 */
static void events_span(struct report_ctx *ctx, int64_t *t0, int64_t *len)
{
	const struct slice *s = &ctx->slice;

	*t0 = max64(s->from_ns, s->since_ns);
	*len = max64(0, min64(s->to_ns, s->until_ns) - *t0);
}

/* The profiler's rounds whose calls are in the window: their span. */
static int rounds_span(struct report_ctx *ctx, int64_t *t0, int64_t *len)
{
	sqlite3_stmt *st = db_prepare(ctx->db,
		"WITH r AS (SELECT coalesce(lag(mono_ns) OVER (ORDER BY round), mono_ns) AS start_ns, "
		"                  mono_ns AS end_ns FROM profile_rounds) "
		"SELECT min(start_ns), max(end_ns), count(*) FROM r WHERE start_ns >= ?1 AND start_ns < ?2");

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, ctx->slice.since_ns);
	sqlite3_bind_int64(st, 2, ctx->slice.until_ns);
	*t0 = *len = 0;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*t0 = max64(sqlite3_column_int64(st, 0), ctx->slice.since_ns);
		*len = sqlite3_column_int64(st, 1) - sqlite3_column_int64(st, 0);
		msg_note("counts from the kernel's function profiler (all tasks): %d rounds",
			    sqlite3_column_int(st, 2));
	}
	sqlite3_finalize(st);
	return 0;
}

/* Counts from the profiler's rounds: whole rounds in the window, --cpu per CPU. */
static int from_profile(struct report_ctx *ctx, int64_t *t0, int64_t *len)
{
	const struct funccount_opts *o = ctx->opts;
	const struct slice *s = &ctx->slice;
	int64_t every = 0;

	if (s->pid >= 0 || s->tid >= 0 || s->comm_re) {
		msg_error("-p/-L/-n do not apply: this capture's counts come from the "
			     "kernel's function profiler, which counts every task together");
		return -1;
	}
	if (db_meta_int(ctx->db, "snapshot_interval_ns", &every) && every > 0 &&
	    o->interval_s > 0 && o->interval_s * 1e9 < every)
		msg_warn("-i %g is shorter than the recording's %.3f s between rounds: "
			    "some intervals stay empty", o->interval_s, every / 1e9);
	if (s->since_arg || s->until_arg)
		msg_note("the profiler counts per round: the window holds the calls "
			    "counted after each round taken inside it");
	return db_exec_file(ctx->db, "schema/reports/funccount_rounds.sql") ||
	       rounds_span(ctx, t0, len) ? -1 : 0;
}

/* The rows of one interval's table (text: one table per interval). */
static int print_intervals(struct report_ctx *ctx)
{
	const char *sfx = slice_ts_suffix(&ctx->slice);
	char *sql = sqlite3_mprintf(
		"SELECT interval + 1 AS interval, report_ts(start_ns) AS start%s, "
		"report_ts(end_ns) AS end%s, func, count FROM fc_interval_rows", sfx, sfx);
	int rc = -1;

	if (!sql)
		return -1;
	if (ctx->fmt != OUT_TEXT) {
		rc = doc_table(ctx, "intervals", sql);
		sqlite3_free(sql);
		return rc;
	}
	/* Text: a heading and a func/count table per interval, as perf-tools printed them. */
	sqlite3_stmt *iv = db_prepare(ctx->db,
		"SELECT DISTINCT interval, report_ts(start_ns), report_ts(end_ns) FROM fc_interval_rows "
		"ORDER BY interval");
	sqlite3_stmt *rows = db_prepare(ctx->db,
		"SELECT func, count FROM fc_interval_rows WHERE interval = ?");

	sqlite3_free(sql);
	rc = iv && rows ? 0 : -1;
	while (!rc && sqlite3_step(iv) == SQLITE_ROW) {
		printf("%sinterval %lld (", ctx->tables ? "\n" : "", (long long)sqlite3_column_int64(iv, 0) + 1);
		if (sqlite3_column_type(iv, 1) == SQLITE_FLOAT) /* trace-clock seconds */
			printf("%.3f - %.3f s):\n", sqlite3_column_double(iv, 1),
			       sqlite3_column_double(iv, 2));
		else /* --wall */
			printf("%s - %s):\n", sqlite3_column_text(iv, 1), sqlite3_column_text(iv, 2));
		sqlite3_reset(rows);
		sqlite3_bind_int64(rows, 1, sqlite3_column_int64(iv, 0));
		ctx->tables = 0; /* the heading already separates the tables */
		rc = doc_table_stmt(ctx, "intervals", rows);
	}
	sqlite3_finalize(iv);
	sqlite3_finalize(rows);
	return rc;
}

static int run(struct report_ctx *ctx)
{
	const struct funccount_opts *o = ctx->opts;
	sqlite3 *db = ctx->db;
	int64_t profiled = 0, t0 = 0, len = 0;
	/* The recording says which mode it used (INFO function_profile, `ftrec funccount --profile`). */
	bool profile = db_meta_int(db, "function_profile", &profiled) && profiled == 1;
	bool intervals = o->interval_s > 0 && !o->totals_only;

	if (!profile && !db_has_table(db, "function"))
		return front_missing("function", "record with 'ftrec funccount'");
	if (args_setup(db) || db_exec_file(db, "schema/reports/funccount_report.sql"))
		return -1;
	if (profile) {
		if (from_profile(ctx, &t0, &len))
			return -1;
	} else {
		events_span(ctx, &t0, &len);
		if (lost_warn(ctx->db, "SELECT min(ts), max(ts) FROM function", &ctx->slice))
			return -1;
	}
	if (args_set(db, "interval_ns", (int64_t)(o->interval_s * 1e9)) ||
	    args_set(db, "top", (int64_t)o->top) || args_set(db, "t0", t0) ||
	    args_set(db, "duration_ns", len) ||
	    db_exec_file(db, profile ? "schema/reports/funccount_profile.sql" :
					      "schema/reports/funccount_events.sql"))
		return -1;
	if (intervals && print_intervals(ctx))
		return -1;
	if (intervals && ctx->fmt == OUT_CSV)
		return 0; /* CSV holds one table: the intervals (--totals for the totals) */
	if (intervals && ctx->fmt == OUT_TEXT)
		printf("\ntotal over %.3f s:\n", len / 1e9);
	if (intervals)
		ctx->tables = ctx->fmt == OUT_JSON ? ctx->tables : 0;
	return doc_table(ctx, "rows", "SELECT func, count, rate_per_s FROM fc_totals") ?
	       -1 : 0;
}

int funccount_views(sqlite3 *db)
{
	int64_t profiled = 0;

	if (db_meta_int(db, "function_profile", &profiled) && profiled == 1)
		return db_exec_file(db, "schema/reports/funccount_rounds.sql");
	if (db_has_table(db, "function"))
		return db_exec_file(db, "schema/reports/funccount.sql");
	return 0;
}

const struct report_views views_func_counts = { "func_counts", funccount_views, false };

const struct report_def report_funccount_def = {
	.name = "funccount",
	.summary = "calls per kernel function, in total and per interval (funccount)",
	.options = options,
	.opts_size = sizeof(struct funccount_opts),
	.option = option,
	.run = run,
	.details = "columns: rows (totals, largest last): func, count, rate_per_s (count / the\n"
		   "seconds the counts cover: the recording within --since/--until); intervals (-i):\n"
		   "interval (1 = first), start_s, end_s (trace clock, s; start_wall/end_wall with\n"
		   "--wall), func, count. An event counts by its own time, CPU and task. From a\n"
		   "'ftrec funccount --profile' capture (no event per call): --since/--until take\n"
		   "whole rounds (the calls counted after a round inside the window), --cpu the\n"
		   "profiler's per-CPU counts, and -p/-L/-n are refused.\n",
	.views = &views_func_counts,
	.needs = (const char *const[]){ "ftrace:function", NULL },
};
