/* SPDX-License-Identifier: MIT */
/* preset_func.c - the command line and run of the function-tracer presets (preset_func.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "record/preset_func.h"

int preset_func_option(struct record_opts *o, int key, const char *arg, void *ctx)
{
	struct preset_args *a = ctx;
	char *end;

	switch (key) {
	case FUNC_OPT_DEPTH: {
		long v = strtol(arg, &end, 10);
		if (*end || end == arg || v <= 0 || v > 1000)
			return msg_error("-m needs a depth >= 1, not '%s'", arg);
		a->max_depth = (int)v;
		return 0;
	}
	case FUNC_OPT_ON_CPU:
		a->on_cpu = true;
		return 0;
	case FUNC_OPT_PROCESS:
		return 0; /* the pid is always recorded: `ftana report ... -P` shows it */
	case FUNC_OPT_PROFILE:
		a->profile = true;
		return 0;
	case FUNC_OPT_INTERVAL: {
		double v = strtod(arg, &end);
		if (*end || end == arg || !(v >= 0.01 && v <= 86400))
			return msg_error("-i needs seconds between 0.01 and 86400, not '%s'", arg);
		a->interval = v;
		return 0;
	}
	}
	(void)o;
	return msg_error("internal error: unhandled option %d", key);
}

int preset_func_main(const struct preset *p, int argc, char **argv)
{
	struct record_opts o;
	struct preset_args a = { .preset = p };

	record_opts_init(&o, p->cmd->name, argc, argv);
	o.tracer = p->tracer;
	o.allow_top_level_fallback = p->tracer != NULL;
	int rc = record_parse(&o, p->cmd, argc, argv, &a, &a.pos);
	if (rc == 0)
		rc = p->fill(&o, &a);
	if (rc == 0 && p->graph_time_option)
		/*
		 * function_graph's sleep-time option: with it a call's time includes the
		 * time its task slept, without it only the time on the CPU (perf-tools -C).
		 * Set either way: the user's own setting must not change what -C means.
		 */
		strlist_add(&o.trace_options, a.on_cpu ? "sleep-time=0" : "sleep-time=1");
	return record_finish(&o, &a.pos, rc);
}
