/* SPDX-License-Identifier: MIT */
/*
 * test_report_funcgraph.c - the calls table and funcgraph views on hand-made
 * function_graph events whose call structure is known by construction: a clean
 * nested call, a capture starting inside calls (returns without entries), one
 * ending inside a call (entry without return), a lost return, and idle tasks of
 * two CPUs that share pid 0.
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

#include "reports/views.h"
#include "tests/funcgraph_fixture.h"

/* The calls view (what `ftana sql` sees), then the report's views through the front end. */
static void build(sqlite3 *db)
{
	char *out;
	char *argv[] = { "funcgraph", "--tree", NULL };

	assert_int_equal(funcgraph_views(db), 0);
	assert_int_equal(fx_run("funcgraph", db, &out, 2, argv), 0);
	free(out);
}

/* pid 100: A { B { C; C; } D; } -- every parent at least as long as its children. */
static void test_nested(void **state)
{
	sqlite3 *db = graph_db();

	add_entry(db, 1, 0, 100, A, 0);
	add_entry(db, 2, 0, 100, B, 1);
	add_entry(db, 3, 0, 100, C, 2);
	add_exit(db, 4, 0, 100, C, 2, 300);
	add_entry(db, 5, 0, 100, C, 2);
	add_exit(db, 6, 0, 100, C, 2, 200);
	add_exit(db, 7, 0, 100, B, 1, 1000);
	add_entry(db, 8, 0, 100, D, 1);
	add_exit(db, 9, 0, 100, D, 1, 50);
	add_exit(db, 10, 0, 100, A, 0, 2000);
	build(db);

	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls"), 5);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls WHERE flags <> 0"), 0);
	/* parents: C, C -> B; B, D -> A; A is the root */
	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls c JOIN calls p ON p.id = c.parent_id "
				"WHERE c.ip = %d AND p.ip = %d", C, B), 2);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls c JOIN calls p ON p.id = c.parent_id "
				"WHERE c.ip IN (%d, %d) AND p.ip = %d", B, D, A), 2);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls WHERE parent_id IS NULL"), 1);
	assert_int_equal(fx_int(db, "SELECT child_dur_ns FROM calls WHERE ip = %d", A), 1050);
	assert_int_equal(fx_int(db, "SELECT child_dur_ns FROM calls WHERE ip = %d", B), 500);
	assert_int_equal(fx_int(db, "SELECT dur_ns FROM calls WHERE ip = %d", A), 2000);
	assert_int_equal(fx_int(db, "SELECT start_ts FROM calls WHERE ip = %d", A), 1000);
	assert_int_equal(fx_int(db, "SELECT end_ts FROM calls WHERE ip = %d", A), 10000);

	/* graph lines: A{ B{ C; C; } D; } = 2 opens, 3 leaves, 2 closes */
	assert_int_equal(fx_int(db, "SELECT count(*) FROM fg_lines WHERE NOT is_exit AND NOT leaf_thread"), 2);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM fg_lines WHERE NOT is_exit AND leaf_thread"), 3);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM fg_lines WHERE is_exit AND NOT leaf_thread"), 2);

	/* tree: the path ksys_read;vfs_read;rw_verify_area has 2 calls, 500 ns total */
	assert_int_equal(fx_int(db, "SELECT count(*) FROM fg_paths WHERE path = "
				"'ksys_read;vfs_read;rw_verify_area'"), 2);
	assert_string_equal(fx_text(db, "SELECT printf('%%.3f', total_us) FROM fg_tree WHERE func = "
				    "'rw_verify_area'"), "0.500");
	assert_string_equal(fx_text(db, "SELECT printf('%%.3f', self_us) FROM fg_tree WHERE func = "
				    "'ksys_read'"), "0.950");
	/* folded: weights are self times, summing to the root's duration */
	assert_int_equal(fx_int(db, "SELECT count(*) FROM fg_folded"), 4);
	assert_int_equal(fx_int(db, "SELECT self_ns FROM fg_folded WHERE stack = 'ksys_read;vfs_read'"), 500);
	fx_close(db);
}

/*
 * The capture starts inside B (depth 1) inside A (depth 0): C returns, then B and
 * A return without entries. Then A is entered again and never returns. Both
 * missing events are marked, not invented; C still gets B as its parent.
 */
static void test_partial(void **state)
{
	sqlite3 *db = graph_db();

	add_exit(db, 1, 1, 200, C, 2, 100);
	add_exit(db, 2, 1, 200, B, 1, 400);
	add_exit(db, 3, 1, 200, A, 0, 900);
	add_entry(db, 4, 1, 200, A, 0);
	add_entry(db, 5, 1, 200, D, 1);
	add_exit(db, 6, 1, 200, D, 1, 70);
	build(db);

	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls"), 5);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls WHERE flags & 1"), 3);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls WHERE start_ts IS NULL"), 3);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls WHERE flags & 2"), 1);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls WHERE dur_ns IS NULL AND ip = %d", A), 1);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls c JOIN calls p ON p.id = c.parent_id "
				"WHERE c.ip = %d AND p.ip = %d", C, B), 1);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls c JOIN calls p ON p.id = c.parent_id "
				"WHERE c.ip = %d AND p.ip = %d", B, A), 1);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls c JOIN calls p ON p.id = c.parent_id "
				"WHERE c.ip = %d AND p.ip = %d AND p.dur_ns IS NULL", D, A), 1);
	assert_int_equal(fx_int(db, "SELECT child_dur_ns FROM calls WHERE ip = %d AND dur_ns = 900", A), 400);
	/* JSON: what was not recorded is null, not 0 */
	char *out;
	char *json[] = { "funcgraph", "--json", NULL };

	assert_int_equal(fx_run("funcgraph", db, &out, 2, json), 0);
	assert_non_null(strstr(out, "{\"id\":1,\"start_s\":null,\"end_s\":1.0e-06,\"cpu\":1,"));
	assert_non_null(strstr(out, "\"start_ts\":4000,\"end_ts\":null}"));
	assert_non_null(strstr(out, "\"func\":\"ksys_read\",\"dur_ns\":null,\"dur_us\":null,"));
	free(out);
	fx_close(db);
}

/* A lost return: B's exit never came, so A's exit pops B as unfinished. */
static void test_lost_return(void **state)
{
	sqlite3 *db = graph_db();

	add_entry(db, 1, 0, 300, A, 0);
	add_entry(db, 2, 0, 300, B, 1);
	add_exit(db, 3, 0, 300, A, 0, 500);
	fx_exec(db, "CREATE TABLE lost_events (cpu INTEGER NOT NULL, ts INTEGER, count INTEGER)");
	fx_exec(db, "INSERT INTO lost_events VALUES (0, 2500, 7)");
	build(db);

	assert_int_equal(fx_int(db, "SELECT flags FROM calls WHERE ip = %d", B), 2 | 4);
	assert_int_equal(fx_int(db, "SELECT flags FROM calls WHERE ip = %d", A), 4);
	assert_int_equal(fx_int(db, "SELECT dur_ns FROM calls WHERE ip = %d", A), 500);
	fx_close(db);
}

/* pid 0 on CPUs 0 and 1 are two idle threads: their calls must not pair up. */
static void test_idle_per_cpu(void **state)
{
	sqlite3 *db = graph_db();

	add_entry(db, 1, 0, 0, A, 0);
	add_entry(db, 2, 1, 0, A, 0);
	add_exit(db, 3, 1, 0, A, 0, 10);
	add_exit(db, 4, 0, 0, A, 0, 30);
	build(db);

	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls WHERE flags = 0"), 2);
	assert_int_equal(fx_int(db, "SELECT dur_ns FROM calls WHERE cpu = 0"), 30);
	assert_int_equal(fx_int(db, "SELECT count(DISTINCT task) FROM calls"), 2);
	fx_close(db);
}

/*
 * The kernel's layout (trace_functions_graph.c: " CPU) ", the mark and the
 * microseconds left-aligned in 14 columns, " |  ", 2 spaces per depth), and -p /
 * --cpu selecting a process / CPU.
 */
static void test_graph_text(void **state)
{
	sqlite3 *db = graph_db();
	char *out;
	char *by_pid[] = { "funcgraph", "-p", "100", NULL };
	char *by_cpu[] = { "funcgraph", "--cpu", "1", NULL };

	add_entry(db, 1, 0, 100, A, 0);
	add_entry(db, 2, 0, 100, C, 1);
	add_exit(db, 3, 0, 100, C, 1, 300);
	add_exit(db, 4, 0, 100, A, 0, 12000);
	add_entry(db, 5, 1, 200, B, 0);
	add_exit(db, 6, 1, 200, B, 0, 150000);
	assert_int_equal(fx_run("funcgraph", db, &out, 3, by_pid), 0);
	assert_int_equal(fx_count_lines(out, "------------ pid 100 ------------"), 1);
	assert_int_equal(fx_count_lines(out, " 0)               |  ksys_read() {"), 1);
	assert_int_equal(fx_count_lines(out, " 0)   0.300 us    |    rw_verify_area();"), 1);
	assert_int_equal(fx_count_lines(out, " 0) + 12.000 us   |  } /* ksys_read */"), 1);
	assert_int_equal(fx_count_lines(out, "vfs_read"), 0);
	free(out);
	fx_close(db);

	db = graph_db();
	add_entry(db, 1, 0, 100, A, 0);
	add_exit(db, 2, 0, 100, A, 0, 10);
	add_entry(db, 3, 1, 200, B, 0);
	add_exit(db, 4, 1, 200, B, 0, 150000);
	assert_int_equal(fx_run("funcgraph", db, &out, 3, by_cpu), 0);
	assert_int_equal(fx_count_lines(out, " 1) ! 150.000 us  |  vfs_read();"), 1);
	assert_int_equal(fx_count_lines(out, "ksys_read"), 0);
	free(out);
	fx_close(db);
}

/*
 * Every report says when the capture lost events, and how many: on stderr and in
 * the JSON document's warnings. Here the kernel flagged 7 lost events on CPU 0
 * inside the recording; a loss outside its time range is not counted.
 */
static void test_loss_warning(void **state)
{
	sqlite3 *db = graph_db();
	char *out;
	char *argv[] = { "funcgraph", "--json", NULL };

	add_entry(db, 1, 0, 100, A, 0);
	add_exit(db, 3, 0, 100, A, 0, 500);
	fx_exec(db, "CREATE TABLE lost_events (cpu INTEGER NOT NULL, ts INTEGER, count INTEGER)");
	fx_exec(db, "INSERT INTO lost_events VALUES (0, 2500, 7), (1, 999999, 40)");
	assert_int_equal(fx_run("funcgraph", db, &out, 2, argv), 0);
	assert_non_null(strstr(out, "\"warnings\":[\"the capture lost 7 events"));
	assert_non_null(strstr(out, "\"flags\":4"));
	free(out);
	fx_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_partial),
		cmocka_unit_test(test_lost_return),
		cmocka_unit_test(test_idle_per_cpu),
		cmocka_unit_test(test_graph_text),
		cmocka_unit_test(test_loss_warning),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
