/* SPDX-License-Identifier: MIT */
/*
 * test_report_funcgraph_views.c - the funcgraph report's options on hand-made
 * function_graph events: -m (report-time depth limit), -t / -P / -D / -H (the
 * kernel's funcgraph-abstime / funcgraph-proc / nofuncgraph-duration options and
 * its trace file header), --time-order (all CPUs merged, the kernel's
 * context-switch markers), and the slice: a call belongs to it by its entry
 * event's ts, cpu and pid (--since inclusive, --until exclusive, -p the process,
 * -L the thread, --cpu), ftrec's own threads left out by default.
 * Expected lines are written out by hand from the kernel's printing rules
 * (kernel/trace/trace_functions_graph.c), not taken from our output.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "reports/args.h"
#include "tests/report_func_fixture.h"

#include "common/cmd.h"
#include "reports/slice.h"
#include "reports/views.h"
#include "tests/funcgraph_fixture.h"

/* graph_db with the meta and tasks the slice reads */
static sqlite3 *views_db(void)
{
	sqlite3 *db = graph_db();

	fx_exec(db, "INSERT INTO meta VALUES ('first_ts', '0'), ('nr_cpus', '2')");
	fx_exec(db, "INSERT INTO tasks VALUES (100, 100, 'workload'), (101, 100, 'workload'), "
		"(200, 200, 'cat'), (300, 300, 'ftrec')");
	return db;
}

/* pid 100 on CPU 0: ksys_read { vfs_read { rw_verify_area; } } */
static sqlite3 *nested_db(void)
{
	sqlite3 *db = views_db();

	add_entry(db, 1, 0, 100, A, 0);
	add_entry(db, 2, 0, 100, B, 1);
	add_entry(db, 3, 0, 100, C, 2);
	add_exit(db, 4, 0, 100, C, 2, 300);
	add_exit(db, 5, 0, 100, B, 1, 150000);
	add_exit(db, 6, 0, 100, A, 0, 1234567);
	return db;
}

static char *run(sqlite3 *db, int argc, char **argv)
{
	char *out;

	assert_int_equal(fx_run("funcgraph", db, &out, argc, argv), 0);
	return out;
}

/* -m 2: vfs_read becomes a leaf whose duration covers rw_verify_area, which is gone. */
static void test_max_depth(void **state)
{
	sqlite3 *db = nested_db();
	char *argv[] = { "funcgraph", "-m", "2", NULL };
	char *one[] = { "funcgraph", "-m", "1", "--json", NULL };
	char *bad[] = { "funcgraph", "-m", "0", NULL };
	char *out = run(db, 3, argv);

	assert_int_equal(fx_count_lines(out, " 0)               |  ksys_read() {"), 1);
	assert_int_equal(fx_count_lines(out, " 0) ! 150.000 us  |    vfs_read();"), 1);
	assert_int_equal(fx_count_lines(out, " 0) # 1234.567 us |  } /* ksys_read */"), 1);
	assert_int_equal(fx_count_lines(out, "rw_verify_area"), 0);
	free(out);
	out = run(db, 4, one);
	assert_non_null(strstr(out, "\"func\":\"ksys_read\""));
	assert_null(strstr(out, "vfs_read"));
	free(out);
	assert_int_equal(fx_run("funcgraph", db, &out, 3, bad), CMD_EXIT_ERROR);
	free(out);
	bad[2] = "1.5";
	assert_int_equal(fx_run("funcgraph", db, &out, 3, bad), CMD_EXIT_ERROR);
	free(out);
	fx_close(db);
}

/*
 * Hostile depths (issue 25): a chain of 3000 nested calls, and a call whose depth field
 * says 10^9. The graph (and funcslower --graph) indents at most FG_MAX_INDENT levels
 * and prints the depth past it (one warning); --tree, --folded and --svg stop a path at
 * 256 levels, the deeper calls in one "[deeper]" frame: each output stays small (it
 * grew with the square of the depth, gigabytes for 12,000 levels).
 */
static void test_hostile_depths(void **state)
{
	(void)state;
	sqlite3 *db = views_db();
	char *out;
	char *graph[] = { "funcgraph", NULL }, *tree[] = { "funcgraph", "--tree", NULL };
	char *folded[] = { "funcgraph", "--folded", NULL }, *svg[] = { "funcgraph", "--svg", NULL };
	char *slow_graph[] = { "funcslower", "--graph", NULL };
	enum { N = 3000 };

	fx_exec(db, "BEGIN");
	for (int i = 0; i < N; i++)
		add_entry(db, 1 + i, 0, 100, i % 2 ? B : A, i);
	for (int i = N - 1; i >= 0; i--)
		add_exit(db, 2 * N - i, 0, 100, i % 2 ? B : A, i, 1000 + i);
	add_entry(db, 2 * N + 1, 1, 200, C, 1000000000);
	add_exit(db, 2 * N + 2, 1, 200, C, 1000000000, 500);
	fx_exec(db, "COMMIT");
	out = run(db, 1, graph);
	assert_true(strlen(out) < 3 * 1024 * 1024); /* 6,002 lines of at most ~300 bytes */
	assert_int_equal(fx_count_lines(out, "[depth 2999] vfs_read();"), 1);
	assert_int_equal(fx_count_lines(out, "[depth 2998] } /* ksys_read */"), 1);
	assert_int_equal(fx_count_lines(out, "[depth 1000000000] rw_verify_area();"), 1);
	free(out);
	out = run(db, 2, tree);
	assert_true(strlen(out) < 1024 * 1024);
	assert_non_null(strstr(out, "[level 256] ")); /* indented as 128, the level said */
	assert_null(strstr(out, "[level 258] ")); /* the deeper ones: one frame at 257 */
	free(out);
	out = run(db, 2, folded);
	assert_true(strlen(out) < 1024 * 1024);
	assert_non_null(strstr(out, ";[deeper] "));
	free(out);
	out = run(db, 2, svg); /* the flame graph of the same paths */
	assert_true(strlen(out) < 2 * 1024 * 1024);
	assert_non_null(strstr(out, "[deeper]"));
	free(out);
	/* funcslower --graph: each slow return, indented as funcgraph's lines (6,002 lines) */
	assert_int_equal(fx_run("funcslower", db, &out, 2, slow_graph), 0);
	assert_true(strlen(out) < 3 * 1024 * 1024);
	assert_int_equal(fx_count_lines(out, "[depth 2999] } /* vfs_read */"), 1);
	assert_non_null(strstr(out, "[depth 1000000000] "));
	free(out);
	fx_close(db);
}

/*
 * Returns without entries (issue 25: 300,000 of them made report funcgraph and export
 * grow ~3x per doubling): each waits for a parent that never comes, and each new one
 * used to scan them all; threads were found by a scan too. 200,000 returns of one
 * thread at one depth, 50,000 of as many threads, then one return a level up that
 * adopts the first thread's. Every call is a row, the adopting one has them all as
 * children; the report prints a line per call.
 */
static void test_many_orphan_returns(void **state)
{
	(void)state;
	sqlite3 *db = views_db();
	enum { N = 200000, T = 50000 };
	char *out, *argv[] = { "funcgraph", NULL };

	fx_exec(db, "BEGIN");
	for (int i = 0; i < N; i++)
		add_exit(db, 1 + i, 0, 100, A, 3, 10);
	for (int i = 0; i < T; i++)
		add_exit(db, N + 1 + i, 1, 1000 + i, B, 2, 10);
	add_exit(db, N + T + 1, 0, 100, C, 2, 5000000);
	fx_exec(db, "COMMIT");
	assert_int_equal(funcgraph_views(db), 0);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls"), N + T + 1);
	assert_int_equal(fx_int(db, "SELECT children FROM calls WHERE depth = 2 AND pid = 100"), N);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls WHERE parent_id IS NULL"), T + 1);
	out = run(db, 1, argv);
	assert_non_null(strstr(out, "rw_verify_area"));
	free(out);
	fx_close(db);
}

/* -t: "%5lu.%06lu |  " of the event's time; -P: COMM (7 chars)-PID centred in 14, " | ". */
static void test_time_and_proc(void **state)
{
	sqlite3 *db = nested_db();
	char *argv[] = { "funcgraph", "-t", "-P", NULL };
	char *out = run(db, 3, argv);

	assert_int_equal(fx_count_lines(out, "    0.000001 |   0)  workloa-100   |               |  ksys_read() {"), 1);
	assert_int_equal(fx_count_lines(out, "    0.000003 |   0)  workloa-100   |   0.300 us    |      rw_verify_area();"), 1);
	/* a return line carries the return event's time */
	assert_int_equal(fx_count_lines(out, "    0.000006 |   0)  workloa-100   | # 1234.567 us |  } /* ksys_read */"), 1);
	free(out);
	fx_close(db);
}

/* -t with --wall: the UTC wall-clock time in the time column, as report_ts prints it. */
static void test_wall_time(void **state)
{
	sqlite3 *db = nested_db();
	char *argv[] = { "funcgraph", "-t", "--wall", NULL };
	char *out;

	/* trace clock 0 = 2026-12-03 10:00:00 UTC */
	fx_exec(db, "INSERT INTO meta VALUES ('wall_offset_ns', '%lld')", 1796292000LL * 1000000000LL);
	out = run(db, 3, argv);
	assert_int_equal(fx_count_lines(out, "10:00:00.000001 |   0)               |  ksys_read() {"), 1);
	free(out);
	fx_close(db);
}

/* -D: no duration column at all; -H: the kernel's trace file header for the columns shown. */
static void test_no_duration_and_header(void **state)
{
	sqlite3 *db = nested_db();
	char *argv[] = { "funcgraph", "-D", "-H", NULL };
	char *plain[] = { "funcgraph", NULL };
	char *out = run(db, 3, argv);

	assert_true(!strncmp(out, "# tracer: function_graph\n#\n"
			     "# CPU               FUNCTION CALLS\n"
			     "# |                 |   |   |   |\n", strlen("# tracer: function_graph\n#\n"
			     "# CPU               FUNCTION CALLS\n# |                 |   |   |   |\n")));
	assert_int_equal(fx_count_lines(out, " 0) ksys_read() {"), 1);
	assert_int_equal(fx_count_lines(out, " 0)     rw_verify_area();"), 1);
	assert_int_equal(fx_count_lines(out, " us "), 0);
	free(out);
	out = run(db, 1, plain);
	assert_int_equal(fx_count_lines(out, "FUNCTION CALLS"), 0);
	assert_int_equal(fx_count_lines(out, "# tracer"), 0);
	free(out);
	fx_close(db);
}

/*
 * --time-order: pid 100's ksys_read on CPU 0 is interrupted by pid 200's fsnotify on
 * the same CPU. The kernel prints a marker on each change of task on a CPU, and
 * ksys_read is no leaf there (its return is not the CPU's next event), while the
 * per-thread view, which shows only its thread, prints it as one leaf line.
 * The return of vfs_read (pid 101) comes on CPU 1 after an entry on CPU 0.
 */
static void test_time_order(void **state)
{
	sqlite3 *db = views_db();
	char *argv[] = { "funcgraph", "--time-order", NULL };
	char *thread[] = { "funcgraph", NULL };
	const char *expect =
		" 0)               |  ksys_read() {\n"
		" ------------------------------------------\n"
		" 0)  workloa-100   =>    cat-200    \n"
		" ------------------------------------------\n"
		"\n"
		" 0)   0.050 us    |  fsnotify();\n"
		" ------------------------------------------\n"
		" 0)    cat-200     =>  workloa-100  \n"
		" ------------------------------------------\n"
		"\n"
		" 0)   4.000 us    |  } /* ksys_read */\n"
		" 0)               |  vfs_read() {\n"
		" 1) + 20.000 us   |  } /* vfs_read */\n";
	char *out;

	add_entry(db, 1, 0, 100, A, 0);
	add_entry(db, 2, 0, 200, D, 0);
	add_exit(db, 3, 0, 200, D, 0, 50);
	add_exit(db, 4, 0, 100, A, 0, 4000);
	add_entry(db, 5, 0, 100, B, 0);
	add_exit(db, 6, 1, 100, B, 0, 20000);
	out = run(db, 2, argv);
	assert_string_equal(out, expect);
	free(out);

	out = run(db, 1, thread);
	assert_int_equal(fx_count_lines(out, " 0)   4.000 us    |  ksys_read();"), 1);
	assert_int_equal(fx_count_lines(out, "=>"), 0);
	free(out);
	fx_close(db);
}

/*
 * The slice decides by a call's entry: calls entered at 1, 3, 5 us (pid 100, CPU 0),
 * 7 us (pid 101 = a thread of process 100, CPU 1), 9 us (pid 200, CPU 1), 11 us
 * (ftrec's thread 300, CPU 0), each returning 1 us later.
 */
static sqlite3 *slice_db(void)
{
	sqlite3 *db = views_db();
	static const struct { int cpu, pid; } calls[] = {
		{ 0, 100 }, { 0, 100 }, { 0, 100 }, { 1, 101 }, { 1, 200 }, { 0, 300 },
	};

	fx_exec(db, "INSERT INTO meta VALUES ('ftrec_tids', '300')");
	for (int i = 0; i < 6; i++) {
		add_entry(db, 2 * i + 1, calls[i].cpu, calls[i].pid, A, 0);
		add_exit(db, 2 * i + 2, calls[i].cpu, calls[i].pid, A, 0, 1000);
	}
	return db;
}

/* The selected calls' entry times (us), "1,3,5" */
static const char *slice_of(sqlite3 *db, int argc, char **argv)
{
	char *out = run(db, argc, argv);

	free(out);
	return fx_text(db, "SELECT coalesce(group_concat(start_ts / 1000, ','), '') FROM "
		       "(SELECT start_ts FROM fg_sel ORDER BY start_ts)");
}

static void test_slice(void **state)
{
	sqlite3 *db = slice_db();
	char *all[] = { "funcgraph", NULL };
	char *with_ftrec[] = { "funcgraph", "--include-ftrec", NULL };
	char *window[] = { "funcgraph", "--since", "0.000003", "--until", "0.000007", NULL };
	char *process[] = { "funcgraph", "-p", "100", NULL };
	char *thread[] = { "funcgraph", "-L", "101", NULL };
	char *cpu[] = { "funcgraph", "--cpu", "1", NULL };
	char *comm[] = { "funcgraph", "-n", "^cat$", NULL };
	char *out;

	assert_string_equal(slice_of(db, 1, all), "1,3,5,7,9");
	assert_string_equal(slice_of(db, 2, with_ftrec), "1,3,5,7,9,11");
	/* since inclusive (the call at 3 us is in), until exclusive (the one at 7 us is out) */
	assert_string_equal(slice_of(db, 5, window), "3,5");
	assert_string_equal(slice_of(db, 3, process), "1,3,5,7");
	assert_string_equal(slice_of(db, 3, thread), "7");
	assert_string_equal(slice_of(db, 3, cpu), "7,9");
	assert_string_equal(slice_of(db, 3, comm), "9");
	/* ftrec's thread is not the first block any more: no block at all */
	out = run(db, 1, all);
	assert_int_equal(fx_count_lines(out, "pid 300"), 0);
	assert_int_equal(fx_count_lines(out, "------------ pid "), 3);
	free(out);
	fx_close(db);
}

/*
 * A window that starts inside a call: vfs_read, entered after --since, is in; its
 * caller ksys_read, entered before, is not. vfs_read prints at its own depth (a root
 * below callers the slice left out), the tree marks the unknown caller.
 */
static void test_slice_inside_call(void **state)
{
	sqlite3 *db = nested_db();
	char *argv[] = { "funcgraph", "--since", "0.000002", NULL };
	char *tree[] = { "funcgraph", "--since", "0.000002", "--folded", NULL };
	char *out = run(db, 3, argv);

	assert_int_equal(fx_count_lines(out, "ksys_read"), 0);
	assert_int_equal(fx_count_lines(out, " 0)               |    vfs_read() {"), 1);
	assert_int_equal(fx_count_lines(out, " 0) ! 150.000 us  |    } /* vfs_read */"), 1);
	free(out);
	out = run(db, 4, tree);
	assert_string_equal(out, "[unknown];vfs_read 149700\n[unknown];vfs_read;rw_verify_area 300\n");
	free(out);
	fx_close(db);
}

/* Views exclude each other; CSV carries the rows with snake_case headers. */
static void test_options(void **state)
{
	sqlite3 *db = nested_db();
	char *two[] = { "funcgraph", "--tree", "--time-order", NULL };
	char *csv[] = { "funcgraph", "--csv", NULL };
	char *out;

	assert_int_equal(fx_run("funcgraph", db, &out, 3, two), CMD_EXIT_ERROR);
	free(out);
	out = run(db, 2, csv);
	const char *header = "id,start_s,end_s,cpu,exit_cpu,comm,pid,depth,func,dur_ns,dur_us,"
			     "parent_id,flags,start_ts,end_ts\n";

	assert_true(!strncmp(out, header, strlen(header)));
	assert_int_equal(fx_count_lines(out, ",workload,100,"), 3);
	free(out);
	fx_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_max_depth),
		cmocka_unit_test(test_hostile_depths),
		cmocka_unit_test(test_many_orphan_returns),
		cmocka_unit_test(test_time_and_proc),
		cmocka_unit_test(test_wall_time),
		cmocka_unit_test(test_no_duration_and_header),
		cmocka_unit_test(test_time_order),
		cmocka_unit_test(test_slice),
		cmocka_unit_test(test_slice_inside_call),
		cmocka_unit_test(test_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
