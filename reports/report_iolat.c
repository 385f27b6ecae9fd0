/* SPDX-License-Identifier: MIT */
/*
 * report_iolat.c - `ftana report iolat`: block I/O latency per request (perf-tools'
 * iosnoop columns, bcc biosnoop's -Q queue time), a summary per disk and type, and a
 * log2 histogram (bcc biolatency). The pairing is schema/reports/iolat.sql (the `io`
 * view, also there for `ftana sql`); the summary and histogram are
 * schema/reports/iolat_summary.sql over the rows selected here (temp.iolat_sel).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/ftana.h"
#include "reports/report_func.h"
#include "reports/report_front.h"
#include "reports/report_util.h"
#include "analyze/text_escape.h"

struct iolat_opts {
	bool queue;        /* -Q: start at block_rq_insert, add QUEms */
	bool show_start;   /* -s */
	bool show_end;     /* -t */
	bool summary_only; /* --summary */
	bool hist;         /* --hist */
	bool has_dev, has_pid;
	int64_t dev;       /* kernel dev_t: major << 20 | minor */
	int64_t pid;
	const char *comm_re;
	const char *by_title; /* header of the group column */
	const char *by_expr;  /* its SQL over io's columns (a fixed list, never user text) */
	enum out_format fmt;
};

static const struct {
	const char *name, *title, *expr;
} groupings[] = {
	{ NULL,   "DISK TYPE", "disk || ' ' || type" }, /* the default */
	{ "disk", "DISK",      "disk" },
	{ "type", "TYPE",      "type" },
	{ "comm", "COMM",      "coalesce(comm, '?')" },
};

#define BLOCK_RQ_COLUMNS "id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, dev, sector, " \
			 "nr_sector, bytes, rwbs, comm, cmd"

static const char usage[] =
	"usage: ftana report iolat FILE [-Q] [-s] [-t] [-D MAJ,MIN] [-p PID] [-n COMMREGEX]\n"
	"                           [--summary] [--hist] [--by disk|type|comm] [--csv|--json]\n"
	"  -Q  measure from the insert into the I/O scheduler (LATms as iosnoop -Q) and\n"
	"      add QUEms (insert -> issue, as biosnoop -Q); COMM/PID are then the inserter's;\n"
	"      requests issued directly (scheduler 'none') have no insert and are left out\n"
	"  -s/-t  add STARTs / ENDs (seconds)    -D/-p/-n  only this disk / PID / command\n"
	"  --summary  only the summary    --hist  add a log2 latency histogram\n"
	"  --csv/--json  one table: the listing, or the summary / histogram when asked for\n";

static int parse_dev(const char *arg, int64_t *dev)
{
	unsigned long maj, min;
	char *end;

	maj = strtoul(arg, &end, 10);
	if (end == arg || *end != ',')
		goto bad;
	const char *m = end + 1;
	min = strtoul(m, &end, 10);
	if (end == m || *end || maj >= 4096 || min >= (1ul << 20))
		goto bad;
	*dev = (int64_t)(maj << 20 | min);
	return 0;
bad:
	fprintf(stderr, "ftana report iolat: bad -D '%s' (MAJOR,MINOR as in /proc/partitions)\n",
		arg);
	return -1;
}

static int parse_opts(struct iolat_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "summary", no_argument, NULL, 'S' },
		{ "hist", no_argument, NULL, 'H' },
		{ "by", required_argument, NULL, 'B' },
		{ "csv", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	double num;
	int c;

	memset(o, 0, sizeof(*o));
	o->by_title = groupings[0].title;
	o->by_expr = groupings[0].expr;
	optind = 0;
	while ((c = getopt_long(argc, argv, "QstD:p:n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'Q': o->queue = true; break;
		case 's': o->show_start = true; break;
		case 't': o->show_end = true; break;
		case 'D':
			if (parse_dev(optarg, &o->dev))
				return -1;
			o->has_dev = true;
			break;
		case 'p':
			if (!rf_parse_num("iolat", 'p', optarg, &num))
				return -1;
			o->pid = (int64_t)num;
			o->has_pid = true;
			break;
		case 'n': o->comm_re = optarg; break;
		case 'S': o->summary_only = true; break;
		case 'H': o->hist = true; break;
		case 'B': {
			size_t i;
			for (i = 1; i < sizeof(groupings) / sizeof(groupings[0]); i++)
				if (!strcmp(optarg, groupings[i].name))
					break;
			if (i == sizeof(groupings) / sizeof(groupings[0])) {
				fprintf(stderr, "ftana report iolat: bad --by '%s' (disk, type or comm)\n",
					optarg);
				return -1;
			}
			o->by_title = groupings[i].title;
			o->by_expr = groupings[i].expr;
			break;
		}
		case 'c': o->fmt = OUT_CSV; break;
		case 'j': o->fmt = OUT_JSON; break;
		case 'h': fputs(usage, stdout); return 1;
		default: fputs(usage, stderr); return -1;
		}
	}
	if (ru_extra_args("iolat", argc, argv))
		return -1;
	return 0;
}

int iolat_views(sqlite3 *db)
{
	if (ru_stand_in(db, "block_rq_insert", BLOCK_RQ_COLUMNS) ||
	    ru_stand_in(db, "lost_events", "cpu, ts, count") ||
	    ru_add_regexp(db) ||
	    ftana_exec_sql_file(db, "schema/reports/iolat.sql"))
		return FTANA_EXIT_ERROR;
	return 0;
}

/* The capture's tables as iolat.sql reads them, stand-ins for the optional ones. */
static int prepare_tables(sqlite3 *db, const struct iolat_opts *o)
{
	static const char *const needed[] = { "block_rq_issue", "block_rq_complete" };

	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (!rf_has_table(db, needed[i]))
			return rf_missing("iolat", needed[i],
					  ru_event_recorded(db, "block", needed[i]) ?
					  "it recorded them, but no block I/O happened while it ran" :
					  "record with 'ftrec iolat'");
	if (o->queue && !rf_has_table(db, "block_rq_insert")) {
		if (!ru_event_recorded(db, "block", "block_rq_insert"))
			return rf_missing("iolat -Q", "block_rq_insert", "record with 'ftrec iolat'");
		/* Recorded, none happened: with scheduler "none" (loop, NVMe, null_blk by
		 * default) blk-mq issues a request straight from submit_bio, never queueing
		 * it, so there is no insert and no queue time to measure. */
		fprintf(stderr, "ftana report iolat -Q: the capture recorded block_rq_insert but no "
			"request was inserted: the kernel issued each directly (as it does for a disk "
			"whose I/O scheduler is 'none'), so there is no queue time; drop -Q for "
			"issue-to-completion latency, or record a disk with an I/O scheduler "
			"(/sys/block/DISK/queue/scheduler) for queue times\n");
		return FTANA_EXIT_ERROR;
	}
	return iolat_views(db);
}

/* temp.iolat_sel: the io rows this report shows, in the meaning of -Q, filtered. */
static int select_rows(sqlite3 *db, const struct iolat_opts *o)
{
	char *sql = sqlite3_mprintf(
		"CREATE TEMP TABLE iolat_sel AS SELECT *, %s AS grp FROM ("
		"  SELECT id, dev, disk, sector, bytes, type, op, que_ns, complete_ts,"
		"         CASE WHEN ?1 THEN insert_pid ELSE pid END AS pid,"
		"         CASE WHEN ?1 THEN insert_comm ELSE comm END AS comm,"
		"         CASE WHEN ?1 THEN insert_ts ELSE issue_ts END AS start_ts,"
		"         CASE WHEN ?1 THEN qlat_ns ELSE lat_ns END AS lat_ns"
		"  FROM io WHERE NOT ?1 OR insert_ts IS NOT NULL)"
		"WHERE (?2 IS NULL OR dev = ?2) AND (?3 IS NULL OR pid = ?3)"
		"  AND (?4 IS NULL OR coalesce(comm, '') REGEXP ?4) ORDER BY id",
		o->by_expr);
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (!ru_exec(db, "iolat", "DROP TABLE IF EXISTS temp.iolat_sel"))
		st = ru_prepare(db, "iolat", sql);
	sqlite3_free(sql);
	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, o->queue);
	if (o->has_dev)
		sqlite3_bind_int64(st, 2, o->dev);
	if (o->has_pid)
		sqlite3_bind_int64(st, 3, o->pid);
	if (o->comm_re)
		sqlite3_bind_text(st, 4, o->comm_re, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE)
		rc = 0;
	else
		fprintf(stderr, "ftana report iolat: %s\n", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc;
}

/* What the text printers share while they walk their rows. */
struct text_out {
	const struct iolat_opts *o;
	FILE *out;
	char *group; /* the histogram being printed */
};

static int listing_row(sqlite3_stmt *st, void *ctx)
{
	const struct text_out *t = ctx;
	const char *comm = (const char *)sqlite3_column_text(st, 2);
	char block[24] = "-";

	if (sqlite3_column_type(st, 6) != SQLITE_NULL)
		snprintf(block, sizeof(block), "%lld", (long long)sqlite3_column_int64(st, 6));
	if (t->o->show_start)
		fprintf(t->out, "%-15.6f ", sqlite3_column_int64(st, 0) / 1e9);
	if (t->o->show_end)
		fprintf(t->out, "%-15.6f ", sqlite3_column_int64(st, 1) / 1e9);
	/* comm and the request's type text come from the capture: escaped */
	char *safe_comm = text_escaped(comm);
	char *safe_type = text_escaped((const char *)sqlite3_column_text(st, 4));
	char *safe_disk = text_escaped((const char *)sqlite3_column_text(st, 5));
	fprintf(t->out, "%-12.12s %-6d %-4s %-8s %-12s %-6lld ", safe_comm ? safe_comm : "?",
		sqlite3_column_int(st, 3), safe_type ? safe_type : "?",
		safe_disk ? safe_disk : "?", block, (long long)sqlite3_column_int64(st, 7));
	free(safe_comm);
	free(safe_type);
	free(safe_disk);
	if (t->o->queue)
		fprintf(t->out, "%8.2f ", sqlite3_column_int64(st, 8) / 1e6);
	fprintf(t->out, "%8.2f\n", sqlite3_column_int64(st, 9) / 1e6);
	return 0;
}

/* The listing with iosnoop's column layout (widths from perf-tools' iosnoop). */
static int print_listing_text(sqlite3 *db, struct text_out *t)
{
	if (t->o->show_start)
		fprintf(t->out, "%-15s ", "STARTs");
	if (t->o->show_end)
		fprintf(t->out, "%-15s ", "ENDs");
	fprintf(t->out, "%-12.12s %-6s %-4s %-8s %-12s %-6s ", "COMM", "PID", "TYPE", "DEV",
		"BLOCK", "BYTES");
	if (t->o->queue)
		fprintf(t->out, "%8s ", "QUEms");
	fprintf(t->out, "%8s\n", "LATms");
	return ru_each_row(db, "iolat",
		"SELECT start_ts, complete_ts, comm, pid, type, disk, sector, bytes, que_ns, lat_ns "
		"FROM iolat_sel ORDER BY id", 0, listing_row, t);
}

static int summary_row(sqlite3_stmt *st, void *ctx)
{
	const struct text_out *t = ctx;

	/* The "all" row repeats a lone group: leave it out then. */
	const char *grp = (const char *)sqlite3_column_text(st, 0);

	if (sqlite3_column_int(st, 10) == 2 && grp && !strcmp(grp, "all"))
		return 0;
	char *group = text_escaped(grp); /* a comm, from the capture */

	fprintf(t->out, "%-16s %7lld %9.1f %9.3f", group ? group : "?",
		(long long)sqlite3_column_int64(st, 1), sqlite3_column_double(st, 2),
		sqlite3_column_double(st, 3));
	free(group);
	for (int c = 4; c <= 9; c++)
		fprintf(t->out, " %8.3f", sqlite3_column_double(st, c));
	fputc('\n', t->out);
	return 0;
}

static int print_summary_text(sqlite3 *db, struct text_out *t)
{
	fprintf(t->out, "\n%-16s %7s %9s %9s %8s %8s %8s %8s %8s %8s\n", t->o->by_title,
		"COUNT", "IOPS", "MB/s", "MINms", "AVGms", "P50ms", "P90ms", "P99ms", "MAXms");
	return ru_each_row(db, "iolat",
		"SELECT grp, count, iops, mb_s, min_ms, avg_ms, p50_ms, p90_ms, p99_ms, max_ms, "
		"       count(*) OVER () FROM iolat_summary", 0, summary_row, t);
}

/* bcc's star bar: floor(width * count / max) stars. */
#define HIST_WIDTH 40

static int hist_row(sqlite3_stmt *st, void *ctx)
{
	struct text_out *t = ctx;
	const char *grp = (const char *)sqlite3_column_text(st, 0);
	int64_t count = sqlite3_column_int64(st, 3), max = sqlite3_column_int64(st, 4);

	if (!grp)
		grp = "?";
	if (!t->group || strcmp(t->group, grp)) {
		free(t->group);
		t->group = strdup(grp);
		fprintf(t->out, "\n%s ", t->o->by_title);
		text_fputs(t->out, grp); /* a comm, from the capture */
		fprintf(t->out, "\n     %-19s : count     distribution\n", "usecs");
	}
	int stars = max ? (int)(HIST_WIDTH * count / max) : 0;
	fprintf(t->out, "%10lld -> %-10lld : %-8lld |%-*.*s|\n",
		(long long)sqlite3_column_int64(st, 1), (long long)sqlite3_column_int64(st, 2),
		(long long)count, HIST_WIDTH, stars, "****************************************");
	return 0;
}

static int print_hist_text(sqlite3 *db, struct text_out *t)
{
	int rc = ru_each_row(db, "iolat",
		"SELECT grp, low_us, high_us, count, max(count) OVER (PARTITION BY grp) "
		"FROM iolat_hist ORDER BY grp, low_us", 0, hist_row, t);

	free(t->group);
	t->group = NULL;
	return rc;
}

static int dropped_row(sqlite3_stmt *st, void *ctx)
{
	static const struct { const char *reason, *text; } texts[] = {
		{ "no_start", "completions without a start (before the capture, or lost)" },
		{ "lost_events", "pairs excluded: events were lost between start and completion" },
		{ "negative", "pairs excluded: completion before start" },
		{ "absurd", "pairs excluded: latency over 60 s" },
		{ "no_insert", "I/Os without an insert event (dispatched directly): not listed with -Q" },
	};
	const char *reason = (const char *)sqlite3_column_text(st, 0);
	int64_t n = sqlite3_column_int64(st, 1);

	for (size_t i = 0; n && i < sizeof(texts) / sizeof(texts[0]); i++)
		if (!strcmp(reason, texts[i].reason))
			fprintf(ctx, "note: %lld %s\n", (long long)n, texts[i].text);
	return 0;
}

/* Say what was left out and why (dropped pairs, -Q rows without an insert). */
static int print_dropped(sqlite3 *db, const struct iolat_opts *o, FILE *out)
{
	return ru_each_row(db, "iolat",
		"SELECT reason, count FROM io_dropped WHERE what = 'completion' "
		"UNION ALL SELECT 'no_insert', count(*) FROM io WHERE ?1 AND insert_ts IS NULL",
		o->queue, dropped_row, out);
}

/* --csv / --json: one table, numbers unrounded (ms as REAL). */
static int print_table(sqlite3 *db, const struct iolat_opts *o, FILE *out)
{
	char *sql;

	if (o->hist)
		sql = sqlite3_mprintf("SELECT grp AS %Q, low_us, high_us, count FROM iolat_hist",
				      o->by_title);
	else if (o->summary_only)
		sql = sqlite3_mprintf("SELECT grp AS %Q, count, iops, mb_s, min_ms, avg_ms, p50_ms, "
				      "p90_ms, p99_ms, max_ms FROM iolat_summary", o->by_title);
	else
		sql = sqlite3_mprintf("SELECT %s%scomm AS COMM, pid AS PID, type AS TYPE, "
				      "disk AS DEV, sector AS BLOCK, bytes AS BYTES, %s"
				      "lat_ns / 1e6 AS LATms FROM iolat_sel ORDER BY id",
				      o->show_start ? "start_ts / 1e9 AS STARTs, " : "",
				      o->show_end ? "complete_ts / 1e9 AS ENDs, " : "",
				      o->queue ? "que_ns / 1e6 AS QUEms, " : "");
	sqlite3_stmt *st = ru_prepare(db, "iolat", sql);
	int rc = -1;

	sqlite3_free(sql);
	if (st) {
		rc = ftana_print_rows(st, o->fmt, out);
		sqlite3_finalize(st);
	}
	return rc;
}

int report_iolat(sqlite3 *db, int argc, char **argv)
{
	struct iolat_opts o;
	int rc = parse_opts(&o, argc, argv);

	if (rc)
		return rc > 0 ? FTANA_EXIT_OK : FTANA_EXIT_ERROR;
	rc = prepare_tables(db, &o);
	if (rc)
		return rc;
	/* Warnings and notes go to stderr when stdout must stay CSV/JSON. */
	FILE *notes = o.fmt == OUT_TEXT ? stdout : stderr;

	if (ru_warn_lost(db, "SELECT min(ts), max(ts) FROM io_rq", notes) ||
	    select_rows(db, &o) ||
	    ftana_exec_sql_file(db, "schema/reports/iolat_summary.sql"))
		return FTANA_EXIT_ERROR;
	if (o.fmt != OUT_TEXT)
		rc = print_table(db, &o, stdout);
	else {
		struct text_out t = { .o = &o, .out = stdout };

		rc = (!o.summary_only ? print_listing_text(db, &t) : 0) ||
		     print_summary_text(db, &t) || (o.hist ? print_hist_text(db, &t) : 0);
	}
	if (!rc)
		rc = print_dropped(db, &o, notes);
	return rc ? FTANA_EXIT_ERROR : FTANA_EXIT_OK;
}

/* TRANSITION: not yet on the report front end (report_front.h). */
const struct report_def report_iolat_def = {
	.name = "iolat",
	.summary = "block I/O latency per request (iosnoop), summary, histogram",
	.legacy = report_iolat,
};
