/* SPDX-License-Identifier: MIT */
/* preset_func.h - what the function-tracer presets (funccount, funcslower, funcgraph, kprobe) share. */
#ifndef RECORD_PRESET_FUNC_H
#define RECORD_PRESET_FUNC_H

#include "record/record.h"

/* Keys of these presets' own options (struct record_option.key). */
enum {
	FUNC_OPT_DEPTH = 'm',   /* funcgraph -m MAXDEPTH */
	FUNC_OPT_ON_CPU = 'C',  /* funcslower / funcgraph -C: time on the CPU only */
	FUNC_OPT_PROCESS = 'P', /* funcslower / funcgraph -P: accepted, the pid is always recorded */
	FUNC_OPT_INTERVAL = 'i',/* funccount -i SECS (with --profile) */
	FUNC_OPT_PROFILE = RECORD_OPT_OWN, /* funccount --profile */
};

/* What the command line said, beyond struct record_opts. */
struct preset_args {
	const struct preset *preset;
	struct record_args pos;  /* the positional arguments */
	int max_depth;   /* funcgraph -m; 0 = not given */
	bool profile;    /* funccount --profile */
	double interval; /* funccount -i SECS (with --profile); 0 = not given */
	bool on_cpu;     /* funcslower / funcgraph -C */
};

/* What distinguishes one of these presets; preset_func_main() does the rest. */
struct preset {
	const struct record_cmd *cmd; /* name, options, positionals, help */
	/*
	 * current_tracer, or NULL (kprobe). Older kernels refuse tracers in an
	 * instance: then record at the top level, which record_run() restores.
	 */
	const char *tracer;
	/* function_graph: -C (on-CPU time) decides options/sleep-time. */
	bool graph_time_option;
	/* Turn the positional arguments into tracer settings; 0 or -1 after an error. */
	int (*fill)(struct record_opts *o, struct preset_args *a);
};

/* The option handler of these presets (struct record_cmd.option); ctx is a struct preset_args. */
int preset_func_option(struct record_opts *o, int key, const char *arg, void *ctx);

/* Parse the command line (common options + the preset's), fill, record_run(). */
int preset_func_main(const struct preset *p, int argc, char **argv);

#endif
