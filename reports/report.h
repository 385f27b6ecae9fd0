/* SPDX-License-Identifier: MIT */
/*
 * report.h - what a report is, and the framework every `ftana report NAME` goes
 * through. Each report is one file reports/report_<name>.c defining
 *     const struct report_def report_<name>_def = { ... };
 * (its options, help, body and the views its SQL reads); the build finds it
 * (registry.c), so adding a report edits no shared file. The framework:
 *
 *   front.c  options before or after FILE..., GNU getopt bundling (`-Qs`, `-p123`),
 *            `--help`/`-h` anywhere (the database not even opened), the common
 *            options (the slice, --wall, --csv/--json, -H/--no-header, -v),
 *            numbers validated, stray arguments refused, and opening FILE...:
 *            one capture (a .ftz, a ring's head, a trace.dat, a .db) or the files
 *            of one --rotate series as one capture;
 *   doc.c    the output document: text tables, CSV (one table) or one JSON document
 *            {"report":..., "file":..., ["files": [...],] <table key>: [rows...], ...,
 *            "warnings": [...]} (every warning of the run, common/msg.h);
 *   slice.c  the part of the capture the report looks at (slice.h), in SQL;
 *   lost.c   the loss warning every report gives first (lost.h);
 *   registry.c  the table of reports and of the views they offer `ftana sql`.
 *
 * Messages go through common/msg.h (prefix "ftana report NAME", set by the front
 * end); a report's functions return 0 or -1 after one, and the front end alone
 * turns that into the exit status (3 when the capture is damaged).
 */
#ifndef REPORTS_REPORT_H
#define REPORTS_REPORT_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/msg.h"
#include "reports/slice.h"
#include "store/print.h"

struct report_ctx;

/* One option of a report's own (the common ones are the front end's). */
struct report_option {
	const char *name;  /* long name ("summary"), or NULL */
	int letter;        /* short letter ('Q'), or 0 */
	const char *arg;   /* name of its argument ("SECS"), NULL for a flag */
	const char *help;  /* one line (more lines: "\n" + indent in the text) */
};

/*
 * Views a family of reports builds from the capture's tables (`io`, `calls`,
 * `oncpu`, ...; docs/SQL.md): the reports' SQL reads them, and `ftana sql` and
 * `ftana export` see them too. build() creates them (TEMP) when the capture has
 * their inputs and does nothing otherwise. Several reports may share one.
 */
struct report_views {
	const char *name;
	int (*build)(sqlite3 *db); /* 0, or -1 after an error message */
	/* its rows are a TEMP table made per run (funcgraph's walk): views_keep.c does
	 * not build it for a database kept on disk */
	bool per_run;
};

struct report_def {
	const char *name;
	const char *summary;   /* one line: what the report shows */
	const struct report_option *options; /* ends with { 0 } */
	const char *details;   /* more help text after the options, or NULL */
	size_t opts_size;      /* size of the report's option struct (ctx->opts) */
	/* One of the report's own options (index into options[]); arg NULL for a flag.
	 * Returns 0, or -1 after msg_error(). */
	int (*option)(struct report_ctx *ctx, int index, const char *arg);
	/* After all options: check combinations (may be NULL). 0 or -1 after an error. */
	int (*check)(struct report_ctx *ctx);
	/* The report: 0, or -1 after an error message. */
	int (*run)(struct report_ctx *ctx);
	/* The views it reads (also offered to `ftana sql`), or NULL. */
	const struct report_views *views;
	/*
	 * The event types its SQL reads, SYSTEM:EVENT globs (import/import.h), ending
	 * with NULL: only these are imported into the capture's database before run()
	 * (issue 23: import what a question needs). NULL: every type.
	 */
	const char *const *needs;
	/* The derivations made only when asked (import/derive.h) it reads, or NULL. */
	const char *const *derive;
	/*
	 * Derivations that answer it alone when no time or CPU filter is asked (syscount:
	 * syscall_totals, streamed at import without a row of `needs`), or NULL. Then
	 * `needs` is imported only when whole_ok, called once the slice is resolved, says
	 * they do not stand for the rows after all (a ring's ragged edge, a capture the
	 * totals gave up on), and the report runs again on the rows.
	 */
	const char *const *derive_whole;
	bool (*whole_ok)(struct report_ctx *ctx);
	/*
	 * With a time or CPU filter (or a ragged edge), derive_whole is made again from the
	 * capture over the slice's window alone, into TEMP (import/dbcache.h dbcache_window:
	 * a decode, not millions of rows imported and read), and whole_ok asked again; set
	 * when derive_whole can be (syscount). Not for a .db given: its rows then.
	 */
	bool derive_window;
	/* A type one of its options names (tpoint -e EVENT), imported too; or NULL. */
	const char *(*needs_option)(const struct report_ctx *ctx);
	/* The report re-decodes the .ftz instead of reading the database (tpoint). */
	bool needs_capture;
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
	bool verbose;     /* -v: notes about what was left out and why */
	struct slice slice; /* with slice.wall: --wall */
	void *opts;       /* the report's own option struct, def->opts_size bytes, zeroed */
	bool whole;       /* db was opened with def->derive_whole alone (whole_ok holds) */
	bool window;      /* ... made over the slice's window, in TEMP (def->derive_window) */
	/* output document (doc.c) */
	int tables;       /* tables written so far (JSON: keys; CSV: at most one) */
	bool doc_open;    /* JSON: the document's head is written */
};

/* --- front.c --- */

/* Run `ftana report NAME ARGS...` for def: argv[0] is NAME. Returns the exit status. */
int front_run(const struct report_def *def, int argc, char **argv);
/* The same on an open database (tests on hand-made rows): argv holds no FILE; CAPTURE
 * is the file the database came from (tpoint re-decodes it), or NULL. */
int front_run_db(const struct report_def *def, sqlite3 *db, const char *capture, int argc,
		 char **argv);
/* Print def's full help (usage, the report's options, the common ones) to out. */
void front_help(const struct report_def *def, FILE *out);
/* out_check(PATH, input) for every input of ctx (-o never over any file of a series). */
int front_out_check(const struct report_ctx *ctx, const char *path);
/* "this capture has no TABLE events (HINT)": -1, for a report whose input is missing. */
int front_missing(const char *table, const char *hint);
/* A number argument of option OPT ("-i", "--top"): a finite number >= min.
 * 0, or -1 after "bad OPT 'ARG' (...)". */
int front_number(const char *opt, const char *arg, double min, double *out);

/* --- doc.c: the output document --- */

/*
 * Print the rows of SQL as one table of the output document under KEY ("rows",
 * "summary", "histogram", ...): text table (column names as the SQL gives them),
 * a CSV table (only one per run: a second is refused earlier by the report's
 * check), or KEY: [objects] in the JSON document. Returns 0 or -1 after an error.
 */
int doc_table(struct report_ctx *ctx, const char *key, const char *sql);
/* The same for a prepared statement (bound by the caller; not finalized here). */
int doc_table_stmt(struct report_ctx *ctx, const char *key, sqlite3_stmt *st);
/* JSON: begin the document if needed and write `,"KEY":` for a table the report
 * streams itself (tpoint); counts as a table. The value must follow. */
void doc_key(struct report_ctx *ctx, const char *key);
/* JSON: the document's head, once (before its first table, or at its end). */
void doc_begin(struct report_ctx *ctx);
/* JSON: the warnings and the closing brace. */
void doc_end(struct report_ctx *ctx);

/* --- registry.c --- */

const struct report_def *report_find(const char *name);
/* `ftana report --help`: the usage and one line per report. */
void report_list(FILE *out);
/* Every report's views on db (`ftana sql`, `ftana export`), each family once: 0, or
 * -1 after the first family that failed said why (one line: the command stops).
 * report_views_build with kept_only: the families that are not per_run, every one
 * tried whatever the others did (views_keep.c keeps those that were made). */
int report_views_all(sqlite3 *db);
void report_views_build(sqlite3 *db, bool kept_only);

/* --- views_keep.c --- */

/*
 * Into a database ftana builds (`ftana db`, a capture's cache), before it is signed:
 * the report views that stand on its own tables alone, as main views, so that any
 * SQLite client sees what `ftana sql` sees (dbcache.h's keep hook). 0, or -1.
 */
int views_keep(sqlite3 *db);

#endif
