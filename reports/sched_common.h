/* SPDX-License-Identifier: MIT */
/*
 * sched_common.h - what the scheduler reports (runqlat, offcpu, cpudist, summary) and
 * funclatency share: the scheduler tables (import/derive_sched.c), --by, and the
 * distribution output (a bcc-style log2 histogram or a table of statistics per group)
 * over temp.sched_sel (schema/reports/sched_hist.sql).
 */
#ifndef SCHED_COMMON_H
#define SCHED_COMMON_H

#include <sqlite3.h>
#include <stdbool.h>

#include "reports/report.h"

/* --by: the group column (temp.report_args sched_by: 0 none, 1 tid, 2 pid, 3 comm, 4 the
 * waker's comm: runqlat and offcpu only, who woke whom). */
enum sched_by { SCHED_BY_NONE, SCHED_BY_TID, SCHED_BY_PID, SCHED_BY_COMM, SCHED_BY_WAKER };

/* The help line of --by and its parser ("tid", "pid" or "comm"). */
#define SCHED_BY_HELP "one histogram (or --summary row) per thread (tid), process\n" \
		      "(pid: its threads together) or command name (comm)"
/* waker: "waker" is taken too (a report whose intervals end a wakeup). */
int sched_parse_by(struct report_ctx *ctx, const char *arg, enum sched_by *by, bool waker);

/* The options of the distribution reports (runqlat, cpudist): --by and --summary. */
struct sched_dist_opts {
	enum sched_by by;
	bool summary;
};
extern const struct report_option sched_dist_options[];
int sched_dist_option(struct report_ctx *ctx, int index, const char *arg);
/* The same with --by waker (runqlat: one histogram per task that woke the waiting one). */
extern const struct report_option sched_dist_waker_options[];
int sched_dist_waker_option(struct report_ctx *ctx, int index, const char *arg);

/*
 * The scheduler tables (oncpu, runq_waits, offcpu) on db: empty TEMP stand-ins for the
 * event tables a capture lacks (sched_switch, the wakeups, lost_events: what reads them
 * finds no rows rather than no table), then the tables the importer derived, or when
 * the database lacks them, derive_sched into TEMP.
 */
int sched_views(sqlite3 *db);

/*
 * For a report: sched_switch must be in the capture (else an error saying how to record
 * it); the views; the lost-events warning over the scheduler events. 0, or -1
 * after the message.
 */
int sched_prepare(struct report_ctx *ctx);

/* args_setup + the report's own options for its SQL, then run SQL_FILE (which fills
 * temp.sched_sel, or makes the view temp.sched_rows that sched_sel.sql makes it from)
 * and sched_hist.sql. 0 or -1 after an error. */
int sched_select(struct report_ctx *ctx, enum sched_by by, const char *sql_file);

/*
 * Print temp.sched_sel: a log2 histogram per group (text: bcc's "usecs : count
 * distribution" layout under UNIT; CSV/JSON: key "histogram", rows of group, label,
 * low_us, high_us, count), or with summary the statistics table (key "summary").
 * Returns 0 or -1.
 */
int sched_print_dist(struct report_ctx *ctx, enum sched_by by, bool summary, const char *unit);

/* The rows of TABLE (oncpu, runq_waits, offcpu) that FILTER (SQL: the report's slice)
 * keeps, per status: a warning for 'lost_events' (measurements dropped because events
 * were lost during them), with -v a note for every other status but 'ok'. */
int sched_note_statuses(struct report_ctx *ctx, const char *table, const char *filter,
			const char *what);
/* The same for SQL's rows (status, count). */
int sched_note_status_rows(struct report_ctx *ctx, const char *sql, const char *what);

#endif
