/* SPDX-License-Identifier: MIT */
/*
 * preset_funccount.c - `ftrec funccount [--profile [-i SECS]] [OPTIONS] PATTERN...
 * [-- COMMAND]`: by default the function tracer limited to PATTERNs
 * (set_ftrace_filter globs, as the kernel takes them: "vfs_*", "*sys_getppid",
 * ":mod:ext4"), recording one `function` event (ip, parent_ip) per call. With
 * --profile, the kernel's function profiler counts them instead and ftrec stores
 * its per-CPU tables every -i SECS (record/profiler.c): far cheaper for hot
 * functions, but for every task (no -p) and without per-call detail.
 * `ftana report funccount` counts either.
 */
#include <stdio.h>

#include "common/msg.h"
#include "record/preset_func.h"

static const struct record_option options[] = {
	{ FUNC_OPT_PROFILE, 0, "profile", NULL,
	  "let the kernel's function profiler count (CONFIG_FUNCTION_PROFILER): no "
	  "event per call, so cheap for hot functions; counts every task (no -p)" },
	{ FUNC_OPT_INTERVAL, 'i', NULL, "SECS", "with --profile: store the counts every SECS (default 1)" },
	{ 0 },
};

static const struct record_positional positionals[] = {
	{ "PATTERN", "kernel functions to count, as set_ftrace_filter takes them "
		     "('vfs_*', '*sys_getppid', ':mod:ext4'); one function event per call",
	  RECORD_POS_REPEAT },
	{ 0 },
};

const struct record_cmd record_cmd_funccount = {
	.name = "funccount",
	.summary = "count kernel function calls (perf-tools funccount)",
	.about = "No duration argument (as in perf-tools): a number is refused, use -d SECONDS.",
	.options = options,
	.positionals = positionals,
	.takes_command = true,
	.output_default = "funccount.ftz",
	.footer = "Counts: ftana report funccount FILE.ftz [-i SECS] [-t TOP]\n",
	.option = preset_func_option,
};

static int fill(struct record_opts *o, struct preset_args *a)
{
	for (size_t i = 0; i < a->pos.n; i++)
		strlist_add(&o->ftrace_filter, a->pos.v[i]);
	if (!a->profile) {
		if (a->interval > 0)
			return msg_error("-i needs --profile (events keep every call: choose intervals with 'ftana report funccount -i')");
		return 0;
	}
	if (o->pid || o->tid)
		return msg_error("%s does not work with --profile: the profiler counts every task",
				 o->pid ? "-p" : "-L");
	o->function_profile = true;
	o->snapshot_interval = a->interval > 0 ? a->interval : 1.0;
	o->tracer = NULL; /* nothing goes through the ring buffer */
	o->allow_top_level_fallback = false;
	return 0;
}

int cmd_funccount(int argc, char **argv)
{
	static const struct preset preset = {
		.cmd = &record_cmd_funccount, .tracer = "function", .fill = fill,
	};

	return preset_func_main(&preset, argc, argv);
}
