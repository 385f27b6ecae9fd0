/* SPDX-License-Identifier: MIT */
/*
 * test_report_escape.c - the text reports on a capture whose comms, symbol names,
 * probe name, argument name and string value carry terminal control sequences
 * (an OSC title change "\x1b]0;pwned\x07", a screen clear "\x1b[2J", a newline, an
 * 8-bit CSI): no such byte reaches the output, each shows as \xHH. The checker
 * below looks at bytes itself (text_escape.c is not asked what is safe).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "reports/args.h"
#include "tests/report_func_fixture.h"

#define EVIL_COMM "\x1b]0;pwned\x07"
#define SAFE_COMM "\\x1b]0;pwned\\x07"
#define EVIL_SYM "clear\x1b[2Jme"
#define SAFE_SYM "clear\\x1b[2Jme"

/* Every byte a terminal acts on, except the newlines ending lines (and tab). */
static void assert_inert(const char *what, const char *out)
{
	for (const unsigned char *p = (const unsigned char *)out; *p; p++) {
		bool c0 = *p < 0x20 && *p != '\n' && *p != '\t';
		bool c1 = *p == 0x7f || (*p >= 0x80 && *p <= 0x9f && (p == (const unsigned char *)out ||
								       p[-1] < 0xc0));
		bool c1_utf8 = *p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;

		if (c0 || c1 || c1_utf8)
			fail_msg("%s: raw byte 0x%02x at %td in:\n%s", what, *p,
				 (const char *)p - out, out);
	}
}

/* Run report NAME through the front end (fx_run); its output must be inert and show must_show. */
static void run_front(const char *what, const char *name, sqlite3 *db, int argc, char **argv,
		      const char *must_show)
{
	char *out;

	assert_int_equal(fx_run(name, db, &out, argc, argv), 0);
	assert_inert(what, out);
	if (!strstr(out, must_show))
		fail_msg("%s: '%s' not in:\n%s", what, must_show, out);
	free(out);
}

static void kprobe_line_and_stack(void **state)
{
	sqlite3 *db = fx_open();

	(void)state;
	fx_exec(db, "INSERT INTO symbols VALUES (4096, '" EVIL_SYM "', 't', NULL)");
	fx_exec(db, "INSERT INTO tasks VALUES (42, 42, '" EVIL_COMM "')");
	fx_exec(db, "CREATE TABLE stacks (stack_id, depth, addr, symbol)");
	fx_exec(db, "INSERT INTO stacks VALUES (1, 0, 4096, '" EVIL_SYM "+0x0/0x10')");
	fx_exec(db, "CREATE TABLE \"probe\x1b[1m\"(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
		"__probe_ip, \"arg\x07\" TEXT)");
	fx_exec(db, "INSERT INTO \"probe\x1b[1m\" VALUES (1, 1500000000, 1, 42, 1, 4096, "
		"'line1\nline2\x9b" "2J')");
	char *argv[] = { "kprobe", NULL };
	run_front("kprobe", "kprobe", db, 1, argv,
	    SAFE_COMM "-42 [001] 1.500000: probe\\x1b[1m: (" SAFE_SYM "+0x0) arg\\x07=\"line1\\x0aline2\\x9b2J\"\n"
	    " => " SAFE_SYM "+0x0/0x10\n");
	fx_close(db);
}

static sqlite3 *stacks_db(void)
{
	sqlite3 *db = fx_open();

	fx_exec(db, "CREATE TABLE stacks(stack_id, depth, addr, symbol)");
	fx_exec(db, "INSERT INTO stacks VALUES (1, 0, 10, '" EVIL_SYM "'), (1, 1, 20, 'do_syscall_64')");
	fx_exec(db, "CREATE TABLE sched_switch(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id)");
	fx_exec(db, "INSERT INTO sched_switch VALUES (1, 100, 0, 9, 1), (2, 200, 0, 9, 1)");
	return db;
}

static void stacks_both_forms(void **state)
{
	sqlite3 *db = stacks_db();
	char *list[] = { "stacks", NULL }, *folded[] = { "stacks", "--folded", NULL };

	(void)state;
	run_front("stacks", "stacks", db, 1, list, "  " SAFE_SYM "\n  do_syscall_64\n    2 (100.0%)");
	run_front("stacks --folded", "stacks", db, 2, folded, "do_syscall_64;" SAFE_SYM " 2\n");
	fx_close(db);
}

static void funcgraph_graph_and_folded(void **state)
{
	sqlite3 *db = fx_open();
	char *graph[] = { "funcgraph", NULL }, *folded[] = { "funcgraph", "--folded", NULL };

	(void)state;
	fx_exec(db, "CREATE TABLE funcgraph_entry(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, func, depth)");
	fx_exec(db, "CREATE TABLE funcgraph_exit(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, func, depth, "
		"overrun, calltime, rettime)");
	fx_exec(db, "INSERT INTO symbols VALUES (4096, '" EVIL_SYM "', 'T', NULL), (8192, 'leaf', 'T', NULL)");
	fx_exec(db, "INSERT INTO funcgraph_entry VALUES (1, 1000, 0, 7, NULL, 4096, 0)");
	fx_exec(db, "INSERT INTO funcgraph_entry VALUES (2, 2000, 0, 7, NULL, 8192, 1)");
	fx_exec(db, "INSERT INTO funcgraph_exit VALUES (3, 3000, 0, 7, NULL, 8192, 1, 0, 5000, 6000)");
	fx_exec(db, "INSERT INTO funcgraph_exit VALUES (4, 4000, 0, 7, NULL, 4096, 0, 0, 4000, 9000)");
	run_front("funcgraph", "funcgraph", db, 1, graph, SAFE_SYM "() {");
	run_front("funcgraph close", "funcgraph", db, 1, graph, "} /* " SAFE_SYM " */");
	run_front("funcgraph --folded", "funcgraph", db, 2, folded, SAFE_SYM ";leaf");
	fx_close(db);
}

static void iolat_listing_summary_histogram(void **state)
{
	sqlite3 *db = fx_open();

	(void)state;
	fx_exec(db, "CREATE TABLE block_rq_issue(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
		"dev, sector, nr_sector, bytes, ioprio, rwbs, comm, cmd)");
	fx_exec(db, "CREATE TABLE block_rq_complete(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
		"dev, sector, nr_sector, error, ioprio, rwbs, cmd)");
	/* the rwbs text comes from the capture too */
	fx_exec(db, "INSERT INTO block_rq_issue VALUES (1, 1000000, 0, 42, NULL, %d, 8, 8, 4096, 0, "
		"'R\x1b[2J', '" EVIL_COMM "', '')", 253 << 20);
	fx_exec(db, "INSERT INTO block_rq_complete VALUES (2, 3000000, 0, 0, NULL, %d, 8, 8, 0, 0, "
		"'R\x1b[2J', '')", 253 << 20);
	char *list[] = { "iolat", "-s", "-t", NULL };
	char *summary[] = { "iolat", "--summary", "--by", "comm", NULL };
	char *hist[] = { "iolat", "--hist", "--by", "comm", NULL };
	char *by_type[] = { "iolat", "--summary", "--hist", "--by", "type", NULL };
	char *csv[] = { "iolat", "--csv", NULL };
	run_front("iolat", "iolat", db, 3, list, "\\x1b]0;pwned 42 "); /* COMM: 12 wide */
	run_front("iolat", "iolat", db, 3, list, "R\\x1b[2J");
	run_front("iolat --summary --by comm", "iolat", db, 4, summary, SAFE_COMM " ");
	run_front("iolat --hist --by comm", "iolat", db, 4, hist, "comm = " SAFE_COMM "\n");
	run_front("iolat --summary --hist --by type", "iolat", db, 5, by_type, "type = R\\x1b[2J\n");
	run_front("iolat --csv", "iolat", db, 2, csv, SAFE_COMM ",42,R\\x1b[2J,");
	fx_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kprobe_line_and_stack),
		cmocka_unit_test(stacks_both_forms),
		cmocka_unit_test(funcgraph_graph_and_folded),
		cmocka_unit_test(iolat_listing_summary_histogram),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
