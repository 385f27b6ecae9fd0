/* SPDX-License-Identifier: MIT */
/*
 * test_report_slice.c - the slice every report is cut to (reports/report_slice.c), on
 * hand-made rows whose answers are known by construction: a test report selects
 * `SELECT id FROM ev WHERE <the report SQL's slice test>` through the real front end.
 *
 * Boundaries: --since is inclusive, --until exclusive; "seconds from the first event";
 * wall-clock times are UTC via meta.wall_offset_ns. -p is the process (every thread
 * whose tasks.tgid is PID, and PID itself), -L one thread, -n the comm, --cpu a list;
 * ftrec's own threads (meta.ftrec_tids) are left out unless --include-ftrec.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/cmd.h"
#include "reports/report.h"
#include "tests/report_func_fixture.h"

/* first event at 1000 s of the trace clock; the wall clock then reads 2026-12-03T10:00:00Z */
#define FIRST_NS 1000000000000LL
#define WALL_AT_FIRST_NS 1796292000000000000LL /* 2026-12-03T10:00:00Z */

static int ids_run(struct report_ctx *ctx)
{
	return doc_table(ctx, "rows",
		"SELECT group_concat(id, ' ') AS ids FROM (SELECT id FROM ev "
		"WHERE id BETWEEN (SELECT lo_id FROM temp.slice) AND (SELECT hi_id FROM temp.slice) "
		"AND in_slice(ts, cpu, pid) ORDER BY id)") ? CMD_EXIT_ERROR : CMD_EXIT_OK;
}

static const struct report_def ids_def = {
	.name = "ids", .summary = "test: the ids in the slice", .run = ids_run,
};

/*
 * Ten events, one every 100 ms from FIRST_NS: id i at FIRST_NS + (i-1) * 100 ms,
 * cpu (i-1) % 4; pids: 1-3 -> 100 (process 100's main thread), 4-5 -> 101 (a thread
 * of 100), 6-7 -> 200 ("other"), 8 -> 300 (ftrec), 9 -> 999 (no tasks row), 10 -> NULL.
 */
static sqlite3 *slice_db(void)
{
	static const int pids[] = { 100, 100, 100, 101, 101, 200, 200, 300, 999, -1 };
	sqlite3 *db = fx_open();

	fx_exec(db, "CREATE TABLE event_types (type_id INTEGER PRIMARY KEY, system TEXT, name TEXT, "
		"table_name TEXT, format TEXT, print_fmt TEXT, count INTEGER)");
	fx_exec(db, "INSERT INTO event_types VALUES (1, 'test', 'ev', 'ev', NULL, NULL, 10)");
	fx_exec(db, "CREATE TABLE ev (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id)");
	for (int i = 1; i <= 10; i++)
		fx_exec(db, "INSERT INTO ev VALUES (%d, %lld, %d, %s, NULL)", i,
			FIRST_NS + (i - 1) * 100000000LL, (i - 1) % 4,
			pids[i - 1] < 0 ? "NULL" : sqlite3_snprintf(16, (char[16]){ 0 }, "%d", pids[i - 1]));
	fx_exec(db, "INSERT INTO tasks VALUES (100, 100, 'server'), (101, 100, 'worker'), "
		"(200, 200, 'other'), (300, 300, 'ftrec')");
	fx_exec(db, "INSERT INTO meta VALUES ('first_ts', '%lld'), ('last_ts', '%lld'), "
		"('wall_offset_ns', '%lld'), ('ftrec_tids', '300 301')",
		FIRST_NS, FIRST_NS + 900000000LL, WALL_AT_FIRST_NS - FIRST_NS);
	return db;
}

/* The ids the slice of these options keeps ("" when none), or "error" on exit != 0. */
static char *ids_for(sqlite3 *db, const char *opt1, const char *opt2, const char *opt3)
{
	char *argv[] = { "ids", (char *)opt1, (char *)opt2, (char *)opt3, NULL };
	int argc = 1 + !!opt1 + !!opt2 + !!opt3;
	const char *flags[] = { "--csv", "--no-header" };
	char *all[8] = { 0 }, *out = NULL;
	int n = 0;

	for (int i = 0; i < argc; i++)
		all[n++] = argv[i];
	all[n++] = (char *)flags[0];
	all[n++] = (char *)flags[1];
	struct fx_capture c;

	fx_capture_begin(&c, STDOUT_FILENO);
	int rc = front_run_db(&ids_def, db, NULL, n, all);
	out = fx_capture_end(&c);
	if (rc) {
		free(out);
		return strdup("error");
	}
	out[strcspn(out, "\r\n")] = 0;
	/* CSV quotes nothing here: ids and spaces */
	return out;
}

#define EXPECT_IDS(db, want, a, b, c) do { \
	char *got = ids_for(db, a, b, c); \
	assert_string_equal(got, want); \
	free(got); \
} while (0)

static void test_time_window(void **state)
{
	sqlite3 *db = slice_db();

	/* no slice: everything but ftrec's thread (8) */
	EXPECT_IDS(db, "1 2 3 4 5 6 7 9 10", NULL, NULL, NULL);
	/* seconds from the first event: since inclusive, until exclusive */
	EXPECT_IDS(db, "3 4", "--since=0.2", "--until=0.4", NULL);
	EXPECT_IDS(db, "3 4 5", "--since", "0.2", "--until=0.400000001");
	EXPECT_IDS(db, "10", "--since=0.9", NULL, NULL);
	EXPECT_IDS(db, "1", "--until=0.000000001", NULL, NULL);
	EXPECT_IDS(db, "error", "--since=5", NULL, NULL); /* after the capture: its span said */
	/* trace-clock seconds as listings print them; +SECS from the first event */
	EXPECT_IDS(db, "3 4", "--since=1000.2", "--until=1000.4", NULL);
	EXPECT_IDS(db, "3 4", "--since=+0.2", "--until=+0.4", NULL);
	EXPECT_IDS(db, "error", "--until=2026-12-03T09:59:59Z", NULL, NULL); /* before the capture */
	EXPECT_IDS(db, "error", "--since=9999-12-31T23:59:59Z", NULL, NULL);
	EXPECT_IDS(db, "1 2 3 4 5 6 7 9 10", "--until=9999-12-31T23:59:59Z", NULL, NULL); /* all: as with no --until */
	/* wall clock, UTC: HH:MM:SS[.frac] and ISO 8601 with Z, an offset, or none */
	EXPECT_IDS(db, "6 7", "--since=10:00:00.5", "--until=10:00:00.7", NULL);
	EXPECT_IDS(db, "6 7", "--since=2026-12-03T10:00:00.5Z", "--until=2026-12-03T11:00:00.7+01:00", NULL);
	EXPECT_IDS(db, "2", "--since=2026-12-03 10:00:00.1", "--until=2026-12-03T10:00:00.15", NULL);
	/* an empty or reversed window, and bad times, are errors */
	EXPECT_IDS(db, "error", "--since=0.5", "--until=0.5", NULL);
	EXPECT_IDS(db, "error", "--since=0.5", "--until=0.1", NULL);
	EXPECT_IDS(db, "error", "--since=-1", NULL, NULL);
	EXPECT_IDS(db, "error", "--since=1e3", NULL, NULL);
	EXPECT_IDS(db, "error", "--since=25:00:00", NULL, NULL);
	EXPECT_IDS(db, "error", "--since=2026-13-03T10:00:00Z", NULL, NULL);
	EXPECT_IDS(db, "error", "--since=2026-12-03T10:00:00+5", NULL, NULL);
	EXPECT_IDS(db, "error", "--until=", NULL, NULL);
	/* the id range in temp.slice matches the window */
	char *got = ids_for(db, "--since=0.2", "--until=0.4", NULL);
	free(got);
	assert_int_equal(fx_int(db, "SELECT lo_id FROM temp.slice"), 3);
	assert_int_equal(fx_int(db, "SELECT hi_id FROM temp.slice"), 4);
	fx_close(db);
}

static void test_tasks(void **state)
{
	sqlite3 *db = slice_db();

	/* -p: the process, every thread of it */
	EXPECT_IDS(db, "1 2 3 4 5", "-p", "100", NULL);
	/* a thread id given as -p is not a process: only threads whose tgid it is */
	EXPECT_IDS(db, "4 5", "-p", "101", NULL);
	/* a pid the capture has no task for: its own events */
	EXPECT_IDS(db, "9", "-p999", NULL, NULL);
	/* -L: one thread */
	EXPECT_IDS(db, "4 5", "-L", "101", NULL);
	EXPECT_IDS(db, "", "-L", "100", "-p200");
	/* -n: the comm (POSIX ERE); an unknown task has no comm */
	EXPECT_IDS(db, "1 2 3 4 5", "-n", "^(server|worker)$", NULL);
	EXPECT_IDS(db, "6 7", "-nth", NULL, NULL);
	/* ftrec's threads only with --include-ftrec, and then like any task */
	EXPECT_IDS(db, "1 2 3 4 5 6 7 8 9 10", "--include-ftrec", NULL, NULL);
	EXPECT_IDS(db, "8", "--include-ftrec", "-n", "ftrec");
	EXPECT_IDS(db, "", "-n", "ftrec", NULL);
	/* a NULL pid fails any task filter */
	EXPECT_IDS(db, "error", "-p", "-1", NULL);
	EXPECT_IDS(db, "error", "-p", "abc", NULL);
	EXPECT_IDS(db, "error", "-p", "99999999999", NULL);
	EXPECT_IDS(db, "error", "-n", "(", NULL);
	fx_close(db);
}

static void test_cpus(void **state)
{
	sqlite3 *db = slice_db();

	EXPECT_IDS(db, "1 5 9", "--cpu", "0", NULL);
	EXPECT_IDS(db, "2 3 6 7 10", "--cpu=1-2", NULL, NULL);
	EXPECT_IDS(db, "1 4 5 9", "--cpu=0,3", NULL, NULL);
	EXPECT_IDS(db, "4", "--cpu=3", "--since=0.3", "--until=0.7");
	EXPECT_IDS(db, "error", "--cpu=2-1", NULL, NULL);
	EXPECT_IDS(db, "error", "--cpu=0,", NULL, NULL);
	EXPECT_IDS(db, "error", "--cpu=x", NULL, NULL);
	EXPECT_IDS(db, "error", "--cpu=99999999", NULL, NULL);
	fx_close(db);
}

/* The output contract's shared parts: CSV and JSON exclude each other, stray args. */
static void test_front_errors(void **state)
{
	sqlite3 *db = slice_db();

	EXPECT_IDS(db, "error", "--json", NULL, NULL); /* --json with --csv (ids_for adds it) */
	EXPECT_IDS(db, "error", "stray", NULL, NULL);
	EXPECT_IDS(db, "error", "--nosuch", NULL, NULL);
	EXPECT_IDS(db, "error", "-x", NULL, NULL);
	EXPECT_IDS(db, "error", "--since", NULL, NULL);
	fx_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_window),
		cmocka_unit_test(test_tasks),
		cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_front_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
