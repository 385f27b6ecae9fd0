/* SPDX-License-Identifier: MIT */
/*
 * preset_funcslower.c - `ftrec funcslower [-P] [-C] [OPTIONS] FUNC USECS`:
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

#include "common/msg.h"
#include "record/preset_func.h"

static const struct record_option options[] = {
	{ FUNC_OPT_ON_CPU, 'C', NULL, NULL,
	  "on-CPU time only: time the task slept inside FUNC is not counted (as in "
	  "perf-tools; function_graph's sleep-time option off; the trace clock is --clock)" },
	{ FUNC_OPT_PROCESS, 'P', NULL, NULL, "accepted as in perf-tools; the pid is always recorded" },
	{ 0 },
};

static const struct record_positional positionals[] = {
	{ "FUNC", "the kernel function to time", 0 },
	{ "USECS", "record only its calls that took USECS microseconds or more", RECORD_POS_NUMBER },
	{ 0 },
};

const struct record_cmd record_cmd_funcslower = {
	.name = "funcslower",
	.summary = "calls of a kernel function slower than USECS (perf-tools funcslower)",
	.about = "function_graph with tracing_thresh: faster calls never reach the buffer. "
		 "No duration argument (as in perf-tools): a third argument is refused, use -d SECONDS.",
	.options = options,
	.positionals = positionals,
	.takes_command = true,
	.output_default = "funcslower.ftz",
	.footer = "Calls: ftana report funcslower FILE.ftz [-t] [-P]\n",
	.option = preset_func_option,
};

static int fill(struct record_opts *o, struct preset_args *a)
{
	char *end;
	long usecs = strtol(a->pos.v[1], &end, 10);

	if (*end || end == a->pos.v[1] || usecs <= 0 || usecs > 1000000000)
		return msg_error("USECS '%s' is not a number of microseconds from 1 to 1e9", a->pos.v[1]);
	strlist_add(&o->graph_function, a->pos.v[0]);
	strlist_add(&o->ftrace_filter, a->pos.v[0]);
	o->tracing_thresh = usecs;
	return 0;
}

int cmd_funcslower(int argc, char **argv)
{
	static const struct preset preset = {
		.cmd = &record_cmd_funcslower, .tracer = "function_graph", .graph_time_option = true,
		.fill = fill,
	};

	return preset_func_main(&preset, argc, argv);
}
