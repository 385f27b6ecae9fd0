/* SPDX-License-Identifier: MIT */
/*
 * snoop.h - what the triage reports share (execsnoop, opensnoop, killsnoop, bitesize,
 * syscount; iolatency reuses iolat's): their views for `ftana sql`, the stand-ins for
 * event tables a capture lacks, the syscall events view built from the capture's own
 * syscall formats, and the one-table report body they all have.
 */
#ifndef REPORTS_SNOOP_H
#define REPORTS_SNOOP_H

#include <sqlite3.h>

#include "reports/report.h"

/*
 * Every triage view (execs, opens, kills, io_sizes, syscall_calls and the name tables),
 * over empty stand-ins for the tables the capture lacks, so they always exist (for
 * `ftana sql`, and for reports to check); the syscall and I/O pairs derived into TEMP
 * when the database lacks them (import/derive.h). 0, or -1 after a message.
 */
int snoop_views(sqlite3 *db);

/*
 * The report's start: fail with a hint when the capture never recorded any of the
 * events (SYSTEM:EVENT each; the first one names the table in the message), warn of
 * losses over the events' time range (RANGE_SQL: one row, min ts, max ts), define the
 * views and temp.report_args. Returns 0, or -1 after the message.
 */
int snoop_prepare(struct report_ctx *ctx, const char *const *events, size_t nr_events,
		  const char *hint, const char *range_sql);

/* The same for a report that reads io_sizes (bitesize): the I/O pairs that tell each
 * request's submitter too (derived when the database lacks them). */
int snoop_prepare_io(struct report_ctx *ctx, const char *const *events, size_t nr_events,
		     const char *hint, const char *range_sql);

/* The same for a report that reads syscall_calls (syscount, opensnoop): its pairs too
 * (derived when the database lacks them), the losses over the syscall events' times. */
int snoop_prepare_calls(struct report_ctx *ctx, const char *const *events, size_t nr_events,
			const char *hint);

/* The same for syscount on syscall_totals alone (report_def.derive_whole: no pairs were
 * made): syscall_calls stands on an empty stand-in for them. */
int snoop_prepare_totals(struct report_ctx *ctx, const char *hint);

/* Run schema/reports/<report>_report.sql; 0 or -1. */
int snoop_select(struct report_ctx *ctx, const char *sql_file);

/*
 * One table KEY of SELECT_SQL (may hold up to two %s: report_ts's column suffix,
 * "_s" or "_wall"). 0, or -1 after an error.
 */
int snoop_print(struct report_ctx *ctx, const char *key, const char *select_sql);

#endif
