/* SPDX-License-Identifier: MIT */
/*
 * test_derive_syscalls.c - derive_syscalls (import/derive_syscalls.c: every syscall
 * entry paired with its exit in one C pass) against its oracle, the SQL view it replaced
 * (tests/oracle/syscount.sql over reports/snoop.c's syscall_events): `syscall_calls`
 * (schema/reports/syscount.sql over the derived tables) equal row for row, value and
 * type, and syscall_range equal to the events' min and max time, on hand-made
 * databases: threads interleaved, an exit without its entry, exit_group and execve that
 * do not return, a loss on another CPU between an entry and its exit, an entry followed
 * by another syscall's exit or entry, tables renamed, hostile and shared names, hostile
 * values (times whose differences overflow, NULLs, texts, reals and blobs), no syscalls
 * at all, seeded randomized streams; derived into main (the importer's way) and into
 * TEMP (the reports'); the cap on threads inside a syscall; syscount --by process naming
 * a process by its lowest thread as it always has. syscall_totals (per syscall and
 * thread, made with the rows) against the sums of the rows, and `report syscount` read
 * from them equal to the report read from the rows, every --by, with and without -x and
 * -p, on the random streams; a hand-made database's values the sums cannot hold (a
 * text or real ret, an unknown time) leave them out (syscall_range.totals 0).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "import/derive.h"
#include "import/derive_util.h"
#include "reports/snoop.h"
#include "store/db.h"
#include "tests/report_func_fixture.h"
#include "tests/derive_fixture.h"

#define ORACLE "tests/oracle/syscount.sql"

static int next_id, next_type;

/* meta, tasks (report_func_fixture.h), event_types and lost_events as `ftana db` makes them. */
static sqlite3 *sys_db(void)
{
	sqlite3 *db = fx_open();

	next_id = 0;
	next_type = 500;
	fx_exec(db, "CREATE TABLE event_types (type_id INTEGER PRIMARY KEY, system TEXT NOT NULL, "
		"name TEXT NOT NULL, table_name TEXT, format TEXT, print_fmt TEXT, count INTEGER NOT NULL)");
	fx_exec(db, "CREATE TABLE lost_events (cpu INTEGER NOT NULL, ts INTEGER, count INTEGER)");
	fx_exec(db, "INSERT INTO meta VALUES ('uname_machine', 'x86_64')");
	fx_exec(db, "INSERT INTO tasks VALUES (10, 10, 'ten'), (11, 10, 'ten-b'), (12, 12, 'twelve'), "
		"(13, 10, 'ten-c')");
	return db;
}

/* The table of syscalls:EVENT, named TABLE, with a ret column (exits) or an argument. */
static void sys_table(sqlite3 *db, const char *event, const char *table, bool ret)
{
	char *sql = sqlite3_mprintf("CREATE TABLE \"%w\" (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
				    "__syscall_nr, %s); INSERT INTO event_types VALUES (%d, 'syscalls', "
				    "%Q, %Q, '', '', 0)", table, ret ? "ret" : "arg", next_type++, event, table);

	fx_exec(db, "%s", sql);
	sqlite3_free(sql);
}

/* An event of TABLE with its values as SQL literals; the next id. */
static int sys_sql(sqlite3 *db, const char *table, const char *ts, const char *cpu, const char *tid,
		   const char *value)
{
	char *sql = sqlite3_mprintf("INSERT INTO \"%w\" VALUES (%d, %s, %s, %s, NULL, 0, %s)", table,
				    ++next_id, ts, cpu, tid, value);

	fx_exec(db, "%s", sql);
	sqlite3_free(sql);
	return next_id;
}

static int sys(sqlite3 *db, const char *table, long long ts, int cpu, int tid, long long value)
{
	char t[32], c[16], p[16], v[32];

	snprintf(t, sizeof(t), "%lld", ts);
	snprintf(c, sizeof(c), "%d", cpu);
	snprintf(p, sizeof(p), "%d", tid);
	snprintf(v, sizeof(v), "%lld", value);
	return sys_sql(db, table, t, c, p, v);
}

/* getppid, read (a renamed table), exit_group, execve, openat: the usual tables. */
static void usual_tables(sqlite3 *db)
{
	sys_table(db, "sys_enter_getppid", "sys_enter_getppid", false);
	sys_table(db, "sys_exit_getppid", "sys_exit_getppid", true);
	sys_table(db, "sys_enter_read", "syscalls_sys_enter_read", false);
	sys_table(db, "sys_exit_read", "syscalls_sys_exit_read", true);
	sys_table(db, "sys_enter_exit_group", "sys_enter_exit_group", false);
	sys_table(db, "sys_enter_execve", "sys_enter_execve", false);
	sys_table(db, "sys_exit_execve", "sys_exit_execve", true);
	sys_table(db, "sys_enter_openat", "sys_enter_openat", false);
	sys_table(db, "sys_exit_openat", "sys_exit_openat", true);
}

/* A copy of the derived view as main.mine_calls (columns untyped: values as they are). */
static void keep_mine(sqlite3 *db)
{
	fx_exec(db, "CREATE TABLE main.mine_calls (id, ts, cpu, tid, pid, comm, syscall, exit_id, ret, "
		"dur_ns, errno, error); INSERT INTO main.mine_calls SELECT * FROM syscall_calls; "
		"DROP VIEW temp.syscall_calls");
}

/* The derived rows against the oracle's view, loaded now into TEMP; the range too. */
static void compare_oracle(sqlite3 *db, const char *range)
{
	dfx_load_oracle(db, ORACLE);
	dfx_same_rows(db, "syscall_calls", "SELECT * FROM main.mine_calls ORDER BY id",
		      "SELECT * FROM temp.syscall_calls ORDER BY id");
	dfx_same_rows(db, "syscall_range", range, "SELECT min(ts), max(ts) FROM syscall_events");
}

/* syscall_totals: the sums of the rows per syscall and thread, when they stand for
 * them (syscall_range.totals), else empty. */
static void compare_totals(sqlite3 *db)
{
	if (!fx_int(db, "SELECT totals FROM syscall_range")) {
		assert_int_equal(fx_int(db, "SELECT count(*) FROM syscall_totals"), 0);
		return;
	}
	dfx_same_rows(db, "syscall_totals",
		      "SELECT n.name AS syscall, t.tid, calls, errors, paired, dur_ns, error_dur_ns FROM syscall_totals t "
		      "JOIN syscall_names n USING (syscall) ORDER BY 1, 2",
		      "SELECT syscall, tid, count(*) AS calls, count(errno) AS errors, count(exit_id) AS paired, "
		      "sum(dur_ns) AS dur_ns, sum(CASE WHEN errno IS NOT NULL THEN dur_ns END) AS error_dur_ns "
		      "FROM main.mine_calls GROUP BY 1, 2 "
		      "ORDER BY 1, 2");
}

/* derive_syscalls into main (the importer's way), the views, then the oracle. */
static void check(sqlite3 *db)
{
	assert_int_equal(derive_syscalls(db, "main"), 0);
	assert_true(derive_present(db, "main", "syscalls"));
	assert_int_equal(snoop_views(db), 0);
	assert_false(derive_present(db, "temp", "syscalls"));
	keep_mine(db);
	compare_totals(db);
	compare_oracle(db, "SELECT first_ts AS \"min(ts)\", last_ts AS \"max(ts)\" FROM main.syscall_range");
}

/* The reports' way: snoop_views derives into TEMP, main lacking the tables. */
static void check_temp(sqlite3 *db)
{
	assert_false(derive_present(db, "main", "syscalls"));
	assert_int_equal(snoop_views(db), 0);
	assert_true(derive_present(db, "temp", "syscalls"));
	keep_mine(db);
	compare_totals(db);
	compare_oracle(db, "SELECT first_ts AS \"min(ts)\", last_ts AS \"max(ts)\" FROM temp.syscall_range");
}

static const char *call_of(sqlite3 *db, int id)
{
	return fx_text(db, "SELECT syscall || ' ' || coalesce(exit_id - id, '-') || ' ' || coalesce(ret, '-') "
		       "|| ' ' || coalesce(dur_ns, '-') || ' ' || coalesce(error, '-') FROM mine_calls "
		       "WHERE id = %d", id);
}

/* ---------------------------------------------------------------- the edges */

static void test_pairing(void **state)
{
	(void)state;
	sqlite3 *db = sys_db();

	usual_tables(db);
	int a = sys(db, "sys_enter_getppid", 100, 0, 10, 0);
	int b = sys(db, "syscalls_sys_enter_read", 110, 1, 11, 3);   /* interleaved thread */
	sys(db, "sys_exit_getppid", 150, 0, 10, 9);
	int c = sys(db, "sys_enter_getppid", 200, 0, 10, 0);
	sys(db, "syscalls_sys_exit_read", 260, 1, 11, -11);           /* EAGAIN */
	sys(db, "sys_exit_getppid", 300, 0, 10, 9);
	int d = sys(db, "syscalls_sys_enter_read", 400, 1, 11, 3);
	fx_exec(db, "INSERT INTO lost_events VALUES (0, 450, 7)");    /* another CPU, between */
	sys(db, "syscalls_sys_exit_read", 500, 1, 11, 1);
	sys(db, "sys_exit_openat", 510, 0, 12, 4);                     /* no entry: left out */
	int e = sys(db, "sys_enter_exit_group", 600, 0, 12, 3);        /* never returns */
	int f = sys(db, "sys_enter_getppid", 800, 0, 13, 0);
	sys(db, "syscalls_sys_exit_read", 900, 0, 13, 0);              /* another syscall's exit */
	int g = sys(db, "sys_enter_execve", 1000, 1, 10, 0);           /* the old image's entry */
	int h = sys(db, "sys_enter_openat", 1100, 1, 10, 0);           /* the new image's first call */
	sys(db, "sys_exit_openat", 1200, 1, 10, -2);
	int i = sys(db, "sys_enter_openat", 1300, 0, 13, 0);
	int j = sys(db, "sys_enter_openat", 1400, 0, 13, 0);            /* an entry after an entry */
	sys(db, "sys_exit_openat", 1500, 0, 13, 5);
	sys(db, "sys_exit_openat", 1600, 0, 13, 6);                    /* a second exit: left out */
	int k = sys(db, "sys_enter_getppid", 1700, 0, 12, 0);          /* the capture ends */
	fx_exec(db, "UPDATE event_types SET count = 4 WHERE name = 'sys_enter_getppid'");
	check(db);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM mine_calls"), 11);
	assert_string_equal(call_of(db, a), "getppid 2 9 50 -");
	assert_string_equal(call_of(db, b), "read 3 -11 150 EAGAIN");
	assert_string_equal(call_of(db, c), "getppid 2 9 100 -");
	assert_string_equal(call_of(db, d), "read - - - -");
	assert_string_equal(call_of(db, e), "exit_group - - - -");
	assert_string_equal(call_of(db, f), "getppid - - - -");
	assert_string_equal(call_of(db, g), "execve - - - -");
	assert_string_equal(call_of(db, h), "openat 1 -2 100 ENOENT");
	assert_string_equal(call_of(db, i), "openat - - - -");
	assert_string_equal(call_of(db, j), "openat 1 5 100 -");
	assert_string_equal(call_of(db, k), "getppid - - - -");
	assert_string_equal(fx_text(db, "SELECT pid || comm FROM mine_calls WHERE id = %d", b), "10ten-b");
	/* the commonest syscall first in syscall_names: its number takes no byte */
	assert_string_equal(fx_text(db, "SELECT name FROM syscall_names WHERE syscall = 0"), "getppid");
	fx_close(db);
}

/*
 * Names from event_types as the kernel's formats give them: a renamed table, quotes in
 * a name and a table's name, two tables of one syscall name (a hostile capture: their
 * entries and exits pair across them), a name without a syscall ("sys_enter_"), another
 * system's sys_enter_ event, a syscall table without rows, an exit table without ret.
 */
static void test_names(void **state)
{
	(void)state;
	sqlite3 *db = sys_db();

	sys_table(db, "sys_enter_a'b\"c", "t'x\"", false);
	sys_table(db, "sys_exit_a'b\"c", "t'y\"", true);
	sys_table(db, "sys_enter_dup", "dup_enter", false);
	sys_table(db, "sys_exit_dup", "dup_exit_2", true);
	sys_table(db, "sys_enter_", "sys_enter_", false);
	sys_table(db, "sys_enter_noret", "sys_enter_noret", false);
	fx_exec(db, "CREATE TABLE sys_exit_noret (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, __syscall_nr); "
		"INSERT INTO event_types VALUES (900, 'syscalls', 'sys_exit_noret', 'sys_exit_noret', '', '', 0)");
	fx_exec(db, "CREATE TABLE other (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, __syscall_nr, arg); "
		"INSERT INTO event_types VALUES (901, 'raw_syscalls', 'sys_enter_other', 'other', '', '', 0), "
		"(902, 'syscalls', 'sys_enter_none', NULL, '', '', 0)");
	sys(db, "t'x\"", 100, 0, 10, 0);
	sys(db, "t'y\"", 110, 0, 10, -4095);
	sys(db, "dup_enter", 200, 0, 10, 0);
	sys(db, "dup_exit_2", 210, 0, 10, -34);
	sys(db, "sys_enter_", 300, 0, 10, 0);
	sys(db, "sys_enter_noret", 400, 0, 11, 0);
	fx_exec(db, "INSERT INTO sys_exit_noret VALUES (%d, 450, 0, 11, NULL, 0)", ++next_id);
	sys(db, "other", 500, 0, 12, 0);
	sys(db, "sys_enter_noret", 600, 0, 12, 0);
	check_temp(db);
	assert_string_equal(fx_text(db, "SELECT syscall || ' ' || error FROM mine_calls WHERE ts = 100"),
			    "a'b\"c errno 4095");
	assert_string_equal(fx_text(db, "SELECT error FROM mine_calls WHERE ts = 200"), "ERANGE");
	assert_int_equal(fx_int(db, "SELECT dur_ns FROM mine_calls WHERE ts = 400"), 50);
	fx_close(db);
}

/*
 * What a hostile capture or a hand-made database can hold: times whose differences
 * overflow 64 bits (dur_ns a real, as SQLite computes it), times too far apart for one
 * base (the derivation starts again from 0), NULL times, threads and CPUs; a return
 * value that is a text, a blob or a real; losses at the extremes.
 */
static void test_hostile(void **state)
{
	(void)state;
	sqlite3 *db = sys_db();

	usual_tables(db);
	sys_sql(db, "sys_enter_getppid", "9223372036854775807", "0", "10", "0");
	sys_sql(db, "sys_exit_getppid", "-9223372036854775808", "0", "10", "1");
	sys_sql(db, "sys_enter_getppid", "-9223372036854775807", "0", "11", "0");
	sys_sql(db, "sys_exit_getppid", "9223372036854775807", "0", "11", "1");
	sys_sql(db, "sys_enter_getppid", "NULL", "0", "12", "0");
	sys_sql(db, "sys_exit_getppid", "5", "0", "12", "1");
	sys_sql(db, "sys_enter_getppid", "6", "NULL", "NULL", "0");
	sys_sql(db, "sys_enter_openat", "7", "0", "13", "0");
	sys_sql(db, "sys_exit_getppid", "8", "1", "NULL", "-1");   /* the NULL thread's exit */
	sys_sql(db, "sys_exit_openat", "9", "0", "13", "'text'");
	sys_sql(db, "sys_enter_openat", "10", "-5", "13", "0");
	sys_sql(db, "sys_exit_openat", "11", "0", "13", "x'00ff'");
	sys_sql(db, "sys_enter_openat", "12", "0", "13", "0");
	sys_sql(db, "sys_exit_openat", "13", "0", "13", "-2.0");
	sys_sql(db, "sys_enter_openat", "14", "0", "13", "0");
	sys_sql(db, "sys_exit_openat", "15", "0", "13", "-9223372036854775808");
	sys_sql(db, "sys_enter_openat", "16", "0", "-9223372036854775808", "0");
	sys_sql(db, "sys_exit_openat", "17", "0", "-9223372036854775808", "-4096");
	fx_exec(db, "INSERT INTO lost_events VALUES (0, 9223372036854775807, 1), "
		"(0, -9223372036854775808, 1), (3, NULL, 1)");
	check(db);
	assert_int_equal(fx_int(db, "SELECT base_ts FROM syscall_range"), 0); /* started again */
	assert_int_equal(fx_int(db, "SELECT totals FROM syscall_range"), 0); /* text, real ret */
	assert_string_equal(fx_text(db, "SELECT typeof(dur_ns) FROM mine_calls WHERE tid = 10"), "real");
	fx_close(db);

	/* what the oracle says otherwise (a text thread id is not that number; a text loss
	 * time never lies between two numbers): read as their integers, without harm */
	db = sys_db();
	usual_tables(db);
	sys_sql(db, "sys_enter_getppid", "'100'", "'x'", "'10'", "0");
	sys_sql(db, "sys_exit_getppid", "110.5", "x'01'", "10", "1");
	fx_exec(db, "INSERT INTO lost_events VALUES ('a', '105', 1), (1, x'00', 2)");
	assert_int_equal(derive_syscalls(db, "main"), 0);
	assert_int_equal(snoop_views(db), 0);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM syscall_calls"), 1);
	fx_close(db);
}

/* No syscall tables, no event_types, an event_types without count: empty tables. */
static void test_none(void **state)
{
	(void)state;
	sqlite3 *db = sys_db();

	check(db);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM mine_calls"), 0);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM syscall_range WHERE first_ts IS NULL"), 1);
	fx_close(db);

	db = fx_open();
	assert_int_equal(derive_syscalls(db, "temp"), 0);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM temp.syscall_pairs"), 0);
	fx_close(db);

	db = fx_open();
	fx_exec(db, "CREATE TABLE event_types (type_id INTEGER PRIMARY KEY, system, name, table_name)");
	fx_exec(db, "CREATE TABLE lost_events (cpu, ts, count)");
	fx_exec(db, "CREATE TABLE sys_enter_getppid (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
		"__syscall_nr, arg); CREATE TABLE sys_exit_getppid (id INTEGER PRIMARY KEY, ts, cpu, pid, "
		"stack_id, __syscall_nr, ret); INSERT INTO event_types VALUES (1, 'syscalls', "
		"'sys_enter_getppid', 'sys_enter_getppid'), (2, 'syscalls', 'sys_exit_getppid', "
		"'sys_exit_getppid')");
	sys(db, "sys_enter_getppid", 100, 0, 10, 0);
	sys(db, "sys_exit_getppid", 150, 0, 10, 9);
	check(db);
	assert_int_equal(fx_int(db, "SELECT dur_ns FROM mine_calls"), 50);
	fx_close(db);
}

/* ---------------------------------------------------------------- random streams */

static sqlite3 *random_db(uint64_t seed, int events)
{
	static const char *const names[] = { "getppid", "read", "openat", "write" };
	struct dfx_rng r = { seed };
	sqlite3 *db = sys_db();
	long long ts = 1000;
	char enter[4][32], exit[4][32];

	for (int i = 0; i < 4; i++) {
		snprintf(enter[i], sizeof(enter[i]), "sys_enter_%s", names[i]);
		snprintf(exit[i], sizeof(exit[i]), "sys_exit_%s", names[i]);
		sys_table(db, enter[i], enter[i], false);
		if (i != 3 || seed % 3)
			sys_table(db, exit[i], exit[i], true);
	}
	fx_exec(db, "BEGIN");
	for (int i = 0; i < events; i++) {
		int n = dfx_pick(&r, seed % 3 ? 4 : 3), tid = 10 + dfx_pick(&r, 4);
		bool is_exit = dfx_pick(&r, 2);
		char t[32], c[16], p[16];

		ts += dfx_pick(&r, 25) == 0 ? -(long long)dfx_pick(&r, 40) : dfx_pick(&r, 300);
		snprintf(t, sizeof(t), "%lld", ts);
		snprintf(c, sizeof(c), "%d", dfx_pick(&r, 3));
		snprintf(p, sizeof(p), "%d", tid);
		sys_sql(db, is_exit ? exit[n] : enter[n], t, c, dfx_pick(&r, 40) ? p : "NULL",
			is_exit ? (dfx_pick(&r, 4) ? "0" : "-2") : "0");
		if (dfx_pick(&r, 50) == 0)
			fx_exec(db, "INSERT INTO lost_events VALUES (%d, %lld, 1)", dfx_pick(&r, 3),
				ts + dfx_pick(&r, 3) - 1);
	}
	fx_exec(db, "COMMIT");
	return db;
}

/* `report syscount --csv ARGS` on db, its output (to free). */
static char *syscount_csv(sqlite3 *db, int argc, char **argv)
{
	char *all[8] = { "syscount", "--csv" }, *out = NULL, *err = NULL;

	for (int i = 0; i < argc && i < 6; i++)
		all[2 + i] = argv[i];
	assert_int_equal(fx_run_io("syscount", db, &out, &err, 2 + argc, all), 0);
	free(err);
	return out;
}

/* The report read from syscall_totals equals the report read from the rows. */
static void compare_reports(sqlite3 *db)
{
	static char *cases[][3] = {
		{ "--by", "syscall" }, { "--by", "process" }, { "--by", "both" },
		{ "--by", "both", "-x" }, { "-x" }, { "-p", "10" }, { "-p", "12", "-x" },
	};
	enum { N = sizeof(cases) / sizeof(cases[0]) };
	char *whole[N];

	assert_int_equal(fx_int(db, "SELECT totals FROM syscall_range"), 1);
	for (int i = 0; i < N; i++) {
		int argc = 0;

		while (argc < 3 && cases[i][argc])
			argc++;
		whole[i] = syscount_csv(db, argc, cases[i]);
	}
	fx_exec(db, "UPDATE syscall_range SET totals = 0");
	for (int i = 0; i < N; i++) {
		int argc = 0;

		while (argc < 3 && cases[i][argc])
			argc++;
		char *rows = syscount_csv(db, argc, cases[i]);

		assert_string_equal(whole[i], rows);
		free(rows);
		free(whole[i]);
	}
}

static void test_random_streams(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 40; seed++) {
		sqlite3 *db = random_db(seed, 200 + (int)(seed % 5) * 100);

		if (seed % 2)
			check(db);
		else
			check_temp(db);
		if (seed % 2)
			compare_reports(db);
		fx_close(db);
	}
}

/* More threads done than waiting: dropped on the way (80000 threads, one call each). */
static void test_many_threads(void **state)
{
	(void)state;
	sqlite3 *db = sys_db();

	usual_tables(db);
	fx_exec(db, "BEGIN");
	for (int i = 0; i < 80000; i++) {
		sys(db, "sys_enter_getppid", 1000 + 10LL * i, 0, 1000 + i, 0);
		if (i >= 2)
			sys(db, "sys_exit_getppid", 1005 + 10LL * i, 1, 1000 + i - 2, 1);
	}
	fx_exec(db, "COMMIT");
	check(db);
	assert_int_equal(fx_int(db, "SELECT count(exit_id) FROM mine_calls"), 79998);
	fx_close(db);
}

/*
 * The cap on threads inside a syscall (derive_util.h), made 8: 20 threads enter before
 * any exits. Past the cap the older half is written as unpaired; their exits, coming
 * later, are left out; the newest pair.
 */
static void test_cap(void **state)
{
	(void)state;
	sqlite3 *db = sys_db();
	size_t cap = derive_pending_max;

	usual_tables(db);
	for (int i = 0; i < 20; i++)
		sys(db, "sys_enter_getppid", 100 + i, 0, 100 + i, 0);
	for (int i = 0; i < 20; i++)
		sys(db, "sys_exit_getppid", 1000 + i, 0, 100 + i, 1);
	derive_pending_max = 8;
	int rc = derive_syscalls(db, "main");

	derive_pending_max = cap;
	assert_int_equal(rc, 0);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM syscall_pairs"), 20);
	long long paired = fx_int(db, "SELECT count(exit_gap) FROM syscall_pairs");

	assert_true(paired >= 4 && paired <= 8);
	assert_int_equal(fx_int(db, "SELECT exit_gap IS NOT NULL FROM syscall_pairs ORDER BY id DESC LIMIT 1"), 1);
	assert_int_equal(fx_int(db, "SELECT exit_gap IS NULL FROM syscall_pairs ORDER BY id LIMIT 1"), 1);
	fx_close(db);
}

/*
 * syscount --by process: a process's comm is its lowest thread's (tasks), whichever
 * thread called first, as the report always printed it (the rows came thread by thread).
 */
static void test_syscount_comm(void **state)
{
	(void)state;
	sqlite3 *db = sys_db();
	char *out, *err;
	char *argv[] = { "syscount", "--by", "process", "--csv" };

	usual_tables(db);
	sys(db, "sys_enter_getppid", 100, 0, 13, 0);   /* ten-c first */
	sys(db, "sys_exit_getppid", 110, 0, 13, 10);
	sys(db, "sys_enter_getppid", 120, 0, 11, 0);   /* ten-b */
	sys(db, "sys_exit_getppid", 130, 0, 11, 10);
	sys(db, "sys_enter_getppid", 140, 0, 12, 0);
	sys(db, "sys_exit_getppid", 150, 0, 12, 1);
	assert_int_equal(fx_run_io("syscount", db, &out, &err, 4, argv), 0);
	assert_string_equal(out, "pid,comm,calls,errors,total_ms,avg_us,unpaired\n"
			    "10,ten-b,2,0,2.0e-05,0.01,0\n12,twelve,1,0,1.0e-05,0.01,0\n");
	free(out);
	free(err);
	fx_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairing),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_random_streams),
		cmocka_unit_test(test_many_threads),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_syscount_comm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
