/* SPDX-License-Identifier: MIT */
/*
 * report_funccount.c - `ftana report funccount [-i SECS] [-t TOP] [-p PID]`: calls
 * per kernel function, per interval (largest last, as perf-tools funccount
 * printed them), then totals and the mean rate per second of recording.
 * Counts come from `function` events (ftrec funccount); the SQL is
 * schema/reports/funccount.sql and funccount_events.sql.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/ftana.h"
#include "analyze/report_func.h"
#include "analyze/report_util.h"

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

int report_funccount(sqlite3 *db, int argc, char **argv)
{
	double interval = 0, top = 0, pid = -1;
	int64_t t0 = 0, len = 0;
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
	if (!rf_has_table(db, "function"))
		return rf_missing("funccount", "function", "record with 'ftrec funccount'");
	/* Like every report: say first whether the capture lost events. */
	if (ru_warn_lost(db, "SELECT min(ts), max(ts) FROM events", stdout))
		return FTANA_EXIT_ERROR;
	recording_span(db, &t0, &len);
	if (rf_setup(db) || ftana_exec_sql_file(db, "schema/reports/funccount.sql") ||
	    rf_arg(db, "interval_ns", (int64_t)(interval * 1e9)) || rf_arg(db, "t0", t0) ||
	    rf_arg(db, "top", (int64_t)top) || rf_arg(db, "duration_ns", len) ||
	    (pid >= 0 && rf_arg(db, "pid", (int64_t)pid)) ||
	    ftana_exec_sql_file(db, "schema/reports/funccount_events.sql"))
		return FTANA_EXIT_ERROR;
	if (interval > 0 && print_intervals(db, interval))
		return FTANA_EXIT_ERROR;
	if (interval > 0)
		printf("\ntotal over %.3f s:\n", len / 1e9);
	return rf_print(db, "SELECT * FROM fc_totals", stdout) ? FTANA_EXIT_ERROR : FTANA_EXIT_OK;
}
