/* SPDX-License-Identifier: MIT */
/*
 * test_print.c - store/print.c's text table with PRINT_UNITS: each column of numbers
 * with a fraction printed with its unit's decimals (print.h), so that the points
 * line up; CSV and JSON untouched. The expected tables are written out by hand from
 * the rule in README ("Numbers in text tables have the decimals of their unit").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "store/print.h"

static char *run_decimals(const char *sql, enum out_format fmt, unsigned flags, const int *decimals)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(decimals ? print_rows_decimals(st, fmt, f, flags, decimals) :
			 print_rows_flags(st, fmt, f, flags), 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static char *run(const char *sql, enum out_format fmt, unsigned flags)
{
	return run_decimals(sql, fmt, flags, NULL);
}

static void expect(const char *sql, unsigned flags, const char *want)
{
	char *got = run(sql, OUT_TEXT, flags);

	assert_string_equal(got, want);
	free(got);
}

/* The rows of offcpu's table as they came before: 1 and 3 decimals mixed, zeros dropped. */
#define ROWS "SELECT 'a' AS comm, 111.394 AS total_ms, 10126.72 AS avg_us, 7 AS count, 20.62 AS cpu_pct " \
	     "UNION ALL SELECT 'bb', 103.73, 20745.9136, 12, 3.0 " \
	     "UNION ALL SELECT 'c', 0.0001, 2.5, 3, NULL"

static void units_fix_decimals(void **state)
{
	(void)state;
	expect(ROWS, PRINT_UNITS,
	       "comm  total_ms  avg_us     count  cpu_pct\n"
	       "a      111.394  10126.720      7    20.62\n"
	       "bb     103.730  20745.914     12     3.00\n"
	       "c        0.000      2.500      3         \n");
}

static void without_units_as_sqlite_shows(void **state)
{
	(void)state;
	expect(ROWS, 0,
	       "comm  total_ms  avg_us      count  cpu_pct\n"
	       "a      111.394    10126.72      7    20.62\n"
	       "bb      103.73  20745.9136     12      3.0\n"
	       "c       0.0001         2.5      3         \n");
}

static void times_ns_and_unknown_units(void **state)
{
	(void)state;
	/* times of day to the ns (typed back to --since), _ns none, no unit: as shown (<= 6),
	 * integers in a column of reals padded to its decimals, a negative zero unsigned */
	expect("SELECT 3.2616649 AS time_s, 1.5 AS dur_ns, 0.5 AS share, 7 AS mb_s "
	       "UNION ALL SELECT 12.000000001, 2.0, 0.1234567891, 2.5 "
	       "UNION ALL SELECT -0.0000000001, 3, 1, 0",
	       PRINT_UNITS,
	       "time_s        dur_ns  share     mb_s\n"
	       " 3.261664900       2  0.500000  7.000\n"
	       "12.000000001       2  0.123457  2.500\n"
	       " 0.000000000       3  1.000000  0.000\n");
}

static void durations_and_rates_in_s(void **state)
{
	(void)state;
	/* a duration in s to the us (a 2 us capture is not 0.000 s); a rate per s to 3 */
	expect("SELECT 2.0e-06 AS duration_s, 47050.9412 AS rate_per_s "
	       "UNION ALL SELECT 0.13046257, 15.5", PRINT_UNITS,
	       "duration_s  rate_per_s\n"
	       "  0.000002   47050.941\n"
	       "  0.130463      15.500\n");
}

static void diff_differences(void **state)
{
	(void)state;
	/* ftana diff's difference of rates: 3 decimals, also when every one is zero */
	expect("SELECT 0.0 AS diff, 1.0 AS ratio UNION ALL SELECT -12.5, 0.5", PRINT_UNITS,
	       "diff     ratio\n"
	       "  0.000  1.000\n"
	       "-12.500  0.500\n");
}

static void decimals_given(void **state)
{
	(void)state;
	/* ftana diff's before and after (no unit in their names) in a rate's 3 decimals,
	 * integers too; a count's 0; the rest by name (issue 22: "15.974" beside "16.5") */
	static const int decimals[] = { 3, 3, 0, -1 };
	char *got = run_decimals("SELECT 15.974 AS before, 16.5 AS after, 32 AS n, 0.5 AS ratio "
				 "UNION ALL SELECT 4, 4.0, 8.4, NULL", OUT_TEXT, PRINT_UNITS, decimals);

	assert_string_equal(got, "before  after   n   ratio\n"
				 "15.974  16.500  32  0.500\n"
				 " 4.000   4.000   8       \n");
	free(got);
	/* CSV keeps what the query returned */
	got = run_decimals("SELECT 16.5 AS after", OUT_CSV, PRINT_UNITS, decimals);
	assert_string_equal(got, "after\n16.5\n");
	free(got);
}

static void integer_columns_and_text_alone(void **state)
{
	(void)state;
	/* a unit column holding only integers stays as it is; text stays left-aligned */
	expect("SELECT 5 AS total_ms, 'x' AS name UNION ALL SELECT 12, 'yy'", PRINT_UNITS,
	       "total_ms  name\n"
	       "       5  x\n"
	       "      12  yy\n");
}

static void blobs_as_hex(void **state)
{
	(void)state;
	/* x'..' with its closing quote and NUL inside the buffer (ASan: fuzz_db found it
	 * one byte past), the empty blob too */
	expect("SELECT x'00ff7f' AS b UNION ALL SELECT x''", 0, "b\nx'00ff7f'\nx''\n");
}

static void csv_json_in_full(void **state)
{
	(void)state;
	char *csv = run("SELECT 103.73 AS total_ms, 20745.9135 AS avg_us", OUT_CSV, PRINT_UNITS);
	char *json = run("SELECT 103.73 AS total_ms, 20745.9135 AS avg_us", OUT_JSON, PRINT_UNITS);

	assert_string_equal(csv, "total_ms,avg_us\n103.73,20745.9135\n");
	assert_string_equal(json, "[\n{\"total_ms\":103.73,\"avg_us\":20745.9135}\n]\n");
	free(csv);
	free(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(units_fix_decimals),
		cmocka_unit_test(without_units_as_sqlite_shows),
		cmocka_unit_test(times_ns_and_unknown_units),
		cmocka_unit_test(durations_and_rates_in_s),
		cmocka_unit_test(diff_differences),
		cmocka_unit_test(decimals_given),
		cmocka_unit_test(integer_columns_and_text_alone),
		cmocka_unit_test(blobs_as_hex),
		cmocka_unit_test(csv_json_in_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
