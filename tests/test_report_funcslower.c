/* SPDX-License-Identifier: MIT */
/*
 * test_report_funcslower.c - funcslower on hand-made funcgraph_exit events (what a
 * tracing_thresh recording holds): one row per call with the kernel's own
 * duration (rettime - calltime, not event timestamps), the -t/-P columns, and the
 * log2 histogram's buckets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/cmd.h"
#include "reports/args.h"
#include "tests/report_func_fixture.h"

/* A return of do_nanosleep after dur_ns; calltime runs on another clock than ts. */
static void slow(sqlite3 *db, int id, int pid, long long dur_ns)
{
	fx_exec(db, "INSERT INTO funcgraph_exit VALUES (%d, %d, 1, %d, NULL, 4096, 0, 0, %lld, %lld)",
		id, id * 1000000, pid, 777000LL, 777000LL + dur_ns);
}

static sqlite3 *slow_db(void)
{
	sqlite3 *db = fx_open();

	fx_exec(db, "CREATE TABLE funcgraph_exit(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, func, depth, "
		"overrun, calltime, rettime)");
	fx_exec(db, "INSERT INTO symbols VALUES (4096, 'do_nanosleep', 't', NULL)");
	fx_exec(db, "INSERT INTO tasks VALUES (42, 42, 'workload')");
	/* 3 sleeps of 50 ms (+ scheduling), one of 12 ms: buckets 32768-65535 and 8192-16383 us */
	slow(db, 1, 42, 50082000);
	slow(db, 2, 42, 50105000);
	slow(db, 3, 42, 50001000);
	slow(db, 4, 43, 12000000);
	return db;
}

static void test_rows_and_hist(void **state)
{
	sqlite3 *db = slow_db();
	char *out;
	char *argv[] = { "funcslower", "-t", "-P", NULL };
	char *hist_argv[] = { "funcslower", "--hist", NULL };

	assert_int_equal(fx_run("funcslower", db, &out, 3, argv), 0);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM funcslower_sel"), 4);
	assert_int_equal(fx_int(db, "SELECT dur_ns FROM funcslower_sel WHERE ts = 2000000"), 50105000);
	assert_string_equal(fx_text(db, "SELECT comm || '-' || pid FROM funcslower_sel WHERE ts = 1000000"),
			    "workload-42");
	assert_string_equal(fx_text(db, "SELECT comm || '-' || pid FROM funcslower_sel WHERE ts = 4000000"),
			    "<...>-43");
	assert_int_equal(fx_count_lines(out, "do_nanosleep"), 4);
	assert_int_equal(fx_count_lines(out, "workload"), 3);
	assert_int_equal(fx_count_lines(out, "50105"), 1);
	assert_int_equal(fx_count_lines(out, "0.003"), 1);
	free(out);

	/* --hist instead of the rows: from the first to the last non-empty bucket */
	assert_int_equal(fx_run("funcslower", db, &out, 2, hist_argv), 0);
	assert_int_equal(fx_int(db, "SELECT count FROM funcslower_hist WHERE low_us = 32768"), 3);
	assert_int_equal(fx_int(db, "SELECT count FROM funcslower_hist WHERE low_us = 8192"), 1);
	assert_int_equal(fx_int(db, "SELECT count FROM funcslower_hist WHERE low_us = 16384"), 0);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM funcslower_hist"), 3);
	assert_int_equal(fx_count_lines(out, "do_nanosleep"), 0);
	assert_int_equal(fx_count_lines(out, "32768"), 1);
	free(out);
	fx_close(db);
}

static void test_plain_columns(void **state)
{
	sqlite3 *db = slow_db();
	char *out;
	char *argv[] = { "funcslower", NULL };

	assert_int_equal(fx_run("funcslower", db, &out, 1, argv), 0);
	assert_int_equal(fx_count_lines(out, "workload"), 0);
	assert_int_equal(fx_count_lines(out, "0.003"), 0);
	assert_int_equal(fx_count_lines(out, "50001"), 1);
	free(out);
	fx_close(db);
}

/*
 * --graph: the kernel's return lines as perf-tools funcslower shows them (expected
 * lines written from trace_functions_graph.c's rules): " CPU) ", the mark ('*'
 * above 10 ms, '#' above 1 ms), at most 7 digits of microseconds, " us ", "|  ",
 * 2 spaces per depth, "} /" "* func *" "/". Without -P the kernel's marker shows the
 * change of task on CPU 1; with -P (the task on every line) perf-tools drops it.
 */
static void test_graph(void **state)
{
	sqlite3 *db = slow_db();
	char *out;
	char *argv[] = { "funcslower", "--graph", NULL };
	char *procs[] = { "funcslower", "--graph", "-P", "-t", "-H", NULL };
	char *both[] = { "funcslower", "--graph", "--hist", NULL };
	const char *expect =
		" 1) * 50082.00 us |  } /* do_nanosleep */\n"
		" 1) * 50105.00 us |  } /* do_nanosleep */\n"
		" 1) * 50001.00 us |  } /* do_nanosleep */\n"
		" ------------------------------------------\n"
		" 1)   workloa-42   =>    <...>-43   \n"
		" ------------------------------------------\n"
		"\n"
		" 1) * 12000.00 us |  } /* do_nanosleep */\n";

	assert_int_equal(fx_run("funcslower", db, &out, 2, argv), 0);
	assert_string_equal(out, expect);
	free(out);

	assert_int_equal(fx_run("funcslower", db, &out, 5, procs), 0);
	const char *header = "# tracer: function_graph\n#\n"
			     "#     TIME        CPU  TASK/PID         DURATION                  FUNCTION CALLS\n"
			     "#      |          |     |    |           |   |                     |   |   |   |\n";

	assert_true(!strncmp(out, header, strlen(header)));
	assert_int_equal(fx_count_lines(out, "    0.001000 |   1)   workloa-42   | * 50082.00 us |  } /* do_nanosleep */"), 1);
	assert_int_equal(fx_count_lines(out, "    0.004000 |   1)    <...>-43    | * 12000.00 us |  } /* do_nanosleep */"), 1);
	assert_int_equal(fx_count_lines(out, "=>"), 0);
	free(out);

	assert_int_equal(fx_run("funcslower", db, &out, 3, both), CMD_EXIT_ERROR);
	free(out);
	fx_close(db);
}

/* CSV/JSON carry every column whatever the text options; --graph is text only. */
static void test_json_rows(void **state)
{
	sqlite3 *db = slow_db();
	char *out;
	char *argv[] = { "funcslower", "--graph", "--json", NULL };

	assert_int_equal(fx_run("funcslower", db, &out, 3, argv), 0);
	assert_non_null(strstr(out, "{\"ts_s\":0.004,\"cpu\":1,\"comm\":\"<...>\",\"pid\":43,"
			       "\"dur_us\":12000.0,\"func\":\"do_nanosleep\",\"dur_ns\":12000000,\"depth\":0,\"id\":4}"));
	free(out);
	fx_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_and_hist),
		cmocka_unit_test(test_plain_columns),
		cmocka_unit_test(test_graph),
		cmocka_unit_test(test_json_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
