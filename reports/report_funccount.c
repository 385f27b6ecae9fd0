/* SPDX-License-Identifier: MIT */
/*
 * report_funccount.c - `ftana report funccount [-i SECS] [-t TOP] [-p PID]`: calls
 * per kernel function, per interval (largest last, as perf-tools funccount
 * printed them), then totals and the mean rate per second of recording.
 * Counts come from `function` events (ftrec funccount), or from the rounds of
 * the kernel's function profiler (ftrec funccount --profile); the SQL is
 * schema/reports/funccount.sql with funccount_events.sql or funccount_profile.sql.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/ftana.h"
#include "reports/report_func.h"
#include "reports/report_front.h"
#include "reports/report_util.h"

static const char usage[] = "usage: ftana report funccount FILE [-i SECS] [-t TOP] [-p PID]\n";

/*
 * Where the first interval starts and how long the recording ran: ftrec's own
 * start/stop times in the trace clock when the file has them (a quiet function
 * still counts over the whole -d), else the span of the events.
 */
static void recording_span(sqlite3 *db, int64_t *t0, int64_t *len)
{
	int64_t start, end;

	if (rf_meta_int(db, "start_trace_ns", &start) && rf_meta_int(db, "end_trace_ns", &end) &&
	    end > start) {
		*t0 = start;
		*len = end - start;
		return;
	}
	if (!rf_meta_int(db, "first_ts", t0) || !rf_meta_int(db, "duration_ns", len)) {
		*t0 = 0;
		*len = 0;
	}
}

static int print_intervals(sqlite3 *db, double interval_s)
{
	sqlite3_stmt *iv, *rows;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "SELECT DISTINCT interval FROM fc_counts ORDER BY 1", -1, &iv, NULL) ||
	    sqlite3_prepare_v2(db, "SELECT FUNC, COUNT FROM fc_interval_rows WHERE interval = ?",
			       -1, &rows, NULL)) {
		fprintf(stderr, "ftana report funccount: %s\n", sqlite3_errmsg(db));
		return -1;
	}
	while (!rc && sqlite3_step(iv) == SQLITE_ROW) {
		int64_t n = sqlite3_column_int64(iv, 0);
		printf("\ninterval %" PRId64 " (%.3f - %.3f s):\n", n + 1, n * interval_s,
		       (n + 1) * interval_s);
		sqlite3_reset(rows);
		sqlite3_bind_int64(rows, 1, n);
		rc = ftana_print_rows(rows, OUT_TEXT, stdout);
	}
	sqlite3_finalize(iv);
	sqlite3_finalize(rows);
	return rc;
}

/* Counts from the profiler's rounds: intervals start at round 0, rates over the rounds' span. */
static int from_profile(sqlite3 *db, double interval, int64_t *len)
{
	int64_t every = 0, t0 = 0, t1 = 0;
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT min(mono_ns), max(mono_ns), count(*) FROM profile_rounds",
			       -1, &st, NULL))
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		t0 = sqlite3_column_int64(st, 0);
		t1 = sqlite3_column_int64(st, 1);
	}
	printf("counts from the kernel's function profiler (all tasks): %d rounds",
	       sqlite3_column_int(st, 2));
	sqlite3_finalize(st);
	*len = t1 - t0;
	if (rf_meta_int(db, "snapshot_interval_ns", &every) && every > 0) {
		printf(", every %.3f s", every / 1e9);
		if (interval > 0 && interval * 1e9 < every)
			fprintf(stderr, "ftana report funccount: warning: -i %g is shorter than the recording's %.3f s between rounds: some intervals stay empty\n",
				interval, every / 1e9);
	}
	putchar('\n');
	return ftana_exec_sql_file(db, "schema/reports/funccount_profile.sql");
}

/* Counts from `function` events: one per call. */
static int from_events(sqlite3 *db, double pid, int64_t *len)
{
	int64_t t0 = 0;

	/* Like every report: say first whether the capture lost events. */
	if (ru_warn_lost(db, "SELECT min(ts), max(ts) FROM events", stdout))
		return -1;
	recording_span(db, &t0, len);
	return rf_arg(db, "t0", t0) || (pid >= 0 && rf_arg(db, "pid", (int64_t)pid)) ||
	       ftana_exec_sql_file(db, "schema/reports/funccount_events.sql");
}

int report_funccount(sqlite3 *db, int argc, char **argv)
{
	double interval = 0, top = 0, pid = -1;
	int64_t len = 0;
	int c;

	optind = 0;
	while ((c = getopt(argc, argv, "i:t:p:h")) != -1) {
		switch (c) {
		case 'i': if (!rf_parse_num("funccount", 'i', optarg, &interval)) return FTANA_EXIT_ERROR; break;
		case 't': if (!rf_parse_num("funccount", 't', optarg, &top)) return FTANA_EXIT_ERROR; break;
		case 'p': if (!rf_parse_num("funccount", 'p', optarg, &pid)) return FTANA_EXIT_ERROR; break;
		case 'h': fputs(usage, stdout); return FTANA_EXIT_OK;
		default: fputs(usage, stderr); return FTANA_EXIT_ERROR;
		}
	}
	/* The recording says which mode it used (INFO function_profile, `ftrec funccount --profile`). */
	int64_t profiled = 0;
	bool profile = rf_meta_int(db, "function_profile", &profiled) && profiled == 1;
	if (!profile && !rf_has_table(db, "function"))
		return rf_missing("funccount", "function", "record with 'ftrec funccount'");
	if (profile && pid >= 0) {
		fprintf(stderr, "ftana report funccount: -p does not apply: this capture's counts come from the function profiler, which counts every task\n");
		return FTANA_EXIT_ERROR;
	}
	if (rf_setup(db) || ftana_exec_sql_file(db, "schema/reports/funccount.sql") ||
	    rf_arg(db, "interval_ns", (int64_t)(interval * 1e9)) || rf_arg(db, "top", (int64_t)top) ||
	    (profile ? from_profile(db, interval, &len) : from_events(db, pid, &len)) ||
	    rf_arg(db, "duration_ns", len))
		return FTANA_EXIT_ERROR;
	if (interval > 0 && print_intervals(db, interval))
		return FTANA_EXIT_ERROR;
	if (interval > 0)
		printf("\ntotal over %.3f s:\n", len / 1e9);
	return rf_print(db, "SELECT * FROM fc_totals", stdout) ? FTANA_EXIT_ERROR : FTANA_EXIT_OK;
}

/* TRANSITION: not yet on the report front end (report_front.h). */
const struct report_def report_funccount_def = {
	.name = "funccount",
	.summary = "calls per kernel function, per interval and in total (funccount)",
	.legacy = report_funccount,
};
