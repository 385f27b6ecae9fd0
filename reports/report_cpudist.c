/* SPDX-License-Identifier: MIT */
/*
 * report_cpudist.c - `ftana report cpudist`: how long tasks ran each time they got a
 * CPU (switch-in -> switch-out), as a log2 histogram (bcc cpudist) or a summary, for
 * all tasks or per thread, process or command (--by). The intervals are the oncpu table
 * (import/derive_sched.c); the slice is cpudist_report.sql.
 */
#include <stdbool.h>

#include "reports/report.h"
#include "reports/sched_common.h"
#include "reports/views.h"

static int run(struct report_ctx *ctx)
{
	const struct sched_dist_opts *o = ctx->opts;
	int rc = sched_prepare(ctx);

	if (rc)
		return rc;
	if (sched_select(ctx, o->by, "schema/reports/cpudist_report.sql") ||
	    sched_print_dist(ctx, o->by, o->summary, "usecs") ||
	    sched_note_statuses(ctx, "oncpu",
				"pid != 0 AND in_slice(coalesce(end_ts, start_ts), cpu, pid)",
				"on-CPU intervals"))
		return -1;
	return 0;
}

const struct report_def report_cpudist_def = {
	.name = "cpudist",
	.summary = "on-CPU time per slice (switch-in -> switch-out), log2 histogram (bcc cpudist)",
	.options = sched_dist_options,
	.opts_size = sizeof(struct sched_dist_opts),
	.option = sched_dist_option,
	.run = run,
	.details =
	"needs sched:sched_switch. A slice runs from a task's switch-in to the next switch on\n"
	"that CPU, which must switch that task out; it belongs to the report's slice by its\n"
	"switch-out (time, CPU, task). The idle tasks (pid 0) are left out. Edges: the\n"
	"task running when a CPU's recording began ('head') or still running at its end\n"
	"('open') has no complete slice and is left out; a slice across lost events on its\n"
	"CPU is left out and counted in a warning; -v says what else was left out.\n"
	"\n"
	"columns: histogram (CSV/JSON): [tid comm | pid comm | comm], low_us, high_us\n"
	"  (low_us <= slice in whole us <= high_us), count; --summary: [group], count,\n"
	"  total_ms, avg_us, p50_us, p90_us, p99_us (nearest rank), max_us.\n"
	"SQL: `ftana sql FILE 'select * from oncpu'` (docs/SQL.md).\n",
	.views = &views_sched,
	.needs = (const char *const[]){ "sched:sched_switch", "sched:sched_wakeup", "sched:sched_wakeup_new", "sched:sched_waking", NULL },
};
