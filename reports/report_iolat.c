/* SPDX-License-Identifier: MIT */
/*
 * report_iolat.c - `ftana report iolat`: block I/O latency per request (perf-tools'
 * iosnoop layout, bcc biosnoop's -Q queue time), or a summary per disk and type, a
 * log2 histogram (bcc biolatency) and per-interval histograms (perf-tools iolatency).
 * The pairing is import/derive_io.c (once per capture; the `io` view over it is
 * schema/reports/iolat.sql, also there for `ftana sql`); the selection within the slice,
 * the summary and the histograms are schema/reports/iolat_report.sql. This file only
 * prints (--heatmap: reports/heatmap.c).
 */
#include <stdlib.h>
#include <string.h>

#include "common/text_escape.h"
#include "reports/args.h"
#include "reports/io_options.h"
#include "reports/heatmap.h"
#include "reports/lost.h"
#include "common/parse.h"
#include "import/derive.h"
#include "reports/report.h"
#include "reports/views.h"
#include "store/db.h"

/* --by: the SQL's iolat_by code and the name of the group column in the output. */
enum group_by { BY_DISK_TYPE, BY_DISK, BY_TYPE, BY_COMM };
static const char *const group_names[] = { "disk_type", "disk", "type", "comm" };

struct iolat_opts {
	bool queue;         /* -Q: start at block_rq_insert */
	bool issuer;        /* --issuer: comm/pid (and -p/-n) the issuing task's, as iosnoop */
	bool show_start;    /* -s: text STARTs column */
	bool show_end;      /* -t: text ENDs column */
	bool summary;       /* --summary */
	bool hist;          /* --hist */
	bool by_given;
	enum group_by by;
	uint64_t dev;       /* -D: kernel dev_t (major << 20 | minor), -1 every disk */
	bool has_dev;
	int64_t step_ns;    /* --interval: interval length, 0 none */
	const char *type;   /* -i: rwbs glob, NULL every type */
	bool heatmap;       /* --heatmap */
	const char *out, *col; /* its -o and --col, NULL: not given */
};

enum { OPT_QUEUE, OPT_ISSUER, OPT_START, OPT_END, OPT_DEV, OPT_TYPE, OPT_SUMMARY, OPT_HIST, OPT_BY, OPT_INTERVAL,
       OPT_HEATMAP, OPT_OUT, OPT_COL };

static const struct report_option options[] = {
	[OPT_QUEUE] = { NULL, 'Q', NULL, "measure from the insert into the I/O scheduler (LATms as\n"
			"iosnoop -Q); comm/pid are the inserter's; requests issued\n"
			"directly (scheduler 'none') have no insert and are left out" },
	[OPT_ISSUER] = { "issuer", 0, NULL, "comm/pid (and -p, -n) of the task that issued the request\n"
			 "to the driver, as iosnoop shows it (often a kworker), instead\n"
			 "of the task that submitted it (the insert's task)" },
	[OPT_START] = { NULL, 's', NULL, "text: add the STARTs column (start_s)" },
	[OPT_END] = { NULL, 't', NULL, "text: add the ENDs column (end_s)" },
	[OPT_DEV] = { NULL, 'D', "MAJ,MIN", "only this disk (as in /proc/partitions)" },
	[OPT_TYPE] = { NULL, 'i', "TYPE", IO_OPTION_TYPE_HELP },
	[OPT_SUMMARY] = { "summary", 0, NULL, "a summary per group instead of the listing" },
	[OPT_HIST] = { "hist", 0, NULL, "a log2 latency histogram per group (bcc biolatency)\n"
		       "instead of the listing" },
	[OPT_BY] = { "by", 0, "GROUP", "group --summary/--hist by disk, type or comm (default:\n"
		     "disk and type, columns disk and type)" },
	[OPT_INTERVAL] = { "interval", 0, "SECS", "one latency histogram per SECS of the capture\n"
			   "(perf-tools iolatency) instead of the listing" },
	[OPT_HEATMAP] = { "heatmap", 0, NULL, "a latency heat map (SVG) instead of the listing: x the\n"
			  "I/O's start in columns of --col, y its latency in log2\n"
			  "buckets, colour the I/Os in the cell; row totals, legend" },
	[OPT_OUT] = HEATMAP_OPTION_OUT,
	[OPT_COL] = HEATMAP_OPTION_COL,
	{ 0 }
};

static int option(struct report_ctx *ctx, int index, const char *arg)
{
	struct iolat_opts *o = ctx->opts;

	switch (index) {
	case OPT_QUEUE: o->queue = true; break;
	case OPT_ISSUER: o->issuer = true; break;
	case OPT_START: o->show_start = true; break;
	case OPT_END: o->show_end = true; break;
	case OPT_DEV:
		if (parse_dev("-D", arg, &o->dev))
			return -1;
		o->has_dev = true;
		break;
	case OPT_SUMMARY: o->summary = true; break;
	case OPT_HIST: o->hist = true; break;
	case OPT_BY: {
		size_t i;

		for (i = BY_DISK; i < sizeof(group_names) / sizeof(group_names[0]); i++)
			if (!strcmp(arg, group_names[i]))
				break;
		if (i == sizeof(group_names) / sizeof(group_names[0]))
			return msg_error("bad --by '%s' (disk, type or comm)", arg);
		o->by = (enum group_by)i;
		o->by_given = true;
		break;
	}
	case OPT_TYPE: return io_option_type(arg, &o->type);
	case OPT_INTERVAL: return io_option_interval(arg, &o->step_ns);
	case OPT_HEATMAP: o->heatmap = true; break;
	case OPT_OUT: o->out = arg; break;
	case OPT_COL: o->col = arg; break;
	}
	return 0;
}

/* How many tables the options ask for instead of the listing. */
static int nr_tables(const struct iolat_opts *o)
{
	return o->summary + o->hist + (o->step_ns > 0);
}

static int check(struct report_ctx *ctx)
{
	const struct iolat_opts *o = ctx->opts;

	if (ctx->fmt == OUT_CSV && nr_tables(o) > 1)
		return msg_error("CSV holds one table: give one of --summary, --hist, --interval "
				    "(or --json for several)");
	if (o->by_given && !o->summary && !o->hist)
		return msg_error("--by groups --summary and --hist: give one of them");
	return heatmap_check(ctx, o->heatmap, o->summary ? "--summary" : o->hist ? "--hist" :
			     o->step_ns ? "--interval" : NULL, o->out, o->col);
}

/* The capture's tables as iolat.sql reads them, stand-ins for the optional ones, the
 * pairs derived when the database lacks them. */
static int prepare_tables(struct report_ctx *ctx)
{
	static const char *const needed[] = { "block_rq_issue", "block_rq_complete" };
	const struct iolat_opts *o = ctx->opts;
	sqlite3 *db = ctx->db;

	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (!db_has_table(db, needed[i]))
			return front_missing(needed[i],
					  db_event_recorded(db, "block", needed[i]) ?
					  "it recorded them, but no block I/O happened while it ran" :
					  "record with 'ftrec iolat'");
	if (o->queue && !db_has_table(db, "block_rq_insert")) {
		if (!db_event_recorded(db, "block", "block_rq_insert"))
			return msg_error("-Q: this capture has no block_rq_insert events (record with 'ftrec iolat')");
		/* Recorded, none happened: with scheduler "none" (loop, NVMe, null_blk by
		 * default) blk-mq issues a request straight from submit_bio, never queueing
		 * it, so there is no insert and no queue time to measure. */
		msg_error("-Q: the capture recorded block_rq_insert but no request was "
			     "inserted: the kernel issued each directly (as it does for a disk whose "
			     "I/O scheduler is 'none'), so there is no queue time; drop -Q for "
			     "issue-to-completion latency, or record a disk with an I/O scheduler "
			     "(/sys/block/DISK/queue/scheduler) for queue times");
		return -1;
	}
	return iolat_views(db);
}

int iolat_views(sqlite3 *db)
{
	if (db_stand_in(db, "block_rq_insert", BLOCK_RQ_COLUMNS) ||
	    db_stand_in(db, "lost_events", "cpu, ts, count") ||
	    db_add_regexp(db) ||
	    (!derive_present(db, "main", "io") && derive_io(db, "temp")) ||
	    db_exec_file(db, "schema/reports/iolat.sql"))
		return -1;
	return 0;
}

/* For `ftana sql`: the io views of a capture that has block requests. */
static int views_io_build(sqlite3 *db)
{
	if (!db_has_capture_table(db, "block_rq_issue") || !db_has_capture_table(db, "block_rq_complete"))
		return 0;
	return iolat_views(db);
}

const struct report_views views_io = { "io", views_io_build, false };

/* temp.iolat_sel and the views over it (iolat_report.sql), for these options. */
static int select_rows(struct report_ctx *ctx)
{
	const struct iolat_opts *o = ctx->opts;
	sqlite3 *db = ctx->db;

	if (args_setup(db) || args_set(db, "iolat_queue", o->queue) || args_set(db, "iolat_issuer", o->issuer) ||
	    args_set(db, "iolat_dev", o->has_dev ? (int64_t)o->dev : -1) || args_set(db, "iolat_by", o->by) ||
	    args_set(db, "iolat_step_ns", o->step_ns) || args_set_text(db, "iolat_type", o->type) ||
	    db_exec_file(db, "schema/reports/iolat_report.sql"))
		return -1;
	return 0;
}

/* --- text views (CSV and JSON go through report_table) --- */

/* A hand-formatted text table: a blank line between it and the one before. */
static void text_table_begin(struct report_ctx *ctx)
{
	if (ctx->tables++)
		putchar('\n');
}

static sqlite3_stmt *prepare(struct report_ctx *ctx, const char *sql)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(ctx->db, sql, -1, &st, NULL) != SQLITE_OK) {
		msg_error("%s", sqlite3_errmsg(ctx->db));
		return NULL;
	}
	return st;
}

/* Step st to its end calling row(ctx, st, arg) on each row. 0 or -1 after an error. */
static int each_row(struct report_ctx *ctx, sqlite3_stmt *st,
		    void (*row)(struct report_ctx *, sqlite3_stmt *, void *), void *arg)
{
	int step;

	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		row(ctx, st, arg);
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : msg_error("%s", sqlite3_errmsg(ctx->db));
}

/* A report_ts() value: seconds of the trace clock (REAL), or --wall text. */
static void put_time(sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_FLOAT)
		printf("%-15.6f ", sqlite3_column_double(st, col));
	else
		printf("%-15s ", sqlite3_column_type(st, col) == SQLITE_NULL ? "-" :
		       (const char *)sqlite3_column_text(st, col));
}

static void listing_row(struct report_ctx *ctx, sqlite3_stmt *st, void *arg)
{
	const struct iolat_opts *o = ctx->opts;
	char block[24] = "-";

	if (sqlite3_column_type(st, 6) != SQLITE_NULL)
		snprintf(block, sizeof(block), "%lld", (long long)sqlite3_column_int64(st, 6));
	if (o->show_start)
		put_time(st, 0);
	if (o->show_end)
		put_time(st, 1);
	/* comm and the request's type text come from the capture: escaped */
	char *comm = text_escaped((const char *)sqlite3_column_text(st, 2));
	char *type = text_escaped((const char *)sqlite3_column_text(st, 4));
	char *disk = text_escaped((const char *)sqlite3_column_text(st, 5));

	printf("%-12.12s %-6d %-4s %-8s %-12s %-6lld ", comm ? comm : "?", sqlite3_column_int(st, 3),
	       type ? type : "?", disk ? disk : "?", block, (long long)sqlite3_column_int64(st, 7));
	free(comm);
	free(type);
	free(disk);
	if (o->queue)
		printf("%8.2f ", sqlite3_column_double(st, 8));
	printf("%8.2f\n", sqlite3_column_double(st, 9));
}

/*
 * The listing. CSV/JSON: every column, snake_case. Text: perf-tools iosnoop's layout
 * and headers (COMM PID TYPE DEV BLOCK BYTES LATms, -s STARTs, -t ENDs, -Q QUEms), so
 * it reads as iosnoop's output does.
 */
static int print_listing(struct report_ctx *ctx)
{
	const struct iolat_opts *o = ctx->opts;
	const char *suffix = slice_ts_suffix(&ctx->slice);
	char *sql = sqlite3_mprintf(
		"SELECT report_ts(start_ts) AS start%s, report_ts(complete_ts) AS end%s, comm, pid, "
		"type, disk, sector, bytes, que_ns / 1e6 AS que_ms, lat_ns / 1e6 AS lat_ms "
		"FROM iolat_sel ORDER BY id", suffix, suffix);

	if (!sql)
		return msg_error("out of memory");
	if (ctx->fmt != OUT_TEXT) {
		int rc = doc_table(ctx, "rows", sql);

		sqlite3_free(sql);
		return rc;
	}
	sqlite3_stmt *st = prepare(ctx, sql);

	sqlite3_free(sql);
	if (!st)
		return -1;
	text_table_begin(ctx);
	if (!ctx->no_header) {
		if (o->show_start)
			printf("%-15s ", "STARTs");
		if (o->show_end)
			printf("%-15s ", "ENDs");
		printf("%-12.12s %-6s %-4s %-8s %-12s %-6s ", "COMM", "PID", "TYPE", "DEV", "BLOCK",
		       "BYTES");
		if (o->queue)
			printf("%8s ", "QUEms");
		printf("%8s\n", "LATms");
	}
	return each_row(ctx, st, listing_row, NULL);
}

/* The group as columns of their own (disk and type apart: a key, not a string with a
 * space in it); a total row (grp NULL) labelled "all" in every format. To free. */
static char *group_columns(const struct iolat_opts *o)
{
	return o->by == BY_DISK_TYPE ?
		sqlite3_mprintf("coalesce(substr(grp, 1, instr(grp, ' ') - 1), 'all') AS disk, "
				"substr(grp, instr(grp, ' ') + 1) AS type") :
		sqlite3_mprintf("coalesce(grp, 'all') AS \"%w\"", group_names[o->by]);
}

/* The summary: one table (text tables print each unit's decimals: store/print.h). */
static int print_summary(struct report_ctx *ctx)
{
	char *keys = group_columns(ctx->opts);
	char *sql = !keys ? NULL :
		sqlite3_mprintf("SELECT %s, count, iops, mb_s, min_ms, avg_ms, p50_ms, "
				"p90_ms, p99_ms, max_ms FROM iolat_summary", keys);

	sqlite3_free(keys);
	int rc = sql ? doc_table(ctx, "summary", sql) : msg_error("out of memory");

	sqlite3_free(sql);
	return rc;
}

/* Text bars: bcc's (floor(width * count / max) stars) and iolatency's (ceil, '#'). */
#define BCC_WIDTH 40
#define IOLATENCY_WIDTH 38

struct hist_text {
	char *group; /* the group whose histogram is being printed */
};

static void hist_row(struct report_ctx *ctx, sqlite3_stmt *st, void *arg)
{
	const struct iolat_opts *o = ctx->opts;
	struct hist_text *h = arg;
	const char *grp = (const char *)sqlite3_column_text(st, 0);
	int64_t count = sqlite3_column_int64(st, 3), max = sqlite3_column_int64(st, 4);

	if (!grp)
		grp = "?";
	if (!h->group || strcmp(h->group, grp)) {
		if (h->group)
			putchar('\n');
		free(h->group);
		h->group = strdup(grp);
		const char *space = o->by == BY_DISK_TYPE ? strchr(grp, ' ') : NULL;

		if (space) { /* bcc's "disk = ..." and "flags = ...", for its -D and -F */
			fputs("disk = ", stdout);
			text_put(stdout, grp, (size_t)(space - grp));
			fputs("  type = ", stdout);
			text_fputs(stdout, space + 1); /* rwbs, from the capture */
		} else {
			printf("%s = ", group_names[o->by]);
			text_fputs(stdout, grp); /* a comm, from the capture */
		}
		printf("\n     %-19s : count     distribution\n", "usecs");
	}
	int stars = max ? (int)(BCC_WIDTH * count / max) : 0;
	printf("%10lld -> %-10lld : %-8lld |%-*.*s|\n", (long long)sqlite3_column_int64(st, 1),
	       (long long)sqlite3_column_int64(st, 2), (long long)count, BCC_WIDTH, stars,
	       "****************************************");
}

/* The log2 histogram per group: bcc biolatency's text, or one table. */
static int print_hist(struct report_ctx *ctx)
{
	const struct iolat_opts *o = ctx->opts;

	if (ctx->fmt != OUT_TEXT) {
		char *keys = group_columns(o);
		char *sql = keys ? sqlite3_mprintf("SELECT %s, low_us, high_us, count FROM iolat_hist",
						   keys) : NULL;
		int rc = sql ? doc_table(ctx, "histogram", sql) : msg_error("out of memory");

		sqlite3_free(keys);
		sqlite3_free(sql);
		return rc;
	}
	sqlite3_stmt *st = prepare(ctx, "SELECT grp, low_us, high_us, count, "
				   "max(count) OVER (PARTITION BY grp) FROM iolat_hist ORDER BY grp, low_us");
	struct hist_text h = { NULL };

	if (!st)
		return -1;
	text_table_begin(ctx);
	int rc = each_row(ctx, st, hist_row, &h);

	free(h.group);
	return rc;
}

static void interval_row(struct report_ctx *ctx, sqlite3_stmt *st, void *arg)
{
	int64_t *k = arg, count = sqlite3_column_int64(st, 5), max = sqlite3_column_int64(st, 6);

	if (*k != sqlite3_column_int64(st, 0)) {
		*k = sqlite3_column_int64(st, 0);
		/* iolatency -T's time line (here the interval's end), then its header */
		putchar('\n');
		if (sqlite3_column_type(st, 2) == SQLITE_FLOAT)
			printf("%.6f:\n", sqlite3_column_double(st, 2));
		else
			printf("%s:\n", (const char *)sqlite3_column_text(st, 2));
		printf("%8s .. %-8s: %-8s |%-38s|\n", ">=(ms)", "<(ms)", "I/O", "Distribution");
	}
	int bars = max ? (int)((IOLATENCY_WIDTH * count + max - 1) / max) : 0;
	printf("%8lld -> %-8lld: %-8lld |%-*.*s|\n", (long long)sqlite3_column_int64(st, 3),
	       (long long)sqlite3_column_int64(st, 4), (long long)count, IOLATENCY_WIDTH, bars,
	       "######################################");
}

/* -i: one histogram per interval: iolatency's text, or one table. */
static int print_intervals(struct report_ctx *ctx)
{
	const char *suffix = slice_ts_suffix(&ctx->slice);
	/* a guard before the recursive view runs: a cut too fine for this capture */
	sqlite3_stmt *st = prepare(ctx, "SELECT n, (t_end - t0) / 1e9 FROM iolat_window");
	int64_t n = 0;
	double secs = 0;

	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		n = sqlite3_column_int64(st, 0);
		secs = sqlite3_column_double(st, 1);
	}
	sqlite3_finalize(st);
	if (n > 100000)
		return msg_error("--interval: %lld intervals in the %.3f s this report covers: "
				    "at most 100000 (a longer --interval, or --since/--until)",
				    (long long)n, secs);
	if (ctx->fmt != OUT_TEXT) {
		char *sql = sqlite3_mprintf("SELECT report_ts(start_ts) AS start%s, "
					    "report_ts(end_ts) AS end%s, low_ms, high_ms, count "
					    "FROM iolat_intervals", suffix, suffix);
		int rc = sql ? doc_table(ctx, "intervals", sql) : msg_error("out of memory");

		sqlite3_free(sql);
		return rc;
	}
	st = prepare(ctx, "SELECT k, report_ts(start_ts), report_ts(end_ts), low_ms, high_ms, "
		     "count, max(count) OVER (PARTITION BY k) FROM iolat_intervals");
	int64_t k = -1;

	if (!st)
		return -1;
	ctx->tables++; /* no text_table_begin: iolatency starts each histogram with a blank line */
	return each_row(ctx, st, interval_row, &k);
}

/* --heatmap: the selected I/Os by start time and latency (-Q: from the insert). */
static int print_heatmap(struct report_ctx *ctx)
{
	const struct iolat_opts *o = ctx->opts;
	struct heatmap *hm = heatmap_new();
	sqlite3_stmt *st = prepare(ctx, "SELECT start_ts, lat_ns FROM iolat_sel");
	int step = SQLITE_NOMEM, rc = -1;

	while (hm && st && (step = sqlite3_step(st)) == SQLITE_ROW)
		if (heatmap_add(hm, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1))) {
			step = SQLITE_NOMEM;
			break;
		}
	sqlite3_finalize(st);
	if (step == SQLITE_DONE) {
		struct heatmap_style style = { .title = o->queue ? "I/O latency from insert (-Q)" :
					       "I/O latency", .what = "I/Os", .y_name = "latency",
					       .x_name = o->queue ? "insert" : "issue" };

		rc = heatmap_report(ctx, hm, &style, o->col, o->out);
	} else if (st) {
		msg_error("%s", step == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(ctx->db));
	}
	heatmap_free(hm);
	return rc;
}

/* -v: what was left out and why (dropped pairs, -Q rows without an insert). */
static int note_dropped(struct report_ctx *ctx)
{
	static const struct { const char *reason, *text; } texts[] = {
		{ "no_start", "completions without a start (before the capture, or lost)" },
		{ "lost_events", "pairs excluded: events were lost between start and completion" },
		{ "negative", "pairs excluded: completion before start" },
		{ "absurd", "pairs excluded: latency over 60 s" },
		{ "no_insert", "I/Os without an insert event (dispatched directly): not listed with -Q" },
	};
	const struct iolat_opts *o = ctx->opts;

	if (!ctx->verbose)
		return 0;
	sqlite3_stmt *st = prepare(ctx, "SELECT reason, count FROM io_dropped WHERE what = 'completion' "
				   "UNION ALL SELECT 'no_insert', count(*) FROM io WHERE ?1 AND insert_id IS NULL");
	int step;

	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, o->queue);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *reason = (const char *)sqlite3_column_text(st, 0);
		long long n = sqlite3_column_int64(st, 1);

		for (size_t i = 0; n && reason && i < sizeof(texts) / sizeof(texts[0]); i++)
			if (!strcmp(reason, texts[i].reason))
				msg_note("%lld %s", n, texts[i].text);
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : msg_error("%s", sqlite3_errmsg(ctx->db));
}

static int run(struct report_ctx *ctx)
{
	const struct iolat_opts *o = ctx->opts;
	int rc = prepare_tables(ctx);

	if (rc)
		return rc;
	if (lost_warn(ctx->db, "SELECT min(ts), max(ts) FROM io_rq", &ctx->slice) || select_rows(ctx))
		return -1;
	if (o->heatmap)
		rc = print_heatmap(ctx);
	else if (!nr_tables(o))
		rc = print_listing(ctx);
	else
		rc = (o->summary && print_summary(ctx)) || (o->hist && print_hist(ctx)) ||
		     (o->step_ns && print_intervals(ctx));
	if (!rc)
		rc = note_dropped(ctx);
	if (!rc)
		io_options_note_unmatched(ctx->db, o->has_dev ? (int64_t)o->dev : -1, o->type);
	return rc ? -1 : 0;
}

const struct report_def report_iolat_def = {
	.name = "iolat",
	.summary = "block I/O latency per request (iosnoop), summary, histograms (biolatency, iolatency)",
	.options = options,
	.opts_size = sizeof(struct iolat_opts),
	.option = option,
	.check = check,
	.run = run,
	.details =
	"an I/O belongs to the slice (--since/--until, -p/-L/-n, --cpu) by its start event:\n"
	"the issue (block_rq_issue), or with -Q the insert (block_rq_insert): that event's\n"
	"time, CPU and task; its completion may come after --until.\n"
	"\n"
	"--summary, --hist and --interval replace the listing and combine (text prints each table,\n"
	"JSON has a key for each: \"summary\", \"histogram\", \"intervals\"; CSV holds one).\n"
	"\n"
	"columns (CSV/JSON carry all of them; text shows iosnoop's headers for them):\n"
	"  listing: start_s (STARTs), end_s (ENDs) (trace clock, s; start_wall/end_wall with\n"
	"    --wall), comm (COMM), pid (PID), type (TYPE: the kernel's rwbs letters),\n"
	"    disk (DEV: \"MAJ,MIN\"), sector (BLOCK: 512-byte sector), bytes (BYTES),\n"
	"    que_ms (QUEms: insert -> issue, ms, null without an insert), lat_ms (LATms:\n"
	"    start -> completion, ms)\n"
	"  --summary: disk and type (or the --by column; \"all\" on the total row), count,\n"
	"    iops, mb_s (10^6 bytes/s) per second of the report's time, min_ms avg_ms p50_ms\n"
	"    p90_ms p99_ms max_ms (nearest-rank percentiles)\n"
	"  --hist: disk and type (or the --by column), low_us, high_us (low_us <= latency in\n"
	"    us <= high_us), count\n"
	"  -i: start_s, end_s (the interval), low_ms, high_ms (iolatency's buckets: latency\n"
	"    <= 1 ms, then low_ms < latency <= high_ms), count; text: iolatency's layout,\n"
	"    each histogram after its interval's end time (as iolatency -T); intervals run\n"
	"    from the later of --since and the first event, every one printed, empty or not\n"
	"--heatmap: the #heatmap group carries data-total (I/Os), data-columns, data-col-ns;\n"
	"each cell data-n (its I/Os). The same I/Os as the listing with the same options.\n"
	"notes (-v): completions without a start, pairs excluded around lost events.\n"
	"SQL: `ftana sql FILE 'select * from io'` (docs/SQL.md).\n",
	.views = &views_io,
	.needs = (const char *const[]){ "block:block_rq_insert", "block:block_rq_issue", "block:block_rq_complete", NULL },
};
