/* SPDX-License-Identifier: MIT */
/*
 * report_kprobe.c - `ftana report kprobe [--probe NAME]`: each probe hit within the
 * slice (the hit's own ts, cpu and pid decide) as perf-tools kprobe printed it (the
 * kernel's trace line),
 *     COMM-PID [CPU] TIME: NAME: (FUNC+0xOFF) arg=value ...
 * return probes as (CALLER+0xOFF <- FUNC), arguments as the kernel prints their
 * declared types (kprobe_args.c), with the kernel stack below each hit when recorded
 * with -s. SQL: schema/reports/kprobe.sql and the probe_hits view (kprobe_args.c).
 */
#include <stdlib.h>
#include <string.h>

#include "common/text_escape.h"
#include "reports/args.h"
#include "reports/lost.h"
#include "reports/report.h"
#include "reports/views.h"
#include "store/db.h"

struct kprobe_opts {
	const char *probe;
};

static const struct report_option options[] = {
	{ "probe", 0, "NAME", "only the hits of probe NAME" },
	{ 0 }
};

static int option(struct report_ctx *ctx, int index, const char *arg)
{
	((struct kprobe_opts *)ctx->opts)->probe = arg;
	return 0;
}

/* The hits in the slice; ?1 the probe (NULL: all). */
#define HITS_SQL \
	"FROM probe_hits h LEFT JOIN tasks t ON t.pid = h.pid " \
	"WHERE (?1 IS NULL OR h.probe = ?1) " \
	"  AND h.id BETWEEN (SELECT lo_id FROM temp.slice) AND (SELECT hi_id FROM temp.slice) " \
	"  AND in_slice(h.ts, h.cpu, h.pid) ORDER BY h.id"

static void print_stack(sqlite3_stmt *frames, sqlite3_int64 stack_id)
{
	sqlite3_reset(frames);
	sqlite3_bind_int64(frames, 1, stack_id);
	while (sqlite3_step(frames) == SQLITE_ROW) {
		fputs(" => ", stdout);
		text_fputs(stdout, (const char *)sqlite3_column_text(frames, 0));
		putchar('\n');
	}
}

/* Text: the kernel's trace lines, the stack's " => " lines below a hit. */
static int print_text(struct report_ctx *ctx, sqlite3_stmt *st)
{
	sqlite3_stmt *frames = NULL;

	if (db_has_table(ctx->db, "stacks") &&
	    !(frames = db_prepare(ctx->db,
				  "SELECT frame FROM kprobe_stack_frames WHERE stack_id = ?")))
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		/* comm, probe, symbols, argument names and values all come from the
		 * capture: every one is escaped */
		char *task = text_escaped((const char *)sqlite3_column_text(st, 0));

		printf("%16s [%03d] ", task ? task : "?", sqlite3_column_int(st, 1));
		if (sqlite3_column_type(st, 2) == SQLITE_FLOAT) /* trace-clock seconds */
			printf("%.6f: ", sqlite3_column_double(st, 2));
		else /* --wall */
			printf("%s: ", sqlite3_column_text(st, 2));
		free(task);
		text_fputs(stdout, (const char *)sqlite3_column_text(st, 3));
		fputs(": (", stdout);
		text_fputs(stdout, (const char *)sqlite3_column_text(st, 4));
		putchar(')');
		if (sqlite3_column_bytes(st, 5)) {
			putchar(' ');
			text_fputs(stdout, (const char *)sqlite3_column_text(st, 5));
		}
		putchar('\n');
		if (frames && sqlite3_column_type(st, 6) != SQLITE_NULL)
			print_stack(frames, sqlite3_column_int64(st, 6));
	}
	sqlite3_finalize(frames);
	return 0;
}

static int run(struct report_ctx *ctx)
{
	const struct kprobe_opts *o = ctx->opts;
	sqlite3 *db = ctx->db;
	bool stacks = db_has_table(db, "stacks");
	sqlite3_stmt *st;
	char *sql;
	int rc;

	if (ctx->header && ctx->fmt == OUT_TEXT)
		return msg_error("-H: the text listing is the kernel's line format, with no header "
				 "line (--csv and --json name their columns)");
	if (kprobe_views(db) || (stacks && stacks_views(db)))
		return -1;
	if (!(st = db_prepare(db, "SELECT count(*) FROM kprobe_tables WHERE ?1 IS NULL OR name = ?1")))
		return -1;
	sqlite3_bind_text(st, 1, o->probe, -1, SQLITE_STATIC);
	int found = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	if (!found && o->probe) {
		msg_error("no probe named '%s' in this capture", o->probe);
		return -1;
	}
	if (!found)
		return front_missing("kprobe", "record with 'ftrec kprobe'");
	if (lost_warn(ctx->db, "SELECT min(ts), max(ts) FROM probe_hits", &ctx->slice))
		return -1;

	if (ctx->fmt == OUT_TEXT)
		sql = sqlite3_mprintf("SELECT coalesce(t.comm, '<...>') || '-' || h.pid, h.cpu, report_ts(h.ts), "
				      "h.probe, h.func, h.args, h.stack_id " HITS_SQL);
	else /* every column; the stack root first, as stacks --folded */
		sql = sqlite3_mprintf("SELECT report_ts(h.ts) AS ts%s, h.cpu AS cpu, h.pid AS pid, "
				      "coalesce(t.comm, '<...>') AS comm, h.probe AS probe, "
				      "h.func AS func, h.args AS args, %s AS stack " HITS_SQL,
				      slice_ts_suffix(&ctx->slice), stacks ?
				      "(SELECT folded FROM stack_folded f WHERE f.stack_id = h.stack_id)" :
				      "NULL");
	if (!sql || !(st = db_prepare(db, sql))) {
		sqlite3_free(sql);
		return -1;
	}
	sqlite3_free(sql);
	sqlite3_bind_text(st, 1, o->probe, -1, SQLITE_STATIC);
	rc = ctx->fmt == OUT_TEXT ? print_text(ctx, st) : doc_table_stmt(ctx, "rows", st);
	sqlite3_finalize(st);
	return rc ? -1 : 0;
}

/* .needs NULL: every type (a probe may be in any group; a stack may follow any event) */
const struct report_def report_kprobe_def = {
	.name = "kprobe",
	.summary = "hits of dynamic probes with their arguments, as the kernel prints them (kprobe)",
	.options = options,
	.opts_size = sizeof(struct kprobe_opts),
	.option = option,
	.run = run,
	.details = "columns (CSV/JSON): ts_s (trace clock, s; ts_wall with --wall), cpu, pid, comm,\n"
		   "probe, func (where it hit: func+0xoff; return probes caller+0xoff <- func),\n"
		   "args (name=value ..., each as the kernel prints its declared type: x* hex,\n"
		   "u*/s* decimal, string quoted, symbol func+0xoff; a faulted fetch (fault)),\n"
		   "stack (with -s: the kernel stack, root first, frames joined by ';').\n"
		   "The slice takes a hit by its own time, CPU and task.\n",
	.views = &views_probe_hits,
};
