/* SPDX-License-Identifier: MIT */
/*
 * cmd_diff.c - `ftana diff BEFORE AFTER REPORT [OPTIONS...]`: one aggregating report on
 * two captures (or two windows of one), row by row. Each side is the report itself,
 * run as `ftana report REPORT FILE --csv ...` (a child: the same code, the same slice
 * and warnings), its rows loaded into an in-memory SQLite database and joined there on
 * the key columns (every column that is not a value). The value compared is additive
 * (a count, a total, a rate), summed per key; a count is divided by the seconds of its
 * side's window (the slice within the capture's recording window, as the reports take
 * it), so captures of different lengths compare fairly; a rate (rate_per_s, iops, mb_s)
 * is compared as it is. Rows come ordered by how much the difference matters, the
 * largest absolute change first.
 *
 * --svg: a differential flame graph of a report that folds stacks (stacks, funcgraph,
 * offcpu: each side's --folded), AFTER's widths, each frame coloured by the change of
 * its value per second of each side's window (reports/flame.h).
 *
 * Without REPORT: a page of what changed most, the summary's questions one after the
 * other (sections[]: CPU time, run-queue wait and off-CPU time per command, block I/O
 * per submitting command, syscalls, kernel function calls), each the top 10 rows of
 * its diff; a question the captures cannot answer (no such events on a side) says so
 * in one line and the page goes on.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze/commands.h"
#include "common/cmd.h"
#include "common/msg.h"
#include "import/dbcache.h"
#include "import/import.h"
#include "common/out_file.h"
#include "reports/flame.h"
#include "reports/slice.h"
#include "store/csv_table.h"
#include "store/db.h"
#include "store/print.h"

extern char **environ;

static const char usage_text[] =
	"usage: ftana diff BEFORE AFTER REPORT [REPORT OPTIONS...] [--csv|--json]\n"
	"                  [--value COL] [--keys COL,...] [--top N]\n"
	"                  [--before-since T] [--before-until T] [--after-since T] [--after-until T]\n"
	"       ftana diff BEFORE AFTER [-p PID|-n REGEX|--cpu N...] [--json] [--top N] [windows]\n"
	"Runs an aggregating report (funccount, syscount, stacks, iolat --summary or --hist,\n"
	"bitesize, runqlat, cpudist, offcpu, funclatency, iolatency) on two captures and\n"
	"compares its rows: the key columns (all but the values) join them, the value is\n"
	"summed per key. A count or total is compared per second of each side's window\n"
	"(the capture's recording window, within --since/--until), so captures of different\n"
	"lengths compare fairly; a rate (rate_per_s, iops, mb_s) as it is. Rows: the keys,\n"
	"before, after (the sums), before_per_s, after_per_s, diff (after - before, per\n"
	"second for a count), ratio (after / before; empty when before is 0), the largest\n"
	"absolute diff first. BEFORE and AFTER may be the same file with two windows.\n"
	"  --value COL        the value to compare (default: the report's first of\n"
	"                     rate_per_s, iops, calls, count, total_ms, bytes)\n"
	"  --keys COL,...     join on these columns only (the others summed away), e.g.\n"
	"                     --keys comm for a report keyed by pid and comm\n"
	"  --top N            only the N largest differences\n"
	"  --before-since T, --before-until T, --after-since T, --after-until T\n"
	"                     each side's window (T as for the reports' --since)\n"
	"  --csv, --json      CSV or one JSON document instead of text\n"
	"  --svg [-o FILE]    a differential flame graph (stacks, funcgraph, offcpu): the\n"
	"                     AFTER side's widths, each frame red where its value per\n"
	"                     second grew, blue where it shrank, both values on hover\n"
	"Every other option goes to the report on both sides (-p, -n, --cpu, --by, ...).\n"
	"Without REPORT: what changed most, one section per question (CPU time, run-queue\n"
	"wait and off-CPU time per command: cpudist/runqlat --summary --by comm, offcpu\n"
	"--by comm, total_ms; block I/O per submitting command: iolat --summary --by comm,\n"
	"count; syscalls: syscount, calls; kernel functions: funccount, count), the top 10\n"
	"rows of each (--top N); a question the captures cannot answer says so in one line.\n"
	"Text or JSON (sections, each as a REPORT diff's document).\n";

/* The page without REPORT: the question, its report and options, its value. */
static const struct section {
	const char *title, *report, *opts[4], *value;
} sections[] = {
	{ "CPU time per command", "cpudist", { "--summary", "--by", "comm" }, "total_ms" },
	{ "run-queue wait per command", "runqlat", { "--summary", "--by", "comm" }, "total_ms" },
	{ "off-CPU time per command and state", "offcpu", { "--by", "comm" }, "total_ms" },
	{ "block I/O per submitting command", "iolat", { "--summary", "--by", "comm" }, "count" },
	{ "syscalls", "syscount", { NULL }, "calls" },
	{ "kernel function calls", "funccount", { NULL }, "count" },
};
#define SUMMARY_TOP 10

/* The values a report's CSV may hold that add up; the rest (averages, percentiles,
 * times of a listing) are neither keys nor compared. */
static const char *const additive[] = { "rate_per_s", "iops", "mb_s", "calls", "count", "errors",
					"unpaired", "total_ms", "bytes", "runq_ms", "self_us", "total_us" };
static const char *const rates[] = { "rate_per_s", "iops", "mb_s" };
static const char *const other_values[] = { "avg_us", "avg_ms", "min_ms", "max_ms", "p50_ms",
					    "p90_ms", "p99_ms", "max_us", "p50_us", "p90_us", "p99_us",
					    "partial", "level" };
/* A listing's columns: its rows are events, not groups. */
static const char *const listing[] = { "start_s", "end_s", "ts_s", "start_wall", "ts_wall", "sector" };

static bool in_list(const char *const *l, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(l[i], s))
			return true;
	return false;
}
#define IN(list, s) in_list(list, sizeof(list) / sizeof(list[0]), s)

struct side {
	const char *file, *since, *until;
	char *csv;      /* the report's output */
	size_t len;
	double seconds; /* its window */
	bool damaged;   /* its capture is (the report used what came before the damage) */
};

struct diff_opts {
	const char *value, *keys, *report;
	bool svg;
	const char *out; /* -o with --svg */
	long long top;
	enum out_format fmt;
	bool ragged;
	struct side before, after;
	char **pass;  /* the report's own options */
	int npass;
};

struct run { /* a side's report running: its pid, its stdout's read end and the copy */
	pid_t pid;
	int fd;
	FILE *mem;
};

/* Start `ftana report REPORT FILE FORM [--since] [--until] OPTS...` (FORM: --csv, or
 * --folded for --svg), its stdout to r->fd. 0, or -1 after an error. */
static int side_start(const char *report, struct side *s, char **opts, int nopts, bool quiet,
		      const char *form, struct run *r)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char **argv = calloc((size_t)nopts + 12, sizeof(*argv));
	int p[2], argc = 0;
	posix_spawn_file_actions_t fa;

	if (n <= 0 || !argv)
		return free(argv), msg_error("cannot find ftana's own program: %s", strerror(errno));
	self[n] = '\0';
	argv[argc++] = self;
	argv[argc++] = "report";
	argv[argc++] = (char *)report;
	argv[argc++] = (char *)s->file;
	argv[argc++] = (char *)form;
	if (s->since) {
		argv[argc++] = "--since";
		argv[argc++] = (char *)s->since;
	}
	if (s->until) {
		argv[argc++] = "--until";
		argv[argc++] = (char *)s->until;
	}
	for (int i = 0; i < nopts; i++)
		argv[argc++] = opts[i];
	if (pipe2(p, O_CLOEXEC) < 0)
		return free(argv), msg_error("pipe: %s", strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
	if (quiet) /* the summary page says in its own line what a section could not do */
		posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	int rc = posix_spawn(&r->pid, self, &fa, NULL, argv, environ);

	posix_spawn_file_actions_destroy(&fa);
	free(argv);
	close(p[1]);
	free(s->csv);
	s->csv = NULL;
	s->len = 0;
	r->mem = rc ? NULL : open_memstream(&s->csv, &s->len);
	if (rc || !r->mem) {
		close(p[0]);
		if (!rc)
			waitpid(r->pid, NULL, 0);
		return rc ? msg_error("cannot run %s: %s", self, strerror(rc)) : msg_error("out of memory");
	}
	r->fd = p[0];
	return 0;
}

/* More of r's output: 1 read, 0 its end (fd closed), -1 an error. */
static int side_read(struct run *r)
{
	char buf[65536];
	ssize_t got = read(r->fd, buf, sizeof(buf));

	if (got < 0 && errno == EINTR)
		return 1;
	if (got > 0)
		return fwrite(buf, 1, (size_t)got, r->mem) == (size_t)got ? 1 : -1;
	close(r->fd);
	r->fd = -1;
	return got == 0 ? 0 : -1;
}

/* The end of r: its output in s->csv. 0, or -1 after an error (the report's own
 * stderr said why, unless quiet). */
static int side_end(struct side *s, struct run *r)
{
	int status;

	if (r->fd >= 0)
		close(r->fd);
	bool written = fclose(r->mem) == 0;

	while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status))
		return msg_error("%s: the report ended by signal %d", s->file, WTERMSIG(status));
	if (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != CMD_EXIT_DAMAGED)
		return -1;
	s->damaged |= WEXITSTATUS(status) == CMD_EXIT_DAMAGED;
	return written && s->csv ? 0 : msg_error("out of memory");
}

/* Read the N runs that are running to their ends, whichever writes. 0, or -1. */
static int drain(struct run *runs, struct side *const *sides, int n)
{
	for (;;) {
		struct pollfd pf[2];
		int live = 0;

		for (int j = 0; j < n; j++) {
			pf[j] = (struct pollfd){ runs[j].fd, POLLIN, 0 }; /* fd -1: ignored */
			live += runs[j].fd >= 0;
		}
		if (!live)
			return 0;
		if (poll(pf, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return msg_error("poll: %s", strerror(errno));
		}
		for (int j = 0; j < n; j++)
			if (pf[j].revents && side_read(&runs[j]) < 0)
				return msg_error("%s: cannot read its report", sides[j]->file);
	}
}

/* Both sides' reports, their outputs into before.csv and after.csv: at once on two
 * captures (the page's time halves on two CPUs); one after the other on one capture
 * (the first extends its cache and the second finds it: at once, both would import
 * the same types). 0, or -1 after an error. */
static int run_sides(struct diff_opts *o, bool quiet, const char *form)
{
	struct side *const sides[2] = { &o->before, &o->after };
	struct run runs[2];
	struct stat a, b;
	bool apart = stat(o->before.file, &a) == 0 && stat(o->after.file, &b) == 0 &&
		     (a.st_dev != b.st_dev || a.st_ino != b.st_ino);
	int rc = 0, batch = apart ? 2 : 1;

	for (int first = 0; first < 2 && !rc; first += batch) { /* both at once, or each in turn */
		int started = 0;

		for (int i = first; i < first + batch && !rc; i++)
			if (!(rc = side_start(o->report, sides[i], o->pass, o->npass, quiet, form, &runs[i])))
				started++;
		if (!rc)
			rc = drain(&runs[first], &sides[first], batch);
		for (int i = first; i < first + started; i++)
			if (side_end(sides[i], &runs[i]) < 0)
				rc = -1;
	}
	return rc;
}

/* The side's window in seconds: its slice within the capture's recording window.
 * Its errors say which side (NAME) they are about: "--since" is --NAME-since there. */
static int side_seconds(struct side *s, const char *name, bool ragged)
{
	bool damaged;
	char *prefix = strdup(msg_prefix()), side_prefix[96];
	sqlite3 *db;
	struct slice sl;
	int rc;

	if (!prefix)
		return msg_error("out of memory");
	snprintf(side_prefix, sizeof(side_prefix), "%s (the %s side)", prefix, name);
	msg_set_prefix(side_prefix);
	db = dbcache_open(s->file, &import_types_none, &damaged);
	if (!db) {
		msg_set_prefix(prefix);
		free(prefix);
		return -1;
	}
	slice_init(&sl);
	sl.since_arg = s->since;
	sl.until_arg = s->until;
	sl.ragged = ragged;
	sl.quiet = true; /* the side's report said where its window starts */
	rc = slice_resolve(&sl, db);
	if (rc == 0) {
		int64_t a = sl.from_ns > sl.since_ns ? sl.from_ns : sl.since_ns;
		int64_t b = sl.to_ns < sl.until_ns ? sl.to_ns : sl.until_ns;

		s->seconds = b > a ? (double)(b - a) / 1e9 : 0;
	}
	slice_free(&sl);
	sqlite3_close(db);
	msg_set_prefix(prefix);
	free(prefix);
	return rc;
}


/* Our options out of argv; the rest pass to the report. 0, or -1 after an error. */
static int parse(int argc, char **argv, struct diff_opts *o)
{
	const struct { const char *name; const char **dst; } sides[] = {
		{ "--before-since", &o->before.since }, { "--before-until", &o->before.until },
		{ "--after-since", &o->after.since }, { "--after-until", &o->after.until },
	};
	const char *pos[3];
	int npos = 0;

	o->pass = calloc((size_t)argc + 1, sizeof(*o->pass));
	if (!o->pass)
		return msg_error("out of memory");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool taken = false;

		for (size_t k = 0; !taken && k < sizeof(sides) / sizeof(sides[0]); k++)
			if (!strcmp(a, sides[k].name)) {
				if (i + 1 >= argc)
					return msg_error("%s needs a time", a);
				if (slice_check_time(a, argv[i + 1]) < 0)
					return -1;
				*sides[k].dst = argv[++i];
				taken = true;
			}
		if (taken)
			continue;
		if (!strcmp(a, "--csv") || !strcmp(a, "--json")) {
			enum out_format f = a[2] == 'c' ? OUT_CSV : OUT_JSON;

			if (o->fmt != OUT_TEXT && o->fmt != f)
				return msg_error("--csv and --json exclude each other: give one");
			o->fmt = f;
		} else if (!strcmp(a, "--value") || !strcmp(a, "--keys") || !strcmp(a, "--top")) {
			if (i + 1 >= argc)
				return msg_error("%s needs a value", a);
			if (a[2] == 'v')
				o->value = argv[++i];
			else if (a[2] == 'k')
				o->keys = argv[++i];
			else {
				char *end;

				o->top = strtoll(argv[++i], &end, 10);
				if (*end || o->top < 1)
					return msg_error("bad --top '%s' (a number of rows, 1 or more)", argv[i]);
			}
		} else if (!strcmp(a, "--svg")) {
			o->svg = true;
		} else if (!strcmp(a, "-o")) {
			if (i + 1 >= argc)
				return msg_error("-o needs a file");
			o->out = argv[++i];
		} else if (!strcmp(a, "--since") || !strcmp(a, "--until") || !strcmp(a, "--before-stop")) {
			/* (--before-stop: each side's report would cut its rows, not its seconds) */
			return msg_error("%s: give each side's window (--before-since, --after-until, ...)", a);
		} else if (a[0] != '-' && npos < 3) {
			pos[npos++] = a;
		} else {
			if (!strcmp(a, "--ragged"))
				o->ragged = true;
			o->pass[o->npass++] = argv[i];
		}
	}
	if (npos < 2)
		return msg_error("give BEFORE AFTER [REPORT] (usage: ftana diff --help)");
	o->before.file = pos[0];
	o->after.file = pos[1];
	o->report = npos > 2 ? pos[2] : NULL;
	if (!o->report && (o->value || o->keys || o->fmt == OUT_CSV || o->svg))
		return msg_error("%s needs a REPORT: the page without one has a section per question",
				 o->value ? "--value" : o->keys ? "--keys" : o->svg ? "--svg" :
				 "--csv (one table)");
	if (o->out && !o->svg)
		return msg_error("-o writes the flame graph: give --svg");
	if (o->svg && (o->fmt != OUT_TEXT || o->value || o->keys || o->top))
		return msg_error("--svg is a picture of every stack: --csv, --json, --value, --keys "
				 "and --top are for the table");
	return 0;
}

/* The key columns (--keys, or every column not a value) and the value compared. */
static int choose(struct diff_opts *o, char **cols, int n, sqlite3_str *keys, const char **value)
{
	static const char *const prefer[] = { "rate_per_s", "iops", "calls", "count", "total_ms", "bytes" };
	int nkeys = 0;

	for (int i = 0; i < n; i++)
		if (IN(listing, cols[i]))
			return msg_error("report %s printed a listing (column %s), not groups: diff takes "
					 "an aggregating report (iolat: --summary or --hist)", o->report, cols[i]);
	*value = NULL;
	if (o->value) {
		for (int i = 0; i < n; i++)
			if (!strcmp(cols[i], o->value))
				*value = cols[i];
		if (!*value)
			return msg_error("--value %s: report %s has no such column", o->value, o->report);
		if (!IN(additive, *value))
			return msg_error("--value %s: not a value that adds up (a count, a total or a rate)",
					 *value);
	}
	for (size_t k = 0; !*value && k < sizeof(prefer) / sizeof(prefer[0]); k++)
		for (int i = 0; i < n; i++)
			if (!strcmp(cols[i], prefer[k]))
				*value = cols[i];
	if (!*value)
		return msg_error("report %s has no count, total or rate to compare", o->report);
	for (int i = 0; i < n; i++) {
		bool key = o->keys ? false : !IN(additive, cols[i]) && !IN(other_values, cols[i]);

		if (o->keys) {
			const char *k = o->keys;
			size_t len = strlen(cols[i]);

			for (; k; k = strchr(k, ',') ? strchr(k, ',') + 1 : NULL)
				if (!strncmp(k, cols[i], len) && (k[len] == ',' || !k[len]))
					key = true;
		}
		if (key)
			sqlite3_str_appendf(keys, "%s\"%w\"", nkeys++ ? ", " : "", cols[i]);
	}
	if (!nkeys)
		return msg_error("%s: no column of report %s to join on", o->keys ? "--keys" : "diff",
				 o->report);
	return 0;
}

/*
 * The rows of compare(): the keys, then before, after, before_per_s, after_per_s, diff
 * and ratio. In text each column has the decimals of its unit, as the reports print
 * it (store/print.c): before and after are in VALUE's (a rate per second 3, iops 1, a
 * total in ms 3; a count, calls or bytes: whole numbers), the per-second columns and
 * ratio by their names (3), diff in VALUE's unit for a rate, else per second (3).
 */
static int print_diff_rows(sqlite3_stmt *st, enum out_format fmt, const char *value)
{
	int cols = sqlite3_column_count(st), unit = print_unit_decimals(value);
	int *decimals = cols >= 6 ? malloc((size_t)cols * sizeof(*decimals)) : NULL;
	int rc;

	if (!decimals)
		return print_rows_flags(st, fmt, stdout, PRINT_UNITS);
	if (unit < 0)
		unit = 0; /* no unit: a count of something */
	for (int i = 0; i < cols; i++)
		decimals[i] = -1; /* the keys, per second and ratio: by their names */
	decimals[cols - 6] = decimals[cols - 5] = unit;
	if (IN(rates, value))
		decimals[cols - 2] = unit;
	rc = print_rows_decimals(st, fmt, stdout, PRINT_UNITS, decimals);
	free(decimals);
	return rc;
}

static int compare(sqlite3 *db, struct diff_opts *o, const char *keys, const char *value)
{
	bool rate = IN(rates, value);
	double sb = o->before.seconds, sa = o->after.seconds;
	char per_b[64] = "NULL", per_a[64] = "NULL", diff[160], ratio[160], top[32] = "";
	/* a key may be NULL (iolat's total row has no type): joined with IS, not USING's = */
	sqlite3_str *on = sqlite3_str_new(db), *sel = sqlite3_str_new(db);
	char *kcopy = sqlite3_mprintf("%s", keys), *save = NULL;

	for (char *k = kcopy ? strtok_r(kcopy, ",", &save) : NULL; k; k = strtok_r(NULL, ",", &save)) {
		k += *k == ' ';
		sqlite3_str_appendf(on, "%sb.%s IS a.%s", sqlite3_str_length(on) ? " AND " : "", k, k);
		sqlite3_str_appendf(sel, "%scoalesce(b.%s, a.%s) AS %s", sqlite3_str_length(sel) ? ", " : "",
				    k, k, k);
	}
	sqlite3_free(kcopy);
	char *on_sql = sqlite3_str_finish(on), *sel_sql = sqlite3_str_finish(sel);
	char *sql = on_sql && sel_sql ? sqlite3_mprintf(
		"CREATE TEMP TABLE diff_rows AS WITH b AS (SELECT %s, sum(\"%w\") AS vb FROM before GROUP BY %s), "
		"a AS (SELECT %s, sum(\"%w\") AS va FROM after GROUP BY %s) "
		"SELECT %s, vb, va FROM b FULL JOIN a ON %s", keys, value, keys, keys, value, keys, sel_sql,
		on_sql) : NULL;
	int rc = sql && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 :
		 msg_error("%s", sqlite3_errmsg(db));

	sqlite3_free(on_sql);
	sqlite3_free(sel_sql);

	sqlite3_free(sql);
	if (rc)
		return -1;
	if (rate) { /* compared as it is */
		snprintf(diff, sizeof(diff), "coalesce(va, 0) - coalesce(vb, 0)");
		snprintf(ratio, sizeof(ratio), "1.0 * coalesce(va, 0) / vb");
	} else { /* per second of each side's window */
		snprintf(per_b, sizeof(per_b), "coalesce(vb, 0) / %.9f", sb);
		snprintf(per_a, sizeof(per_a), "coalesce(va, 0) / %.9f", sa);
		snprintf(diff, sizeof(diff), "%s - %s", per_a, per_b);
		snprintf(ratio, sizeof(ratio), "(%s) / (vb / %.9f)", per_a, sb);
	}
	if (o->top)
		snprintf(top, sizeof(top), "LIMIT %lld", o->top);
	/* full precision here: text rounds each column to its unit's decimals (below) */
	sql = sqlite3_mprintf("SELECT %s, coalesce(vb, 0) AS before, coalesce(va, 0) AS after, "
			      "%s AS before_per_s, %s AS after_per_s, %s AS diff, "
			      "CASE WHEN coalesce(vb, 0) <> 0 THEN %s END AS ratio FROM diff_rows "
			      "ORDER BY abs(%s) DESC, %s %s", keys, per_b, per_a, diff, ratio, diff, keys, top);
	sqlite3_stmt *st = NULL;

	if (!sql || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_free(sql);
		return msg_error("%s", sqlite3_errmsg(db));
	}
	sqlite3_free(sql);
	if (o->fmt == OUT_TEXT)
		printf("# %s %s%s: before %s (%.3f s), after %s (%.3f s)\n", o->report, value,
		       rate ? "" : " per second of each side's window", o->before.file, sb,
		       o->after.file, sa);
	if (o->fmt == OUT_JSON) {
		printf("{\"diff\":");
		print_json_string(stdout, o->report);
		printf(",\"value\":");
		print_json_string(stdout, value);
		printf(",\"before\":{\"file\":");
		print_json_string(stdout, o->before.file);
		printf(",\"seconds\":%.9f},\"after\":{\"file\":", sb);
		print_json_string(stdout, o->after.file);
		printf(",\"seconds\":%.9f},\"rows\":", sa);
	}
	rc = print_diff_rows(st, o->fmt, value);
	if (o->fmt == OUT_JSON)
		printf("}\n");
	sqlite3_finalize(st);
	return rc ? msg_error("%s", sqlite3_errmsg(db)) : 0;
}

/*
 * One REPORT on both sides (their windows' seconds known), compared and printed.
 * QUIET: the reports' own errors are not shown (the summary page's). 0, 1 when a
 * side's report failed (quiet), or -1 after an error.
 */
static int diff_report(struct diff_opts *o, bool quiet)
{
	char **bcols = NULL, **acols = NULL;
	int nb = 0, na = 0, rc = -1;
	sqlite3 *db = NULL;
	sqlite3_str *keys = NULL;
	const char *value = NULL;

	if (run_sides(o, quiet, "--csv") < 0)
		return quiet ? 1 : -1;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
	    csv_table_load(db, "before", o->before.csv, o->before.len, o->before.file, &bcols, &nb) < 0 ||
	    csv_table_load(db, "after", o->after.csv, o->after.len, o->after.file, &acols, &na) < 0)
		goto out;
	if (nb != na) {
		msg_error("the two sides' tables differ (%d and %d columns): give the same options", nb, na);
		goto out;
	}
	for (int i = 0; i < nb; i++)
		if (strcmp(bcols[i], acols[i])) {
			msg_error("the two sides' tables differ (%s and %s): give the same options",
				  bcols[i], acols[i]);
			goto out;
		}
	keys = sqlite3_str_new(db);
	if (choose(o, bcols, nb, keys, &value) < 0)
		goto out;
	if ((!IN(rates, value)) && (o->before.seconds <= 0 || o->after.seconds <= 0)) {
		msg_error("a side's window is empty (before %.3f s, after %.3f s): nothing to divide by",
			  o->before.seconds, o->after.seconds);
		goto out;
	}
	char *k = sqlite3_str_finish(keys);

	keys = NULL;
	rc = k && compare(db, o, k, value) == 0 ? 0 : -1;
	sqlite3_free(k);
out:
	if (keys)
		sqlite3_free(sqlite3_str_finish(keys));
	csv_table_free_cols(bcols, nb);
	csv_table_free_cols(acols, na);
	if (db)
		sqlite3_close(db);
	return rc;
}

/* --svg: the reports whose --folded stacks a flame graph draws, and their values. */
static const struct {
	const char *report, *title, *unit;
	int time; /* the folded values are ns */
} flames[] = {
	{ "stacks", "Differential flame graph: kernel stacks", "samples", 0 },
	{ "funcgraph", "Differential flame graph: function self time", NULL, 1 },
	{ "offcpu", "Differential flame graph: off-CPU time", "us", 0 },
};

/* A side's folded stacks ("frame;frame;... VALUE" lines) into fl. 0, or -1. */
static int load_folded(struct flame *fl, const struct side *s, bool before)
{
	const char *p = s->csv, *end = s->csv + s->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *sp;

		if (!nl)
			nl = end;
		for (sp = nl; sp > p && sp[-1] != ' '; sp--)
			;
		if (sp > p) {
			char *path = strndup(p, (size_t)(sp - 1 - p)), *num_end;
			long long v = strtoll(sp, &num_end, 10);
			int rc = !path ? -1 : num_end != nl ? msg_error("%s: a folded line without its "
				 "value at the end", s->file) : before ? flame_add_before(fl, path, ';', v) :
				 flame_add(fl, path, ';', v, 0);

			free(path);
			if (rc)
				return rc == -1 && !path ? msg_error("out of memory") : -1;
		}
		p = nl + 1;
	}
	return 0;
}

static int diff_svg(struct diff_opts *o)
{
	size_t k = 0;

	while (k < sizeof(flames) / sizeof(flames[0]) && strcmp(flames[k].report, o->report))
		k++;
	if (k == sizeof(flames) / sizeof(flames[0]))
		return msg_error("--svg: report %s folds no stacks (stacks, funcgraph or offcpu)",
				 o->report);
	if (o->out && (out_check(o->out, o->before.file) || out_check(o->out, o->after.file)))
		return -1;
	if (run_sides(o, false, "--folded") < 0)
		return -1;
	struct flame *fl = flame_new(FLAME_SELF);
	char subtitle[512];
	struct flame_style style = { .title = flames[k].title, .subtitle = subtitle,
				     .time = flames[k].time, .unit = flames[k].unit, .min_width = 0.1 };
	struct out_file of = { 0 };
	int rc = -1;

	/* the file names are the user's: svg_text escapes them */
	snprintf(subtitle, sizeof(subtitle), "widths: %s (%.3f s); red grew, blue shrank per second "
		 "against %s (%.3f s)", o->after.file, o->after.seconds, o->before.file,
		 o->before.seconds);
	if (!fl || load_folded(fl, &o->before, true) || load_folded(fl, &o->after, false))
		goto out;
	flame_set_diff(fl, o->before.seconds, o->after.seconds);
	if (o->out && strcmp(o->out, "-")) {
		if (out_open(&of, o->out, o->after.file))
			goto out;
		if (flame_write_svg(fl, of.f, &style)) {
			out_abort(&of);
			msg_error("out of memory");
			goto out;
		}
		rc = out_commit(&of);
	} else {
		rc = flame_write_svg(fl, stdout, &style) ? msg_error("out of memory") : 0;
	}
out:
	if (!fl)
		msg_error("out of memory");
	flame_free(fl);
	return rc;
}

/* Without REPORT: each section's diff, the user's options (-p, --cpu...) on each. */
static int diff_summary(struct diff_opts *o, char **user, int nuser)
{
	bool json = o->fmt == OUT_JSON;
	int shown = 0;

	if (!o->top)
		o->top = SUMMARY_TOP;
	if (json)
		fputs("{\"diff\":\"summary\",\"sections\":[", stdout);
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		const struct section *sec = &sections[i];

		o->report = sec->report;
		o->value = sec->value;
		o->npass = 0;
		for (int k = 0; k < 4 && sec->opts[k]; k++)
			o->pass[o->npass++] = (char *)sec->opts[k];
		for (int k = 0; k < nuser; k++)
			o->pass[o->npass++] = user[k];
		if (json && i)
			fputc(',', stdout);
		if (!json)
			printf("%s## %s\n", i ? "\n" : "", sec->title);
		fflush(stdout); /* before the reports' children write */
		int rc = diff_report(o, true);

		if (rc < 0)
			return -1;
		if (rc == 1 && json) {
			fputs("{\"diff\":", stdout);
			print_json_string(stdout, sec->report);
			fputs(",\"skipped\":\"not in both captures\"}\n", stdout);
		} else if (rc == 1) {
			printf("(not in both captures: `ftana diff BEFORE AFTER %s", sec->report);
			for (int k = 0; k < 4 && sec->opts[k]; k++)
				printf(" %s", sec->opts[k]);
			printf("` says why)\n");
		}
		shown += rc == 0;
	}
	if (json)
		fputs("]}\n", stdout);
	return shown ? 0 : msg_error("the captures share none of the summary's questions "
				     "(sched, block, syscall or function events)");
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = { .fmt = OUT_TEXT };
	int rc = -1;

	if (cmd_wants_help(argc, argv))
		return cmd_usage(usage_text, true);
	if (parse(argc, argv, &o) == 0 &&
	    side_seconds(&o.before, "before", o.ragged) == 0 &&
	    side_seconds(&o.after, "after", o.ragged) == 0) {
		if (o.svg) {
			rc = diff_svg(&o);
		} else if (o.report) {
			rc = diff_report(&o, false);
		} else {
			/* the user's options, kept apart: each section adds its own before them */
			char **user = calloc((size_t)o.npass + 1, sizeof(*user));
			int nuser = o.npass;
			char **pass = realloc(o.pass, ((size_t)argc + 8) * sizeof(*pass));

			if (!user || !pass) {
				free(user);
				rc = msg_error("out of memory");
			} else {
				o.pass = pass;
				memcpy(user, o.pass, (size_t)nuser * sizeof(*user));
				rc = diff_summary(&o, user, nuser);
				free(user);
			}
		}
	}
	free(o.before.csv);
	free(o.after.csv);
	free(o.pass);
	/* as a report: a damaged input is said (its warnings) and its exit status is 3 */
	return rc != 0 ? CMD_EXIT_ERROR : o.before.damaged || o.after.damaged ? CMD_EXIT_DAMAGED :
	       CMD_EXIT_OK;
}
