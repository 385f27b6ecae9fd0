/* SPDX-License-Identifier: MIT */
/*
 * report_bitesize.c - `ftana report bitesize`: a log2 histogram of block I/O request
 * sizes per process (perf-tools' / bcc's bitesize), from block_rq_issue, each request
 * counted for the task that submitted it (--issuer: that issued it, as bcc's). SQL:
 * schema/reports/bitesize.sql (the `io_sizes` view), bitesize_report.sql.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/text_escape.h"
#include "common/parse.h"
#include "reports/report.h"
#include "reports/snoop.h"

#include "reports/args.h"
#include "reports/views.h"

struct bitesize_opts {
	uint64_t dev; /* -D, when has_dev */
	bool has_dev;
	bool issuer;  /* --issuer */
};

enum { OPT_DEV, OPT_ISSUER };

static const struct report_option options[] = {
	[OPT_DEV] = { NULL, 'D', "MAJ,MIN", "only this disk (as in /proc/partitions)" },
	[OPT_ISSUER] = { "issuer", 0, NULL, "count each request for the task that issued it to the\n"
		"driver (bcc's bitesize; for a queued request often a kworker), not the one\n"
		"that submitted it; -p and -n follow" },
	{ 0 }
};

static int option(struct report_ctx *ctx, int index, const char *arg)
{
	struct bitesize_opts *o = ctx->opts;

	if (index == OPT_ISSUER) {
		o->issuer = true;
		return 0;
	}
	o->has_dev = true;
	return parse_dev("-D", arg, &o->dev);
}

#define BAR_WIDTH 40

/* bcc's text: a header per process, then "low -> high : count |****|". */
static int print_text(struct report_ctx *ctx)
{
	sqlite3_stmt *st;
	int64_t last_pid = -1;
	int step;

	if (sqlite3_prepare_v2(ctx->db, "SELECT pid, comm, low_kb, high_kb, count, "
			       "max(count) OVER (PARTITION BY pid) FROM bitesize_hist", -1, &st,
			       NULL) != SQLITE_OK)
		return msg_error("%s", sqlite3_errmsg(ctx->db));
	ctx->tables++;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t pid = sqlite3_column_int64(st, 0), count = sqlite3_column_int64(st, 4);
		int64_t max = sqlite3_column_int64(st, 5);

		if (pid != last_pid) {
			if (last_pid != -1)
				putchar('\n');
			last_pid = pid;
			printf("Process Name = ");
			text_fputs(stdout, (const char *)sqlite3_column_text(st, 1)); /* from the capture */
			printf(" (pid %lld)\n     %-19s : count     distribution\n", (long long)pid, "Kbytes");
		}
		int stars = max ? (int)(BAR_WIDTH * count / max) : 0;
		printf("%10lld -> %-10lld : %-8lld |%-*.*s|\n", (long long)sqlite3_column_int64(st, 2),
		       (long long)sqlite3_column_int64(st, 3), (long long)count, BAR_WIDTH, stars,
		       "****************************************");
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : msg_error("%s", sqlite3_errmsg(ctx->db));
}

static int run(struct report_ctx *ctx)
{
	static const char *const events[] = { "block:block_rq_issue" };
	const struct bitesize_opts *o = ctx->opts;
	int rc = snoop_prepare_io(ctx, events, 1, "record with 'ftrec triage' or 'ftrec iolat'",
				  "SELECT min(ts), max(ts) FROM block_rq_issue");

	if (rc)
		return rc;
	if (args_set(ctx->db, "bitesize_dev", o->has_dev ? (int64_t)o->dev : -1) ||
	    args_set(ctx->db, "bitesize_issuer", o->issuer) ||
	    snoop_select(ctx, "schema/reports/bitesize_report.sql"))
		return -1;
	if (ctx->fmt == OUT_TEXT)
		return print_text(ctx) ? -1 : 0;
	return snoop_print(ctx, "histogram", "SELECT pid, comm, low_kb, high_kb, count, bytes "
			   "FROM bitesize_hist");
}

const struct report_def report_bitesize_def = {
	.name = "bitesize",
	.summary = "block I/O size histogram per process (bitesize)",
	.options = options,
	.opts_size = sizeof(struct bitesize_opts),
	.option = option,
	.run = run,
	.details =
	"one count per block_rq_issue, for the task that submitted the request (its\n"
	"block_rq_insert's, when it went through an I/O scheduler; else the issuer, which\n"
	"then ran in the submitter's context; --issuer: always the issuer, as bcc's); a\n"
	"request belongs to the slice by its issue (time, CPU) and that task.\n"
	"0-byte requests (flushes) are left out; -D one disk.\n"
	"columns (CSV/JSON): pid, comm, low_kb, high_kb (low_kb <= bytes / 1024 <= high_kb,\n"
	"  log2 buckets 0 -> 1, 2 -> 3, 4 -> 7, ... up to the process's largest), count, bytes\n"
	"SQL: `ftana sql FILE 'select * from io_sizes'` (docs/SQL.md).\n",
	.views = &views_snoop,
	/* insert and complete: the pairs that tell each request's submitter */
	.needs = (const char *const[]){ "block:block_rq_issue", "block:block_rq_insert",
					"block:block_rq_complete", NULL },
};
