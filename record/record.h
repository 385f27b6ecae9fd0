/* SPDX-License-Identifier: MIT */
/*
 * record.h - what ftrec's subcommands share: the recording options, the common
 * option parser, and record_run() which does one whole recording.
 *
 * A preset (record/preset_<name>.c) is a subcommand that fills a struct
 * record_opts (events, filters, or a tracer and its filter files), usually with
 * record_parse() for the common options, then calls record_finish(), which runs
 * record_run(). It is added to ftrec with ONE line in the table in record/main.c.
 *
 * Messages go through common/msg.h (msg_error, msg_warn, msg_note: one line,
 * no "\n"); their prefix "ftrec NAME" is set by common/cmd.c's dispatcher.
 * Helpers return 0, or -1 after a msg_error (or a negative errno where a
 * comment says so); only the command's top (cmd_<name>, record_finish) turns
 * that into an exit status (enum cmd_exit, common/cmd.h).
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
#include <stdio.h>

#define RECORD_PID_COMMAND (-1)

enum stopif_kind { STOPIF_RUNQ, STOPIF_IO, STOPIF_SYSCALL };

/* A growable list of strings (owned copies; record/strlist.c). Out of memory is fatal. */
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
	int pid;                  /* -p: this process, every thread of it, in set_event_pid (and
	                             set_ftrace_pid for tracers); 0 = all, RECORD_PID_COMMAND =
	                             the COMMAND and its children (-p cmd) */
	int tid;                  /* -L: this one thread; 0 = not given */
	bool follow;              /* --follow: with -p, also the tasks it creates from now on
	                             (event-fork, function-fork) */
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
	 * The same, for probes the recording can do without (triage's open path): a
	 * kernel without kprobe_events, or one that refuses the line, leaves the probe
	 * out with a one-line note instead of failing. kprobe_filter is not applied.
	 */
	struct strlist kprobe_optional;
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
	const char *output;     /* -o FILE.ftz (the command's default, else required) */
	double duration;        /* -d SECONDS; 0 = until Ctrl-C / SIGTERM / COMMAND exit */
	unsigned long buffer_kb;/* -b KB per CPU (buffer_size_kb); 0 = kernel default */
	const char *clock;      /* -C CLOCK; NULL = "mono" if available, else "global" */
	uint64_t max_size;      /* --max-size in bytes; 0 = unlimited */
	int zstd_level;         /* 0 = the writer's default */
	bool quiet;             /* no progress line; the summary is always printed */

	/* --- flight recorder (record/trigger.c) */
	bool kernel_ring;       /* --kernel-ring: the instance's buffer in overwrite mode, nothing
	                           read until the stop, then the whole buffer drained */
	const char *trigger;    /* --trigger 'SYS:EVENT[ if FILTER]' as given, or NULL */
	char *trigger_system;   /* its parts: "syscalls", "sys_enter_getppid", */
	char *trigger_event;
	char *trigger_filter;   /* "id == 39" or NULL */
	double post;            /* --post SECONDS after the trigger (plain mode only); 0 = none */
	uint64_t ring_size;     /* --ring SIZE: bytes of complete segments kept on disk; 0 = off */
	uint64_t rotate_size;   /* --rotate SIZE: bytes per file of the series; 0 = off */
	/* --stop-if 'COND' (record/stopif.c): sets the trigger* fields to its synthetic event */
	const char *stop_if;    /* as given, or NULL */
	int stop_kind;          /* enum stopif_kind */
	char *stop_syscall;     /* syscall NAME, else NULL */
	uint64_t stop_ns;       /* the threshold */
	char *stop_event;       /* "ftrec_stop_<pid>" */
	char *stop_trigger;     /* "synthetic:ftrec_stop_<pid> if lat > N": o->trigger */
	const char *stop_comm;  /* -n COMM: only tasks of that name count, or NULL */
	double rotate_secs;     /* --rotate SECS: seconds per file of the series; 0 = off */

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
 * filter. Returns 0, or -1 after a msg_error (no ':' in a spec ...).
 */
int record_add_event(struct record_opts *o, const char *spec, const char *filter);

/*
 * The command line of every recording subcommand is described by tables, and
 * the parser (getopt_long: bundling "-sd5", attached arguments "-d5",
 * "--duration=5"), --help and the man page (tools/mkman.sh runs --help) are all
 * made from them, so they cannot disagree.
 */
struct record_option {
	int key;               /* passed to the command's option(); common ones: enum record_common */
	char short_name;       /* 'd', or 0 for a long option only */
	const char *long_name; /* "duration", or NULL */
	const char *arg;       /* "SECONDS"; NULL for a flag */
	const char *help;      /* lines for --help, '\n' between them */
};

/* The options every recording subcommand shares (record/cli.c has the table). */
enum record_common {
	RECORD_OPT_EVENT = 0x100, RECORD_OPT_FILTER, RECORD_OPT_STACK, RECORD_OPT_PID,
	RECORD_OPT_TID, RECORD_OPT_FOLLOW, RECORD_OPT_DURATION, RECORD_OPT_BUFFER,
	RECORD_OPT_CLOCK, RECORD_OPT_MAX_SIZE, RECORD_OPT_OUTPUT, RECORD_OPT_QUIET,
	RECORD_OPT_KERNEL_RING, RECORD_OPT_TRIGGER, RECORD_OPT_POST, RECORD_OPT_HELP,
	RECORD_OPT_RING, RECORD_OPT_ROTATE, RECORD_OPT_STOP_IF, RECORD_OPT_STOP_COMM,
	RECORD_OPT_OWN = 0x200, /* the first key a command may use for its own long options */
};

/* A positional argument (struct record_cmd.positionals). */
struct record_positional {
	const char *name;      /* "SYSTEM:EVENT" */
	const char *help;
	unsigned flags;        /* RECORD_POS_* */
};
enum {
	RECORD_POS_OPTIONAL = 1 << 0, /* may be left out (only the last ones) */
	RECORD_POS_REPEAT   = 1 << 1, /* the last one: one or more */
	RECORD_POS_NUMBER   = 1 << 2, /* a number belongs here (funcslower USECS) */
	RECORD_POS_DURATION = 1 << 3, /* seconds to record, as -d (perf-tools' iosnoop 5) */
};

/* One subcommand: what --help shows and what the parser accepts. */
struct record_cmd {
	const char *name;
	const char *summary;    /* one line, for `ftrec --help` */
	const char *about;      /* lines after the usage line, or NULL */
	const struct record_option *options;          /* its own, { 0 }-terminated, or NULL */
	const struct record_positional *positionals;  /* { 0 }-terminated, or NULL */
	bool takes_events;      /* -e / -f (ftrec record) */
	bool takes_command;     /* -- COMMAND ARGS... */
	const char *output_default; /* "iolat.ftz"; NULL: -o is required */
	const char *footer;     /* last lines ("Report: ftana report ..."), or NULL */
	/* One of the command's own options (or NULL when it has none): 0, or -1 after a msg_error. */
	int (*option)(struct record_opts *o, int key, const char *arg, void *ctx);
};

/* The positional arguments record_parse() found (pointers into argv). */
struct record_args {
	char **v;
	size_t n;
};

/*
 * Parse argv[1..] (argv[0] is the subcommand) against CMD's options and the
 * common ones; positionals are checked against CMD->positionals (count, and a
 * bare number where a name belongs is refused with a hint, since only
 * RECORD_POS_DURATION slots are durations). -h/--help anywhere before "--"
 * prints the help, whatever else is wrong. Sets o->output to the default.
 * Returns 0, 1 when help was printed (exit 0), -1 after a msg_error.
 * ARGS->v is malloc'd: free it.
 */
int record_parse(struct record_opts *o, const struct record_cmd *cmd, int argc, char **argv,
		 void *ctx, struct record_args *args);

/*
 * Every subcommand's last step: STATUS is record_parse()'s (0, 1 help printed, -1
 * error) or a later setup step's. Records when it is 0, then frees ARGS and O.
 * Returns the exit status: CMD_EXIT_OK (recorded, also when a COMMAND exited
 * non-zero: see the summary; or help printed) or CMD_EXIT_ERROR (bad usage,
 * setup failed, write error; nothing left in tracefs).
 */
int record_finish(struct record_opts *o, struct record_args *args, int status);

/* CMD's full --help text to OUT. */
void record_print_help(const struct record_cmd *cmd, FILE *out);

/*
 * Every thread of process PID now, from /proc/PID/task (record/tasks.c):
 * a malloc'd array in *tids, its length returned; -1 with errno when the
 * process cannot be read (ESRCH: it does not exist). Prints nothing.
 */
long tasks_of_process(int pid, int **tids);

/*
 * Parse a -p / -L argument (OPT: the option as typed): "N" with 1 <= N <= INT_MAX,
 * an existing process (-p: a thread group leader) or thread (-L). 0 with *out set,
 * or -1 after a msg_error (record/tasks.c).
 */
int tasks_parse(const char *opt, const char *arg, bool process, int *out);

/*
 * Split a --trigger argument 'SYS:EVENT[ if FILTER]' into o->trigger_*
 * (record/trigger.c). 0, or -1 after a msg_error naming --trigger.
 */
int trigger_parse(struct record_opts *o, const char *spec);

/*
 * Parse --stop-if 'COND' (record/stopif.c) into o->stop_* and, through
 * trigger_parse, the trigger on its synthetic event. 0, or -1 after a msg_error.
 */
int stopif_parse(struct record_opts *o, const char *spec);

/*
 * Record until Ctrl-C, SIGTERM, SIGUSR1, -d expiry, COMMAND exit, --max-size or
 * the --trigger event; drain the buffers, write the END section, undo every
 * tracefs change, print one summary to stderr. 0 when the recording is
 * complete, -1 after a msg_error (record_finish makes the exit status).
 */
int record_run(const struct record_opts *o);

/* Subcommands (argv[0] is the subcommand name); table in record/main.c. */
int cmd_record(int argc, char **argv);
int cmd_reset(int argc, char **argv);
/* `ftrec record`'s description (each preset's record_cmd_<name> is declared in record/main.c). */
extern const struct record_cmd record_cmd_record;

#endif /* RECORD_H */
