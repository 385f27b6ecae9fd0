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
#include <string.h>
#include <cmocka.h>

#include "analyze/ftana.h"
#include "reports/report_func.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_and_hist),
		cmocka_unit_test(test_plain_columns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
