/* SPDX-License-Identifier: MIT */
/*
 * report_funcgraph.c - `ftana report funcgraph`: function_graph captures as the kernel
 * prints them -- per thread (default), or all CPUs merged in time order with the
 * kernel's context-switch markers (--time-order) -- as one aggregated call tree
 * (--tree), as folded stacks (--folded), or as a flame graph of call time (--svg,
 * reports/flame.c). perf-tools funcgraph's -m, -t, -P, -D
 * and -H shape the text. CSV/JSON carry the selected calls' rows.
 * SQL: the `calls` view of the whole capture (reports/funcgraph_calls.c builds its
 * rows, schema/reports/funcgraph_calls.sql), sliced in schema/reports/funcgraph_report.sql.
 */
#include <stdlib.h>
#include <string.h>

#include "common/text_escape.h"
#include "reports/args.h"
#include "reports/flame.h"
#include "reports/funcgraph_print.h"
#include "reports/lost.h"
#include "reports/report.h"
#include "reports/views.h"
#include "store/db.h"

enum view { VIEW_THREAD, VIEW_TIME, VIEW_TREE, VIEW_FOLDED };

struct funcgraph_opts {
	enum view view;
	int views;        /* how many view options were given */
	double max_depth; /* -m; 0: none */
	bool times, procs, no_duration;
	bool svg;
	const char *out, *min_width; /* --svg's -o and --min-width, NULL: not given */
};

enum { OPT_DEPTH, OPT_TIMES, OPT_PROCS, OPT_NO_DURATION, OPT_TIME_ORDER, OPT_TREE, OPT_FOLDED,
       OPT_SVG, OPT_OUT, OPT_MIN_WIDTH };

static const struct report_option options[] = {
	[OPT_DEPTH] = { "max-depth", 'm', "DEPTH", "only calls at depth below DEPTH (1: the graphed functions\n"
			"themselves, their callees' time in their duration)" },
	[OPT_TIMES] = { NULL, 't', NULL, "text: the time column (funcgraph-abstime; --wall: UTC)" },
	[OPT_PROCS] = { NULL, 'P', NULL, "text: the task column COMM-PID (funcgraph-proc)" },
	[OPT_NO_DURATION] = { NULL, 'D', NULL, "text: no duration column (nofuncgraph-duration)" },
	[OPT_TIME_ORDER] = { "time-order", 0, NULL, "all CPUs merged in time order as the kernel prints them,\n"
			     "with its context-switch markers (default: per thread)" },
	[OPT_TREE] = { "tree", 0, NULL, "one aggregated call tree (count, total and self time)" },
	[OPT_FOLDED] = { "folded", 0, NULL, "folded stacks weighted by self time (flame graph input)" },
	[OPT_SVG] = { "svg", 0, NULL, "a flame graph of call time: one interactive SVG, a frame's\n"
		      "width its calls' total (inclusive) duration (hover: name,\n"
		      "time, percent, calls; click: zoom; Search/Ctrl-F, Esc)" },
	[OPT_OUT] = { "output", 'o', "OUT", "--svg: write to OUT (through a temp file beside it,\n"
		      "renamed when complete); default: standard output" },
	[OPT_MIN_WIDTH] = { "min-width", 0, "PX", "--svg: leave out frames narrower than PX (default 0.1;\n"
			    "0 draws every frame)" },
	{ 0 }
};

static int option(struct report_ctx *ctx, int index, const char *arg)
{
	struct funcgraph_opts *o = ctx->opts;

	switch (index) {
	case OPT_DEPTH:
		if (front_number("-m", arg, 1, &o->max_depth))
			return -1;
		if (o->max_depth != (double)(int64_t)o->max_depth)
			return msg_error("bad -m '%s' (a whole number of levels, 1 or more)", arg);
		break;
	case OPT_TIMES: o->times = true; break;
	case OPT_PROCS: o->procs = true; break;
	case OPT_NO_DURATION: o->no_duration = true; break;
	case OPT_TIME_ORDER: o->view = VIEW_TIME; o->views++; break;
	case OPT_TREE: o->view = VIEW_TREE; o->views++; break;
	case OPT_FOLDED: o->view = VIEW_FOLDED; o->views++; break;
	case OPT_SVG: o->svg = true; break;
	case OPT_OUT: o->out = arg; break;
	case OPT_MIN_WIDTH: o->min_width = arg; break;
	}
	return 0;
}

static int check(struct report_ctx *ctx)
{
	const struct funcgraph_opts *o = ctx->opts;

	if (o->views > 1)
		return msg_error("--time-order, --tree and --folded are different views: give one");
	return flame_check(ctx, o->svg, !o->views ? NULL : o->view == VIEW_TIME ? "--time-order" :
			   o->view == VIEW_TREE ? "--tree" : "--folded", o->out, o->min_width);
}

/*
 * --svg: the call tree of --tree as a flame graph, a frame's width its calls' total
 * duration (fg_paths: one row per selected call with its path; char(1) separates the
 * frames of sortkey, as no function name holds it). A call without a return adds
 * no time.
 */
static int print_svg(struct report_ctx *ctx, const struct funcgraph_opts *o)
{
	struct flame *fl = flame_new(FLAME_INCLUSIVE);
	sqlite3_stmt *st = NULL;
	int step = SQLITE_NOMEM, rc = -1;

	if (sqlite3_prepare_v2(ctx->db, "SELECT sortkey, count(*), coalesce(sum(dur_ns), 0) "
			       "FROM fg_paths GROUP BY sortkey", -1, &st, NULL) != SQLITE_OK)
		step = SQLITE_ERROR;
	while (fl && st && (step = sqlite3_step(st)) == SQLITE_ROW)
		if (flame_add(fl, (const char *)sqlite3_column_text(st, 0), '\1',
			      sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 1))) {
			step = SQLITE_NOMEM;
			break;
		}
	sqlite3_finalize(st);
	if (step == SQLITE_DONE) {
		struct flame_style style = { .title = "Flame graph: function call time", .time = 1 };

		rc = flame_report(ctx, fl, &style, o->out, o->min_width);
	} else {
		msg_error("%s", step == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(ctx->db));
	}
	flame_free(fl);
	return rc;
}

/* The kernel pads the CPU column to the digits of the highest CPU number. */
static int cpu_width(sqlite3 *db)
{
	int64_t nr = 0, max_cpu = 0;
	sqlite3_stmt *st;

	if (!db_meta_int(db, "nr_cpus", &nr) &&
	    sqlite3_prepare_v2(db, "SELECT max(max(cpu), coalesce(max(exit_cpu), 0)) FROM fg_sel",
			       -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			max_cpu = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		nr = max_cpu < INT64_MAX ? max_cpu + 1 : max_cpu;
	}
	int width = 1;
	if (nr < 1) /* a .db's nr_cpus is its own: no CPU is fewer than one */
		nr = 1;
	for (int64_t n = nr - 1; n >= 10; n /= 10)
		width++;
	return width;
}

/* Say what the recording could not show instead of guessing it. */
static void print_flags(FILE *out, const char *kind, int flags)
{
	if (!strcmp(kind, "open") && (flags & 2))
		fputs("  /* no return recorded */", out);
	if (!strcmp(kind, "close") && (flags & 1))
		fputs("  /* entry not recorded */", out);
	if (strcmp(kind, "open") && (flags & 4))
		fputs("  /* events lost inside */", out);
}

/* The graph views: one line per event of the selected calls, as the kernel prints them. */
static int print_graph(struct report_ctx *ctx, const struct funcgraph_opts *o)
{
	struct fg_style style = { .abstime = o->times, .proc = o->procs, .duration = !o->no_duration,
				  .cpu_width = cpu_width(ctx->db) };
	bool time_order = o->view == VIEW_TIME;
	struct fg_switches sw = { 0 };
	int64_t task = INT64_MIN;
	bool first = true, deep = false;
	sqlite3_stmt *st;
	int step;
	char *sql = sqlite3_mprintf(
		"SELECT is_exit, cpu, ts, task, pid, comm, depth, func, dur_ns, flags, %s AS leaf, "
		"%s FROM fg_lines WHERE NOT (is_exit AND %s) ORDER BY %s seq",
		time_order ? "leaf_time" : "leaf_thread", ctx->slice.wall ? "report_ts(ts)" : "NULL",
		time_order ? "leaf_time" : "leaf_thread", time_order ? "" : "task,");

	if (!sql || sqlite3_prepare_v2(ctx->db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_free(sql);
		return msg_error("%s", sqlite3_errmsg(ctx->db));
	}
	sqlite3_free(sql);
	if (ctx->header)
		fg_header(stdout, &style);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		bool exit = sqlite3_column_int(st, 0), leaf = sqlite3_column_int(st, 10);
		int cpu = sqlite3_column_int(st, 1);
		int64_t depth = sqlite3_column_int64(st, 6);
		int64_t pid = sqlite3_column_int64(st, 4);
		const char *comm = (const char *)sqlite3_column_text(st, 5);
		const char *name = (const char *)sqlite3_column_text(st, 7);
		const char *kind = exit ? "close" : leaf ? "leaf" : "open";

		if (time_order) {
			if (fg_switch(stdout, &sw, &style, cpu, pid, comm)) {
				step = SQLITE_NOMEM;
				break;
			}
		} else if (sqlite3_column_int64(st, 3) != task) {
			task = sqlite3_column_int64(st, 3);
			if (pid)
				printf("%s------------ pid %lld ------------\n", first ? "" : "\n",
				       (long long)pid);
			else
				printf("%s------------ idle, CPU %d ------------\n", first ? "" : "\n", cpu);
			first = false;
		}
		fg_prologue(stdout, &style, sqlite3_column_int64(st, 2),
			    (const char *)sqlite3_column_text(st, 11), cpu, comm, pid);
		fg_duration(stdout, &style, !strcmp(kind, "open") ||
			    sqlite3_column_type(st, 8) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 8));
		deep |= fg_indent(stdout, depth);
		/* a leaf "NAME();", an entry "NAME() {", a return the brace and the name in
		 * a comment; the name comes from the capture's kallsyms: escaped */
		fputs(exit ? "} /* " : "", stdout);
		text_fputs(stdout, name);
		fputs(exit ? " */" : leaf ? "();" : "() {", stdout);
		print_flags(stdout, kind, sqlite3_column_int(st, 9));
		putchar('\n');
	}
	sqlite3_finalize(st);
	fg_switches_free(&sw);
	if (step != SQLITE_DONE)
		return msg_error("%s", sqlite3_errmsg(ctx->db));
	fg_indent_done(deep);
	return 0;
}

/* --folded in text: the stacks as flame-graph tools read them, "STACK SELF_NS". */
static int print_folded(struct report_ctx *ctx)
{
	sqlite3_stmt *st;
	int step;

	if (sqlite3_prepare_v2(ctx->db, "SELECT stack, self_ns FROM fg_folded", -1, &st, NULL) != SQLITE_OK)
		return msg_error("%s", sqlite3_errmsg(ctx->db));
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		text_fputs(stdout, (const char *)sqlite3_column_text(st, 0));
		printf(" %lld\n", (long long)sqlite3_column_int64(st, 1));
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : msg_error("%s", sqlite3_errmsg(ctx->db));
}

/* The rows CSV and JSON carry for the graph views: the selected calls, in event order. */
static int print_call_rows(struct report_ctx *ctx)
{
	char *sql = sqlite3_mprintf(
		"SELECT id, report_ts(start_ts) AS start%s, report_ts(end_ts) AS end%s, cpu, exit_cpu, "
		"comm, pid, depth, func, dur_ns, dur_ns / 1e3 AS dur_us, parent_id, flags, "
		"start_ts, end_ts FROM fg_sel ORDER BY coalesce(entry_id, exit_id)",
		slice_ts_suffix(&ctx->slice), slice_ts_suffix(&ctx->slice));
	int rc = sql ? doc_table(ctx, "rows", sql) : -1;

	sqlite3_free(sql);
	return rc;
}

static int run(struct report_ctx *ctx)
{
	const struct funcgraph_opts *o = ctx->opts;
	sqlite3 *db = ctx->db;
	bool text = ctx->fmt == OUT_TEXT;
	int rc;

	if (!db_has_table(db, "funcgraph_exit") || !db_has_table(db, "funcgraph_entry"))
		return front_missing(db_has_table(db, "funcgraph_exit") ? "funcgraph_entry" :
				  "funcgraph_exit", "record with 'ftrec funcgraph'");
	if (lost_warn(ctx->db, NULL, &ctx->slice) || funcgraph_views(db) ||
	    (o->max_depth > 0 && args_set(db, "max_depth", (int64_t)o->max_depth)) ||
	    db_exec_file(db, "schema/reports/funcgraph_report.sql"))
		return -1;
	if (o->svg)
		return print_svg(ctx, o) ? -1 : 0;
	switch (o->view) {
	case VIEW_TREE:
		/* text: the function indented 2 per level; times in us print as the kernel's
		 * (3 decimals: store/print.h PRINT_UNITS), '?' where no call returned */
		rc = doc_table(ctx, "tree", text ?
			"SELECT count, coalesce(total_us, '?') AS total_us, "
			"coalesce(self_us, '?') AS self_us, "
			"printf('%*s', 2 * min(level, " FG_MAX_INDENT_TEXT "), '') || CASE WHEN level > "
			FG_MAX_INDENT_TEXT " THEN '[level ' || level || '] ' ELSE '' END || "
			"CASE WHEN below_unknown THEN '... ' ELSE '' END "
			"|| func AS func, partial FROM fg_tree" :
			"SELECT count, total_us, self_us, func, partial, level, path FROM fg_tree");
		break;
	case VIEW_FOLDED:
		rc = text ? print_folded(ctx) : doc_table(ctx, "folded", "SELECT * FROM fg_folded");
		break;
	default:
		rc = text ? print_graph(ctx, o) : print_call_rows(ctx);
	}
	return rc ? -1 : 0;
}

const struct report_def report_funcgraph_def = {
	.name = "funcgraph",
	.summary = "function_graph call graphs per thread or in time order, call tree, folded stacks",
	.options = options,
	.opts_size = sizeof(struct funcgraph_opts),
	.option = option,
	.check = check,
	.run = run,
	.details = "A call is in the slice by its entry event (ts, cpu, pid); a call whose entry was\n"
		   "not recorded, by its return. -H prints the kernel's column headers.\n"
		   "CSV/JSON rows (graph views): id, start_s, end_s (trace clock s; _wall with --wall),\n"
		   "cpu, exit_cpu, comm, pid, depth, func, dur_ns (the kernel's rettime - calltime),\n"
		   "dur_us, parent_id, flags (1 no entry, 2 no return, 4 events lost inside),\n"
		   "start_ts, end_ts (ns); --tree: count, total_us, self_us, func, partial, level,\n"
		   "path; --folded: stack, self_ns. docs/SQL.md: the calls view.\n"
		   "--svg: frames are --tree's nodes (a root below unknown callers under \"[unknown]\");\n"
		   "the #flame group carries data-total and data-omitted (ns), each frame data-v (ns).\n",
	.views = &views_calls,
	.needs = (const char *const[]){ "ftrace:funcgraph_entry", "ftrace:funcgraph_exit", NULL },
};
