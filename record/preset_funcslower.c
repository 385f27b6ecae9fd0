/* SPDX-License-Identifier: MIT */
/*
 * preset_funcslower.c - `ftrec funcslower [-P] [-C] [-d SECONDS] FUNC USECS`:
 * function_graph with tracing_thresh = USECS and FUNC in both set_graph_function
 * and set_ftrace_filter, so the kernel itself drops fast calls and only returns
 * of FUNC slower than USECS reach the buffer (as perf-tools funcslower does).
 * -P is accepted for perf-tools compatibility (the pid is always recorded,
 * `ftana report funcslower -P` shows it); -C, as in perf-tools, measures time on
 * the CPU only (function_graph's sleep-time option off), so a call that slept
 * counts only its running time, against USECS too.
 */
#include <stdio.h>
#include <stdlib.h>

#include "record/preset_func.h"

static const char usage[] =
	"usage: ftrec funcslower [-P] [-C] [-d SECS] [-p PID] -o FILE.ftz FUNC USECS [-- COMMAND]\n"
	"  records the returns of FUNC that took USECS microseconds or more (function_graph\n"
	"  with tracing_thresh: faster calls never reach the buffer)\n"
	"  -C           on-CPU time only: time the task slept inside FUNC is not counted\n"
	"               (as in perf-tools; function_graph's sleep-time option off)\n"
	"  -P           accepted as in perf-tools; the pid is always recorded\n"
	"Calls: ftana report funcslower FILE.ftz [-t] [-P]\n";

static int fill(struct record_opts *o, struct preset_args *a)
{
	char *end;
	long usecs = strtol(a->pos.v[1], &end, 10);

	if (*end || usecs <= 0) {
		fprintf(stderr, "ftrec funcslower: USECS '%s' is not a number of microseconds >= 1\n",
			a->pos.v[1]);
		return -1;
	}
	strlist_add(&o->graph_function, a->pos.v[0]);
	strlist_add(&o->ftrace_filter, a->pos.v[0]);
	o->tracing_thresh = usecs;
	return 0;
}

int cmd_funcslower(int argc, char **argv)
{
	static const struct preset preset = {
		.name = "funcslower", .usage = usage, .min_pos = 2, .max_pos = 2,
		.positional = "FUNC USECS",
		.tracer = "function_graph",
		.takes_depth = false, .display_flags = true, .fill = fill,
	};

	return preset_main(&preset, argc, argv);
}
