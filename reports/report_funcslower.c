/* SPDX-License-Identifier: MIT */
/*
 * report_funcslower.c - `ftana report funcslower [-t] [-P]`: one row per slow call
 * (CPU, duration in us, function; -t adds the time, -P the COMM-PID, as the same
 * options of perf-tools funcslower did), then a log2 histogram of the durations.
 * SQL: schema/reports/funcslower.sql.
 */
#include <getopt.h>
#include <stdio.h>

#include "analyze/ftana.h"
#include "reports/report_func.h"
#include "reports/report_util.h"

static const char usage[] = "usage: ftana report funcslower FILE [-t] [-P]\n";

int report_funcslower(sqlite3 *db, int argc, char **argv)
{
	bool times = false, procs = false;
	char sql[256];
	int c;

	optind = 0;
	while ((c = getopt(argc, argv, "tPh")) != -1) {
		switch (c) {
		case 't': times = true; break;
		case 'P': procs = true; break;
		case 'h': fputs(usage, stdout); return FTANA_EXIT_OK;
		default: fputs(usage, stderr); return FTANA_EXIT_ERROR;
		}
	}
	if (!rf_has_table(db, "funcgraph_exit"))
		return rf_missing("funcslower", "funcgraph_exit", "record with 'ftrec funcslower'");
	/* Like every report: say first whether the capture lost events. */
	if (ru_warn_lost(db, "SELECT min(ts), max(ts) FROM events", stdout))
		return FTANA_EXIT_ERROR;
	if (rf_setup(db) || ftana_exec_sql_file(db, "schema/reports/funcslower.sql"))
		return FTANA_EXIT_ERROR;
	snprintf(sql, sizeof(sql), "SELECT %sCPU, %s\"DURATION(us)\", FUNCTION FROM funcslower_rows",
		 times ? "TIME, " : "", procs ? "\"COMM-PID\", " : "");
	if (rf_print(db, sql, stdout))
		return FTANA_EXIT_ERROR;
	printf("\n");
	return rf_print(db, "SELECT * FROM funcslower_hist", stdout) ? FTANA_EXIT_ERROR : FTANA_EXIT_OK;
}
