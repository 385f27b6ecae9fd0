/* SPDX-License-Identifier: MIT */
/*
 * report_killsnoop.c - `ftana report killsnoop`: signals sent (perf-tools' / bcc's
 * killsnoop): sender, target, signal, and what the kernel did with it. SQL:
 * schema/reports/killsnoop.sql (the `kills` view), killsnoop_report.sql (the slice).
 */
#include <stdlib.h>

#include "reports/args.h"
#include "reports/report.h"
#include "reports/snoop.h"
#include "reports/views.h"

struct killsnoop_opts {
	int64_t target; /* --target PID, -1 every target */
	bool all;       /* --all: also the signals the kernel raises (SIGCHLD, SIGSEGV, ...) */
};

enum { OPT_TARGET, OPT_ALL };

static const struct report_option options[] = {
	[OPT_TARGET] = { "target", 't', "PID", "only signals sent to process PID" },
	[OPT_ALL] = { "all", 'a', NULL, "also the signals the kernel raises itself (si_code > 0:\n"
		      "SIGCHLD at a child's exit, SIGSEGV at a fault, SI_KERNEL)" },
	{ 0 }
};

static int option(struct report_ctx *ctx, int index, const char *arg)
{
	struct killsnoop_opts *o = ctx->opts;
	double pid;

	if (index == OPT_ALL) {
		o->all = true;
		return 0;
	}
	if (front_number("--target", arg, 1, &pid))
		return -1;
	if (pid != (double)(int64_t)pid || pid > 2147483647)
		return msg_error("bad --target '%s' (a process id)", arg);
	o->target = (int64_t)pid;
	return 0;
}

static int run(struct report_ctx *ctx)
{
	static const char *const events[] = { "signal:signal_generate" };
	const struct killsnoop_opts *o = ctx->opts;
	int rc = snoop_prepare(ctx, events, 1, "record with 'ftrec triage'",
			       "SELECT min(ts), max(ts) FROM signal_generate");

	if (rc)
		return rc;
	if (args_set(ctx->db, "kill_target", o->target > 0 ? o->target : -1) ||
	    args_set(ctx->db, "kill_all", o->all) ||
	    snoop_select(ctx, "schema/reports/killsnoop_report.sql"))
		return -1;
	return snoop_print(ctx, "rows",
			   "SELECT report_ts(ts) AS time%s, sender_pid, sender_comm, target_pid, "
			   "target_comm, signal, sig, si_code, result FROM killsnoop_sel ORDER BY id");
}

const struct report_def report_killsnoop_def = {
	.name = "killsnoop",
	.summary = "signals sent: sender, target, signal, result (killsnoop)",
	.options = options,
	.opts_size = sizeof(struct killsnoop_opts),
	.option = option,
	.run = run,
	.details =
	"a signal belongs to the slice by its signal_generate event: time, CPU and the\n"
	"SENDER (-p PID: the signals PID sent; --target PID: those sent to PID). Without\n"
	"--all, only signals sent by a task (kill, tkill, sigqueue, timers: si_code <= 0).\n"
	"columns: time_s (time_wall with --wall), sender_pid, sender_comm, target_pid,\n"
	"  target_comm, signal (name; null on an architecture with other numbers), sig\n"
	"  (number), si_code, result (the kernel's: delivered, ignored, already_pending,\n"
	"  overflow_fail, lose_info)\n"
	"SQL: `ftana sql FILE 'select * from kills'` (docs/SQL.md).\n",
	.views = &views_snoop,
	.needs = (const char *const[]){ "signal:signal_generate", NULL },
};
