/* SPDX-License-Identifier: MIT */
/*
 * test_report_funccount.c - funccount on hand-made `function` events whose counts
 * are known by construction: per-interval counts, largest last, TOP, the pid
 * filter, totals and rates, and ips resolved to the function containing them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "analyze/ftana.h"
#include "analyze/report_func.h"
#include "tests/report_func_fixture.h"

#define SEC 1000000000LL

/* N calls of the function at ip by pid, spread over [t, t + 0.5 s). */
static void calls(sqlite3 *db, int n, long long ip, int pid, int64_t t)
{
	for (int i = 0; i < n; i++)
		fx_exec(db, "INSERT INTO function(ts, cpu, pid, ip, parent_ip) VALUES (%lld, 0, %d, %lld, 0)",
			(long long)(t + i * (SEC / 2) / n), pid, ip);
}

/* Kernel text addresses: stored as their signed 64-bit pattern, i.e. negative. */
#define KADDR(off) ((long long)(0xffffffff81000000ULL + (off)))

/*
 * vfs_read at +0x1000 (fentry ip = +4), vfs_write at +0x2000 with an alias listed
 * after it; the symbol at +0x1800 between them proves ips are mapped to the
 * greatest symbol address <= ip, the alias that the first name listed wins.
 * Second 0: 3 vfs_read, 1 vfs_write; second 1: 2 vfs_read, 4 vfs_write;
 * pid 9 adds 7 vfs_read in second 1.
 */
static sqlite3 *count_db(void)
{
	sqlite3 *db = fx_open();

	fx_exec(db, "CREATE TABLE function(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, ip, parent_ip)");
	fx_exec(db, "INSERT INTO symbols VALUES (%lld, 'vfs_read', 'T', NULL), (%lld, 'rw_verify_area', 't', NULL), "
		"(%lld, 'vfs_write', 'T', NULL), (%lld, '__x64_vfs_write_alias', 'T', NULL)",
		KADDR(0x1000), KADDR(0x1800), KADDR(0x2000), KADDR(0x2000));
	/* ftrec's start and stop: the recording ran 2 s (first_ts is a decoy) */
	fx_exec(db, "INSERT INTO meta VALUES ('start_trace_ns', '0'), ('end_trace_ns', '%lld'), "
		"('first_ts', '12345')", 2 * SEC);
	calls(db, 3, KADDR(0x1004), 5, 0);
	calls(db, 1, KADDR(0x2004), 5, 0);
	calls(db, 2, KADDR(0x1004), 5, SEC);
	calls(db, 4, KADDR(0x2004), 5, SEC);
	calls(db, 7, KADDR(0x1004), 9, SEC);
	fx_exec(db, "INSERT INTO function(ts, cpu, pid, ip, parent_ip) VALUES (%lld, 0, 5, %lld, 0)",
		SEC + SEC / 2, KADDR(0x1004));
	return db;
}

static void test_intervals(void **state)
{
	sqlite3 *db = count_db();
	char *out;
	char *argv[] = { "funccount", "-i", "1", "-p", "5", NULL };

	assert_int_equal(fx_report(report_funccount, db, &out, 5, argv), 0);
	assert_int_equal(fx_int(db, "SELECT COUNT FROM fc_interval_rows WHERE interval = 0 AND FUNC = 'vfs_read'"), 3);
	assert_int_equal(fx_int(db, "SELECT COUNT FROM fc_interval_rows WHERE interval = 1 AND FUNC = 'vfs_write'"), 4);
	assert_int_equal(fx_int(db, "SELECT COUNT FROM fc_interval_rows WHERE interval = 1 AND FUNC = 'vfs_read'"), 3);
	/* largest last within each interval */
	assert_string_equal(fx_text(db, "SELECT group_concat(FUNC) FROM fc_interval_rows WHERE interval = 0"),
			    "vfs_write,vfs_read");
	/* totals: vfs_read 3 + 3 = 6, vfs_write 5, over 2 s */
	assert_int_equal(fx_int(db, "SELECT COUNT FROM fc_totals WHERE FUNC = 'vfs_read'"), 6);
	assert_string_equal(fx_text(db, "SELECT \"RATE/s\" FROM fc_totals WHERE FUNC = 'vfs_write'"), "2.5");
	assert_int_equal(fx_int(db, "SELECT count(*) FROM fc_totals WHERE FUNC = 'rw_verify_area'"), 0);
	assert_int_equal(fx_count_lines(out, "interval 1 (0.000 - 1.000 s)"), 1);
	assert_int_equal(fx_count_lines(out, "interval 2 (1.000 - 2.000 s)"), 1);
	free(out);
	fx_close(db);
}

static void test_all_pids_top(void **state)
{
	sqlite3 *db = count_db();
	char *out;
	char *argv[] = { "funccount", "-t", "1", NULL };

	assert_int_equal(fx_report(report_funccount, db, &out, 3, argv), 0);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM fc_totals"), 1);
	assert_int_equal(fx_int(db, "SELECT COUNT FROM fc_totals WHERE FUNC = 'vfs_read'"), 13);
	assert_int_equal(fx_count_lines(out, "vfs_read"), 1);
	assert_int_equal(fx_count_lines(out, "vfs_write"), 0);
	free(out);
	fx_close(db);
}

static void test_bad_input(void **state)
{
	sqlite3 *db = fx_open();
	char *out;
	char *bad[] = { "funccount", "-i", "x", NULL };
	char *none[] = { "funccount", NULL };

	assert_int_equal(fx_report(report_funccount, db, &out, 3, bad), FTANA_EXIT_ERROR);
	free(out);
	/* no function table: a one-line error, not an SQL failure */
	assert_int_equal(fx_report(report_funccount, db, &out, 1, none), FTANA_EXIT_ERROR);
	free(out);
	fx_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_all_pids_top),
		cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
