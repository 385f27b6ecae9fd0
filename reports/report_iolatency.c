/* SPDX-License-Identifier: MIT */
/*
 * report_iolatency.c - `ftana report iolatency`: perf-tools' iolatency, a log2 latency
 * histogram per interval, here per disk too. A thin layer over iolat: its pairing (the
 * `io` view), its selection and its intervals (iolat_report.sql) are reused as they
 * are, run once per disk; schema/reports/iolatency_report.sql only collects the rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text_escape.h"
#include "reports/args.h"
#include "reports/io_options.h"
#include "reports/lost.h"
#include "reports/report.h"
#include "reports/snoop.h"
#include "reports/views.h"
#include "store/db.h"

struct iolatency_opts {
	int64_t step_ns;  /* --interval, default 1 s */
	bool queue;       /* -Q */
	const char *type; /* -i: rwbs glob, NULL every type */
};

enum { OPT_INTERVAL, OPT_TYPE, OPT_QUEUE };

static const struct report_option options[] = {
	[OPT_INTERVAL] = { "interval", 0, "SECS", "interval length (default 1 s; perf-tools' iolatency\n"
			   "takes it as an operand)" },
	[OPT_TYPE] = { NULL, 'i', "TYPE", IO_OPTION_TYPE_HELP },
	[OPT_QUEUE] = { NULL, 'Q', NULL, "measure from the insert into the I/O scheduler\n"
			"(iolatency -Q)" },
	{ 0 }
};

static int option(struct report_ctx *ctx, int index, const char *arg)
{
	struct iolatency_opts *o = ctx->opts;

	if (index == OPT_QUEUE) {
		o->queue = true;
		return 0;
	}
	return index == OPT_TYPE ? io_option_type(arg, &o->type) : io_option_interval(arg, &o->step_ns);
}

/* iolat's intervals of one disk, appended to temp.iolatency_rows. */
static int one_disk(struct report_ctx *ctx, int64_t dev)
{
	sqlite3 *db = ctx->db;

	if (args_set(db, "iolat_dev", dev) || db_exec_file(db, "schema/reports/iolat_report.sql"))
		return -1;
	sqlite3_stmt *st;
	int64_t n = 0;
	if (sqlite3_prepare_v2(db, "SELECT n FROM iolat_window", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (n > 100000)
		return msg_error("--interval: %lld intervals: at most 100000 (a longer --interval, or "
				    "--since/--until)", (long long)n);
	return db_exec(db, "INSERT INTO temp.iolatency_rows SELECT "
		       "(SELECT min(disk) FROM iolat_sel), k, start_ts, end_ts, low_ms, high_ms, count "
		       "FROM iolat_intervals WHERE EXISTS (SELECT 1 FROM iolat_sel)");
}

#define BAR_WIDTH 38

static int print_text(struct report_ctx *ctx)
{
	sqlite3_stmt *st;
	int64_t k = -1;
	char *disk_seen = NULL; /* the disk whose histogram is being printed */
	int step;

	if (sqlite3_prepare_v2(ctx->db, "SELECT k, report_ts(end_ts), disk, low_ms, high_ms, count, "
			       "max(count) OVER (PARTITION BY k, disk) FROM iolatency_rows "
			       "ORDER BY k, disk, low_ms", -1, &st, NULL) != SQLITE_OK)
		return msg_error("%s", sqlite3_errmsg(ctx->db));
	ctx->tables++;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *disk = (const char *)sqlite3_column_text(st, 2);
		int64_t count = sqlite3_column_int64(st, 5), max = sqlite3_column_int64(st, 6);

		if (k != sqlite3_column_int64(st, 0) || !disk_seen || !disk || strcmp(disk_seen, disk)) {
			k = sqlite3_column_int64(st, 0);
			free(disk_seen);
			disk_seen = strdup(disk ? disk : "?");
			putchar('\n');
			if (sqlite3_column_type(st, 1) == SQLITE_FLOAT)
				printf("%.6f", sqlite3_column_double(st, 1));
			else
				text_fputs(stdout, (const char *)sqlite3_column_text(st, 1));
			printf(" disk ");
			text_fputs(stdout, disk_seen);
			printf(":\n%8s .. %-8s: %-8s |%-38s|\n", ">=(ms)", "<(ms)", "I/O", "Distribution");
		}
		int bars = max ? (int)((BAR_WIDTH * count + max - 1) / max) : 0;
		printf("%8lld -> %-8lld: %-8lld |%-*.*s|\n", (long long)sqlite3_column_int64(st, 3),
		       (long long)sqlite3_column_int64(st, 4), (long long)count, BAR_WIDTH, bars,
		       "######################################");
	}
	free(disk_seen);
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : msg_error("%s", sqlite3_errmsg(ctx->db));
}

static int run(struct report_ctx *ctx)
{
	const struct iolatency_opts *o = ctx->opts;
	sqlite3 *db = ctx->db;
	sqlite3_stmt *st;
	int step;

	if (!db_has_table(db, "block_rq_issue") || !db_has_table(db, "block_rq_complete"))
		return front_missing("block_rq_complete", "record with 'ftrec triage' or "
				  "'ftrec iolat' while the disk does I/O");
	if (iolat_views(db) || lost_warn(ctx->db, "SELECT min(ts), max(ts) FROM io_rq", &ctx->slice) ||
	    args_setup(db) || args_set(db, "iolat_queue", o->queue) || args_set(db, "iolat_by", 1) ||
	    args_set(db, "iolat_step_ns", o->step_ns ? o->step_ns : 1000000000) ||
	    args_set_text(db, "iolat_type", o->type) ||
	    db_exec_file(db, "schema/reports/iolatency_report.sql"))
		return -1;
	if (sqlite3_prepare_v2(db, "SELECT DISTINCT dev FROM io ORDER BY dev", -1, &st, NULL) != SQLITE_OK)
		return msg_error("%s", sqlite3_errmsg(db)), -1;
	/* every disk's rows first (one_disk re-runs iolat's SQL), then one table */
	int64_t *devs = NULL;
	size_t n = 0;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t *more = realloc(devs, (n + 1) * sizeof(*devs));
		if (!more)
			break;
		devs = more;
		devs[n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++)
		rc = one_disk(ctx, devs[i]);
	free(devs);
	if (rc)
		return -1;
	if (ctx->fmt == OUT_TEXT)
		rc = print_text(ctx);
	else
		rc = snoop_print(ctx, "intervals", "SELECT report_ts(start_ts) AS start%s, "
				 "report_ts(end_ts) AS end%s, disk, low_ms, high_ms, count "
				 "FROM iolatency_rows ORDER BY k, disk, low_ms");
	if (!rc)
		io_options_note_unmatched(db, -1, o->type);
	return rc ? -1 : 0;
}

const struct report_def report_iolatency_def = {
	.name = "iolatency",
	.summary = "block I/O latency histograms per interval and per disk (iolatency)",
	.options = options,
	.opts_size = sizeof(struct iolatency_opts),
	.option = option,
	.run = run,
	.details =
	"'ftana report iolat --interval SECS' per disk: the same pairing, buckets (latency <= 1 ms,\n"
	"then low_ms < latency <= high_ms) and slice (an I/O by its start event: the issue,\n"
	"or the insert with -Q). Every interval of a disk with I/O in the slice is listed,\n"
	"empty or not.\n"
	"columns (CSV/JSON): start_s, end_s (start_wall/end_wall with --wall), disk\n"
	"  (\"MAJ,MIN\"), low_ms, high_ms, count\n"
	"SQL: the `io` view (docs/SQL.md, iolat).\n",
	.views = &views_io,
	.needs = (const char *const[]){ "block:block_rq_insert", "block:block_rq_issue", "block:block_rq_complete", NULL },
};
