/* SPDX-License-Identifier: MIT */
/*
 * preset_funcgraph.c - `ftrec funcgraph [-m MAXDEPTH] [-C] [-d SECONDS] FUNC`:
 * function_graph rooted at FUNC (set_graph_function): every kernel function FUNC
 * calls is traced -- a lot of events, hence the warning. -m is the kernel's
 * max_graph_depth (as in perf-tools): levels in all, FUNC itself being level 1,
 * so -m 1 records FUNC alone and -m 2 FUNC and the functions it calls. -C, as
 * in perf-tools, measures time on the CPU only (sleep-time option off).
 */
#include <stdio.h>

#include "record/preset_func.h"

static const char usage[] =
	"usage: ftrec funcgraph [-m MAXDEPTH] [-C] [-d SECS] [-p PID] -o FILE.ftz FUNC [-- COMMAND]\n"
	"  records every kernel function called below FUNC (function_graph): many events\n"
	"  -m MAXDEPTH  levels to record, FUNC itself being level 1: -m 1 is FUNC alone,\n"
	"               -m 2 FUNC and what it calls (the kernel's max_graph_depth)\n"
	"  -C           on-CPU time only: time a task slept is not counted (as in perf-tools)\n"
	"Graph: ftana report funcgraph FILE.ftz [-p PID] [-C CPU] [--tree | --folded]\n";

static int fill(struct record_opts *o, struct preset_args *a)
{
	const char *func = a->pos.v[0];

	strlist_add(&o->graph_function, func);
	if (a->max_depth > 0)
		o->max_graph_depth = a->max_depth;
	if (a->max_depth == 1)
		fprintf(stderr, "ftrec funcgraph: -m 1: recording the calls of %s only, none of the functions it calls\n",
			func);
	else if (a->max_depth > 1)
		fprintf(stderr, "ftrec funcgraph: tracing %s and the kernel functions it calls, %d levels in all (-m %d)\n",
			func, a->max_depth, a->max_depth);
	else
		fprintf(stderr, "ftrec funcgraph: tracing every kernel function called below %s; "
			"this can be many events (limit with -m, -p, -d)\n", func);
	return 0;
}

int cmd_funcgraph(int argc, char **argv)
{
	static const struct preset preset = {
		.name = "funcgraph", .usage = usage, .min_pos = 1, .max_pos = 1,
		.positional = "one FUNC",
		.tracer = "function_graph",
		.takes_depth = true, .display_flags = true, .fill = fill,
	};

	return preset_main(&preset, argc, argv);
}
