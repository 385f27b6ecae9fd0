/* SPDX-License-Identifier: MIT */
/*
 * report_summary.c - `ftana report summary`: one page over any capture, the first thing
 * to run in a post-mortem: the capture and its losses, the top tasks by CPU time (from
 * sched_switch) and by run-queue latency (sched_wakeup or sched_waking), block I/O per
 * process, the programs executed and the signals sent. A part is printed only when the
 * capture has its events; the others are listed with the events that would enable them.
 * SQL: schema/reports/summary_report.sql over the scheduler tables (import/derive_sched.c)
 * and iolat.sql's views.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "reports/args.h"
#include "reports/lost.h"
#include "reports/report.h"
#include "reports/sched_common.h"
#include "reports/views.h"
#include "store/db.h"

struct summary_opts {
	double top;
};

static const struct report_option options[] = {
	{ "top", 0, "N", "rows per part (default 10)" },
	{ 0 }
};

/* One part: its JSON key and text title, the event tables it needs (NULL-ended; "a|b":
 * either), the events to record for it, and the query (a view of summary_report.sql). */
static const struct part {
	const char *key, *title;
	const char *needs[3];
	const char *record;
	const char *sql;
} parts[] = {
	{ "cpu", "top tasks by CPU time", { "sched_switch" }, "sched:sched_switch",
	  "SELECT tid, comm, cpu_ms, cpu_pct, slices FROM summary_cpu" },
	{ "runq", "top tasks by run-queue latency", { "sched_switch", "sched_wakeup|sched_waking" },
	  "sched:sched_switch,sched_wakeup,sched_wakeup_new",
	  "SELECT tid, comm, waits, total_ms, avg_us, max_us FROM summary_runq" },
	{ "io", "top processes by block I/O", { "block_rq_issue", "block_rq_complete" },
	  "block:block_rq_issue,block_rq_complete",
	  "SELECT pid, comm, ios, mb, avg_ms, max_ms FROM summary_io" },
	{ "exec", "programs executed", { "sched_process_exec" }, "sched:sched_process_exec",
	  "SELECT filename, execs, pids FROM summary_exec" },
	{ "signal", "signals sent", { "signal_generate" }, "signal:signal_generate",
	  "SELECT sig, signal, sent, delivered, targets, senders FROM summary_signal" },
};
#define NR_PARTS (sizeof(parts) / sizeof(parts[0]))

static int option(struct report_ctx *ctx, int index, const char *arg)
{
	struct summary_opts *o = ctx->opts;

	(void)index;
	if (front_number("--top", arg, 1, &o->top))
		return -1;
	if (o->top > 1e9 || o->top != (long long)o->top)
		return msg_error("bad --top '%s' (a whole number of rows)", arg);
	return 0;
}

static int check(struct report_ctx *ctx)
{
	if (ctx->fmt == OUT_CSV)
		return msg_error("the summary has several tables and CSV holds one: "
				    "text or --json");
	return 0;
}

static bool part_present(sqlite3 *db, const struct part *p)
{
	for (const char *const *t = p->needs; *t; t++) {
		const char *bar = strchr(*t, '|');
		char first[32];

		snprintf(first, sizeof(first), "%.*s", bar ? (int)(bar - *t) : (int)strlen(*t), *t);
		if (!db_has_table(db, first) && !(bar && db_has_table(db, bar + 1)))
			return false;
	}
	return true;
}

/* Empty stand-ins for what summary_report.sql reads and the capture lacks. */
static int stand_ins(struct report_ctx *ctx, const bool present[])
{
	sqlite3 *db = ctx->db;

	if (sched_views(db))
		return -1;
	if (present[2] ? iolat_views(db) :
	    db_stand_in(db, "io", "pid, comm, bytes, lat_ns, issue_ts, issue_cpu"))
		return -1;
	if (db_stand_in(db, "sched_process_exec", "id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
			"filename, field_pid, old_pid") ||
	    db_stand_in(db, "signal_generate", "id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, sig, "
			"errno, code, comm, field_pid, \"group\", result"))
		return -1;
	return 0;
}

/* Text: "# TEXT" before a part, a blank line before it. The table follows the title
 * directly: ctx->tables drives only the blank line between text tables, so it is reset. */
static int title(struct report_ctx *ctx, const char *text)
{
	if (ctx->fmt == OUT_TEXT) {
		printf("%s# %s\n", ctx->tables ? "\n" : "", text);
		ctx->tables = 0;
	}
	return 0;
}

/* The losses: a table, or in text one line when there are none. */
static int print_losses(struct report_ctx *ctx)
{
	sqlite3_stmt *st = db_prepare(ctx->db, "SELECT count(*) FROM summary_losses");
	bool none = st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) == 0;

	sqlite3_finalize(st);
	if (!st)
		return -1;
	if (ctx->fmt == OUT_TEXT && none) {
		printf("\n# lost events: none\n");
		return 0;
	}
	title(ctx, "lost events per CPU");
	return doc_table(ctx, "losses", "SELECT cpu, pages, events_lost, unknown_pages "
			    "FROM summary_losses");
}

/* Text: the parts the capture cannot give, one line each with what to record. */
static int print_missing(struct report_ctx *ctx, const bool present[])
{
	int rc = 0;
	bool any = false;

	for (size_t i = 0; i < NR_PARTS; i++)
		any |= !present[i];
	if (!any)
		return 0;
	if (ctx->fmt != OUT_TEXT) {
		/* one table of the parts left out, from a VALUES list */
		char *sql = sqlite3_mprintf("SELECT column1 AS part, column2 AS record FROM (VALUES ");

		for (size_t i = 0, n = 0; sql && i < NR_PARTS; i++) {
			if (present[i])
				continue;
			char *more = sqlite3_mprintf("%s%s(%Q, %Q)", sql, n++ ? ", " : "", parts[i].key,
						     parts[i].record);
			sqlite3_free(sql);
			sql = more;
		}
		char *full = sql ? sqlite3_mprintf("%s)", sql) : NULL;

		rc = full ? doc_table(ctx, "missing", full) : msg_error("out of memory");
		sqlite3_free(sql);
		sqlite3_free(full);
		return rc;
	}
	title(ctx, "not in this capture (record these events for them, e.g. with ftrec triage)");
	for (size_t i = 0; i < NR_PARTS; i++)
		if (!present[i])
			printf("  %-7s %s: %s\n", parts[i].key, parts[i].title, parts[i].record);
	ctx->tables++;
	return rc;
}

static int run(struct report_ctx *ctx)
{
	const struct summary_opts *o = ctx->opts;
	bool present[NR_PARTS];
	sqlite3 *db = ctx->db;

	for (size_t i = 0; i < NR_PARTS; i++)
		present[i] = part_present(db, &parts[i]);
	if (lost_warn(ctx->db, NULL, &ctx->slice) ||
	    stand_ins(ctx, present) || args_setup(db) ||
	    args_set(db, "summary_top", o->top ? (int64_t)o->top : 10) ||
	    db_exec_file(db, "schema/reports/snoop_names.sql") ||
	    db_exec_file(db, "schema/reports/summary_report.sql"))
		return -1;
	if (title(ctx, "capture") ||
	    doc_table(ctx, "capture", "SELECT duration_s, cpus, capture_events, end_state FROM summary_capture"))
		return -1;
	if (print_losses(ctx))
		return -1;
	for (size_t i = 0; i < NR_PARTS; i++)
		if (present[i] && (title(ctx, parts[i].title) ||
				   doc_table(ctx, parts[i].key, parts[i].sql)))
			return -1;
	if (present[1] && sched_note_statuses(ctx, "runq_waits", "in_slice(run_ts, cpu, pid)",
					      "run-queue waits"))
		return -1;
	return print_missing(ctx, present) ? -1 : 0;
}

const struct report_def report_summary_def = {
	.name = "summary",
	.summary = "one page over any capture: CPU, run-queue latency, I/O, execs, signals, losses",
	.options = options,
	.opts_size = sizeof(struct summary_opts),
	.option = option,
	.check = check,
	.run = run,
	.details =
	"the first thing to run in a post-mortem. Parts (JSON keys): capture (duration_s of\n"
	"the window, cpus, capture_events: every event of the capture whatever the slice,\n"
	"end_state), losses (per CPU: pages flagged, events_lost,\n"
	"unknown_pages), then only those the capture has events for: cpu (tid, comm, cpu_ms,\n"
	"cpu_pct of the window, slices), runq (tid, comm, waits, total_ms, avg_us, max_us),\n"
	"io (pid, comm, ios, mb: 10^6 bytes, avg_ms, max_ms), exec (filename, execs, pids),\n"
	"signal (sig, sent, delivered, targets, senders); \"missing\" lists the parts left\n"
	"out and the events that would give them (ftrec triage records them all).\n"
	"The slice: CPU time is clipped to --since/--until (a task running when a CPU's\n"
	"recording began counts from the start; intervals across lost events are left out);\n"
	"waits by their switch-in, I/O by its issue, execs and signals by their event.\n"
	"Text prints each part under a '# title' line; CSV holds one table: refused.\n"
	"SQL: the views oncpu, runq_waits, io (docs/SQL.md).\n",
	.views = &views_sched,
	.needs = (const char *const[]){ "sched:sched_switch", "sched:sched_wakeup", "sched:sched_wakeup_new", "sched:sched_waking", "sched:sched_process_exec", "block:block_rq_insert", "block:block_rq_issue", "block:block_rq_complete", "signal:signal_generate", NULL },
};
