/* SPDX-License-Identifier: MIT */
/*
 * front.c - the front end every `ftana report NAME` goes through (report.h):
 * options, help, opening the capture, running the report. The output document is
 * doc.c, the slice slice.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cmd.h"
#include "common/msg.h"
#include "common/out_file.h"
#include "import/dbcache.h"
#include "reports/report.h"
#include "store/nearest_rank.h"

/* Long-only common options get values above any character. */
enum {
	OPT_SINCE = 0x100, OPT_UNTIL, OPT_BEFORE_STOP, OPT_CPU, OPT_INCLUDE_FTREC, OPT_RAGGED, OPT_WALL, OPT_CSV,
	OPT_JSON, OPT_NO_HEADER, OPT_HELP,
	OPT_REPORT = 0x200, /* + index into the report's options[] */
};

static const struct common_option {
	struct report_option o;
	int val;
} common_options[] = {
	{ { "since", 0, "T", "only events at or after T (inclusive): trace-clock seconds\n"
	    "as reports print them (39.334; with six decimals the printed\n"
	    "microsecond, from half a us before), +SECS from the first event\n"
	    "(+1.5; a number below the first event's time means the same),\n"
	    "or UTC wall-clock time HH:MM:SS[.frac] or ISO 8601\n"
	    "(2026-12-03T10:15:00.25Z; a +HH:MM offset allowed). Outside the\n"
	    "capture: an error naming its span" }, OPT_SINCE },
	{ { "until", 0, "T", "only events before T (exclusive); T as for --since" }, OPT_UNTIL },
	{ { "before-stop", 0, "SECS", "only the SECS seconds up to what stopped an\n"
	    "'ftrec --stop-if' recording (the stop included; see 'ftana info')" }, OPT_BEFORE_STOP },
	{ { "pid", 'p', "PID", "only the process PID: every thread of it (tgid from\n"
	    "the capture's tasks; a thread whose tgid the capture lacks\n"
	    "counts when its pid is PID)" }, 'p' },
	{ { "tid", 'L', "TID", "only the thread TID" }, 'L' },
	{ { "comm", 'n', "REGEX", "only tasks whose command name matches REGEX (POSIX extended)" }, 'n' },
	{ { "cpu", 0, "LIST", "only these CPUs: 0,2-3" }, OPT_CPU },
	{ { "include-ftrec", 0, NULL, "keep ftrec's own threads (left out by default)" }, OPT_INCLUDE_FTREC },
	{ { "ragged", 0, NULL, "keep a ring's start where only some CPUs' events were kept\n"
	    "(left out by default: reports start where every CPU is complete)" }, OPT_RAGGED },
	{ { "wall", 0, NULL, "timestamps as UTC wall-clock time instead of trace-clock seconds" }, OPT_WALL },
	{ { "csv", 0, NULL, "CSV (RFC 4180) instead of text" }, OPT_CSV },
	{ { "json", 0, NULL, "one JSON document instead of text (see ftana(1))" }, OPT_JSON },
	{ { "header", 'H', NULL, "column headers also where the text view omits them by default" }, 'H' },
	{ { "no-header", 0, NULL, "no header line in text and CSV tables" }, OPT_NO_HEADER },
	{ { "verbose", 'v', NULL, "notes on stderr: what was left out and why" }, 'v' },
	{ { "help", 'h', NULL, "this help" }, OPT_HELP },
};
#define NR_COMMON (sizeof(common_options) / sizeof(common_options[0]))

int front_missing(const char *table, const char *hint)
{
	return msg_error("this capture has no %s events (%s)", table, hint);
}

int front_number(const char *opt, const char *arg, double min, double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= min) || v > 1e15)
		return msg_error("bad %s '%s' (a number%s)", opt, arg,
				    min >= 0 ? (min > 0 ? " above 0" : ", 0 or more") : "");
	*out = v;
	return 0;
}

int front_out_check(const struct report_ctx *ctx, const char *path)
{
	if (!ctx->nr_files)
		return out_check(path, ctx->file);
	for (size_t i = 0; i < ctx->nr_files; i++)
		if (out_check(path, ctx->files[i]) < 0)
			return -1;
	return 0;
}

/* --- help --- */

static void option_line(FILE *out, const struct report_option *o)
{
	char spec[64];
	int n = 0;

	if (o->letter && o->name)
		n = snprintf(spec, sizeof(spec), "-%c, --%s", o->letter, o->name);
	else if (o->letter)
		n = snprintf(spec, sizeof(spec), "-%c", o->letter);
	else
		n = snprintf(spec, sizeof(spec), "    --%s", o->name);
	if (o->arg && n > 0 && (size_t)n < sizeof(spec))
		snprintf(spec + n, sizeof(spec) - n, " %s", o->arg);
	/* continuation lines of the help line up under its first */
	fprintf(out, "  %-22s ", spec);
	for (const char *h = o->help; *h; h++) {
		fputc(*h, out);
		if (*h == '\n')
			fprintf(out, "%25s", "");
	}
	fputc('\n', out);
}

void front_help(const struct report_def *def, FILE *out)
{
	fprintf(out, "usage: ftana report %s [OPTIONS] FILE...   (FILE: a .ftz%s;\n"
		"       several FILEs: the files of one ftrec --rotate series, as one capture)\n%s\n",
		def->name, def->needs_capture ? "" : ", a trace.dat, or a .db from 'ftana db'",
		def->summary);
	if (def->options && def->options[0].help) {
		fprintf(out, "\n%s options:\n", def->name);
		for (const struct report_option *o = def->options; o->help; o++)
			option_line(out, o);
	}
	if (def->details)
		fprintf(out, "\n%s", def->details);
	fprintf(out, "\ncommon options (every report):\n");
	for (size_t i = 0; i < NR_COMMON; i++)
		option_line(out, &common_options[i].o);
	fprintf(out, "\nexit status: 0 ok, 1 error, 3 the capture is damaged (the report covers "
		"everything before the damage)\n");
}

/* --- options --- */

/* Build getopt's tables from the common options and the report's. */
static int build_getopt(const struct report_def *def, struct option **longs, char **shorts)
{
	size_t nr = NR_COMMON;

	for (const struct report_option *o = def->options; o && o->help; o++)
		nr++;
	*longs = calloc(nr + 1, sizeof(**longs));
	*shorts = calloc(2 * nr + 3, 1);
	if (!*longs || !*shorts)
		return -1;
	char *s = *shorts;
	struct option *l = *longs;

	*s++ = ':'; /* getopt reports a missing argument as ':' */
	for (size_t i = 0; i < nr; i++) {
		const struct report_option *o = i < NR_COMMON ? &common_options[i].o :
						&def->options[i - NR_COMMON];
		int val = i < NR_COMMON ? common_options[i].val :
			  o->letter ? o->letter : OPT_REPORT + (int)(i - NR_COMMON);

		if (o->letter) {
			if (strchr(*shorts + 1, o->letter)) {
				return msg_error("internal error: option -%c defined twice", o->letter);
			}
			*s++ = (char)o->letter;
			if (o->arg)
				*s++ = ':';
		}
		if (o->name)
			*l++ = (struct option){ o->name, o->arg ? required_argument : no_argument,
						NULL, val };
	}
	return 0;
}

/* The report's option for getopt's value VAL: its index, or -1. */
static int report_option_index(const struct report_def *def, int val)
{
	if (val >= OPT_REPORT)
		return val - OPT_REPORT;
	for (int i = 0; def->options && def->options[i].help; i++)
		if (def->options[i].letter == val)
			return i;
	return -1;
}

static int common_option(struct report_ctx *ctx, int val, const char *arg)
{
	struct slice *s = &ctx->slice;

	switch (val) {
	case OPT_SINCE: s->since_arg = arg; return slice_check_time("--since", arg);
	case OPT_UNTIL: s->until_arg = arg; return slice_check_time("--until", arg);
	case OPT_BEFORE_STOP: return slice_parse_before_stop(s, arg);
	case 'p': return slice_parse_id("-p", arg, &s->pid);
	case 'L': return slice_parse_id("-L", arg, &s->tid);
	case 'n': return slice_parse_comm(s, arg);
	case OPT_CPU: return slice_parse_cpus(s, arg);
	case OPT_INCLUDE_FTREC: s->include_ftrec = true; return 0;
	case OPT_RAGGED: s->ragged = true; return 0;
	case OPT_WALL: s->wall = true; return 0;
	case OPT_CSV:
	case OPT_JSON: {
		enum out_format f = val == OPT_CSV ? OUT_CSV : OUT_JSON;

		if (ctx->fmt != OUT_TEXT && ctx->fmt != f)
			return msg_error("--csv and --json exclude each other: give one");
		ctx->fmt = f;
		return 0;
	}
	case 'H': ctx->header = true; return 0;
	case OPT_NO_HEADER: ctx->no_header = true; return 0;
	case 'v': ctx->verbose = true; return 0;
	}
	return 1; /* not a common option */
}

/* Parse argv (argv[0] = NAME); FILE... go to ctx->files (the first: ctx->file). 0, or -1 after an error. */
static int parse_args(struct report_ctx *ctx, int argc, char **argv, bool want_file)
{
	struct option *longs = NULL;
	char *shorts = NULL;
	int c, rc = -1;

	if (build_getopt(ctx->def, &longs, &shorts))
		goto out;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const char *bad = argv[optind - 1];

		if (c == '?' || c == ':') {
			if (optopt && optopt < 0x100 && c == '?')
				msg_error("unknown option -%c (see 'ftana report %s --help')",
					  optopt, ctx->def->name);
			else if (c == ':')
				msg_error("option %s needs an argument", bad);
			else
				msg_error("unknown option '%s' (see 'ftana report %s --help')",
					  bad, ctx->def->name);
			goto out;
		}
		int r = common_option(ctx, c, optarg);
		if (r < 0)
			goto out;
		if (r == 0)
			continue;
		int index = report_option_index(ctx->def, c);
		if (index < 0 || !ctx->def->option || ctx->def->option(ctx, index, optarg))
			goto out;
	}
	if (!want_file) {
		/* report_run_db: the database is given */
		if (optind < argc) {
			msg_error("unexpected argument '%s'", argv[optind]);
			goto out;
		}
	} else if (optind >= argc) {
		msg_error("no FILE given (usage: ftana report %s [OPTIONS] FILE...)", ctx->def->name);
		goto out;
	} else {
		/* getopt moved every operand after the options: FILE... is the rest */
		ctx->files = (const char *const *)argv + optind;
		ctx->nr_files = (size_t)(argc - optind);
		ctx->file = ctx->files[0];
		if (ctx->def->needs_capture && ctx->nr_files > 1) {
			msg_error("it re-decodes one file (a .ftz or a ring's head): "
				  "give one file of the series at a time");
			goto out;
		}
	}
	if (ctx->no_header && ctx->fmt == OUT_JSON) {
		msg_error("--no-header does not apply to --json");
		goto out;
	}
	rc = ctx->def->check ? ctx->def->check(ctx) : 0;
out:
	free(longs);
	free(shorts);
	return rc;
}

/* --- running a report --- */

static void ctx_free(struct report_ctx *ctx)
{
	msg_set_prefix(NULL);
	msg_set_notes(true);
	free(ctx->opts);
	slice_free(&ctx->slice);
}

/* The report on ctx->db, in the output document. Returns the exit status. */
/* run_on_db: the database holds def->derive_whole only, and they do not stand for
 * the rows: open it again with def->needs. */
#define AGAIN_WITH_ROWS (-2)

/* def->derive_whole made over the slice's window (report.h derive_window): ctx->window
 * when they stand for the slice's rows. 0, or an exit status after an error. */
static int window_derive(struct report_ctx *ctx)
{
	const struct slice *s = &ctx->slice;
	const struct import_window w = { s->since_ns, s->until_ns, s->cpus, s->nr_cpu_words };
	int made = dbcache_window(ctx->db, ctx->files, ctx->nr_files, ctx->def->derive_whole, &w);

	if (made < 0)
		return CMD_EXIT_ERROR;
	ctx->window = made > 0; /* (whole_ok reads it) */
	ctx->window = made > 0 && ctx->def->whole_ok(ctx);
	return 0;
}

/*
 * A .db given directly may be a cache ftana built for other questions (it imports a
 * capture type by type as they are asked): its tables for the types this report reads
 * are then empty stand-ins, and the report would print an empty table as if the capture
 * had nothing. 0, or -1 after one line naming the type it lacks.
 */
static int check_db_imported(const struct report_ctx *ctx)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (!ctx->def->needs || !ctx->nr_files || dbcache_is_capture(ctx->files[0]) ||
	    sqlite3_prepare_v2(ctx->db, "SELECT system || ':' || name FROM event_types WHERE count > 0 "
			       "AND NOT imported AND system || ':' || name GLOB ?1 LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return 0; /* (a hand-made .db without event_types.imported: as it is) */
	for (const char *const *spec = ctx->def->needs; *spec && !rc; spec++) {
		sqlite3_bind_text(st, 1, *spec, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			rc = msg_error("%s: this database lacks the capture's %s events (a cache ftana built "
				       "for other questions holds only what they asked): give the capture, "
				       "or a database from 'ftana db'", ctx->file,
				       (const char *)sqlite3_column_text(st, 0));
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

/* try_window: the derivations may be made over the slice's window (run_files). */
static int run_on_db(struct report_ctx *ctx, bool damaged, bool try_window)
{
	int rc;

	if (ctx->whole || try_window) { /* a trial: its warnings come with the resolve below */
		bool quiet = ctx->slice.quiet;

		ctx->slice.quiet = true;
		rc = slice_resolve(&ctx->slice, ctx->db);
		ctx->slice.quiet = quiet;
		if (rc)
			return CMD_EXIT_ERROR;
		ctx->whole = ctx->whole && ctx->def->whole_ok(ctx);
		if (!ctx->whole && try_window && (rc = window_derive(ctx)))
			return rc;
		if (!ctx->whole && !ctx->window)
			return AGAIN_WITH_ROWS;
	}
	if ((!ctx->whole && !ctx->window && check_db_imported(ctx)) ||
	    slice_resolve(&ctx->slice, ctx->db) || nearest_rank_register(ctx->db))
		return CMD_EXIT_ERROR;
	if (damaged)
		msg_warn("the capture is damaged: this report covers what came before the damage");
	fflush(stdout);
	rc = ctx->def->run(ctx);
	if (rc == 0)
		slice_note_unmatched(&ctx->slice, ctx->db);
	/* A document begun is closed even after an error: stdout stays valid JSON. */
	if (rc == 0 || ctx->doc_open)
		doc_end(ctx);
	if (fflush(stdout) != 0 && rc == 0)
		rc = msg_error("write error on standard output");
	if (rc < 0)
		return CMD_EXIT_ERROR;
	return damaged ? CMD_EXIT_DAMAGED : CMD_EXIT_OK;
}

/* The context for def and its options (argv[0] = NAME). 0, or -1 after an error. */
static int ctx_init(struct report_ctx *ctx, const struct report_def *def, int argc, char **argv,
		    bool want_file)
{
	char prefix[64];

	/* every message, the checks', the cache's and the decoder's included, says
	 * which report it belongs to */
	snprintf(prefix, sizeof(prefix), "ftana report %s", def->name);
	msg_set_prefix(prefix);
	ctx->def = def;
	ctx->fmt = OUT_TEXT;
	slice_init(&ctx->slice);
	msg_warnings_clear();
	msg_keep_warnings(true);
	ctx->opts = calloc(1, def->opts_size ? def->opts_size : 1);
	if (!ctx->opts)
		return msg_error("out of memory");
	if (parse_args(ctx, argc, argv, want_file))
		return -1;
	if (ctx->slice.before_stop_arg && (ctx->slice.since_arg || ctx->slice.until_arg))
		return msg_error("--before-stop is a time window of its own: not with --since or --until");
	ctx->slice.wall_iso = ctx->fmt != OUT_TEXT;
	msg_set_notes(ctx->verbose);
	return 0;
}

/* The types the report needs (report.h), for the cache; false: every type. */
static bool needs(const struct report_ctx *ctx, const char **specs, size_t max,
		  struct import_types *types)
{
	const char *extra = ctx->def->needs_option ? ctx->def->needs_option(ctx) : NULL;
	size_t n = 0;

	if (!ctx->def->needs)
		return false;
	for (const char *const *s = ctx->def->needs; *s && n + 1 < max; s++)
		specs[n++] = *s;
	if (extra)
		specs[n++] = extra;
	if (ctx->slice.before_stop_arg) /* capture_stop: ftrec's synthetic event */
		specs[n++] = "synthetic:ftrec_stop_*";
	*types = (struct import_types){ .specs = specs, .n = n, .derive = ctx->def->derive };
	return true;
}

static int run_files(const struct report_def *def, int argc, char **argv)
{
	struct report_ctx ctx = { 0 };
	bool damaged = false;
	int rc = CMD_EXIT_ERROR;

	if (ctx_init(&ctx, def, argc, argv, true) == 0) {
		const char *specs[64], *stop_spec[] = { "synthetic:ftrec_stop_*" };
		struct import_types types, whole = { .derive = def->derive_whole },
				    /* what the window's slice needs: its stop, if asked */
				    base = { .specs = stop_spec, .n = ctx.slice.before_stop_arg != NULL };
		bool filtered = ctx.slice.since_arg || ctx.slice.until_arg || ctx.slice.before_stop_arg ||
				ctx.slice.cpus;
		bool try_window = def->derive_whole && def->derive_window;

		/* no time or CPU filter: the derivations that answer the whole, if any; with
		 * one, the same made over its window */
		ctx.whole = def->derive_whole && !filtered;
		ctx.db = dbcache_open_inputs(ctx.files, ctx.nr_files, ctx.whole ? &whole :
					     try_window ? &base :
					     needs(&ctx, specs, 64, &types) ? &types : NULL, &damaged);
		if (ctx.db && (rc = run_on_db(&ctx, damaged, try_window)) == AGAIN_WITH_ROWS) {
			sqlite3_close(ctx.db);
			ctx.whole = ctx.window = false;
			ctx.db = dbcache_open_inputs(ctx.files, ctx.nr_files,
						     needs(&ctx, specs, 64, &types) ? &types : NULL, &damaged);
			rc = ctx.db ? run_on_db(&ctx, damaged, false) : CMD_EXIT_ERROR;
		}
		if (!ctx.db && damaged)
			rc = CMD_EXIT_DAMAGED;
		sqlite3_close(ctx.db);
	}
	ctx_free(&ctx);
	return rc;
}

int front_run(const struct report_def *def, int argc, char **argv)
{
	if (cmd_wants_help(argc, argv)) {
		front_help(def, stdout);
		return CMD_EXIT_OK;
	}
	return run_files(def, argc, argv);
}

int front_run_db(const struct report_def *def, sqlite3 *db, const char *capture, int argc,
		 char **argv)
{
	struct report_ctx ctx = { 0 };
	int rc = CMD_EXIT_ERROR;

	if (cmd_wants_help(argc, argv)) {
		front_help(def, stdout);
		return CMD_EXIT_OK;
	}
	if (ctx_init(&ctx, def, argc, argv, false) == 0) {
		ctx.db = db;
		ctx.file = capture ? capture : "(database)";
		rc = run_on_db(&ctx, false, false);
	}
	ctx.db = NULL;
	ctx_free(&ctx);
	return rc;
}
