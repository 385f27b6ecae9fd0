/* SPDX-License-Identifier: MIT */
/*
 * report_runqlat.c - `ftana report runqlat`: how long tasks waited on a run queue,
 * from being woken (sched_waking, else sched_wakeup; sched_wakeup_new) or preempted
 * (switched out still runnable) to running (sched_switch), as a log2 histogram (bcc
 * runqlat) or a summary, for all tasks or per thread, process or command (--by). The
 * waits are the runq_waits table (import/derive_sched.c); the slice is runqlat_report.sql.
 */
#include <stdbool.h>

#include "reports/args.h"
#include "reports/lost.h"
#include "reports/report.h"
#include "reports/sched_common.h"
#include "reports/views.h"
#include "store/db.h"

static int run(struct report_ctx *ctx)
{
	const struct sched_dist_opts *o = ctx->opts;
	/* before sched_prepare makes a stand-in of it; sched_waking does as well */
	bool wakeups = db_has_table(ctx->db, "sched_wakeup") ||
		       db_event_recorded(ctx->db, "sched", "sched_wakeup") ||
		       db_has_table(ctx->db, "sched_waking") ||
		       db_event_recorded(ctx->db, "sched", "sched_waking");
	int rc = sched_prepare(ctx);

	if (rc)
		return rc;
	if (!wakeups)
		msg_warn("sched:sched_wakeup was not recorded: only the waits of "
			    "preempted tasks are measured (record it for wakeup latency)");
	if (sched_select(ctx, o->by, "schema/reports/runqlat_report.sql") ||
	    sched_print_dist(ctx, o->by, o->summary, "usecs") ||
	    sched_note_statuses(ctx, "runq_waits", "in_slice(run_ts, cpu, pid)", "run-queue waits"))
		return -1;
	return 0;
}

const struct report_def report_runqlat_def = {
	.name = "runqlat",
	.summary = "run-queue latency: wakeup or preemption -> on CPU, log2 histogram (bcc runqlat)",
	.options = sched_dist_waker_options,
	.opts_size = sizeof(struct sched_dist_opts),
	.option = sched_dist_waker_option,
	.run = run,
	.details =
	"needs sched:sched_switch, and for wakeups sched:sched_wakeup or sched_waking, and\n"
	"sched_wakeup_new (ftrec triage records them). A wait runs from the task's first\n"
	"enqueue since its last switch (a wakeup, or its switch-out while still runnable:\n"
	"preempted or yielding) to its switch-in, as bcc runqlat measures; a capture with\n"
	"sched_waking has its wakeups from it (the task was runnable from then), else from\n"
	"sched_wakeup. The idle tasks (pid 0) are left out. A wait belongs to the slice by\n"
	"its switch-in (time, CPU, task).\n"
	"Edges: a task whose first event in the capture is its switch-in has no wait (it\n"
	"was queued before the capture began); a wait across lost events (on any CPU) is\n"
	"left out and counted in a warning; -v says what else was left out and why.\n"
	"\n"
	"columns: histogram (CSV/JSON): [tid comm | pid comm | comm | waker], low_us, high_us\n"
	"  (low_us <= wait in whole us <= high_us), count; --summary: [group], count,\n"
	"  total_ms, avg_us, p50_us, p90_us, p99_us (nearest rank), max_us.\n"
	"SQL: `ftana sql FILE 'select * from runq_waits'` (docs/SQL.md; with each wait's\n"
	"waker).\n",
	.views = &views_sched,
	.needs = (const char *const[]){ "sched:sched_switch", "sched:sched_wakeup", "sched:sched_wakeup_new", "sched:sched_waking", NULL },
};
