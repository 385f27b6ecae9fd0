/* SPDX-License-Identifier: MIT */
/*
 * test_report_funccount.c - funccount on hand-made `function` events whose counts
 * are known by construction: per-interval counts, largest last, TOP, -T, the slice
 * (--since inclusive, --until exclusive, -p = every thread of the process by
 * tasks.tgid, -L, --cpu, ftrec's threads left out), totals and rates, ips resolved
 * to the function containing them, the CSV/JSON tables. Then the same report from
 * hand-made function profiler rounds (running totals per CPU, as `ftrec funccount
 * --profile` stores them): whole rounds in a time window, --cpu, task filters refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "common/cmd.h"
#include "reports/args.h"
#include "reports/slice.h"
#include "store/db.h"
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
	/* tracing on and the stop (capture_window): the recording ran 2 s (first_ts is a
	 * decoy, and so is INFO's start before set-up) */
	fx_exec(db, "INSERT INTO meta VALUES ('traced_from_ns', '0'), ('complete_from_ns', '0'), "
		"('traced_until_ns', '%lld'), ('start_trace_ns', '-5000000000'), ('first_ts', '12345')", 2 * SEC);
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

	assert_int_equal(fx_run("funccount", db, &out, 5, argv), 0);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_interval_rows WHERE interval = 0 AND func = 'vfs_read'"), 3);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_interval_rows WHERE interval = 1 AND func = 'vfs_write'"), 4);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_interval_rows WHERE interval = 1 AND func = 'vfs_read'"), 3);
	/* largest last within each interval */
	assert_string_equal(fx_text(db, "SELECT group_concat(func) FROM fc_interval_rows WHERE interval = 0"),
			    "vfs_write,vfs_read");
	/* totals: vfs_read 3 + 3 = 6, vfs_write 5, over 2 s */
	assert_int_equal(fx_int(db, "SELECT count FROM fc_totals WHERE func = 'vfs_read'"), 6);
	assert_string_equal(fx_text(db, "SELECT rate_per_s FROM fc_totals WHERE func = 'vfs_write'"), "2.5");
	assert_int_equal(fx_int(db, "SELECT count(*) FROM fc_totals WHERE func = 'rw_verify_area'"), 0);
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

	assert_int_equal(fx_run("funccount", db, &out, 3, argv), 0);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM fc_totals"), 1);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_totals WHERE func = 'vfs_read'"), 13);
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

	assert_int_equal(fx_run("funccount", db, &out, 3, bad), CMD_EXIT_ERROR);
	free(out);
	/* no function table: a one-line error, not an SQL failure */
	assert_int_equal(fx_run("funccount", db, &out, 1, none), CMD_EXIT_ERROR);
	free(out);
	fx_close(db);
}

/*
 * Profiler rounds at 0, 1.002, 2.001 and 2.5 s (the stop) after the start at
 * 100 s, running totals per CPU:
 *            round:   0    1    2    3
 *   cpu0 vfs_read     0   10   25   30
 *   cpu1 vfs_read     -    5    5    8    (not hit before round 1: no row)
 *   cpu0 vfs_write    -    -    4    4
 *   cpu1 do_sys_open  -   50    3    3    (reset by someone else after round 1)
 * Calls made between two rounds belong to the interval of the earlier one:
 *   interval 0: vfs_read 10+5 = 15, do_sys_open 50
 *   interval 1: vfs_read 15+0 = 15, vfs_write 4, do_sys_open 3 (the new total)
 *   interval 2: vfs_read 5+3 = 8
 */
static sqlite3 *profile_db(void)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(db_exec_file(db, "schema/tables.sql"), 0);
	fx_exec(db, "INSERT INTO meta VALUES ('function_profile', '1'), ('snapshot_interval_ns', '%lld')", SEC);
	fx_exec(db, "INSERT INTO profile_rounds VALUES (0, %lld, 0), (1, %lld, 0), (2, %lld, 0), (3, %lld, 0)",
		100 * SEC, 101 * SEC + 2000000, 102 * SEC + 1000000, 102 * SEC + SEC / 2);
	fx_exec(db, "INSERT INTO function_profile(round, cpu, func, hits) VALUES "
		"(0, 0, 'vfs_read', 0), (1, 0, 'vfs_read', 10), (2, 0, 'vfs_read', 25), (3, 0, 'vfs_read', 30), "
		"(1, 1, 'vfs_read', 5), (2, 1, 'vfs_read', 5), (3, 1, 'vfs_read', 8), "
		"(2, 0, 'vfs_write', 4), (3, 0, 'vfs_write', 4), "
		"(1, 1, 'do_sys_open', 50), (2, 1, 'do_sys_open', 3), (3, 1, 'do_sys_open', 3)");
	return db;
}

static void test_profile_intervals(void **state)
{
	sqlite3 *db = profile_db();
	char *out;
	char *argv[] = { "funccount", "-i", "1", NULL };

	assert_int_equal(fx_run("funccount", db, &out, 3, argv), 0);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_interval_rows WHERE interval = 0 AND func = 'vfs_read'"), 15);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_interval_rows WHERE interval = 0 AND func = 'do_sys_open'"), 50);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_interval_rows WHERE interval = 1 AND func = 'vfs_read'"), 15);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_interval_rows WHERE interval = 1 AND func = 'vfs_write'"), 4);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_interval_rows WHERE interval = 1 AND func = 'do_sys_open'"), 3);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_interval_rows WHERE interval = 2 AND func = 'vfs_read'"), 8);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM fc_interval_rows WHERE interval = 2"), 1);
	/* totals over the 2.5 s between the first and the last round */
	assert_int_equal(fx_int(db, "SELECT count FROM fc_totals WHERE func = 'vfs_read'"), 38);
	assert_string_equal(fx_text(db, "SELECT rate_per_s FROM fc_totals WHERE func = 'vfs_read'"), "15.2");
	assert_int_equal(fx_int(db, "SELECT count FROM fc_totals WHERE func = 'do_sys_open'"), 53);
	/* what the counts come from is a note (stderr with -v), not part of the listing */
	assert_int_equal(fx_count_lines(out, "function profiler"), 0);
	assert_int_equal(fx_count_lines(out, "interval 3 (102.000 - 103.000 s)"), 1);
	assert_int_equal(fx_count_lines(out, "total over 2.500 s"), 1);
	free(out);

	/* One interval; -p cannot apply to counts the profiler made for every task. */
	char *plain[] = { "funccount", NULL };
	assert_int_equal(fx_run("funccount", db, &out, 1, plain), 0);
	assert_int_equal(fx_int(db, "SELECT count(DISTINCT interval) FROM fc_counts"), 1);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_totals WHERE func = 'vfs_write'"), 4);
	free(out);
	char *pid[] = { "funccount", "-p", "5", NULL };
	assert_int_equal(fx_run("funccount", db, &out, 3, pid), CMD_EXIT_ERROR);
	free(out);
	fx_close(db);
}

/*
 * Whole rounds in a time window (the EARLIER round's time decides), --cpu on the
 * profiler's per-CPU counts, task filters refused: the profiler counts every task.
 * Rounds start (the round before) at 100, 101.002 and 102.001 s; no first_ts, so
 * --since/--until seconds are the trace clock's.
 */
static void test_profile_slice(void **state)
{
	sqlite3 *db = profile_db();
	char *out;
	char *since[] = { "funccount", "--since", "101", NULL };
	char *window[] = { "funccount", "--since", "101", "--until", "102.001", NULL };
	char *cpu1[] = { "funccount", "--cpu", "1", NULL };
	char *tid[] = { "funccount", "-L", "5", NULL };
	char *comm[] = { "funccount", "-n", "x", NULL };

	/* rounds 2 and 3: vfs_read 15 + 8, vfs_write 4, do_sys_open 3 (the new total) */
	assert_int_equal(fx_run("funccount", db, &out, 3, since), 0);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_totals WHERE func = 'vfs_read'"), 23);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_totals WHERE func = 'vfs_write'"), 4);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_totals WHERE func = 'do_sys_open'"), 3);
	/* the rate over the rounds taken: 101.002 .. 102.5 s */
	assert_int_equal(fx_int(db, "SELECT value FROM report_args WHERE key = 'duration_ns'"),
			 102 * SEC + SEC / 2 - (101 * SEC + 2000000));
	free(out);
	/* until is exclusive: the round taken at 102.001 s is out */
	assert_int_equal(fx_run("funccount", db, &out, 5, window), 0);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_totals WHERE func = 'vfs_read'"), 15);
	free(out);
	/* CPU 1 only: vfs_read 5 + 0 + 3, do_sys_open 50 + 3 */
	assert_int_equal(fx_run("funccount", db, &out, 3, cpu1), 0);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_totals WHERE func = 'vfs_read'"), 8);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_totals WHERE func = 'do_sys_open'"), 53);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM fc_totals WHERE func = 'vfs_write'"), 0);
	free(out);
	assert_int_equal(fx_run("funccount", db, &out, 3, tid), CMD_EXIT_ERROR);
	free(out);
	assert_int_equal(fx_run("funccount", db, &out, 3, comm), CMD_EXIT_ERROR);
	free(out);
	fx_close(db);
}

/*
 * The slice on function events: each call by its own ts, cpu and pid.
 * Tasks: 100 (process 100), 101 (a thread of 100), 200, 300 (ftrec's own thread).
 * vfs_read calls, in time order:
 *   id ts     cpu pid
 *   1  0 s    0   100
 *   2  1 s    0   100    (--since 1: inclusive)
 *   3  2 s-1  0   200
 *   4  2 s    1   101    (--until 2: exclusive)
 *   5  3 s    1   300    (ftrec: left out unless --include-ftrec)
 * The recording ran 0 .. 4 s.
 */
static sqlite3 *slice_db(void)
{
	sqlite3 *db = fx_open();

	fx_exec(db, "CREATE TABLE function(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, ip, parent_ip)");
	fx_exec(db, "CREATE TABLE event_types(type_id, system, name, table_name, format, print_fmt, count)");
	fx_exec(db, "INSERT INTO event_types VALUES (1, 'ftrace', 'function', 'function', '', '', 5)");
	fx_exec(db, "INSERT INTO symbols VALUES (%lld, 'vfs_read', 'T', NULL)", KADDR(0x1000));
	fx_exec(db, "INSERT INTO tasks VALUES (100, 100, 'app'), (101, 100, 'app-worker'), "
		"(200, 200, 'other'), (300, 300, 'ftrec')");
	fx_exec(db, "INSERT INTO meta VALUES ('traced_from_ns', '0'), ('complete_from_ns', '0'), "
		"('traced_until_ns', '%lld'), ('first_ts', '0'), ('last_ts', '%lld'), ('ftrec_tids', '300')",
		4 * SEC, 3 * SEC);
	fx_exec(db, "INSERT INTO function VALUES (1, 0, 0, 100, NULL, %lld, 0), (2, %lld, 0, 100, NULL, %lld, 0), "
		"(3, %lld, 0, 200, NULL, %lld, 0), (4, %lld, 1, 101, NULL, %lld, 0), (5, %lld, 1, 300, NULL, %lld, 0)",
		KADDR(0x1004), SEC, KADDR(0x1004), 2 * SEC - 1, KADDR(0x1004), 2 * SEC, KADDR(0x1004),
		3 * SEC, KADDR(0x1004));
	return db;
}

/* vfs_read's total after `funccount ARGS...` (NULL-terminated); -1 when it has no row. */
static long long total_with(sqlite3 *db, ...)
{
	char *argv[16] = { "funccount" }, *out;
	int argc = 1;
	va_list ap;

	va_start(ap, db);
	for (char *a; argc < 15 && (a = va_arg(ap, char *)); )
		argv[argc++] = a;
	va_end(ap);
	assert_int_equal(fx_run("funccount", db, &out, argc, argv), 0);
	free(out);
	return fx_int(db, "SELECT coalesce((SELECT count FROM fc_totals WHERE func = 'vfs_read'), -1)");
}

static void test_slice(void **state)
{
	sqlite3 *db = slice_db();

	assert_int_equal(total_with(db, NULL), 4);
	assert_int_equal(total_with(db, "--include-ftrec", NULL), 5);
	/* ids 2 and 3: since inclusive, until exclusive; the rate over that 1 s */
	assert_int_equal(total_with(db, "--since", "1", "--until", "2", NULL), 2);
	assert_string_equal(fx_text(db, "SELECT rate_per_s FROM fc_totals"), "2.0");
	assert_int_equal(total_with(db, "--since", "2", NULL), 1);
	assert_int_equal(total_with(db, "--until", "1", NULL), 1);
	/* -p: the process, its thread 101 included; -L: that thread only */
	assert_int_equal(total_with(db, "-p", "100", NULL), 3);
	assert_string_equal(fx_text(db, "SELECT rate_per_s FROM fc_totals"), "0.75");
	assert_int_equal(total_with(db, "-L", "101", NULL), 1);
	assert_int_equal(total_with(db, "-p", "101", NULL), 1); /* a thread id is not a process */
	assert_int_equal(total_with(db, "-n", "^app", NULL), 3);
	assert_int_equal(total_with(db, "--cpu", "1", NULL), 1);
	assert_int_equal(total_with(db, "--cpu", "1", "--include-ftrec", NULL), 2);
	assert_int_equal(total_with(db, "-p", "300", NULL), -1); /* ftrec's, left out */
	assert_int_equal(total_with(db, "-p", "300", "--include-ftrec", NULL), 1);
	fx_close(db);
}

/* -T, -i, -t and the CSV/JSON tables. */
static void test_tables(void **state)
{
	sqlite3 *db = count_db();
	char *out;
	char *totals[] = { "funccount", "-i", "1", "--totals", NULL };
	char *json[] = { "funccount", "-i", "1", "--json", NULL };
	char *csv[] = { "funccount", "-i", "1", "--csv", NULL };
	char *csv_totals[] = { "funccount", "-i", "1", "--totals", "--csv", NULL };
	char *top_json[] = { "funccount", "-t", "1", "-i", "1", "--json", NULL };
	char *bad_top[] = { "funccount", "-t", "-1", NULL };

	/* -T: the totals table only, no interval tables */
	assert_int_equal(fx_run("funccount", db, &out, 4, totals), 0);
	assert_int_equal(fx_count_lines(out, "interval"), 0);
	assert_int_equal(fx_count_lines(out, "total over"), 0);
	assert_int_equal(fx_count_lines(out, "func "), 1);
	assert_int_equal(fx_count_lines(out, "vfs_read "), 1);
	free(out);
	/* JSON: both tables under their keys, snake_case columns */
	assert_int_equal(fx_run("funccount", db, &out, 4, json), 0);
	assert_non_null(strstr(out, "\"intervals\":["));
	assert_non_null(strstr(out, "{\"interval\":1,\"start_s\":0.0,\"end_s\":1.0,\"func\":\"vfs_write\",\"count\":1}"));
	assert_non_null(strstr(out, "{\"interval\":2,\"start_s\":1.0,\"end_s\":2.0,\"func\":\"vfs_read\",\"count\":10}"));
	assert_non_null(strstr(out, "\"rows\":["));
	assert_non_null(strstr(out, "{\"func\":\"vfs_read\",\"count\":13,\"rate_per_s\":6.5}"));
	free(out);
	/* CSV holds one table: the intervals with -i, the totals with -T */
	assert_int_equal(fx_run("funccount", db, &out, 4, csv), 0);
	assert_true(strncmp(out, "interval,start_s,end_s,func,count\n", 34) == 0);
	assert_int_equal(fx_count_lines(out, "rate_per_s"), 0);
	free(out);
	assert_int_equal(fx_run("funccount", db, &out, 5, csv_totals), 0);
	assert_string_equal(out, "func,count,rate_per_s\nvfs_write,5,2.5\nvfs_read,13,6.5\n");
	free(out);
	/* -t 1: the busiest function per interval and in total */
	assert_int_equal(fx_run("funccount", db, &out, 6, top_json), 0);
	assert_null(strstr(out, "vfs_write"));
	free(out);
	assert_int_equal(fx_run("funccount", db, &out, 3, bad_top), CMD_EXIT_ERROR);
	free(out);
	char *half_top[] = { "funccount", "-t", "1.5", NULL };
	assert_int_equal(fx_run("funccount", db, &out, 3, half_top), CMD_EXIT_ERROR);
	free(out);
	/* intervals in whole ns whose ends stay inside int64 ns */
	char *huge[] = { "funccount", "-i", "1e9", NULL }, *tiny[] = { "funccount", "-i", "1e-10", NULL };
	assert_int_equal(fx_run("funccount", db, &out, 3, huge), CMD_EXIT_ERROR);
	free(out);
	assert_int_equal(fx_run("funccount", db, &out, 3, tiny), CMD_EXIT_ERROR);
	free(out);
	fx_close(db);
}

/*
 * The kernel prints profiler names with "%-30.30s": a name cut to 30 characters gets
 * its full kallsyms name back when exactly one symbol starts with it.
 */
static void test_profile_cut_names(void **state)
{
	sqlite3 *db;
	const char *unique = "ext4_ext_handle_unwritten_extents_long"; /* 38 characters */
	const char *twin_a = "security_inode_copy_up_xattr_x_one", *twin_b = "security_inode_copy_up_xattr_x_two";

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(db_exec_file(db, "schema/tables.sql"), 0);
	fx_exec(db, "INSERT INTO symbols VALUES (1, '%s', 't', NULL), (2, '%s', 't', NULL), "
		"(3, '%s', 't', NULL), (4, 'vfs_read', 'T', NULL)", unique, twin_a, twin_b);
	fx_exec(db, "INSERT INTO function_profile(round, cpu, func, hits) VALUES "
		"(0, 0, substr('%s', 1, 30), 7), (0, 0, substr('%s', 1, 30), 3), (0, 1, 'vfs_read', 2)",
		unique, twin_a);
	assert_int_equal(db_exec_file(db, "schema/profile_names.sql"), 0);
	assert_int_equal(fx_int(db, "SELECT hits FROM function_profile WHERE func = '%s'", unique), 7);
	/* two symbols share the cut name: it stays as the kernel printed it */
	assert_int_equal(fx_int(db, "SELECT hits FROM function_profile WHERE func = substr('%s', 1, 30)", twin_a), 3);
	assert_int_equal(fx_int(db, "SELECT hits FROM function_profile WHERE func = 'vfs_read'"), 2);
	fx_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_all_pids_top),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_profile_intervals),
		cmocka_unit_test(test_profile_slice),
		cmocka_unit_test(test_slice),
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_profile_cut_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
