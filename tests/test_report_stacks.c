/* SPDX-License-Identifier: MIT */
/*
 * test_report_stacks.c - `ftana report stacks` on hand-made stacks whose counts are
 * known by construction: two stack_ids that differ only in return offsets inside the
 * same functions count as one stack, an unresolved address stays as hex, events
 * without a stack are not counted, --event picks one table, --folded is root first
 * and most frequent first, and a loss inside the events' time range is reported.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "analyze/ftana.h"
#include "tests/report_func_fixture.h"

int report_stacks(sqlite3 *db, int argc, char **argv);

static sqlite3 *stacks_db(void)
{
	sqlite3 *db = fx_open();

	fx_exec(db, "CREATE TABLE stacks(stack_id, depth, addr, symbol)");
	fx_exec(db, "CREATE TABLE lost_events(cpu, ts, count)");
	fx_exec(db, "CREATE TABLE block_rq_insert(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, rwbs)");
	fx_exec(db, "CREATE TABLE sched_switch(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, prev_pid)");
	/* 1 and 2: the same functions at other offsets; 3: another path, one frame unknown. */
	fx_exec(db, "INSERT INTO stacks VALUES "
		"(1, 0, 10, 'blk_mq_insert_request+0x10/0x80'), (1, 1, 20, 'submit_bio'), "
		"(1, 2, 30, 'do_syscall_64'), "
		"(2, 0, 11, 'blk_mq_insert_request+0x18/0x80'), (2, 1, 21, 'submit_bio+0x4/0x9'), "
		"(2, 2, 31, 'do_syscall_64'), "
		"(3, 0, 255, NULL), (3, 1, 40, 'schedule'), (3, 2, 30, 'do_syscall_64')");
	fx_exec(db, "INSERT INTO block_rq_insert VALUES (1, 100, 0, 9, 1, 'R'), (2, 200, 0, 9, 2, 'R'), "
		"(3, 300, 1, 9, 1, 'R'), (4, 400, 1, 9, NULL, 'R'), (5, 500, 0, 9, 3, 'R')");
	fx_exec(db, "INSERT INTO sched_switch VALUES (6, 600, 0, 9, 3, 1), (7, 700, 0, 9, 3, 1), "
		"(8, 800, 0, 9, 3, 1)");
	return db;
}

static void test_folded(void **state)
{
	sqlite3 *db = stacks_db();
	char *out, *argv[] = { "stacks", "--folded", NULL };

	assert_int_equal(fx_report(report_stacks, db, &out, 2, argv), 0);
	assert_string_equal(out, "do_syscall_64;schedule;0xff 4\n"
				 "do_syscall_64;submit_bio;blk_mq_insert_request 3\n");
	free(out);
	fx_close(db);
}

static void test_one_event(void **state)
{
	sqlite3 *db = stacks_db();
	char *out, *argv[] = { "stacks", "--event", "block_rq_insert", NULL };

	fx_exec(db, "INSERT INTO lost_events VALUES (1, 350, 12), (0, 900, 5)");
	assert_int_equal(fx_report(report_stacks, db, &out, 3, argv), 0);
	/* The loss at 350 is inside block_rq_insert's 100..500, the one at 900 is not. */
	assert_true(strstr(out, "WARNING: the capture lost 12 events") == out);
	assert_non_null(strstr(out, "4 events with a kernel stack, 2 distinct stacks\n"));
	assert_non_null(strstr(out, "\n  blk_mq_insert_request\n  submit_bio\n  do_syscall_64\n"
				    "    3 (75.0%)\n"));
	assert_non_null(strstr(out, "\n  0xff\n  schedule\n  do_syscall_64\n    1 (25.0%)\n"));
	free(out);

	char *bad[] = { "stacks", "--event", "nothing", NULL };
	assert_int_equal(fx_report(report_stacks, db, &out, 3, bad), FTANA_EXIT_ERROR);
	free(out);
	fx_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_one_event),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
