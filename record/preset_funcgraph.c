/* SPDX-License-Identifier: MIT */
/*
 * preset_funcgraph.c - `ftrec funcgraph [-m MAXDEPTH] [-C] [-d SECONDS] FUNC`:
 * function_graph rooted at FUNC (set_graph_function): every kernel function FUNC
 * calls, to MAXDEPTH levels, is traced -- a lot of events, hence the warning.
 * -C is accepted for perf-tools compatibility (the CPU is always recorded).
 */
#include <stdio.h>

#include "record/preset_func.h"

static const char usage[] =
	"usage: ftrec funcgraph [-m MAXDEPTH] [-C] [-d SECS] [-p PID] -o FILE.ftz FUNC [-- COMMAND]\n"
	"  records every kernel function called below FUNC (function_graph): many events\n"
	"  -m MAXDEPTH  stop MAXDEPTH levels below FUNC\n"
	"  -C           accepted as in perf-tools; the CPU is always recorded\n"
	"Graph: ftana report funcgraph FILE.ftz [-p PID] [-C CPU] [--tree | --folded]\n";

static int fill(struct record_opts *o, struct preset_args *a)
{
	strlist_add(&o->graph_function, a->pos.v[0]);
	if (a->max_depth > 0)
		o->max_graph_depth = a->max_depth;
	fprintf(stderr, "ftrec funcgraph: tracing every kernel function called below %s%s; "
		"this can be many events (limit with -m, -p, -d)\n", a->pos.v[0],
		a->max_depth > 0 ? " up to -m levels" : "");
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
