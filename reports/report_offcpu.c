/* SPDX-License-Identifier: MIT */
/*
 * report_offcpu.c - `ftana report offcpu`: time tasks spent off CPU, per task and reason
 * (the state it was switched out in: S sleeping, D uninterruptible, R/R+ preempted, ...),
 * or with --folded per switch-out stack (recorded with -s) as FlameGraph input (bcc
 * offcputime -f). The intervals are the offcpu table (import/derive_sched.c); the
 * slice and aggregation are offcpu_report.sql.
 */
#include <stdbool.h>

#include "common/text_escape.h"
#include "reports/args.h"
#include "reports/lost.h"
#include "reports/report.h"
#include "reports/sched_common.h"
#include "reports/views.h"
#include "store/db.h"

struct offcpu_opts {
	enum sched_by by;
	bool folded;
};

enum { OPT_BY, OPT_FOLDED };

static const struct report_option options[] = {
	[OPT_BY] = { "by", 0, "GROUP", "one row per thread (tid, the default), process (pid) or\n"
		     "command name (comm), and reason; or per waker (the comm of\n"
		     "the task whose wakeup ended the interval), task and reason:\n"
		     "who woke whom ([no wakeup]: preempted, yielded; record\n"
		     "sched_waking: with sched_wakeup alone a wakeup from another\n"
		     "CPU names the task then on the woken one's, often <idle>)" },
	[OPT_FOLDED] = { "folded", 0, NULL, "text: \"comm;root;...;leaf usecs\" lines, the switch-out\n"
			 "stacks (FlameGraph input, as bcc offcputime -f)" },
	{ 0 }
};

static int option(struct report_ctx *ctx, int index, const char *arg)
{
	struct offcpu_opts *o = ctx->opts;

	if (index == OPT_BY)
		return sched_parse_by(ctx, arg, &o->by, true);
	o->folded = true;
	return 0;
}

static int check(struct report_ctx *ctx)
{
	const struct offcpu_opts *o = ctx->opts;

	if (o->folded && ctx->fmt != OUT_TEXT)
		return msg_error("--folded is text (FlameGraph's input): --csv/--json give "
				    "the table");
	return 0;
}

static int folded_row(sqlite3_stmt *st, void *out)
{
	/* FlameGraph reads one stack a line: a control character must not split one */
	text_fputs(out, (const char *)sqlite3_column_text(st, 0));
	fprintf(out, " %lld\n", (long long)sqlite3_column_int64(st, 1));
	return 0;
}

static int print_table(struct report_ctx *ctx, enum sched_by by)
{
	static const char *const group[] = {
		[SCHED_BY_NONE] = "grp AS tid, label AS comm", [SCHED_BY_TID] = "grp AS tid, label AS comm",
		[SCHED_BY_PID] = "grp AS pid, label AS comm", [SCHED_BY_COMM] = "grp AS comm",
		[SCHED_BY_WAKER] = "grp AS waker, label AS comm",
	};
	char *sql = sqlite3_mprintf(
		"SELECT %s, state, count, total_ms, avg_us, max_us, runq_ms FROM offcpu_stats",
		group[by]);
	int rc = sql ? doc_table(ctx, "rows", sql) : msg_error("out of memory");

	sqlite3_free(sql);
	return rc;
}

static int run(struct report_ctx *ctx)
{
	const struct offcpu_opts *o = ctx->opts;
	int rc = sched_prepare(ctx);

	if (rc)
		return rc;
	if (!db_has_table(ctx->db, "stacks") &&
	    db_stand_in(ctx->db, "stacks", "stack_id, depth, addr, symbol"))
		return -1;
	/* the stacks themselves, not a key: a trace.dat has none, stacktrace=0 is a key too */
	sqlite3_stmt *st = o->folded ? db_prepare(ctx->db, "SELECT 1 FROM stacks LIMIT 1") : NULL;
	bool stacks = st && sqlite3_step(st) == SQLITE_ROW;

	sqlite3_finalize(st);
	if (o->folded && !stacks)
		msg_warn("this capture has no stacks (record with -s): every line is "
			    "\"comm;[no stack]\"");
	if (stacks_views(ctx->db) ||
	    sched_select(ctx, o->by, "schema/reports/offcpu_report.sql") ||
	    (o->folded ? db_each_row(ctx->db, "SELECT folded, us FROM offcpu_folded",
				     0, folded_row, stdout)
		       : print_table(ctx, o->by)) ||
	    sched_note_statuses(ctx, "offcpu", "in_slice(on_ts, cpu, pid)", "off-CPU intervals"))
		return -1;
	return 0;
}

const struct report_def report_offcpu_def = {
	.name = "offcpu",
	.summary = "time off CPU per task and reason (S, D, R+...), or folded stacks (bcc offcputime)",
	.options = options,
	.opts_size = sizeof(struct offcpu_opts),
	.option = option,
	.check = check,
	.run = run,
	.details =
	"needs sched:sched_switch; stacks need the recording's -s. An interval runs from a\n"
	"task's switch-out to its next switch-in (on any CPU), as bcc offcputime measures;\n"
	"its reason is the state the task was switched out in: S sleeping, D uninterruptible\n"
	"(mostly I/O), R+ preempted, R yielded (still runnable), I idle kernel thread,\n"
	"T stopped, t traced, P parked, X/Z exiting. It belongs to the slice by its switch-in\n"
	"(time, CPU, task). The idle tasks (pid 0) are left out. Edges: a task off CPU since\n"
	"before the capture, or still off CPU at its end, has no interval for that time;\n"
	"an interval across lost events (on any CPU) is left out and counted in a warning.\n"
	"\n"
	"columns: tid, comm (or pid, comm; or comm; or waker, comm), state, count, total_ms,\n"
	"  avg_us, max_us,\n"
	"  runq_ms (the part spent on a run queue after the wakeup, when the wakeup was\n"
	"  recorded); --folded: \"comm;outermost;...;innermost\" and whole microseconds.\n"
	"SQL: `ftana sql FILE 'select * from offcpu'` (docs/SQL.md).\n",
	.views = &views_sched,
	.needs = (const char *const[]){ "sched:sched_switch", "sched:sched_wakeup", "sched:sched_wakeup_new", "sched:sched_waking", NULL },
};
