/* SPDX-License-Identifier: MIT */
/*
 * test_report_kprobe.c - kprobe report on hand-made probe tables as `ftana db`
 * makes them from kprobe formats: an entry probe with a string argument, a
 * return probe with $retval, --probe selection and stacks.
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

static sqlite3 *probe_db(void)
{
	sqlite3 *db = fx_open();

	fx_exec(db, "INSERT INTO symbols VALUES (4096, 'do_sys_openat2', 't', NULL), (8192, 'ksys_read', 'T', NULL), "
		"(12288, '__x64_sys_read', 'T', NULL)");
	fx_exec(db, "INSERT INTO tasks VALUES (42, 42, 'workload')");
	fx_exec(db, "CREATE TABLE stacks (stack_id INTEGER NOT NULL, depth INTEGER NOT NULL, addr INTEGER NOT NULL, symbol TEXT, PRIMARY KEY (stack_id, depth)) WITHOUT ROWID");
	fx_exec(db, "INSERT INTO stacks VALUES (1, 0, 4096, 'do_sys_openat2'), (1, 1, 12300, '__x64_sys_openat+0x54')");
	fx_exec(db, "CREATE TABLE myopen(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, __probe_ip, path TEXT)");
	fx_exec(db, "INSERT INTO myopen VALUES (1, 1500000000, 1, 42, 1, 4096, '/etc/hostname')");
	fx_exec(db, "CREATE TABLE ksys_read(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
		"__probe_func, __probe_ret_ip, arg1)");
	fx_exec(db, "INSERT INTO ksys_read VALUES (2, 1600000000, 0, 42, NULL, 8192, 12298, 12345)");
	return db;
}

static void test_both_probes(void **state)
{
	sqlite3 *db = probe_db();
	char *out;
	char *argv[] = { "kprobe", NULL };

	assert_int_equal(fx_report(report_kprobe, db, &out, 1, argv), 0);
	/* the kernel's trace line for each hit, stacks below */
	assert_int_equal(fx_count_lines(out, "workload-42 [001] 1.500000: myopen: (do_sys_openat2+0x0) "
					"path=\"/etc/hostname\""), 1);
	assert_int_equal(fx_count_lines(out, "workload-42 [000] 1.600000: ksys_read: "
					"(__x64_sys_read+0xa <- ksys_read) arg1=12345"), 1);
	assert_int_equal(fx_count_lines(out, " => __x64_sys_openat+0x54"), 1);
	free(out);
	fx_close(db);
}

static void test_select_probe(void **state)
{
	sqlite3 *db = probe_db();
	char *out;
	char *one[] = { "kprobe", "--probe", "ksys_read", NULL };
	char *none[] = { "kprobe", "--probe", "nosuch", NULL };

	assert_int_equal(fx_report(report_kprobe, db, &out, 3, one), 0);
	assert_int_equal(fx_count_lines(out, "myopen"), 0);
	assert_int_equal(fx_count_lines(out, "arg1=12345"), 1);
	free(out);
	assert_int_equal(fx_report(report_kprobe, db, &out, 3, none), FTANA_EXIT_ERROR);
	free(out);
	fx_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_both_probes),
		cmocka_unit_test(test_select_probe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
