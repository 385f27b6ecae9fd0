/* SPDX-License-Identifier: MIT */
/*
 * preset_tpoint.c - `ftrec tpoint [-s] [-p PID] [-d SECONDS] [-o FILE] SYSTEM:EVENT
 * [FILTER] [-- COMMAND]`: one tracepoint (globs allowed), optionally filtered in the
 * kernel and with a kernel stack per event, as perf-tools' tpoint. Printed as the
 * kernel's trace text by `ftana report tpoint`, stacks aggregated by `ftana report stacks`.
 */
#include <stdio.h>
#include <string.h>

#include "record/record.h"

static const char usage[] =
	"usage: ftrec tpoint [-s] [-p PID] [-d SECONDS] [-o FILE.ftz] SYSTEM:EVENT [FILTER]\n"
	"                    [-- COMMAND ARGS...]\n"
	"  SYSTEM:EVENT  the tracepoint (globs allowed: 'block:block_rq_*')\n"
	"  FILTER        ftrace filter on its fields, e.g. 'rwbs ~ \"*R*\"' or 'bytes > 4096'\n"
	"  -s            a kernel stack for each event   -p PID  only events of PID\n"
	"  -d SECONDS    stop after   -o FILE.ftz  output (default tpoint.ftz)\n"
	"Report: ftana report tpoint FILE.ftz; ftana report stacks FILE.ftz [--folded]\n";

struct tpoint_args {
	const char *event;
	const char *filter;
};

/* The positional arguments: SYSTEM:EVENT, then an optional FILTER. */
static int tpoint_arg(struct record_opts *o, const char *arg, const char *next, void *ctx)
{
	struct tpoint_args *a = ctx;

	if (arg[0] == '-' && arg[1])
		return 0;
	if (!a->event)
		a->event = arg;
	else if (!a->filter)
		a->filter = arg;
	else
		return 0;
	return 1;
}

int cmd_tpoint(int argc, char **argv)
{
	struct record_opts o;
	struct tpoint_args a = { 0 };

	record_opts_init(&o, "tpoint", argc, argv);
	int ret = record_parse(&o, argc, argv, tpoint_arg, &a, usage);

	if (ret == 0 && !a.event) {
		fprintf(stderr, "ftrec tpoint: no tracepoint: give SYSTEM:EVENT "
			"(try 'ftrec tpoint --help')\n");
		ret = -1;
	}
	if (ret == 0 && o.nr_events) {
		fprintf(stderr, "ftrec tpoint: give the tracepoint as SYSTEM:EVENT, not with -e\n");
		ret = -1;
	}
	if (ret == 0)
		ret = record_add_event(&o, a.event, a.filter);
	if (ret == 0) {
		if (!o.output)
			o.output = "tpoint.ftz";
		ret = record_run(&o);
	} else {
		ret = ret > 0 ? FTREC_EXIT_OK : FTREC_EXIT_ERROR;
	}
	record_opts_free(&o);
	return ret;
}
