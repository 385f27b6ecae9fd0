/* SPDX-License-Identifier: MIT */
/*
 * preset_tpoint.c - `ftrec tpoint [OPTIONS] SYSTEM:EVENT [FILTER] [-- COMMAND]`: one
 * tracepoint (globs allowed), optionally filtered in the kernel and with a kernel
 * stack per event, as perf-tools' tpoint. Printed as the
 * kernel's trace text by `ftana report tpoint`, stacks aggregated by `ftana report stacks`.
 */
#include <stdio.h>
#include <stdlib.h>

#include "record/record.h"

static const struct record_positional positionals[] = {
	{ "SYSTEM:EVENT", "the tracepoint (globs allowed: 'block:block_rq_*')", 0 },
	{ "FILTER", "ftrace filter on its fields, e.g. 'rwbs ~ \"*R*\"' or 'bytes > 4096'",
	  RECORD_POS_OPTIONAL },
	{ 0 },
};

const struct record_cmd record_cmd_tpoint = {
	.name = "tpoint",
	.summary = "one tracepoint, optionally filtered, with stacks (perf-tools tpoint)",
	.about = "No duration argument (as in perf-tools: the argument after SYSTEM:EVENT is a "
		 "FILTER): a number is refused, use -d SECONDS.",
	.positionals = positionals,
	.takes_command = true,
	.output_default = "tpoint.ftz",
	.footer = "Report: ftana report tpoint FILE.ftz; ftana report stacks FILE.ftz [--folded]\n",
};

int cmd_tpoint(int argc, char **argv)
{
	struct record_opts o;
	struct record_args args;

	record_opts_init(&o, "tpoint", argc, argv);
	int ret = record_parse(&o, &record_cmd_tpoint, argc, argv, NULL, &args);

	if (ret == 0)
		ret = record_add_event(&o, args.v[0], args.n > 1 ? args.v[1] : NULL);
	return record_finish(&o, &args, ret);
}
