/* SPDX-License-Identifier: MIT */
/* preset_func.h - what the function-tracer presets (funccount, funcslower, funcgraph, kprobe) share. */
#ifndef RECORD_PRESET_FUNC_H
#define RECORD_PRESET_FUNC_H

#include "record/record.h"

/* Positional arguments a preset collects while record_parse() runs. */
struct preset_args {
	const struct preset *preset;
	struct strlist pos;
	int max_depth;   /* funcgraph -m */
	bool profile;    /* funccount --profile */
	double interval; /* funccount -i SECS (with --profile); 0 = not given */
	bool on_cpu;     /* funcslower / funcgraph -C: time on the CPU only */
};

/* What distinguishes one of these presets; preset_main() does the rest. */
struct preset {
	const char *name;
	const char *usage;
	size_t min_pos, max_pos; /* positional arguments allowed */
	const char *positional;  /* what they are, for the error: "FUNC USECS" */
	/*
	 * current_tracer, or NULL (kprobe). Older kernels refuse tracers in an
	 * instance: then record at the top level, which record_run() restores.
	 */
	const char *tracer;
	bool takes_depth;        /* -m MAXDEPTH (funcgraph) */
	bool takes_profile;      /* --profile and -i SECS (funccount) */
	/*
	 * function_graph presets: perf-tools' -P (process names: always recorded,
	 * accepted and dropped) and -C (on-CPU time only: options/sleep-time off),
	 * taken out before record_parse(), where -C means -C CLOCK.
	 */
	bool display_flags;
	/* Turn the positional arguments into tracer settings; 0 or -1 after an error. */
	int (*fill)(struct record_opts *o, struct preset_args *a);
};

/* Parse the command line (common options + the preset's), fill, record_run(). */
int preset_main(const struct preset *p, int argc, char **argv);

/* Every preset here uses a function tracer or kprobes: cmd_<name> for record/main.c. */
int cmd_funccount(int argc, char **argv);
int cmd_funcslower(int argc, char **argv);
int cmd_funcgraph(int argc, char **argv);
int cmd_kprobe(int argc, char **argv);

#endif
