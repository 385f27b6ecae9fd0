/* SPDX-License-Identifier: MIT */
/*
 * report_front.h - the one front end of `ftana report NAME`: every report declares
 * its own options, help and body in a `struct report_def`; the front end does the
 * rest the same way for all of them:
 *
 *   - options before or after FILE..., GNU getopt bundling (`-Qs`, `-p123`);
 *   - FILE...: one capture (a .ftz, a ring's head, a trace.dat, a .db), or the
 *     files of one --rotate series, joined as one capture (ftana_open_set);
 *   - `--help`/`-h` anywhere: the report's full help on stdout, exit 0, the
 *     database untouched (not even opened);
 *   - errors: one line "ftana report NAME: ...", exit 1; stray arguments refused;
 *     numbers validated;
 *   - the common options (report_front.c's common_options[]): the slice
 *     (--since/--until/-p/-L/-n/--cpu/--include-ftrec), --wall, --csv/--json
 *     (refused together), -H/--no-header, -v (notes);
 *   - the output contract: text tables, CSV or one JSON document
 *     {"report":..., "file":..., ["files": [...] for a series,] <table key>: [rows...], ..., "warnings": [...]};
 *     warnings go to stderr in every mode, and into the JSON document too.
 *
 * A report's body only selects rows: the slice is in SQL (report_slice.c).
 */
#ifndef REPORT_FRONT_H
#define REPORT_FRONT_H

#include <regex.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/ftana.h"

struct report_ctx;

/* One option of a report's own (the common ones are the front end's). */
struct report_option {
	const char *name;  /* long name ("summary"), or NULL */
	int letter;        /* short letter ('Q'), or 0 */
	const char *arg;   /* name of its argument ("SECS"), NULL for a flag */
	const char *help;  /* one line (more lines: "\n" + indent in the text) */
};

struct report_def {
	const char *name;
	const char *summary;   /* one line: what the report shows */
	const struct report_option *options; /* ends with { 0 } */
	const char *details;   /* more help text after the options, or NULL */
	size_t opts_size;      /* size of the report's option struct (ctx->opts) */
	/* One of the report's own options (index into options[]); arg NULL for a flag.
	 * Returns 0, or -1 after report_error(). */
	int (*option)(struct report_ctx *ctx, int index, const char *arg);
	/* After all options: check combinations (may be NULL). 0 or -1 after an error. */
	int (*check)(struct report_ctx *ctx);
	/* The report; returns an FTANA_EXIT_* status. */
	int (*run)(struct report_ctx *ctx);
	/* The report re-decodes the .ftz instead of reading the database (tpoint). */
	bool needs_capture;
	/* Message prefix instead of "ftana report NAME" (`ftana export` borrows the slice). */
	const char *prefix;
};

/* The slice of the capture every report is limited to (report_slice.c). */
struct report_slice {
	const char *since_arg, *until_arg; /* as given, NULL when not */
	int64_t since_ns, until_ns; /* trace clock, [since, until): INT64_MIN / INT64_MAX */
	int64_t lo_id, hi_id;       /* the ids inside [since, until), or lo > hi when none */
	int64_t pid;                /* -p: the process (every thread of it); -1 none */
	int64_t tid;                /* -L: one thread; -1 none */
	const char *comm_re;        /* -n: the task's comm matches (POSIX ERE) */
	regex_t comm_regex;
	const char *cpu_arg;        /* --cpu LIST, NULL none */
	uint64_t *cpus;             /* bitmap of --cpu */
	size_t nr_cpu_words;
	bool include_ftrec;         /* --include-ftrec: keep ftrec's own threads */
	/* From the database: */
	int64_t first_ts, last_ts, wall_offset_ns;
	bool have_wall;
	struct slice_task *tasks;   /* sorted by pid: tgid, comm, is_ftrec */
	size_t nr_tasks;
	int64_t *ftrec_tids;        /* sorted */
	size_t nr_ftrec_tids;
};

struct report_ctx {
	const struct report_def *def;
	const char *file;           /* the first FILE (a series' first file) */
	const char *const *files;   /* every FILE given: nr_files of them */
	size_t nr_files;
	sqlite3 *db;
	enum out_format fmt;
	bool header;      /* -H: headers also on views that omit them by default */
	bool no_header;   /* --no-header: no header line in text and CSV tables */
	bool wall;        /* --wall: wall-clock timestamps (UTC) */
	bool verbose;     /* -v: notes about what was left out and why */
	struct report_slice slice;
	void *opts;       /* the report's own option struct, def->opts_size bytes, zeroed */
	/* output document */
	int tables;       /* tables written so far (JSON: keys; CSV: at most one) */
	bool doc_open;    /* JSON: the document's head is written */
	char **warnings;
	size_t nr_warnings;
};

/* Run `ftana report NAME ARGS...` for def: argv[0] is NAME. Returns the exit status. */
int report_front_run(const struct report_def *def, int argc, char **argv);

/* The same on an open database (tests on hand-made rows): argv holds no FILE. */
int report_run_db(const struct report_def *def, sqlite3 *db, int argc, char **argv);

/*
 * Open FILES (one capture, or the files of one --rotate series) as one database:
 * each must exist (else one line naming it), then ftana_open_set. NULL after a
 * one-line error; *damaged as ftana_open. For `ftana info`, `sql` and the reports.
 */
sqlite3 *report_open_inputs(const char *const *files, size_t n, bool *damaged);

/* out_check(PATH, input) for every input of ctx (-o never over any file of a series). */
int report_out_check(const struct report_ctx *ctx, const char *path);

/* Print def's full help (usage, the report's options, the common ones) to out. */
void report_help(const struct report_def *def, FILE *out);

/* "ftana report NAME: <message>" on stderr. Returns -1. */
int report_error(const struct report_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A warning: "ftana report NAME: warning: <message>" on stderr, and kept for the
 * JSON document's "warnings" array. */
void report_warn(struct report_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A note (what was left out and why): on stderr with -v, else nothing. */
void report_note(struct report_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Parse a number argument of option OPT ("-i", "--top"): a finite number >= min.
 * Returns 0, or -1 after "ftana report NAME: bad OPT 'ARG' (...)". */
int report_number(const struct report_ctx *ctx, const char *opt, const char *arg,
		  double min, double *out);

/*
 * Print the rows of SQL as one table of the output document under KEY ("rows",
 * "summary", "histogram", ...): text table (column names as the SQL gives them),
 * a CSV table (only one per run: a second is refused earlier by the report's
 * check), or KEY: [objects] in the JSON document. Returns 0 or -1 after an error.
 */
int report_table(struct report_ctx *ctx, const char *key, const char *sql);
/* The same for a prepared statement (bound by the caller; not finalized here). */
int report_table_stmt(struct report_ctx *ctx, const char *key, sqlite3_stmt *st);

/* JSON: begin the document if needed and write `,"KEY":` for a table the report
 * streams itself (tpoint); counts as a table. The value must follow. */
void report_doc_key(struct report_ctx *ctx, const char *key);

/*
 * The lost-events warning, for the time range the report covers (the slice, within
 * min/max of RANGE_SQL: one row, min ts, max ts). Through report_warn.
 */
int report_warn_lost(struct report_ctx *ctx, const char *range_sql);

/* --- the slice (report_slice.c) --- */

/*
 * Parse --since/--until/--cpu/-n values into ctx->slice (no database needed), and
 * later resolve them against the database (first event, wall-clock offset, tasks,
 * ftrec's threads), define the SQL side and say what the slice is. 0 or -1 after an
 * error message.
 */
int slice_parse_cpus(struct report_ctx *ctx, const char *arg);
int slice_parse_comm(struct report_ctx *ctx, const char *arg);
int slice_check_time(struct report_ctx *ctx, const char *opt, const char *arg);
int slice_resolve(struct report_ctx *ctx);
void slice_free(struct report_slice *s);

/* Is an event (ts, cpu, pid) in the slice? (For reports that walk events in C.) */
bool slice_match(const struct report_slice *s, int64_t ts, int64_t cpu, int64_t pid);
/* Is the task filter (-p/-L/-n, ftrec's threads) passed by pid? */
bool slice_task_match(const struct report_slice *s, int64_t pid);

/* Is any slice option given (besides leaving out ftrec's threads)? */
bool slice_active(const struct report_slice *s);

/*
 * SQL the front end defines on the connection for the report's SQL:
 *   in_slice(ts, cpu, pid)  1 when the row is in the slice (time, CPU, task)
 *   in_slice_task(pid)      1 when the task filter passes pid
 *   report_ts(ts)           ts as the report prints it: seconds of the trace clock
 *                           (REAL), or with --wall the UTC wall-clock time as text
 *                           ("HH:MM:SS.uuuuuu" in text mode, ISO 8601 in CSV/JSON)
 *   temp.slice              one row: since_ns, until_ns, lo_id, hi_id (the int64
 *                           extremes when unbounded), for `id BETWEEN lo_id AND hi_id`
 *                           (a rowid range of any event table)
 * Column name for a timestamp column called NAME: "NAME_s", or "NAME_wall" with --wall.
 */
const char *report_ts_suffix(const struct report_ctx *ctx);

#endif
