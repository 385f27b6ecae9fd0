/* SPDX-License-Identifier: MIT */
/*
 * preset_funccount.c - `ftrec funccount [--profile [-i SECS]] [-d SECS] [-p PID]
 * PATTERN... [-- COMMAND]`: by default the function tracer limited to PATTERNs
 * (set_ftrace_filter globs, as the kernel takes them: "vfs_*", "*sys_getppid",
 * ":mod:ext4"), recording one `function` event (ip, parent_ip) per call. With
 * --profile, the kernel's function profiler counts them instead and ftrec stores
 * its per-CPU tables every -i SECS (record/profiler.c): far cheaper for hot
 * functions, but for every task (no -p) and without per-call detail.
 * `ftana report funccount` counts either.
 */
#include <stdio.h>

#include "record/preset_func.h"

static const char usage[] =
	"usage: ftrec funccount [--profile [-i SECS]] [-d SECS] [-p PID] [-q] -o FILE.ftz\n"
	"                       PATTERN... [-- COMMAND]\n"
	"  PATTERN      kernel functions to count, as set_ftrace_filter takes them\n"
	"               ('vfs_*', '*sys_getppid', ':mod:ext4'); one function event per call\n"
	"  --profile    let the kernel's function profiler count (CONFIG_FUNCTION_PROFILER):\n"
	"               no event per call, so cheap for hot functions; counts every task\n"
	"  -i SECS      with --profile: store the counts every SECS (default 1)\n"
	"  -p PID       only calls by PID (with COMMAND: the command and its children)\n"
	"  -d SECS      stop after SECS (else Ctrl-C, SIGTERM or COMMAND exit)\n"
	"Counts: ftana report funccount FILE.ftz [-i SECS] [-t TOP]\n";

static int fill(struct record_opts *o, struct preset_args *a)
{
	for (size_t i = 0; i < a->pos.n; i++)
		strlist_add(&o->ftrace_filter, a->pos.v[i]);
	if (!a->profile) {
		if (a->interval > 0) {
			fprintf(stderr, "ftrec funccount: -i needs --profile (events keep every call: choose intervals with 'ftana report funccount -i')\n");
			return -1;
		}
		return 0;
	}
	if (o->pid) {
		fprintf(stderr, "ftrec funccount: -p does not work with --profile: the profiler counts every task\n");
		return -1;
	}
	o->function_profile = true;
	o->snapshot_interval = a->interval > 0 ? a->interval : 1.0;
	o->tracer = NULL; /* nothing goes through the ring buffer */
	o->allow_top_level_fallback = false;
	return 0;
}

int cmd_funccount(int argc, char **argv)
{
	static const struct preset preset = {
		.name = "funccount", .usage = usage, .min_pos = 1, .max_pos = (size_t)-1,
		.positional = "PATTERN...",
		.tracer = "function",
		.takes_depth = false, .takes_profile = true, .display_flags = false, .fill = fill,
	};

	return preset_main(&preset, argc, argv);
}
