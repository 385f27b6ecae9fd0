/* SPDX-License-Identifier: MIT */
/* preset_func.c - argument handling shared by the function-tracer presets (preset_func.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/preset_func.h"

/*
 * Take perf-tools' -P and -C out before record_parse(), where -C means -C CLOCK:
 * -P (show process names) needs nothing, the pid is always recorded; -C (on-CPU
 * time only) is noted in *on_cpu.
 */
static char **take_perf_tools_flags(int *argc, char **argv, bool *on_cpu)
{
	char **out = calloc(*argc + 1, sizeof(*out));
	int n = 0;

	if (!out)
		return NULL;
	for (int i = 0; i < *argc; i++) {
		/* Only before "--": a COMMAND may take its own -C / -P. */
		if (!strcmp(argv[i], "--")) {
			while (i < *argc)
				out[n++] = argv[i++];
			break;
		}
		if (i > 0 && !strcmp(argv[i], "-C"))
			*on_cpu = true;
		if (i > 0 && (!strcmp(argv[i], "-P") || !strcmp(argv[i], "-C")))
			continue;
		out[n++] = argv[i];
	}
	*argc = n;
	return out;
}

static int collect(struct record_opts *o, const char *arg, const char *next, void *ctx)
{
	struct preset_args *a = ctx;

	if (!strcmp(arg, "-m") && a->max_depth >= 0) {
		char *end;
		long v = next ? strtol(next, &end, 10) : 0;
		if (!next || *end || v <= 0) {
			fprintf(stderr, "ftrec %s: -m needs a depth >= 1\n", o->preset);
			return -1;
		}
		a->max_depth = (int)v;
		return 2;
	}
	if (a->preset->takes_profile && !strcmp(arg, "--profile")) {
		a->profile = true;
		return 1;
	}
	if (a->preset->takes_profile && !strcmp(arg, "-i")) {
		char *end;
		double v = next ? strtod(next, &end) : 0;
		if (!next || *end || !(v >= 0.01 && v <= 86400)) {
			fprintf(stderr, "ftrec %s: -i needs seconds between 0.01 and 86400, not '%s'\n",
				o->preset, next ? next : "");
			return -1;
		}
		a->interval = v;
		return 2;
	}
	/* A lone "-" or a negative number is not an option here either. */
	if (arg[0] == '-' && arg[1] != '\0')
		return 0;
	strlist_add(&a->pos, arg);
	return 1;
}

int preset_main(const struct preset *p, int argc, char **argv)
{
	struct record_opts o;
	struct preset_args a = { .preset = p, .max_depth = p->takes_depth ? 0 : -1 };
	int nargs = argc;
	char **args = p->display_flags ? take_perf_tools_flags(&nargs, argv, &a.on_cpu) : argv;

	if (!args)
		return FTREC_EXIT_ERROR;
	record_opts_init(&o, p->name, argc, argv); /* the command line as typed, for INFO */
	o.tracer = p->tracer;
	o.allow_top_level_fallback = p->tracer != NULL;
	int rc = record_parse(&o, nargs, args, collect, &a, p->usage);
	if (rc == 0 && (a.pos.n < p->min_pos || a.pos.n > p->max_pos)) {
		fprintf(stderr, "ftrec %s: expected %s (try 'ftrec %s --help')\n", p->name,
			p->positional, p->name);
		rc = -1;
	}
	if (rc == 0)
		rc = p->fill(&o, &a);
	if (rc == 0 && p->display_flags)
		/*
		 * function_graph's sleep-time option: with it a call's time includes the
		 * time its task slept, without it only the time on the CPU (perf-tools -C).
		 * Set either way: the user's own setting must not change what -C means.
		 */
		strlist_add(&o.trace_options, a.on_cpu ? "sleep-time=0" : "sleep-time=1");
	if (rc == 0)
		rc = record_run(&o);
	else
		rc = rc > 0 ? FTREC_EXIT_OK : FTREC_EXIT_ERROR;
	strlist_free(&a.pos);
	record_opts_free(&o);
	if (args != argv)
		free(args);
	return rc;
}
