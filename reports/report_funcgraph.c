/* SPDX-License-Identifier: MIT */
/*
 * report_funcgraph.c - `ftana report funcgraph [-p PID] [-C CPU] [--tree] [--folded]`:
 * function_graph captures as the kernel prints them (per thread, indented, durations
 * on leaf lines and closing braces), as one aggregated call tree, or as folded stacks.
 * The calls table is built in C (reports/funcgraph_calls.c); the rest is
 * schema/reports/funcgraph_views.sql.
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

/* The kernel's duration column: a marker for slow calls, then microseconds. */
static void print_duration(FILE *out, sqlite3_stmt *st, int col)
{
	static const struct { int64_t ns; char mark; } marks[] = {
		{ 1000000000, '$' }, { 100000000, '@' }, { 10000000, '*' },
		{ 1000000, '#' }, { 100000, '!' }, { 10000, '+' },
	};
	if (sqlite3_column_type(st, col) == SQLITE_NULL) {
		fprintf(out, "%13s |", "");
		return;
	}
	int64_t ns = sqlite3_column_int64(st, col);
	char mark = ' ';
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (ns >= marks[i].ns) {
			mark = marks[i].mark;
			break;
		}
	fprintf(out, "%c %8.3f us |", mark, ns / 1e3);
}

static int print_graph(sqlite3 *db, FILE *out)
{
	sqlite3_stmt *st;
	int64_t task = INT64_MIN;
	bool first = true;
	int step;

	if (sqlite3_prepare_v2(db, "SELECT task, pid, cpu, kind, depth, name, dur, flags "
			       "FROM fg_lines", -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "ftana report funcgraph: %s\n", sqlite3_errmsg(db));
		return FTANA_EXIT_ERROR;
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int pid = sqlite3_column_int(st, 1);
		const char *kind = (const char *)sqlite3_column_text(st, 3);
		int depth = sqlite3_column_int(st, 4);
		const char *name = (const char *)sqlite3_column_text(st, 5);
		int flags = sqlite3_column_int(st, 7);

		if (sqlite3_column_int64(st, 0) != task) {
			task = sqlite3_column_int64(st, 0);
			if (pid)
				fprintf(out, "%s------------ pid %d ------------\n", first ? "" : "\n", pid);
			else
				fprintf(out, "%s------------ idle, CPU %d ------------\n", first ? "" : "\n",
					sqlite3_column_int(st, 2));
			first = false;
		}
		fprintf(out, "%3d) ", sqlite3_column_int(st, 2));
		if (!strcmp(kind, "open"))
			fprintf(out, "%13s |", "");
		else
			print_duration(out, st, 6);
		fprintf(out, "%*s", 2 * depth + 2, "");
		/* "NAME();" for a leaf, "NAME() {" opening, the brace and the name in a
		 * comment closing; the name comes from the capture's kallsyms: escaped */
		bool leaf = !strcmp(kind, "leaf"), open = !strcmp(kind, "open");
		fputs(leaf || open ? "" : "} /* ", out);
		text_fputs(out, name);
		fputs(leaf ? "();" : open ? "() {" : " */", out);
		/* Say what the recording could not show instead of guessing it. */
		if (!strcmp(kind, "open") && (flags & 2))
			fprintf(out, "  /* no return recorded */");
		if (!strcmp(kind, "close") && (flags & 1))
			fprintf(out, "  /* entry not recorded */");
		if (strcmp(kind, "open") && (flags & 4))
			fprintf(out, "  /* events lost inside */");
		fputc('\n', out);
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? FTANA_EXIT_OK : FTANA_EXIT_ERROR;
}

int report_funcgraph(sqlite3 *db, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tree", no_argument, NULL, 'T' },
		{ "folded", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	enum { GRAPH, TREE, FOLDED } mode = GRAPH;
	double pid = -1, cpu = -1;
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "p:C:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': if (!rf_parse_num("funcgraph", 'p', optarg, &pid)) return FTANA_EXIT_ERROR; break;
		case 'C': if (!rf_parse_num("funcgraph", 'C', optarg, &cpu)) return FTANA_EXIT_ERROR; break;
		case 'T': mode = TREE; break;
		case 'F': mode = FOLDED; break;
		case 'h':
			printf("usage: ftana report funcgraph FILE [-p PID] [-C CPU] [--tree | --folded]\n");
			return FTANA_EXIT_OK;
		default: return FTANA_EXIT_ERROR;
		}
	}
	if (!rf_has_table(db, "funcgraph_exit"))
		return rf_missing("funcgraph", "funcgraph_exit", "record with 'ftrec funcgraph'");
	/* Like every report: say first whether the capture lost events. */
	if (ru_warn_lost(db, "SELECT min(ts), max(ts) FROM events", stdout))
		return FTANA_EXIT_ERROR;
	if (rf_setup(db) || ftana_exec_sql_file(db, "schema/reports/funcgraph.sql") ||
	    (pid >= 0 && rf_arg(db, "pid", (int64_t)pid)) ||
	    (cpu >= 0 && rf_arg(db, "cpu", (int64_t)cpu)) ||
	    funcgraph_build_calls(db) ||
	    ftana_exec_sql_file(db, "schema/reports/funcgraph_views.sql"))
		return FTANA_EXIT_ERROR;
	switch (mode) {
	case TREE:
		return rf_print(db, "SELECT * FROM fg_tree", stdout) ? FTANA_EXIT_ERROR : FTANA_EXIT_OK;
	case FOLDED: {
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db, "SELECT folded FROM fg_folded", -1, &st, NULL) != SQLITE_OK)
			return FTANA_EXIT_ERROR;
		while (sqlite3_step(st) == SQLITE_ROW) {
			text_fputs(stdout, (const char *)sqlite3_column_text(st, 0));
			putchar('\n');
		}
		sqlite3_finalize(st);
		return FTANA_EXIT_OK;
	}
	default:
		return print_graph(db, stdout);
	}
}

/* TRANSITION: not yet on the report front end (report_front.h). */
const struct report_def report_funcgraph_def = {
	.name = "funcgraph",
	.summary = "function_graph call graphs, aggregated tree, folded stacks (funcgraph)",
	.legacy = report_funcgraph,
};
