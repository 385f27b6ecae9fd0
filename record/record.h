/* SPDX-License-Identifier: MIT */
/*
 * record.h - what ftrec's subcommands share: the recording options, the common
 * option parser, and record_run() which does one whole recording.
 *
 * A preset (record/preset_<name>.c) is a subcommand that fills a struct
 * record_opts (events, filters, or a tracer and its filter files), usually with
 * record_parse() for the common options, then calls record_run(). It is added to
 * ftrec with ONE line in the table in record/main.c.
 *
 * Every change ftrec makes to tracefs (or /proc/sys) goes through the undo log
 * (record/undo.c): cleanup, also after a failure half-way, and `ftrec reset`
 * after a kill -9, replay it. So presets never write tracefs files themselves:
 * they describe what they want here and record_run() applies it.
 */
#ifndef RECORD_H
#define RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FTREC_VERSION "0.1"

/* Exit statuses shared by all subcommands. */
enum ftrec_exit {
	FTREC_EXIT_OK    = 0, /* recorded (also when a COMMAND exited non-zero: see summary) */
	FTREC_EXIT_ERROR = 1, /* bad usage, setup failed, write error; nothing left in tracefs */
};

#define RECORD_PID_COMMAND (-1)

/* A growable list of strings (owned copies). */
struct strlist {
	char **v;
	size_t n;
};
void strlist_add(struct strlist *l, const char *s);
void strlist_free(struct strlist *l);

/* One -e argument: "SYSTEM:EVENT" (globs allowed in both parts), comma lists split. */
struct record_event {
	char *system;   /* "block", "*" */
	char *event;    /* "block_rq_issue", "*" */
	char *filter;   /* ftrace filter expression for every event it matches, or NULL */
};

struct record_opts {
	/* --- what to record */
	struct record_event *events;
	size_t nr_events;
	bool stacktrace;          /* -s: options/stacktrace in the instance (kernel_stack events) */
	int pid;                  /* -p: set_event_pid (and set_ftrace_pid for tracers); 0 = all,
	                             RECORD_PID_COMMAND = the COMMAND and its children (-p cmd) */
	char **command;           /* after "--": run and record it (NULL-terminated), or NULL */

	/* --- tracers (function, function_graph, ...): used by presets; NULL/0 = untouched */
	const char *tracer;            /* current_tracer value */
	struct strlist ftrace_filter;  /* lines written to set_ftrace_filter */
	struct strlist ftrace_notrace; /* lines written to set_ftrace_notrace */
	struct strlist graph_function; /* lines written to set_graph_function */
	long tracing_thresh;           /* usecs; < 0 = untouched */
	int max_graph_depth;           /* 0 = untouched */
	struct strlist trace_options;  /* "name=0" / "name=1": options/<name> in the instance */
	/*
	 * Lines for the global kprobe_events, WITHOUT a group: "p:NAME SYMBOL ARGS",
	 * "r:NAME SYMBOL ...". record_run() puts them in group ftrec_<pid>, enables
	 * ftrec_<pid>:NAME (with kprobe_filter for all of them when set) and removes
	 * them at exit.
	 */
	struct strlist kprobe_events;
	const char *kprobe_filter;
	/*
	 * Tracers and their filter files are per instance only on newer kernels. When
	 * true and the instance refuses them, record at the top level instead (says so
	 * on stderr; the previous top-level values are restored at exit).
	 */
	bool allow_top_level_fallback;
	/*
	 * The kernel's function profiler instead of a tracer (funccount --profile):
	 * ftrace_filter goes to the TOP level's set_ftrace_filter (the profiler has
	 * no instance of its own), function_profile_enabled is switched on with
	 * tracing, and its per-CPU trace_stat/functionN tables are stored as
	 * SNAPSHOT rounds every snapshot_interval seconds (and at start and stop).
	 * No events are needed.
	 */
	bool function_profile;
	double snapshot_interval;

	/* --- how */
	const char *output;     /* -o FILE.ftz (required) */
	double duration;        /* -d SECONDS; 0 = until Ctrl-C / SIGTERM / COMMAND exit */
	unsigned long buffer_kb;/* -b KB per CPU (buffer_size_kb); 0 = kernel default */
	const char *clock;      /* -C CLOCK; NULL = "mono" if available, else "global" */
	uint64_t max_size;      /* --max-size in bytes; 0 = unlimited */
	int zstd_level;         /* 0 = the writer's default */
	bool quiet;             /* no progress line; the summary is always printed */

	/* --- for the INFO section */
	const char *preset;     /* "record", "iolat", ... */
	int argc;               /* the full ftrec command line */
	char **argv;
};

/* Zero the options and set the defaults (tracing_thresh = -1, preset name, argv). */
void record_opts_init(struct record_opts *o, const char *preset, int argc, char **argv);
void record_opts_free(struct record_opts *o);

/*
 * Add an event spec "SYS:EVENT[,SYS:EVENT...]" (globs allowed) with an optional
 * filter. Returns 0, or -1 after printing a one-line error (no ':' in a spec ...).
 */
int record_add_event(struct record_opts *o, const char *spec, const char *filter);

/*
 * Preset-specific arguments. Called by record_parse() for every argument that is
 * not a common option, with arg and the argument after it (NULL at the end).
 * Returns how many arguments it used (1 or 2), 0 if it does not know arg (an
 * error "unknown option" is printed), or -1 after printing its own error.
 */
typedef int (*record_arg_fn)(struct record_opts *o, const char *arg,
			     const char *next, void *ctx);

/*
 * Parse argv[1..] (argv[0] is the subcommand). Common options:
 *   -e SYS:EVENT[,...]  -f FILTER (for the preceding -e)  -s  -p PID|cmd  -d SECONDS
 *   -b KB  -C CLOCK  --max-size MB  -o FILE  -q  -h/--help  -- COMMAND ARGS...
 * Everything else goes to extra (may be NULL). usage is printed for -h and after
 * errors. Returns 0, 1 when help was printed (exit 0), -1 on error (message printed).
 * Does not check that -o was given: record_run() does.
 */
int record_parse(struct record_opts *o, int argc, char **argv, record_arg_fn extra,
		 void *ctx, const char *usage);

/*
 * Record until Ctrl-C, SIGTERM, -d expiry, COMMAND exit or --max-size; drain the
 * buffers, write the END section, undo every tracefs change, print one summary to
 * stderr. Returns an enum ftrec_exit value.
 */
int record_run(const struct record_opts *o);

/* Subcommands (argv[0] is the subcommand name); table in record/main.c. */
int cmd_record(int argc, char **argv);
int cmd_reset(int argc, char **argv);

#endif /* RECORD_H */
