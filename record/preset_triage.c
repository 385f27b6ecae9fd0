/* SPDX-License-Identifier: MIT */
/*
 * preset_triage.c - `ftrec triage [-d SECS] [-s] [--syscalls] [-- COMMAND]`: the one
 * cheap capture to take when something is wrong, answering later the questions of
 * perf-tools' execsnoop, opensnoop, killsnoop, iolatency, bitesize, syscount and bcc's
 * runqlat, offcputime, cpudist (the `ftana report` of each). It records a fixed set of
 * tracepoints that fire per scheduling decision, process, block request or signal --
 * never per function call -- and, only with --syscalls, every syscall's entry and exit.
 *
 * Syscalls are recorded as syscalls:sys_enter_NAME / sys_exit_NAME, not as
 * raw_syscalls:sys_enter/sys_exit: the kernel fires both from the same hook at the same
 * cost, but the per-syscall events carry the syscall's name (the capture's own event
 * formats name it, so ftana needs no syscall-number table that could disagree with the
 * kernel) and its arguments by name (sys_enter_openat's flags, for opensnoop).
 *
 * The syscall events hold only the user-space ADDRESS of an open's file name. So with
 * --syscalls triage also asks for one kprobe that copies the name at the open
 * (OPEN_PATH_PROBE, as perf-tools' opensnoop does); ftana's opensnoop joins its hit to
 * the open of the same thread. It is optional: a kernel without kprobes, or one that
 * refuses the line (no $argN access on the architecture, ustring before 5.5, the
 * function inlined away), records everything else with a note.
 *
 * An event this kernel lacks (an old kernel without sched_wakeup_new's split, a kernel
 * built without CONFIG_FTRACE_SYSCALLS) is left out with a note: the capture still
 * answers what the others can. Only when none is available does the recording fail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "record/rec_int.h"
#include "record/record.h"
#include "record/tfs.h"

enum { TRIAGE_OPT_SYSCALLS = RECORD_OPT_OWN };

static const struct record_option options[] = {
	{ TRIAGE_OPT_SYSCALLS, 0, "syscalls", NULL,
	  "also every syscall's entry and exit (syscalls:sys_enter_*/sys_exit_*): for\n"
	  "syscount and opensnoop; costs an event per syscall entry and exit" },
	{ 0 },
};

static const struct record_positional positionals[] = {
	{ "SECONDS", "record for SECONDS (the same as -d)", RECORD_POS_OPTIONAL | RECORD_POS_DURATION },
	{ 0 },
};

static int triage_option(struct record_opts *o, int key, const char *arg, void *ctx);

const struct record_cmd record_cmd_triage = {
	.name = "triage",
	.summary = "one cheap capture for a post-mortem: scheduler, processes, block I/O, signals",
	.about = "Records sched:sched_switch, sched_wakeup, sched_wakeup_new, sched_process_exec, "
		 "sched_process_fork, sched_process_exit, block:block_rq_insert, block_rq_issue, "
		 "block_rq_complete, signal:signal_generate, signal_deliver; with --syscalls also "
		 "syscalls:sys_enter_* and sys_exit_*, and where the kernel has kprobes the "
		 "probe ftrec_open_path (the file name of each open, for opensnoop) and ftrec_exec_args / "
		 "ftrec_execat_args (each exec's first 16 arguments, for execsnoop; x86-64). An event this "
		 "kernel does not have is left "
		 "out with a note. "
		 /* figures from bench/triage.sh (make bench); measure again when the events change */
		 "Cost, measured by 'make bench' (bench/triage.sh) on a 2-CPU VM kept busy by a "
		 "fork+exec loop, a pipe ping-pong and fdatasync writes: about 240,000 events/s "
		 "and 6% of one CPU for ftrec (620,000 events/s and 15% with --syscalls); with the "
		 "kernel's default buffer 1% of the events (2% with --syscalls) were lost there: "
		 "give -b 8192 on a busy host.",
	.options = options,
	.positionals = positionals,
	.takes_command = true,
	.output_default = "triage.ftz",
	.footer = "Reports: ftana report NAME FILE.ftz, NAME one of summary, execsnoop, opensnoop,\n"
		  "killsnoop, bitesize, iolatency, syscount, runqlat, offcpu, cpudist\n",
	.option = triage_option,
};

/* The cheap, high-value events: each fires per scheduling decision, task, request or signal. */
static const char *const triage_events[] = {
	"sched:sched_switch", "sched:sched_wakeup", "sched:sched_wakeup_new",
	"sched:sched_process_exec", "sched:sched_process_fork", "sched:sched_process_exit",
	"block:block_rq_insert", "block:block_rq_issue", "block:block_rq_complete",
	"signal:signal_generate", "signal:signal_deliver",
};

/*
 * do_sys_openat2(dfd, const char __user *filename, how): every open, openat, openat2
 * and creat passes through it (5.6+); $arg2 is the file name in user memory. The event
 * is ftrec_<pid>:ftrec_open_path, its field "path" (schema/reports/opensnoop.sql).
 */
#define OPEN_PATH_PROBE "p:ftrec_open_path do_sys_openat2 path=+0($arg2):ustring"

/*
 * Each exec's arguments, for execsnoop (issue 24). On x86-64 the syscall's wrapper
 * __x64_sys_execve(const struct pt_regs *regs) finds the user's argv in regs->si, 104
 * bytes into pt_regs (__x64_sys_execveat: regs->dx, 96). For each of the first
 * EXEC_ARGS_MAX arguments the probe reads from user memory the pointer argv[I] (field
 * pI, 0 past the last argument: an empty argument and the end are told apart) and
 * the string it points to (aI). The events are ftrec_<pid>:ftrec_exec_args and
 * ftrec_execat_args (schema/reports/execsnoop.sql). A kernel that keeps argv
 * elsewhere refuses the probe: left out with a note, as the open path's.
 */
#define EXEC_ARGS_MAX 16

static char *exec_args_probe(const char *name, const char *func, int argv_at)
{
	char *def = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&def, &len);

	if (!f)
		return NULL;
	fprintf(f, "p:%s %s", name, func);
	for (int i = 0; i < EXEC_ARGS_MAX; i++)
		fprintf(f, " p%d=+u%d(+%d(%%di)):x64 a%d=+0(+u%d(+%d(%%di))):ustring", i, 8 * i, argv_at,
			i, 8 * i, argv_at);
	return fclose(f) == 0 ? def : (free(def), NULL);
}

static int add_exec_probes(struct record_opts *o)
{
	char *execve = exec_args_probe("ftrec_exec_args", "__x64_sys_execve", 104);
	char *execveat = exec_args_probe("ftrec_execat_args", "__x64_sys_execveat", 96);
	int ret = execve && execveat ? 0 : msg_error("out of memory");

	if (!ret) {
		strlist_add(&o->kprobe_optional, execve);
		strlist_add(&o->kprobe_optional, execveat);
	}
	free(execve);
	free(execveat);
	return ret;
}

struct triage_args {
	bool syscalls;
};

static int triage_option(struct record_opts *o, int key, const char *arg, void *ctx)
{
	struct triage_args *a = ctx;

	(void)o;
	(void)arg;
	if (key == TRIAGE_OPT_SYSCALLS)
		a->syscalls = true;
	return 0;
}

/* Does tracefs at ROOT have the event directory SPEC ("sys:event", "syscalls")? */
static bool have_event(const char *root, const char *spec)
{
	char path[PATH_MAX], sys[64];
	const char *colon = strchr(spec, ':');

	if (!colon)
		return tfs_exists(tfs_path(path, "%s/events/%s", root, spec));
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - spec), spec);
	return tfs_exists(tfs_path(path, "%s/events/%s/%s/enable", root, sys, colon + 1));
}

/*
 * Add the events this kernel has; a note for each one left out. Finding tracefs
 * is record_run()'s own first step (root, mounting it), done here a step early
 * so that its error is the same one line. 0, or -1 after an error.
 */
static int add_events(struct record_opts *o, const struct triage_args *a)
{
	struct rec *probe = calloc(1, sizeof(*probe));
	size_t added = 0;
	int ret = 0;

	if (!probe)
		return msg_error("out of memory");
	probe->o = o;
	if (instance_find_tracefs(probe) < 0) {
		free(probe);
		return -1;
	}
	for (size_t i = 0; ret == 0 && i < sizeof(triage_events) / sizeof(triage_events[0]); i++) {
		if (!have_event(probe->root, triage_events[i])) {
			msg_note("this kernel has no %s: left out", triage_events[i]);
			continue;
		}
		ret = record_add_event(o, triage_events[i], NULL);
		added++;
	}
	if (ret == 0 && a->syscalls) {
		if (!have_event(probe->root, "syscalls"))
			msg_note("this kernel has no syscalls events "
				 "(built without CONFIG_FTRACE_SYSCALLS): --syscalls left out");
		else if ((ret = record_add_event(o, "syscalls:sys_enter_*,syscalls:sys_exit_*", NULL)) == 0) {
			added++;
			strlist_add(&o->kprobe_optional, OPEN_PATH_PROBE);
			ret = add_exec_probes(o);
		}
	}
	if (ret == 0 && !added)
		ret = msg_error("this kernel has none of the triage events (see %s/available_events)",
				probe->root);
	free(probe);
	return ret;
}

int cmd_triage(int argc, char **argv)
{
	struct record_opts o;
	struct record_args args;
	struct triage_args a = { false };

	record_opts_init(&o, "triage", argc, argv);
	int ret = record_parse(&o, &record_cmd_triage, argc, argv, &a, &args);

	if (ret == 0)
		ret = add_events(&o, &a);
	return record_finish(&o, &args, ret);
}
