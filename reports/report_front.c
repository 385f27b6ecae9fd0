/* SPDX-License-Identifier: MIT */
/*
 * report_front.c - the front end every `ftana report NAME` goes through (see
 * report_front.h): options, help, errors, opening the database, the output document.
 * The slice itself is report_slice.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/dbcache.h"
#include "analyze/diag.h"
#include "analyze/out_file.h"
#include "reports/report_front.h"
#include "reports/report_util.h"

/* Long-only common options get values above any character. */
enum {
	OPT_SINCE = 0x100, OPT_UNTIL, OPT_CPU, OPT_INCLUDE_FTREC, OPT_WALL, OPT_CSV,
	OPT_JSON, OPT_NO_HEADER, OPT_HELP,
	OPT_REPORT = 0x200, /* + index into the report's options[] */
};

static const struct common_option {
	struct report_option o;
	int val;
} common_options[] = {
	{ { "since", 0, "T", "only events at or after T (inclusive): seconds from the\n"
	    "first event (1.5), or UTC wall-clock time HH:MM:SS[.frac] or\n"
	    "ISO 8601 (2026-12-03T10:15:00.25Z; a +HH:MM offset allowed)" }, OPT_SINCE },
	{ { "until", 0, "T", "only events before T (exclusive); T as for --since" }, OPT_UNTIL },
	{ { "pid", 'p', "PID", "only the process PID: every thread of it (tgid from\n"
	    "the capture's tasks; a thread whose tgid the capture lacks\n"
	    "counts when its pid is PID)" }, 'p' },
	{ { "tid", 'L', "TID", "only the thread TID" }, 'L' },
	{ { "comm", 'n', "REGEX", "only tasks whose command name matches REGEX (POSIX extended)" }, 'n' },
	{ { "cpu", 0, "LIST", "only these CPUs: 0,2-3" }, OPT_CPU },
	{ { "include-ftrec", 0, NULL, "keep ftrec's own threads (left out by default)" }, OPT_INCLUDE_FTREC },
	{ { "wall", 0, NULL, "timestamps as UTC wall-clock time instead of trace-clock seconds" }, OPT_WALL },
	{ { "csv", 0, NULL, "CSV (RFC 4180) instead of text" }, OPT_CSV },
	{ { "json", 0, NULL, "one JSON document instead of text (see ftana(1))" }, OPT_JSON },
	{ { "header", 'H', NULL, "column headers also where the text view omits them by default" }, 'H' },
	{ { "no-header", 0, NULL, "no header line in text and CSV tables" }, OPT_NO_HEADER },
	{ { "verbose", 'v', NULL, "notes on stderr: what was left out and why" }, 'v' },
	{ { "help", 'h', NULL, "this help" }, OPT_HELP },
};
#define NR_COMMON (sizeof(common_options) / sizeof(common_options[0]))

/* "ftana report NAME: " on stderr, or the def's own prefix */
static void put_prefix(const struct report_ctx *ctx)
{
	if (ctx->def->prefix)
		fprintf(stderr, "%s: ", ctx->def->prefix);
	else
		fprintf(stderr, "ftana report %s: ", ctx->def->name);
}

int report_error(const struct report_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	put_prefix(ctx);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static char *vformat(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

void report_warn(struct report_ctx *ctx, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = vformat(fmt, ap);
	va_end(ap);
	if (!msg)
		return;
	put_prefix(ctx);
	fprintf(stderr, "warning: %s\n", msg);
	char **w = realloc(ctx->warnings, (ctx->nr_warnings + 1) * sizeof(*w));
	if (!w) {
		free(msg);
		return;
	}
	ctx->warnings = w;
	ctx->warnings[ctx->nr_warnings++] = msg;
}

void report_note(struct report_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	if (!ctx->verbose)
		return;
	put_prefix(ctx);
	fputs("note: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int report_number(const struct report_ctx *ctx, const char *opt, const char *arg,
		  double min, double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= min) || v > 1e15)
		return report_error(ctx, "bad %s '%s' (a number%s)", opt, arg,
				    min >= 0 ? (min > 0 ? " above 0" : ", 0 or more") : "");
	*out = v;
	return 0;
}

sqlite3 *report_open_inputs(const char *const *files, size_t n, bool *damaged)
{
	struct stat st;

	*damaged = false;
	/* a mistyped operand is named as itself, not as a file of the wrong kind */
	for (size_t i = 0; i < n; i++)
		if (stat(files[i], &st) < 0) {
			ftana_error("%s: %s\n", files[i], strerror(errno));
			return NULL;
		}
	return ftana_open_set(files, n, damaged);
}

int report_out_check(const struct report_ctx *ctx, const char *path)
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

void report_help(const struct report_def *def, FILE *out)
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
				fprintf(stderr, "ftana report %s: internal error: option -%c defined twice\n",
					def->name, o->letter);
				return -1;
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

static int parse_id(struct report_ctx *ctx, const char *opt, const char *arg, int64_t *out)
{
	char *end;
	long long v = strtoll(arg, &end, 10);

	if (end == arg || *end || v < 0 || v > INT32_MAX)
		return report_error(ctx, "bad %s '%s' (a process or thread id)", opt, arg);
	*out = v;
	return 0;
}

static int common_option(struct report_ctx *ctx, int val, const char *arg)
{
	struct report_slice *s = &ctx->slice;

	switch (val) {
	case OPT_SINCE: s->since_arg = arg; return slice_check_time(ctx, "--since", arg);
	case OPT_UNTIL: s->until_arg = arg; return slice_check_time(ctx, "--until", arg);
	case 'p': return parse_id(ctx, "-p", arg, &s->pid);
	case 'L': return parse_id(ctx, "-L", arg, &s->tid);
	case 'n': return slice_parse_comm(ctx, arg);
	case OPT_CPU: return slice_parse_cpus(ctx, arg);
	case OPT_INCLUDE_FTREC: s->include_ftrec = true; return 0;
	case OPT_WALL: ctx->wall = true; return 0;
	case OPT_CSV:
	case OPT_JSON: {
		enum out_format f = val == OPT_CSV ? OUT_CSV : OUT_JSON;

		if (ctx->fmt != OUT_TEXT && ctx->fmt != f)
			return report_error(ctx, "--csv and --json exclude each other: give one");
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
				report_error(ctx, "unknown option -%c (see 'ftana report %s --help')",
					     optopt, ctx->def->name);
			else if (c == ':')
				report_error(ctx, "option %s needs an argument", bad);
			else
				report_error(ctx, "unknown option '%s' (see 'ftana report %s --help')",
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
			report_error(ctx, "unexpected argument '%s'", argv[optind]);
			goto out;
		}
	} else if (optind >= argc) {
		report_error(ctx, "no FILE given (usage: ftana report %s [OPTIONS] FILE...)",
			     ctx->def->name);
		goto out;
	} else {
		/* getopt moved every operand after the options: FILE... is the rest */
		ctx->files = (const char *const *)argv + optind;
		ctx->nr_files = (size_t)(argc - optind);
		ctx->file = ctx->files[0];
		if (ctx->def->needs_capture && ctx->nr_files > 1) {
			report_error(ctx, "it re-decodes one file (a .ftz or a ring's head): "
				     "give one file of the series at a time");
			goto out;
		}
	}
	if (ctx->no_header && ctx->fmt == OUT_JSON) {
		report_error(ctx, "--no-header does not apply to --json");
		goto out;
	}
	rc = ctx->def->check ? ctx->def->check(ctx) : 0;
out:
	free(longs);
	free(shorts);
	return rc;
}

/* --- the output document --- */

/* The JSON document starts with its first table (or at the end): a report that fails
 * before writing anything leaves stdout empty. */
static void doc_begin(struct report_ctx *ctx)
{
	if (ctx->fmt != OUT_JSON || ctx->doc_open)
		return;
	ctx->doc_open = true;
	fputs("{\"report\":", stdout);
	ftana_json_string(stdout, ctx->def->name);
	fputs(",\"file\":", stdout);
	ftana_json_string(stdout, ctx->file);
	if (ctx->nr_files > 1) {
		/* a series: "file" stays its first file (one string, as for one file) */
		fputs(",\"files\":[", stdout);
		for (size_t i = 0; i < ctx->nr_files; i++) {
			if (i)
				fputc(',', stdout);
			ftana_json_string(stdout, ctx->files[i]);
		}
		fputc(']', stdout);
	}
}

static void doc_end(struct report_ctx *ctx)
{
	if (ctx->fmt != OUT_JSON)
		return;
	doc_begin(ctx);
	fputs(",\"warnings\":[", stdout);
	for (size_t i = 0; i < ctx->nr_warnings; i++) {
		if (i)
			fputc(',', stdout);
		ftana_json_string(stdout, ctx->warnings[i]);
	}
	fputs("]}\n", stdout);
}

void report_doc_key(struct report_ctx *ctx, const char *key)
{
	doc_begin(ctx);
	fputc(',', stdout);
	ftana_json_string(stdout, key);
	fputc(':', stdout);
	ctx->tables++;
}

int report_table_stmt(struct report_ctx *ctx, const char *key, sqlite3_stmt *st)
{
	unsigned flags = ctx->no_header ? PRINT_NO_HEADER : 0;

	if (ctx->fmt == OUT_JSON) {
		report_doc_key(ctx, key);
		ctx->tables--; /* counted below */
	} else if (ctx->tables && ctx->fmt == OUT_TEXT) {
		fputc('\n', stdout);
	} else if (ctx->tables) {
		return report_error(ctx, "CSV holds one table: this run asks for more");
	}
	ctx->tables++;
	if (ftana_print_rows_flags(st, ctx->fmt, stdout, flags))
		return report_error(ctx, "%s", sqlite3_errmsg(ctx->db));
	return 0;
}

int report_table(struct report_ctx *ctx, const char *key, const char *sql)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(ctx->db, sql, -1, &st, NULL) != SQLITE_OK)
		return report_error(ctx, "%s", sqlite3_errmsg(ctx->db));
	int rc = report_table_stmt(ctx, key, st);
	sqlite3_finalize(st);
	return rc;
}

/* --- running a report --- */

static void ctx_free(struct report_ctx *ctx)
{
	for (size_t i = 0; i < ctx->nr_warnings; i++)
		free(ctx->warnings[i]);
	free(ctx->warnings);
	free(ctx->opts);
	slice_free(&ctx->slice);
}

/* The report on ctx->db, in the output document. */
static int run_on_db(struct report_ctx *ctx, bool damaged)
{
	int rc;

	if (slice_resolve(ctx))
		return FTANA_EXIT_ERROR;
	if (damaged)
		report_warn(ctx, "the capture is damaged: this report covers what came before the damage");
	fflush(stdout);
	rc = ctx->def->run(ctx);
	/* A document begun is closed even after an error: stdout stays valid JSON. */
	if (rc == FTANA_EXIT_OK || ctx->doc_open)
		doc_end(ctx);
	if (fflush(stdout) != 0 && rc == FTANA_EXIT_OK) {
		report_error(ctx, "write error on standard output");
		rc = FTANA_EXIT_ERROR;
	}
	return rc;
}

static int front_run(const struct report_def *def, int argc, char **argv)
{
	struct report_ctx ctx = { .def = def, .fmt = OUT_TEXT, .slice = { .pid = -1, .tid = -1 } };
	bool damaged = false;
	int rc;

	if (ftana_wants_help(argc, argv)) {
		report_help(def, stdout);
		return FTANA_EXIT_OK;
	}
	ctx.opts = calloc(1, def->opts_size ? def->opts_size : 1);
	if (!ctx.opts || parse_args(&ctx, argc, argv, true)) {
		ctx_free(&ctx);
		return FTANA_EXIT_ERROR;
	}
	ctx.db = report_open_inputs(ctx.files, ctx.nr_files, &damaged);
	if (!ctx.db) {
		ctx_free(&ctx);
		return damaged ? FTANA_EXIT_DAMAGED : FTANA_EXIT_ERROR;
	}
	report_set_file(ctx.file); /* needs_capture: one file (parse_args) */
	rc = run_on_db(&ctx, damaged);
	sqlite3_close(ctx.db);
	ctx_free(&ctx);
	return rc == FTANA_EXIT_OK && damaged ? FTANA_EXIT_DAMAGED : rc;
}

int report_front_run(const struct report_def *def, int argc, char **argv)
{
	char *prefix = NULL;
	int rc;

	/* every message, the checks', the cache's and the decoder's included, says
	 * which report it belongs to */
	if (def->prefix ? !!(prefix = strdup(def->prefix)) :
			  asprintf(&prefix, "ftana report %s", def->name) > 0)
		diag_set_prefix(prefix);
	else
		prefix = NULL;
	rc = front_run(def, argc, argv);
	diag_set_prefix(NULL);
	free(prefix);
	return rc;
}

int report_run_db(const struct report_def *def, sqlite3 *db, int argc, char **argv)
{
	struct report_ctx ctx = { .def = def, .fmt = OUT_TEXT, .slice = { .pid = -1, .tid = -1 },
				  .db = db, .file = "(database)" };
	int rc = FTANA_EXIT_ERROR;

	if (ftana_wants_help(argc, argv)) {
		report_help(def, stdout);
		return FTANA_EXIT_OK;
	}
	ctx.opts = calloc(1, def->opts_size ? def->opts_size : 1);
	if (ctx.opts && !parse_args(&ctx, argc, argv, false))
		rc = run_on_db(&ctx, false);
	ctx.db = NULL;
	ctx_free(&ctx);
	return rc;
}

int report_warn_lost(struct report_ctx *ctx, const char *range_sql)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return -1;
	int rc = ru_warn_lost_in(ctx->db, range_sql, ctx->slice.since_ns, ctx->slice.until_ns, mem);

	fclose(mem);
	if (!rc && len) {
		/* one line, without its newline */
		const char *msg = text;

		if (text[len - 1] == '\n')
			text[len - 1] = 0;
		if (!strncmp(msg, "WARNING: ", 9))
			msg += 9;
		report_warn(ctx, "%s", msg);
	}
	free(text);
	return rc;
}

const char *report_ts_suffix(const struct report_ctx *ctx)
{
	return ctx->wall ? "_wall" : "_s";
}
