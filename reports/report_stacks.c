/* SPDX-License-Identifier: MIT */
/*
 * report_stacks.c - `ftana report stacks [--event E] [--folded]`: the kernel stacks
 * recorded with `ftrec ... -s`, of the events in the slice (the event carrying the
 * stack decides: its ts, cpu and pid), identical ones counted together, most frequent
 * first; --folded prints "root;...;leaf count" lines for FlameGraph and speedscope,
 * --svg draws the flame graph itself (reports/flame.c).
 * SQL: schema/reports/stacks_views.sql (stack_folded, also for `ftana sql`) and
 * stacks.sql (the aggregation).
 */
#include <stdlib.h>
#include <string.h>

#include "common/text_escape.h"
#include "reports/args.h"
#include "reports/flame.h"
#include "reports/lost.h"
#include "reports/report.h"
#include "reports/svg.h"
#include "reports/views.h"
#include "store/db.h"

struct stacks_opts {
	const char *event;
	bool folded;
	bool svg;
	const char *out;   /* -o, NULL: stdout */
	const char *min_width; /* --min-width PX, NULL: the default */
};

enum { OPT_EVENT, OPT_FOLDED, OPT_SVG, OPT_OUT, OPT_MIN_WIDTH };

static const struct report_option options[] = {
	[OPT_EVENT]  = { "event", 'e', "[SYSTEM:]EVENT", "only the stacks of this event" },
	[OPT_FOLDED] = { "folded", 0, NULL, "text: \"root;...;leaf count\" lines (FlameGraph input)" },
	[OPT_SVG]    = { "svg", 0, NULL, "a flame graph: one interactive SVG (hover: name, count,\n"
			 "percent; click: zoom; Search/Ctrl-F: highlight a regex, Esc:\n"
			 "reset), frame width proportional to the events' count" },
	[OPT_OUT]    = { "output", 'o', "OUT", "--svg: write to OUT (through a temp file beside it,\n"
			 "renamed when complete); default: standard output" },
	[OPT_MIN_WIDTH] = { "min-width", 0, "PX", "--svg: leave out frames narrower than PX (default 0.1;\n"
			    "0 draws every frame)" },
	{ 0 }
};

static int option(struct report_ctx *ctx, int index, const char *arg)
{
	struct stacks_opts *o = ctx->opts;

	switch (index) {
	case OPT_EVENT: o->event = arg; break;
	case OPT_FOLDED: o->folded = true; break;
	case OPT_SVG: o->svg = true; break;
	case OPT_OUT: o->out = arg; break;
	case OPT_MIN_WIDTH: o->min_width = arg; break;
	}
	return 0;
}

static int check(struct report_ctx *ctx)
{
	const struct stacks_opts *o = ctx->opts;

	if (o->folded && ctx->fmt != OUT_TEXT)
		return msg_error("--folded is text (FlameGraph's input): --csv/--json give "
				    "the same stacks as rows (count, frames)");
	return flame_check(ctx, o->svg, o->folded ? "--folded" : NULL, o->out, o->min_width);
}

/*
 * A UNION ALL over the event tables to count, each as "SELECT id, ts, stack_id FROM t"
 * limited to the slice: the table --event names, or every table with a stack_id
 * column. NULL with a message if there is none.
 */
static char *events_sql(struct report_ctx *ctx, const char *event)
{
	sqlite3 *db = ctx->db;
	char *table = event ? db_event_table(db, event) : NULL;
	sqlite3_stmt *st = NULL;
	char *sql = NULL;

	if (event && !table)
		return NULL;
	/* (a view of an event type: the syscalls stored as their pairs; its stack_id is NULL,
	 * but its times bound the range the loss warning covers, as its table's did; a
	 * database made elsewhere may have no event_types) */
	char *list = sqlite3_mprintf(
		"SELECT m.name FROM sqlite_master m WHERE (m.type = 'table'%s) "
		"AND (SELECT count(*) FROM pragma_table_info(m.name) c "
		"     WHERE c.name IN ('id', 'ts', 'cpu', 'pid', 'stack_id')) = 5 "
		"AND (?1 IS NULL OR m.name = ?1) ORDER BY m.name",
		db_has_table(db, "event_types") ?
		" OR (m.type = 'view' AND m.name IN (SELECT table_name FROM event_types))" : "");

	st = list ? db_prepare(db, list) : NULL;
	sqlite3_free(list);
	if (st && table)
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		char *more = sqlite3_mprintf(
			"%s%sSELECT id, ts, stack_id FROM \"%w\" "
			"WHERE id BETWEEN (SELECT lo_id FROM temp.slice) AND (SELECT hi_id FROM temp.slice) "
			"AND in_slice(ts, cpu, pid)",
			sql ? sql : "", sql ? " UNION ALL " : "", sqlite3_column_text(st, 0));
		sqlite3_free(sql);
		sql = more;
	}
	sqlite3_finalize(st);
	free(table);
	if (!sql)
		msg_error("this capture has no events with a stack_id column "
			     "(see 'ftana info FILE')");
	return sql;
}

/* Leaf first, one indented frame a line, then the count: bcc stackcount's layout. */
static int stack_row(sqlite3_stmt *st, void *ctx)
{
	FILE *out = ctx;
	/* frames are symbol names from the capture's kallsyms: escaped */
	char *folded = text_escaped((const char *)sqlite3_column_text(st, 0));
	long long count = sqlite3_column_int64(st, 1), total = sqlite3_column_int64(st, 2);

	if (!folded)
		return -1;
	if (sqlite3_column_int64(st, 3) > 1)
		fputc('\n', out);
	for (char *semi; (semi = strrchr(folded, ';')); *semi = '\0')
		fprintf(out, "  %s\n", semi + 1);
	fprintf(out, "  %s\n    %lld (%.1f%%)\n", folded, count, 100.0 * count / total);
	free(folded);
	return 0;
}

static int folded_row(sqlite3_stmt *st, void *ctx)
{
	/* FlameGraph reads one stack a line: a control character must not split or hide one */
	text_fputs(ctx, (const char *)sqlite3_column_text(st, 0));
	fprintf(ctx, " %lld\n", (long long)sqlite3_column_int64(st, 1));
	return 0;
}

/* Counted ones and distinct stacks, as a note (-v). */
static int note_row(sqlite3_stmt *st, void *ctx)
{
	msg_note("%lld events with a kernel stack, %lld distinct stacks",
		    (long long)sqlite3_column_int64(st, 0), (long long)sqlite3_column_int64(st, 1));
	return 0;
}

/* --svg: the counted stacks as a flame graph, frames split as the text splits them. */
static int print_svg(struct report_ctx *ctx)
{
	const struct stacks_opts *o = ctx->opts;
	struct flame *fl = flame_new(FLAME_SELF);
	sqlite3_stmt *st = db_prepare(ctx->db, "SELECT folded, count FROM stack_counts");
	int step = SQLITE_NOMEM;

	while (fl && st && (step = sqlite3_step(st)) == SQLITE_ROW)
		if (flame_add(fl, (const char *)sqlite3_column_text(st, 0), ';',
			      sqlite3_column_int64(st, 1), 0)) {
			step = SQLITE_NOMEM;
			break;
		}
	sqlite3_finalize(st);
	int rc = -1;

	if (step == SQLITE_DONE) {
		char *title = NULL;

		if (asprintf(&title, "Flame graph: kernel stacks of %s",
			     o->event ? o->event : "the events") < 0)
			title = NULL;
		struct flame_style style = { .title = title ? title : "Flame graph: kernel stacks",
					     .unit = "events" };

		rc = flame_report(ctx, fl, &style, o->out, o->min_width);
		free(title);
	} else if (st) {
		msg_error("%s", step == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(ctx->db));
	}
	flame_free(fl);
	return rc;
}

static int print(struct report_ctx *ctx)
{
	const struct stacks_opts *o = ctx->opts;
	sqlite3 *db = ctx->db;

	if (db_each_row(db, "SELECT coalesce(sum(count), 0), count(*) FROM stack_counts",
			0, note_row, ctx))
		return -1;
	if (o->svg)
		return print_svg(ctx);
	if (ctx->fmt != OUT_TEXT)
		return doc_table(ctx, "rows", "SELECT count, folded AS frames FROM stack_counts "
				    "ORDER BY count DESC, folded");
	if (o->folded)
		return db_each_row(db, "SELECT folded, count FROM stack_counts "
				   "ORDER BY count DESC, folded", 0, folded_row, stdout);
	return db_each_row(db, "SELECT folded, count, sum(count) OVER (), "
			   "row_number() OVER (ORDER BY count DESC, folded) FROM stack_counts "
			   "ORDER BY count DESC, folded", 0, stack_row, stdout);
}

static int run(struct report_ctx *ctx)
{
	const struct stacks_opts *o = ctx->opts;
	sqlite3 *db = ctx->db;
	int rc = -1;

	if (!db_has_table(db, "stacks"))
		return front_missing("stacks", "record with -s");

	char *events = events_sql(ctx, o->event);
	if (!events)
		return -1;
	char *range = sqlite3_mprintf("SELECT min(ts), max(ts) FROM (%s)", events);
	char *refs = sqlite3_mprintf("DROP TABLE IF EXISTS temp.stack_refs; "
				     "CREATE TEMP TABLE stack_refs AS SELECT stack_id FROM (%s) "
				     "WHERE stack_id IS NOT NULL", events);
	if (range && refs && !lost_warn(ctx->db, range, &ctx->slice) && !db_exec(db, refs) &&
	    !stacks_views(db) && !db_exec_file(db, "schema/reports/stacks.sql"))
		rc = print(ctx);
	sqlite3_free(range);
	sqlite3_free(refs);
	sqlite3_free(events);
	return rc ? -1 : 0;
}

int stacks_views(sqlite3 *db)
{
	return db_has_table(db, "stacks") ?
	       db_exec_file(db, "schema/reports/stacks_views.sql") : 0;
}

const struct report_views views_stacks = { "stack_folded", stacks_views, false };

/* .needs NULL: every type (a stack may follow any event) */
const struct report_def report_stacks_def = {
	.name = "stacks",
	.summary = "kernel stacks of the events, most frequent first, or folded",
	.options = options,
	.opts_size = sizeof(struct stacks_opts),
	.option = option,
	.check = check,
	.run = run,
	.details = "columns (CSV/JSON): count (events with this stack), frames (root first,\n"
		   "';'-separated, function names without +offset). The slice takes an event by\n"
		   "the time, CPU and task of the event carrying the stack. -v: how many events\n"
		   "and distinct stacks.\n"
		   "--svg: the <svg> element's #flame group carries data-total (events) and\n"
		   "data-omitted (events in frames too narrow to draw); each frame's data-v its count.\n",
	.views = &views_stacks,
};
