/* SPDX-License-Identifier: MIT */
/*
 * preset_funcgraph.c - `ftrec funcgraph [-m MAXDEPTH] [-C] [-P] [OPTIONS] FUNC`:
 * function_graph rooted at FUNC (set_graph_function): every kernel function FUNC
 * calls is traced -- a lot of events, hence the warning. -m is the kernel's
 * max_graph_depth (as in perf-tools): levels in all, FUNC itself being level 1,
 * so -m 1 records FUNC alone and -m 2 FUNC and the functions it calls. -C, as
 * in perf-tools, measures time on the CPU only (sleep-time option off).
 */
#include <stdio.h>

#include "common/msg.h"
#include "record/preset_func.h"

static const struct record_option options[] = {
	{ FUNC_OPT_DEPTH, 'm', NULL, "MAXDEPTH",
	  "levels to record (the kernel's max_graph_depth),\n"
	  "FUNC itself being level 1: -m 1 is FUNC alone,\n"
	  "-m 2 FUNC and what it calls" },
	{ FUNC_OPT_ON_CPU, 'C', NULL, NULL,
	  "on-CPU time only: time a task slept is not counted (as in perf-tools; "
	  "the trace clock is --clock here)" },
	{ FUNC_OPT_PROCESS, 'P', NULL, NULL, "accepted as in perf-tools; the pid is always recorded" },
	{ 0 },
};

static const struct record_positional positionals[] = {
	{ "FUNC", "the kernel function whose calls are graphed (set_graph_function)", 0 },
	{ 0 },
};

const struct record_cmd record_cmd_funcgraph = {
	.name = "funcgraph",
	.summary = "graph the kernel functions FUNC calls (perf-tools funcgraph)",
	.about = "Records every kernel function called below FUNC (function_graph): many events. "
		 "No duration argument (as in perf-tools): a number is refused, use -d SECONDS.",
	.options = options,
	.positionals = positionals,
	.takes_command = true,
	.output_default = "funcgraph.ftz",
	.footer = "Graph: ftana report funcgraph FILE.ftz [-p PID] [--tree | --folded]\n",
	.option = preset_func_option,
};

static int fill(struct record_opts *o, struct preset_args *a)
{
	const char *func = a->pos.v[0];

	strlist_add(&o->graph_function, func);
	if (a->max_depth > 0)
		o->max_graph_depth = a->max_depth;
	if (a->max_depth == 1)
		msg_note("-m 1: recording the calls of %s only, none of the functions it calls", func);
	else if (a->max_depth > 1)
		msg_note("tracing %s and the kernel functions it calls, %d levels in all (-m %d)", func,
			 a->max_depth, a->max_depth);
	else
		msg_warn("tracing every kernel function called below %s; "
			 "this can be many events (limit with -m, -p, -d)", func);
	return 0;
}

int cmd_funcgraph(int argc, char **argv)
{
	static const struct preset preset = {
		.cmd = &record_cmd_funcgraph, .tracer = "function_graph", .graph_time_option = true,
		.fill = fill,
	};

	return preset_func_main(&preset, argc, argv);
}
