/* SPDX-License-Identifier: MIT */
/*
 * views.h - the families of views the reports build from a capture's tables
 * (report.h's struct report_views: each report names the family it reads, and
 * `ftana sql` and `ftana export` get every family; docs/SQL.md documents them).
 * Each family is built by its own file; its builder may be called directly by a
 * report that needs it (with stand-ins for the tables a capture lacks).
 */
#ifndef REPORTS_VIEWS_H
#define REPORTS_VIEWS_H

#include <sqlite3.h>

#include "reports/report.h"

extern const struct report_views views_io;          /* io, io_rq, ... (report_iolat.c) */
extern const struct report_views views_calls;       /* calls (funcgraph_calls.c) */
extern const struct report_views views_slow_calls;  /* slow_calls (report_funcslower.c) */
extern const struct report_views views_func_counts; /* func_counts, ... (report_funccount.c) */
extern const struct report_views views_probe_hits;  /* probe_hits (kprobe_args.c) */
extern const struct report_views views_stacks;      /* stack_folded (report_stacks.c) */
extern const struct report_views views_snoop;       /* execs, opens, kills, ... (snoop.c) */
extern const struct report_views views_sched;       /* oncpu, runq_waits, offcpu (sched_common.c) */

/* The columns of a stand-in for block_rq_insert / block_rq_issue (a capture without
 * them): what the io and io_sizes views read. */
#define BLOCK_RQ_COLUMNS "id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, dev, sector, " \
			 "nr_sector, bytes, rwbs, comm, cmd"

/* The builders reports call themselves; 0, or -1 after an error. */
int iolat_views(sqlite3 *db);      /* with stand-ins for block_rq_insert and lost_events, and
				      the pairs derived into TEMP when the database lacks them */
int funcgraph_views(sqlite3 *db);  /* temp.call_rows walked once, then `calls` */
int funcgraph_build_calls(sqlite3 *db);
int funcslower_views(sqlite3 *db);
int funccount_views(sqlite3 *db);
int kprobe_views(sqlite3 *db);
int stacks_views(sqlite3 *db);

#endif
