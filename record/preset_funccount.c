/* SPDX-License-Identifier: MIT */
/*
 * preset_funccount.c - `ftrec funccount [-d SECS] [-p PID] PATTERN... [-- COMMAND]`:
 * the function tracer limited to PATTERNs (set_ftrace_filter globs, as the kernel
 * takes them: "vfs_*", "*sys_getppid", ":mod:ext4"), recording one `function`
 * event (ip, parent_ip) per call. `ftana report funccount` counts them.
 */
#include <stdio.h>

#include "record/preset_func.h"

static const char usage[] =
	"usage: ftrec funccount [-d SECS] [-p PID] [-q] -o FILE.ftz PATTERN... [-- COMMAND]\n"
	"  PATTERN      kernel functions to count, as set_ftrace_filter takes them\n"
	"               ('vfs_*', '*sys_getppid', ':mod:ext4'); one function event per call\n"
	"  -p PID       only calls by PID (with COMMAND: the command and its children)\n"
	"  -d SECS      stop after SECS (else Ctrl-C, SIGTERM or COMMAND exit)\n"
	"Counts: ftana report funccount FILE.ftz [-i SECS] [-t TOP]\n";

static int fill(struct record_opts *o, struct preset_args *a)
{
	for (size_t i = 0; i < a->pos.n; i++)
		strlist_add(&o->ftrace_filter, a->pos.v[i]);
	return 0;
}

int cmd_funccount(int argc, char **argv)
{
	static const struct preset preset = {
		.name = "funccount", .usage = usage, .min_pos = 1, .max_pos = (size_t)-1,
		.positional = "PATTERN...",
		.tracer = "function",
		.takes_depth = false, .display_flags = false, .fill = fill,
	};

	return preset_main(&preset, argc, argv);
}
