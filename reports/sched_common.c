/* SPDX-License-Identifier: MIT */
/* sched_common.c - shared by the scheduler reports and funclatency (sched_common.h). */
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/text_escape.h"
#include "import/derive.h"
#include "reports/args.h"
#include "reports/lost.h"
#include "reports/sched_common.h"
#include "reports/views.h"
#include "store/db.h"
#include "store/print.h"

static const char *const by_names[] = { [SCHED_BY_NONE] = NULL, [SCHED_BY_TID] = "tid",
					[SCHED_BY_PID] = "pid", [SCHED_BY_COMM] = "comm",
					[SCHED_BY_WAKER] = "waker" };

int sched_parse_by(struct report_ctx *ctx, const char *arg, enum sched_by *by, bool waker)
{
	(void)ctx;
	for (int i = SCHED_BY_TID; i <= (waker ? SCHED_BY_WAKER : SCHED_BY_COMM); i++)
		if (!strcmp(arg, by_names[i])) {
			*by = i;
			return 0;
		}
	return msg_error("bad --by '%s' (tid, pid%s)", arg, waker ? ", comm or waker" : " or comm");
}

#define WAKEUP_COLUMNS "id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, comm, field_pid, prio, " \
		       "target_cpu"

int sched_views(sqlite3 *db)
{
	if (db_stand_in(db, "sched_switch", "id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
			"prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio") ||
	    db_stand_in(db, "sched_wakeup", WAKEUP_COLUMNS) ||
	    db_stand_in(db, "sched_wakeup_new", WAKEUP_COLUMNS) ||
	    db_stand_in(db, "lost_events", "cpu, ts, count"))
		return -1;
	/* derived at import into the cache; a .db made elsewhere gets them in TEMP */
	if (derive_present(db, "main", "sched"))
		return 0;
	return derive_sched(db, "temp");
}

const struct report_views views_sched = { "sched", sched_views, false };

int sched_prepare(struct report_ctx *ctx)
{
	sqlite3 *db = ctx->db;

	if (!db_has_table(db, "sched_switch")) {
		front_missing("sched_switch",
			   db_event_recorded(db, "sched", "sched_switch") ?
			   "it recorded them, but none happened" :
			   "record sched:sched_switch (and sched:sched_wakeup,sched_wakeup_new), "
			   "e.g. with 'ftrec triage' or 'ftrec record -e sched:sched_switch,...'");
		return -1;
	}
	if (sched_views(db) ||
	    lost_warn(ctx->db, "SELECT min(ts), max(ts) FROM sched_switch", &ctx->slice))
		return -1;
	return 0;
}

/* Did the report's SQL make temp.sched_rows (for sched_sel.sql)? */
static bool made_rows(sqlite3 *db)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT 1 FROM temp.sqlite_master WHERE name = 'sched_rows'");
	bool made = st && sqlite3_step(st) == SQLITE_ROW;

	sqlite3_finalize(st);
	return made;
}

int sched_select(struct report_ctx *ctx, enum sched_by by, const char *sql_file)
{
	if (args_setup(ctx->db) || args_set(ctx->db, "sched_by", by) ||
	    db_exec(ctx->db, "DROP VIEW IF EXISTS temp.sched_rows") ||
	    db_exec_file(ctx->db, sql_file) ||
	    (made_rows(ctx->db) && db_exec_file(ctx->db, "schema/reports/sched_sel.sql")) ||
	    db_exec_file(ctx->db, "schema/reports/sched_hist.sql"))
		return -1;
	return 0;
}

/* The group columns of a table: "grp AS tid, label AS comm, " or "" without --by. */
static const char *group_columns(enum sched_by by)
{
	switch (by) {
	case SCHED_BY_TID: return "grp AS tid, label AS comm, ";
	case SCHED_BY_PID: return "grp AS pid, label AS comm, ";
	case SCHED_BY_COMM: return "grp AS comm, ";
	case SCHED_BY_WAKER: return "grp AS waker, ";
	default: return "";
	}
}

static int print_summary(struct report_ctx *ctx, enum sched_by by)
{
	const char *sql =
		"SELECT %scount, total_ms, avg_us, p50_us, p90_us, p99_us, max_us FROM sched_sel_stats";
	char *q = sqlite3_mprintf(sql, group_columns(by));
	int rc = q ? doc_table(ctx, "summary", q) : msg_error("out of memory");

	sqlite3_free(q);
	return rc;
}

#define BCC_WIDTH 40

/* Text: bcc's histogram, one per group, each after a "tid = 123 (comm)" line. */
static int print_hist_text(struct report_ctx *ctx, enum sched_by by, const char *unit)
{
	sqlite3_stmt *st = db_prepare(ctx->db,
		"SELECT grp, label, low_us, high_us, count, max(count) OVER (PARTITION BY grp), "
		"grp IS NOT lag(grp, 1, -1e300) OVER (ORDER BY grp, low_us) "
		"FROM sched_sel_hist ORDER BY grp, low_us");
	int step;

	if (!st)
		return -1;
	if (ctx->tables++)
		putchar('\n');
	bool first = true;

	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		long long count = sqlite3_column_int64(st, 4), max = sqlite3_column_int64(st, 5);

		if (sqlite3_column_int(st, 6)) {
			if (!first)
				putchar('\n');
			first = false;
			if (by != SCHED_BY_NONE) {
				/* the group and label come from the capture (comms): escaped */
				printf("%s = ", by_names[by]);
				text_fputs(stdout, (const char *)sqlite3_column_text(st, 0));
				if ((by == SCHED_BY_TID || by == SCHED_BY_PID) &&
				    sqlite3_column_type(st, 1) != SQLITE_NULL) {
					fputs(" (", stdout);
					text_fputs(stdout, (const char *)sqlite3_column_text(st, 1));
					putchar(')');
				}
				putchar('\n');
			}
			printf("     %-19s : count     distribution\n", unit);
		}
		int stars = max ? (int)(BCC_WIDTH * count / max) : 0;

		printf("%10lld -> %-10lld : %-8lld |%-*.*s|\n", (long long)sqlite3_column_int64(st, 2),
		       (long long)sqlite3_column_int64(st, 3), count, BCC_WIDTH, stars,
		       "****************************************");
	}
	sqlite3_finalize(st);
	if (first && step == SQLITE_DONE)
		printf("(nothing measured in this slice)\n");
	return step == SQLITE_DONE ? 0 : msg_error("%s", sqlite3_errmsg(ctx->db));
}

int sched_print_dist(struct report_ctx *ctx, enum sched_by by, bool summary, const char *unit)
{
	if (summary)
		return print_summary(ctx, by);
	if (ctx->fmt == OUT_TEXT)
		return print_hist_text(ctx, by, unit);
	char *q = sqlite3_mprintf("SELECT %slow_us, high_us, count FROM sched_sel_hist",
				  group_columns(by));
	int rc = q ? doc_table(ctx, "histogram", q) : msg_error("out of memory");

	sqlite3_free(q);
	return rc;
}

int sched_note_status_rows(struct report_ctx *ctx, const char *sql, const char *what)
{
	sqlite3_stmt *st;
	int step;

	st = db_prepare(ctx->db, sql);
	if (!st)
		return -1;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *status = (const char *)sqlite3_column_text(st, 0);

		if (!status || !strcmp(status, "ok") || !sqlite3_column_int64(st, 1))
			continue;
		/* losses make a measurement wrong, not just absent: always said */
		if (!strcmp(status, "lost_events"))
			msg_warn("%lld %s left out: events were lost during them",
				    (long long)sqlite3_column_int64(st, 1), what);
		else if (ctx->verbose)
			msg_note("%lld %s left out: %s", (long long)sqlite3_column_int64(st, 1),
				    what, status);
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : msg_error("%s", sqlite3_errmsg(ctx->db));
}

int sched_note_statuses(struct report_ctx *ctx, const char *table, const char *filter,
			const char *what)
{
	/* with no time or CPU filter, the counts derive_sched.c kept per task */
	char *sql = sqlite3_mprintf(
		"SELECT status, sum(n) FROM ("
		" SELECT status, count AS n FROM sched_statuses"
		"  WHERE slice_whole() AND tbl = %Q AND in_slice_task(pid)"
		" UNION ALL"
		" SELECT status, count(*) FROM \"%w\" WHERE NOT slice_whole() AND %s GROUP BY status)"
		"GROUP BY status", table, table, filter);
	int rc = sql ? sched_note_status_rows(ctx, sql, what) : msg_error("out of memory");

	sqlite3_free(sql);
	return rc;
}

enum { DIST_OPT_BY, DIST_OPT_SUMMARY };

#define DIST_OPT_SUMMARY_DEF { "summary", 0, NULL, "a table (count, total, mean, percentiles, max) " \
			       "instead\nof the histogram" }

const struct report_option sched_dist_options[] = {
	[DIST_OPT_BY] = { "by", 0, "GROUP", SCHED_BY_HELP },
	[DIST_OPT_SUMMARY] = DIST_OPT_SUMMARY_DEF,
	{ 0 }
};

const struct report_option sched_dist_waker_options[] = {
	[DIST_OPT_BY] = { "by", 0, "GROUP", SCHED_BY_HELP ",\nor the task that woke it (waker: its comm; [preempted],\n"
			  "[wakeup] when no waker is known; record sched_waking: with\n"
			  "sched_wakeup alone a wakeup from another CPU names the task\n"
			  "then on the woken one's, often <idle>)" },
	[DIST_OPT_SUMMARY] = DIST_OPT_SUMMARY_DEF,
	{ 0 }
};

static int dist_option(struct report_ctx *ctx, int index, const char *arg, bool waker)
{
	struct sched_dist_opts *o = ctx->opts;

	if (index == DIST_OPT_BY)
		return sched_parse_by(ctx, arg, &o->by, waker);
	o->summary = true;
	return 0;
}

int sched_dist_option(struct report_ctx *ctx, int index, const char *arg)
{
	return dist_option(ctx, index, arg, false);
}

int sched_dist_waker_option(struct report_ctx *ctx, int index, const char *arg)
{
	return dist_option(ctx, index, arg, true);
}
