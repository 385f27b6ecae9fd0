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

#include "common/cmd.h"
#include "tests/report_func_fixture.h"

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

	assert_int_equal(fx_run("stacks", db, &out, 2, argv), 0);
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
	assert_int_equal(fx_run("stacks", db, &out, 3, argv), 0);
	/* The loss at 350 is inside block_rq_insert's 100..500, the one at 900 is not:
	 * a warning on stderr (in "warnings" with --json), the listing alone on stdout. */
	assert_true(strncmp(out, "  blk_mq_insert_request\n  submit_bio\n  do_syscall_64\n"
				 "    3 (75.0%)\n", 65) == 0);
	assert_non_null(strstr(out, "\n  0xff\n  schedule\n  do_syscall_64\n    1 (25.0%)\n"));
	free(out);

	char *bad[] = { "stacks", "--event", "nothing", NULL };
	assert_int_equal(fx_run("stacks", db, &out, 3, bad), CMD_EXIT_ERROR);
	free(out);
	fx_close(db);
}

/* The rows in JSON, and the warning about the loss inside the document. */
static void test_json(void **state)
{
	sqlite3 *db = stacks_db();
	char *out, *argv[] = { "stacks", "--json", "-e", "block_rq_insert", NULL };
	char *bad[] = { "stacks", "--json", "--folded", NULL };

	fx_exec(db, "INSERT INTO lost_events VALUES (1, 350, 12)");
	assert_int_equal(fx_run("stacks", db, &out, 4, argv), 0);
	assert_non_null(strstr(out, "\"rows\":[\n{\"count\":3,\"frames\":\"do_syscall_64;submit_bio;blk_mq_insert_request\"},\n"
				    "{\"count\":1,\"frames\":\"do_syscall_64;schedule;0xff\"}\n]"));
	assert_non_null(strstr(out, "\"warnings\":[\"the capture lost 12 events"));
	free(out);
	/* --folded is FlameGraph's text: not with --csv/--json */
	assert_int_equal(fx_run("stacks", db, &out, 3, bad), CMD_EXIT_ERROR);
	free(out);
	fx_close(db);
}

/*
 * The slice: the event carrying the stack decides (its ts, cpu, pid).
 * block_rq_insert ids 1-5 at 100..500 ns; sched_switch 6-8 at 600..800 ns.
 * Tasks: 9 (process 9), 10 (its thread, ids 7 and 8 moved to it), 11 (ftrec, id 5).
 */
static void test_slice(void **state)
{
	sqlite3 *db = stacks_db();
	char *out;

	fx_exec(db, "INSERT INTO meta VALUES ('first_ts', '0'), ('ftrec_tids', '11')");
	fx_exec(db, "INSERT INTO tasks VALUES (9, 9, 'dd'), (10, 9, 'dd-worker'), (11, 11, 'ftrec')");
	fx_exec(db, "UPDATE sched_switch SET pid = 10, cpu = 1 WHERE id IN (7, 8)");
	fx_exec(db, "UPDATE block_rq_insert SET pid = 11 WHERE id = 5");

	struct { char *argv[6]; int argc; const char *folded; } cases[] = {
		/* ftrec's id 5 left out: schedule 3 (6, 7, 8) */
		{ { "stacks", "--folded" }, 2,
		  "do_syscall_64;schedule;0xff 3\ndo_syscall_64;submit_bio;blk_mq_insert_request 3\n" },
		{ { "stacks", "--folded", "--include-ftrec" }, 3,
		  "do_syscall_64;schedule;0xff 4\ndo_syscall_64;submit_bio;blk_mq_insert_request 3\n" },
		/* [1e-7 s, 6e-7 s): ids 1..5 but 1, ftrec's 5 out: 2, 3 (4 has no stack) */
		{ { "stacks", "--folded", "--since", "0.0000002", "--until", "0.0000006" }, 6,
		  "do_syscall_64;submit_bio;blk_mq_insert_request 2\n" },
		/* -L 10: ids 7, 8; -p 9: every thread of 9 */
		{ { "stacks", "--folded", "-L", "10" }, 4, "do_syscall_64;schedule;0xff 2\n" },
		{ { "stacks", "--folded", "-p", "9" }, 4,
		  "do_syscall_64;schedule;0xff 3\ndo_syscall_64;submit_bio;blk_mq_insert_request 3\n" },
		{ { "stacks", "--folded", "--cpu", "1" }, 4,
		  "do_syscall_64;schedule;0xff 2\ndo_syscall_64;submit_bio;blk_mq_insert_request 1\n" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(fx_run("stacks", db, &out, cases[i].argc, cases[i].argv), 0);
		if (strcmp(out, cases[i].folded))
			fail_msg("case %zu: got\n%swant\n%s", i, out, cases[i].folded);
		free(out);
	}
	fx_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_one_event),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_slice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
