/* SPDX-License-Identifier: MIT */
/*
 * report_execsnoop.c - `ftana report execsnoop`: every successful exec (perf-tools' /
 * bcc's execsnoop) with its parent, and how long the image ran and its exit code when
 * the capture holds its end. SQL: schema/reports/execsnoop.sql (the `execs` view),
 * execsnoop_report.sql (the slice).
 */
#include "reports/report.h"
#include "reports/snoop.h"
#include "reports/views.h"

static const struct report_option options[] = { { 0 } };

static int run(struct report_ctx *ctx)
{
	static const char *const events[] = { "sched:sched_process_exec" };
	int rc = snoop_prepare(ctx, events, 1, "record with 'ftrec triage'",
			       "SELECT min(ts), max(ts) FROM sched_process_exec");

	if (rc)
		return rc;
	if (snoop_select(ctx, "schema/reports/execsnoop_report.sql"))
		return -1;
	return snoop_print(ctx, "rows",
			   "SELECT report_ts(ts) AS time%s, pid, ppid, comm, filename, exit_code, "
			   "dur_ns / 1e6 AS dur_ms, end_reason, args FROM execsnoop_sel ORDER BY id");
}

const struct report_def report_execsnoop_def = {
	.name = "execsnoop",
	.summary = "every exec: pid, ppid, comm, file, exit code and run time (execsnoop)",
	.options = options,
	.run = run,
	.details =
	"an exec belongs to the slice by its sched_process_exec event (time, CPU, the\n"
	"exec'd task); failed execs fire no event and are not listed.\n"
	"columns: time_s (time_wall with --wall), pid, ppid (null when its fork was before\n"
	"  the capture), comm (the file name's last part, 15 bytes, as the kernel sets it),\n"
	"  filename (as given to execve), exit_code (low 8 bits of exit_group()'s status;\n"
	"  needs 'ftrec triage --syscalls'; null when a signal ended it), dur_ms (exec to\n"
	"  exit or to the next exec), end_reason (exit, exec, or null: no end in the capture),\n"
	"  args (argv, argv[0] first, each as a shell takes it back: bare, '...', or bash's\n"
	"  $'...' (control bytes and bytes not UTF-8 printed \\xHH); the first 16 (then\n"
	"  [...]), each up to 256 characters (then [...]); from the kprobe 'ftrec triage\n"
	"  --syscalls' adds on x86-64; null without it)\n"
	"SQL: `ftana sql FILE 'select * from execs'` (docs/SQL.md).\n",
	.views = &views_snoop,
	.needs = (const char *const[]){ "sched:sched_process_exec", "sched:sched_process_fork", "sched:sched_process_exit", "syscalls:sys_enter_exit", "syscalls:sys_enter_exit_group", "*:ftrec_exec_args", "*:ftrec_execat_args", NULL },
};
