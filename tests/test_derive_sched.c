/* SPDX-License-Identifier: MIT */
/*
 * test_derive_sched.c - derive_sched (import/derive_sched.c: oncpu, runq_waits, offcpu
 * in one C pass) against its oracle, the SQL views it replaced (tests/oracle/sched.sql),
 * row for row: every column's value and type, every row as often. Hand-made event
 * tables cover each edge (each CPU's first and last switch, a switch-out missing, losses
 * on one CPU overlapping waits on another, a loss before a CPU's first event, R and R+,
 * wakeup_new, a task first seen switching in, the idle tasks, migration, two wakeups
 * before a switch-in, a rename during a slice, a switch to itself), hostile values
 * (negative and huge CPUs, NULL times and pids, pid -1, times at the int64 edges,
 * columns in another order or missing, tables missing, pids made to collide); then
 * random but plausible streams of switches, wakeups and losses on 1-4 CPUs, many seeds
 * (DERIVE_SEEDS=N for more). What the oracle does not know is checked against the
 * oracle's own per-task events: the waker of each wait (the first enqueue's common pid,
 * named from tasks), and sched_waking used in place of sched_wakeup when a capture has
 * it (the oracle then reads the waking events as its wakeups).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "import/derive.h"
#include "reports/sched_common.h"
#include "store/db.h"
#include "tests/report_func_fixture.h"
#include "tests/sched_stream_fixture.h"

/* The oracle's columns: the derived tables may add their own after them. */
static const char *const tables[] = { "oncpu", "runq_waits", "offcpu" };
static const char *const oracle_cols[] = {
	"cpu,pid,comm,start_id,start_ts,end_id,end_ts,dur_ns,end_state,end_state_text,end_stack_id,status",
	"run_id,run_ts,cpu,pid,comm,queued_ts,queued_by,status,wait_ns",
	"on_id,on_ts,cpu,pid,comm,off_ts,out_cpu,state,state_text,stack_id,status,off_ns,runq_ns",
};

/* A switch on cpu at ts: prev (in state) -> next, named "t<pid>" (pid 0: swapper). */
static void sw_named(sqlite3 *db, long long ts, long long cpu, long long prev, long long state,
		     long long next, const char *prev_comm)
{
	char *quoted = sqlite3_mprintf("%Q", prev_comm);

	fx_exec(db, "INSERT INTO sched_switch VALUES (%lld, %lld, %lld, 1, NULL, %s, %lld, 120, %lld, "
		"'t%lld', %lld, 120)", ++next_id, ts, cpu, quoted, prev, state, next, next);
	sqlite3_free(quoted);
}

static void sw(sqlite3 *db, long long ts, long long cpu, long long prev, long long state, long long next)
{
	char comm[32];

	snprintf(comm, sizeof(comm), "t%lld", prev);
	sw_named(db, ts, cpu, prev, state, next, comm);
}

/* A wakeup (or wakeup_new) of pid, traced on cpu by the task waker. */
static void wake_by(sqlite3 *db, const char *table, long long ts, long long cpu, long long pid,
		    long long waker)
{
	fx_exec(db, "INSERT INTO %s VALUES (%lld, %lld, %lld, %lld, NULL, 't%lld', %lld, 120, %lld)",
		table, ++next_id, ts, cpu, waker, pid, pid, cpu);
}

static void wake(sqlite3 *db, long long ts, long long cpu, long long pid)
{
	wake_by(db, "sched_wakeup", ts, cpu, pid, 1);
}

static void lost(sqlite3 *db, long long cpu, long long ts)
{
	fx_exec(db, "INSERT INTO lost_events VALUES (%lld, %lld, 3)", cpu, ts);
}

static const char *oracle_sql(void)
{
	static char *sql;

	if (!sql) {
		FILE *f = fopen("tests/oracle/sched.sql", "r");
		long len;

		if (!f)
			fail_msg("tests/oracle/sched.sql: run the tests from the source tree");
		assert_int_equal(fseek(f, 0, SEEK_END), 0);
		len = ftell(f);
		rewind(f);
		sql = calloc(1, (size_t)len + 1);
		assert_non_null(sql);
		assert_int_equal(fread(sql, 1, (size_t)len, f), (size_t)len);
		fclose(f);
	}
	return sql;
}

/* "a, typeof(a), b, typeof(b), ..." of a column list "a,b,...". */
static char *typed(const char *cols)
{
	char *out = sqlite3_mprintf("%s", "");

	for (const char *p = cols; *p;) {
		size_t n = strcspn(p, ",");
		char *more = sqlite3_mprintf("%s%s%.*s, typeof(%.*s)", out, *out ? ", " : "", (int)n, p,
					     (int)n, p);

		sqlite3_free(out);
		out = more;
		p += n + (p[n] == ',');
	}
	return out;
}

/* Rows of A (each as often as it is there, value and type) missing from B: printed, counted. */
static long long missing(sqlite3 *db, const char *a, const char *b, const char *cols)
{
	char *t = typed(cols);
	char *sql = sqlite3_mprintf("SELECT %s, count(*) FROM %s GROUP BY %s EXCEPT "
				    "SELECT %s, count(*) FROM %s GROUP BY %s", t, a, t, t, b, t);
	sqlite3_stmt *st;
	long long n = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (n++ < 8) {
			fprintf(stderr, "  in %s, not in %s:", a, b);
			for (int i = 0; i < sqlite3_column_count(st); i += 2)
				fprintf(stderr, " %s", sqlite3_column_text(st, i) ?
					(const char *)sqlite3_column_text(st, i) : "NULL");
			fprintf(stderr, " (x%s)\n", sqlite3_column_text(st, sqlite3_column_count(st) - 1));
		}
	}
	sqlite3_finalize(st);
	sqlite3_free(sql);
	sqlite3_free(t);
	return n;
}

/*
 * The waker of each wait and off-CPU row, from the oracle's own per-task events
 * (temp.sched_task_events, loaded): the first event of the stretch before the switch-in
 * (seg - 1) of the queued kind at queued_ts (a NULL time reads back as 0), its table's
 * common pid, and that pid's name in tasks ("<idle>" for pid 0). NULL for a preemption
 * or no enqueue.
 */
static void check_wakers(sqlite3 *db, const char *mine)
{
	char *runq = sqlite3_mprintf(mine, "runq_waits"), *off = sqlite3_mprintf(mine, "offcpu");

	fx_exec(db, "DROP TABLE IF EXISTS temp.want_waker; CREATE TEMP TABLE want_waker AS "
		"WITH ev AS MATERIALIZED (SELECT * FROM temp.sched_task_events), "
		"first AS (SELECT r.run_id, r.queued_by, (SELECT e.id FROM ev e WHERE e.pid = i.pid AND "
		"e.seg = i.seg - 1 AND e.kind = r.queued_by AND coalesce(e.ts, 0) = r.queued_ts "
		"ORDER BY e.id, e.sub "
		"LIMIT 1) AS wid FROM ev i JOIN temp.runq_waits r ON r.run_id = i.id AND r.pid = i.pid "
		"WHERE i.kind = 'in'), "
		"pids AS (SELECT run_id, CASE queued_by WHEN 'wakeup' THEN (SELECT pid FROM sched_wakeup "
		"WHERE id = wid) WHEN 'wakeup_new' THEN (SELECT pid FROM sched_wakeup_new WHERE id = wid) "
		"END AS pid FROM first) "
		"SELECT run_id, pid, CASE WHEN pid = 0 THEN '<idle>' ELSE (SELECT comm FROM tasks t "
		"WHERE t.pid = pids.pid) END AS comm FROM pids");
	long long bad = fx_int(db, "SELECT count(*) FROM %s r LEFT JOIN temp.want_waker w USING (run_id) "
			       "WHERE r.waker_pid IS NOT w.pid OR r.waker_comm IS NOT w.comm", runq) +
			fx_int(db, "SELECT count(*) FROM %s o LEFT JOIN temp.want_waker w ON w.run_id = o.on_id "
			       "WHERE o.waker_pid IS NOT w.pid OR o.waker_comm IS NOT w.comm", off);

	if (bad)
		fail_msg("%lld rows of %s/%s name another waker, e.g. %s", bad, runq, off,
			 fx_text(db, "SELECT r.run_id || ': ' || quote(r.waker_pid) || ' ' || quote(r.waker_comm) || "
				 "' want ' || quote(w.pid) || ' ' || quote(w.comm) FROM %s r LEFT JOIN "
				 "temp.want_waker w USING (run_id) WHERE r.waker_pid IS NOT w.pid OR "
				 "r.waker_comm IS NOT w.comm UNION ALL SELECT 'offcpu' LIMIT 1", runq));
	sqlite3_free(runq);
	sqlite3_free(off);
}

static bool has_rows(sqlite3 *db, const char *table)
{
	sqlite3_stmt *st;
	char *sql = sqlite3_mprintf("SELECT 1 FROM main.\"%w\" LIMIT 1", table);
	bool rows = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW;

	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rows;
}

/*
 * With sched_waking, the wakeups are its events and sched_wakeup's only bound the loss
 * windows: for the oracle, TEMP tables of its input names say so (sched_wakeup: the
 * waking events; sched_wakeup_new: its own and sched_wakeup's made pid 0's, which no
 * task's events take).
 */
static void waking_for_oracle(sqlite3 *db)
{
	if (!has_rows(db, "sched_waking"))
		return;
	/* sched_views' empty stand-ins, if it made them, give way to the oracle's inputs */
	fx_exec(db, "DROP TABLE IF EXISTS temp.sched_wakeup; DROP TABLE IF EXISTS temp.sched_wakeup_new");
	fx_exec(db, "CREATE TEMP TABLE sched_wakeup AS SELECT * FROM main.sched_waking");
	fx_exec(db, "CREATE TEMP TABLE sched_wakeup_new (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
		"comm, field_pid, prio, target_cpu)");
	if (fx_int(db, "SELECT count(*) FROM main.sqlite_master WHERE name = 'sched_wakeup_new'"))
		fx_exec(db, "INSERT INTO temp.sched_wakeup_new SELECT * FROM main.sched_wakeup_new");
	if (fx_int(db, "SELECT count(*) FROM main.sqlite_master WHERE name = 'sched_wakeup'"))
		fx_exec(db, "INSERT INTO temp.sched_wakeup_new SELECT id, ts, cpu, pid, stack_id, comm, 0, "
			"prio, target_cpu FROM main.sched_wakeup");
}

/* Compare the derived tables (MINE: "main.%s" or "main.mine_%s") with the oracle's views,
 * loaded now into TEMP (stand-ins for the event tables it needs and db lacks first);
 * then their wakers (check_wakers). */
/*
 * sched_tasks and sched_statuses (derive_sched_totals.c) against the SQL the reports
 * run without them (summary_report.sql's summary_cpu and summary_runq with no slice,
 * and the status counts), over the derived rows: the capture's window from meta, else
 * the first and last switch.
 */
static void check_totals(sqlite3 *db, const char *mine)
{
	char *oncpu = sqlite3_mprintf(mine, "oncpu"), *runq = sqlite3_mprintf(mine, "runq_waits");
	char *offcpu = sqlite3_mprintf(mine, "offcpu"), *tasks = sqlite3_mprintf(mine, "sched_tasks");
	char *statuses = sqlite3_mprintf(mine, "sched_statuses");
	static const char window[] =
		"w AS (SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'complete_from_ns'),"
		" (SELECT min(ts) FROM sched_switch)) AS t0,"
		" coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'traced_until_ns'),"
		" (SELECT max(ts) FROM sched_switch)) AS t1)";

	fx_exec(db, "CREATE TABLE IF NOT EXISTS main.meta (key, value)");
	fx_exec(db, "DROP TABLE IF EXISTS temp.want_cpu; DROP TABLE IF EXISTS temp.want_runq;"
		"DROP TABLE IF EXISTS temp.want_status");
	fx_exec(db, "CREATE TEMP TABLE want_cpu AS WITH %s, clipped AS ("
		" SELECT o.pid, o.comm, max(coalesce(o.start_ts, w.t0), w.t0) AS a,"
		" min(coalesce(o.end_ts, w.t1), w.t1) AS b FROM w, %s o"
		" WHERE o.status IN ('ok', 'head', 'open') AND o.pid != 0)"
		" SELECT pid, comm, cpu_ns, slices FROM (SELECT pid, comm, max(b), sum(b - a) AS cpu_ns,"
		" count(*) AS slices FROM clipped WHERE b > a GROUP BY pid)", window, oncpu);
	fx_exec(db, "CREATE TEMP TABLE want_runq AS SELECT pid, max(comm) AS comm, count(*) AS waits,"
		" sum(wait_ns) AS wait_ns, max(wait_ns) AS max_wait_ns FROM %s WHERE status = 'ok'"
		" GROUP BY pid", runq);
	fx_exec(db, "CREATE TEMP TABLE want_status AS"
		" SELECT 'oncpu' AS tbl, pid, status, count(*) AS count FROM %s WHERE pid != 0 GROUP BY pid, status"
		" UNION ALL SELECT 'runq_waits', pid, status, count(*) FROM %s GROUP BY pid, status"
		" UNION ALL SELECT 'offcpu', pid, status, count(*) FROM %s GROUP BY pid, status",
		oncpu, runq, offcpu);
	long long bad =
		fx_int(db, "SELECT count(*) FROM (SELECT pid, comm, cpu_ns, slices FROM temp.want_cpu"
		       " EXCEPT SELECT pid, comm, cpu_ns, slices FROM %s)", tasks) +
		fx_int(db, "SELECT count(*) FROM (SELECT pid, comm, cpu_ns, slices FROM %s WHERE slices > 0"
		       " EXCEPT SELECT pid, comm, cpu_ns, slices FROM temp.want_cpu)", tasks) +
		fx_int(db, "SELECT count(*) FROM (SELECT * FROM temp.want_runq EXCEPT SELECT pid, runq_comm,"
		       " waits, wait_ns, max_wait_ns FROM %s)", tasks) +
		fx_int(db, "SELECT count(*) FROM (SELECT pid, runq_comm, waits, wait_ns, max_wait_ns FROM %s"
		       " WHERE waits > 0 EXCEPT SELECT * FROM temp.want_runq)", tasks) +
		fx_int(db, "SELECT count(*) FROM (SELECT * FROM temp.want_status EXCEPT SELECT * FROM %s)",
		       statuses) +
		fx_int(db, "SELECT count(*) FROM (SELECT * FROM %s EXCEPT SELECT * FROM temp.want_status)",
		       statuses);

	if (bad)
		fail_msg("sched_tasks/sched_statuses and the reports' SQL differ (%lld rows)", bad);
	/* one row per task */
	assert_int_equal(fx_int(db, "SELECT count(*) - count(DISTINCT pid) FROM %s", tasks), 0);
	sqlite3_free(oncpu);
	sqlite3_free(runq);
	sqlite3_free(offcpu);
	sqlite3_free(tasks);
	sqlite3_free(statuses);
}

static void compare_oracle(sqlite3 *db, const char *mine)
{
	char *err = NULL;
	long long diff = 0;

	waking_for_oracle(db);
	/* sched_views' stand-ins (it would derive again: the names are the oracle's now) */
	assert_int_equal(db_stand_in(db, "sched_switch", "id INTEGER PRIMARY KEY, ts, cpu, pid, "
				     "stack_id, prev_comm, prev_pid, prev_prio, prev_state, next_comm, "
				     "next_pid, next_prio"), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(db_stand_in(db, i ? "sched_wakeup_new" : "sched_wakeup",
					     "id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, comm, "
					     "field_pid, prio, target_cpu"), 0);
	assert_int_equal(db_stand_in(db, "lost_events", "cpu, ts, count"), 0);
	if (sqlite3_exec(db, oracle_sql(), NULL, NULL, &err) != SQLITE_OK)
		fail_msg("tests/oracle/sched.sql: %s", err);
	for (int i = 0; i < 3; i++) {
		char *name = sqlite3_mprintf(mine, tables[i]);
		char *oracle = sqlite3_mprintf("temp.%s", tables[i]);

		diff += missing(db, name, oracle, oracle_cols[i]) + missing(db, oracle, name, oracle_cols[i]);
		assert_int_equal(fx_int(db, "SELECT count(*) FROM %s", name),
				 fx_int(db, "SELECT count(*) FROM %s", oracle));
		sqlite3_free(name);
		sqlite3_free(oracle);
	}
	if (diff)
		fail_msg("derive_sched and tests/oracle/sched.sql differ (%lld rows)", diff);
	check_wakers(db, mine);
	check_totals(db, mine);
}

/* derive_sched into main, then the oracle. */
static void check(sqlite3 *db)
{
	assert_int_equal(derive_sched(db, "main"), 0);
	assert_true(derive_present(db, "main", "sched"));
	compare_oracle(db, "main.%s");
}

/* The reports' way: sched_views derives into TEMP (main lacks the tables); kept as
 * main.mine_* while the oracle takes the names. */
static void check_temp(sqlite3 *db)
{
	assert_false(derive_present(db, "main", "sched"));
	assert_int_equal(sched_views(db), 0);
	assert_true(derive_present(db, "temp", "sched"));
	static const char *const totals[] = { "sched_tasks", "sched_statuses" };

	for (int i = 0; i < 3; i++)
		fx_exec(db, "CREATE TABLE main.mine_%s AS SELECT * FROM temp.%s; DROP VIEW temp.%s",
			tables[i], tables[i], tables[i]);
	for (int i = 0; i < 2; i++)
		fx_exec(db, "CREATE TABLE main.mine_%s AS SELECT * FROM temp.%s", totals[i], totals[i]);
	compare_oracle(db, "main.mine_%s");
}

/* ---------------------------------------------------------------- the edges */

/* Two CPUs: a sleep and its wakeup from the other CPU, a preemption, each CPU's first
 * switch (head) and last (open), a yield (R). */
static void test_heads_opens_preemption(void **state)
{
	(void)state;
	sqlite3 *db = new_db(T_ALL);

	sw(db, 100, 0, 0, R, 10);
	sw(db, 300, 0, 10, S, 0);
	sw(db, 400, 1, 0, R, 20);
	wake(db, 1000, 1, 10);
	sw(db, 1500, 0, 0, R, 10);
	sw(db, 1600, 1, 20, RPLUS, 30);
	sw(db, 1900, 1, 30, S, 20);
	sw(db, 2000, 0, 10, R, 40);   /* yields: R, stays queued */
	sw(db, 2100, 0, 40, S | D, 10);
	check(db);
	assert_string_equal(fx_text(db, "SELECT group_concat(cpu || pid || status, ',') FROM "
				    "(SELECT * FROM main.oncpu WHERE status != 'ok' ORDER BY cpu, status)"),
			    "00head,010open,10head,120open");
	assert_string_equal(fx_text(db, "SELECT group_concat(pid || queued_by || wait_ns, ',') FROM "
				    "(SELECT * FROM main.runq_waits WHERE status = 'ok' ORDER BY run_id)"),
			    "10wakeup500,20preempted300,10preempted100");
	fx_close(db);
}

/* A switch missing (a recording limited to some tasks): mismatch, no_switch_out. */
static void test_mismatch(void **state)
{
	(void)state;
	sqlite3 *db = new_db(T_WAKEUP);

	sw(db, 100, 0, 0, R, 10);
	sw(db, 200, 0, 50, S, 60);
	sw(db, 300, 1, 0, R, 10);
	sw(db, 400, 1, 10, S, 0);
	wake(db, 450, 1, 60);
	sw(db, 500, 0, 60, D, 0);
	check(db);
	assert_string_equal(fx_text(db, "SELECT status FROM main.oncpu WHERE start_ts = 100"), "mismatch");
	assert_string_equal(fx_text(db, "SELECT status FROM main.runq_waits WHERE run_ts = 300"),
			    "no_switch_out");
	fx_close(db);
	/* Seen running while queued: 70 is preempted at 100 on CPU 0, then switches out
	 * of CPU 1 at 300 (its switch-in there not in the capture: CPU 1 ran 80). It ran:
	 * its wait before the switch-in at 400 is from 300 (100 ns), not from 100. */
	db = new_db(T_WAKEUP);
	sw(db, 100, 0, 70, R, 0);
	sw(db, 150, 1, 0, R, 80);
	sw(db, 300, 1, 70, RPLUS, 0);
	sw(db, 400, 0, 0, R, 70);
	check(db);
	assert_string_equal(fx_text(db, "SELECT status FROM main.oncpu WHERE start_ts = 150"), "mismatch");
	assert_string_equal(fx_text(db, "SELECT status || ' ' || queued_ts || ' ' || wait_ns FROM "
				    "main.runq_waits WHERE run_ts = 400"), "ok 300 100");
	fx_close(db);
}

/* Losses: on CPU 1 between its events at 150 and 350 (a wait on CPU 0 across the
 * window is dropped, one after it kept); on CPU 2 before any of its events (window
 * from -1); two losses on one CPU; a loss at the very time of an event. */
static void test_losses(void **state)
{
	(void)state;
	sqlite3 *db = new_db(T_ALL);

	sw(db, 100, 0, 0, R, 10);
	sw(db, 150, 1, 0, R, 20);
	sw(db, 200, 0, 10, S, 0);
	lost(db, 1, 350);
	sw(db, 350, 1, 20, R, 0);
	wake(db, 400, 0, 10);
	sw(db, 450, 0, 0, R, 10);
	sw(db, 500, 0, 10, RPLUS, 30);
	sw(db, 700, 0, 30, S, 10);
	lost(db, 2, 800);
	sw(db, 900, 2, 0, R, 30);
	wake(db, 950, 2, 20);
	lost(db, 1, 1000);
	lost(db, 1, 1000);
	sw(db, 1000, 1, 0, R, 20);
	sw(db, 1100, 1, 20, S, 0);
	check(db);
	assert_string_equal(fx_text(db, "SELECT status FROM main.oncpu WHERE pid = 20 AND cpu = 1 "
				    "AND start_ts = 150"), "lost_events");
	/* 10 slept across CPU 1's window; its preemption (500 -> 700) is inside CPU 2's,
	 * which runs from -1: nothing was recorded on CPU 2 before its loss */
	assert_string_equal(fx_text(db, "SELECT group_concat(status, ',') FROM (SELECT * FROM main.offcpu "
				    "WHERE pid = 10 ORDER BY on_id)"), "lost_events,lost_events");
	assert_string_equal(fx_text(db, "SELECT group_concat(status || coalesce(wait_ns, '-'), ',') FROM "
				    "(SELECT * FROM main.runq_waits WHERE pid = 20 ORDER BY run_id)"),
			    "no_start-,lost_events-"); /* its slice across the loss still ends at 350
							* (it left the CPU then, runnable): the wait from
							* 350 to 1000 overlaps CPU 1's losses */
	fx_close(db);
	/* the same without the wakeup tables, and through sched_views */
	db = new_db(T_LOST);
	sw(db, 100, 0, 0, R, 10);
	lost(db, 0, 150);
	sw(db, 200, 0, 10, RPLUS, 0);
	sw(db, 300, 0, 0, R, 10);
	check_temp(db);
	fx_close(db);
}

/* wakeup_new; a task first seen switching in (no_start) or woken (from the wakeup);
 * two wakeups before a switch-in (the first counts); a wakeup while running (void); a
 * wakeup at the very time of a preemption (the SQL's tie: 'out' < 'wakeup'); wakeups
 * of pid 0 (left out); migration across CPUs. */
static void test_wakeups(void **state)
{
	(void)state;
	sqlite3 *db = new_db(T_ALL);

	wake_by(db, "sched_wakeup_new", 5, 0, 70, 10);
	wake(db, 10, 1, 40);
	sw(db, 70, 1, 0, R, 40);
	sw(db, 100, 0, 0, R, 10);
	wake(db, 120, 1, 10);          /* running: void once it sleeps */
	sw(db, 200, 0, 10, S, 70);
	wake(db, 300, 1, 10);
	wake(db, 350, 0, 10);
	wake(db, 360, 0, 0);
	sw(db, 420, 1, 40, S, 10);     /* 10 migrated to CPU 1 */
	sw(db, 500, 1, 10, RPLUS, 0);
	wake(db, 500, 0, 10);          /* same time as its preemption */
	sw(db, 600, 0, 70, S, 10);
	sw(db, 700, 0, 10, D, 0);
	check(db);
	assert_string_equal(fx_text(db, "SELECT group_concat(pid || queued_by || wait_ns, ',') FROM "
				    "(SELECT * FROM main.runq_waits WHERE status = 'ok' ORDER BY run_id)"),
			    "40wakeup60,70wakeup_new195,10wakeup120,10preempted100");
	assert_string_equal(fx_text(db, "SELECT out_cpu || cpu || state_text || off_ns FROM main.offcpu "
				    "WHERE pid = 10 AND on_ts = 420"), "01S220");
	fx_close(db);
}

/* sched_waking: the wait runs from it (not from sched_wakeup, and not twice); the waker
 * is its common pid, named from tasks; a preemption has none; a wakeup_new's is the
 * parent. Without sched_waking, sched_wakeup's own time and pid (here the idle task
 * on the target CPU, as an IPI'd wakeup traces it: "<idle>", whatever tasks says). */
static void test_waking(void **state)
{
	(void)state;
	for (int with_waking = 1; with_waking >= 0; with_waking--) {
		sqlite3 *db = new_db(T_ALL | (with_waking ? T_WAKING : 0));

		fx_exec(db, "INSERT INTO tasks VALUES (0, 0, 'swapper/0'), (20, 20, 'waker'), (10, 10, 'sleeper')");
		sw(db, 100, 0, 0, R, 10);
		sw(db, 300, 0, 10, S, 0);
		if (with_waking)
			wake_by(db, "sched_waking", 1000, 1, 10, 20);
		wake_by(db, "sched_wakeup", 1010, 0, 10, 0);
		sw(db, 1500, 0, 0, R, 10);
		wake_by(db, "sched_wakeup_new", 1600, 0, 30, 10);
		sw(db, 1700, 0, 10, RPLUS, 30);
		sw(db, 1800, 0, 30, S, 10);
		check(db);
		assert_string_equal(fx_text(db, "SELECT group_concat(pid || ':' || queued_by || ':' || wait_ns || ':' || "
					    "quote(waker_pid) || ':' || quote(waker_comm), ',') FROM (SELECT * FROM "
					    "main.runq_waits WHERE status = 'ok' ORDER BY run_id)"),
				    with_waking ? "10:wakeup:500:20:'waker',30:wakeup_new:100:10:'sleeper',"
						  "10:preempted:100:NULL:NULL"
						: "10:wakeup:490:0:'<idle>',30:wakeup_new:100:10:'sleeper',"
						  "10:preempted:100:NULL:NULL");
		assert_string_equal(fx_text(db, "SELECT runq_ns || ':' || waker_comm FROM main.offcpu WHERE on_ts = 1500"),
				    with_waking ? "500:waker" : "490:<idle>");
		fx_close(db);
	}
}

/* Names: a rename during a slice (exec) shows at the switch-out; a NULL name; the idle
 * tasks' "<idle>"; a switch from a task to itself; every state bit. */
static void test_names_states(void **state)
{
	(void)state;
	sqlite3 *db = new_db(T_ALL);
	static const long long states[] = { 4, 8, 16, 32, 64, 128, 3, 255, 1024, 1026, -1, 2048 + 1 };

	sw(db, 100, 0, 0, R, 10);
	sw_named(db, 200, 0, 10, RPLUS, 10, "renamed");
	sw_named(db, 300, 0, 10, S, 20, NULL);
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		sw(db, 400 + 100 * (long long)i, 0, 20, states[i], 30);
		wake(db, 420 + 100 * (long long)i, 1, 20);
		sw(db, 450 + 100 * (long long)i, 0, 30, RPLUS, 20);
	}
	fx_exec(db, "UPDATE sched_switch SET prev_state = NULL WHERE id = 10"); /* the X: "" */
	check(db);
	assert_string_equal(fx_text(db, "SELECT comm FROM main.oncpu WHERE start_ts = 100"), "renamed");
	assert_string_equal(fx_text(db, "SELECT group_concat(end_state_text, ',') FROM (SELECT * FROM "
				    "main.oncpu WHERE pid = 20 AND status = 'ok' ORDER BY start_id)"),
			    "T,t,,Z,P,I,S|D,S|D|T|t|X|Z|P|I,R+,D,S|D|T|t|X|Z|P|I,S");
	fx_close(db);
}

/* Values no kernel writes, as integers: CPUs negative and beyond any array, NULL times,
 * pid -1, NULL pids and names, times at the int64 edges (a difference overflows to a
 * real, as SQLite computes it), a time that goes back. */
static void test_hostile_integers(void **state)
{
	(void)state;
	sqlite3 *db = fx_open();

	fx_exec(db, "CREATE TABLE sched_switch (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, prev_comm, "
		"prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio)");
	fx_exec(db, "CREATE TABLE sched_wakeup (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, comm, "
		"field_pid, prio, target_cpu)");
	fx_exec(db, "CREATE TABLE lost_events (cpu, ts, count)");
	fx_exec(db, "INSERT INTO sched_switch VALUES "
		"(1, -9223372036854775807, -5, 1, NULL, 'a', -1, 0, 0, 'b', 7, 0), "
		"(2, 10, -5, 1, 3, 'b', 7, 0, 1, NULL, NULL, 0), "
		"(3, NULL, 1099511627776, 1, NULL, NULL, NULL, 0, NULL, 'c', -1, 0), "
		"(4, 9223372036854775807, -5, 1, NULL, NULL, NULL, 0, 0, 'd', 7, 0), "
		"(6, 5, 1099511627776, 1, NULL, 'e', -1, 0, 0, 'f', 7, 0), "
		"(8, 9223372036854775806, 1099511627776, 1, NULL, 'g', 7, 0, 256, 'h', -1, 0), "
		"(9, NULL, NULL, 1, NULL, 'i', 3, 0, 0, 'j', 4, 0), "
		"(10, -4, NULL, 1, NULL, 'j', 4, 0, 0, 'k', 3, 0), "
		"(12, -2, NULL, 1, NULL, 'k', 3, 0, 1, 'l', 4, 0)");
	fx_exec(db, "INSERT INTO sched_wakeup VALUES (5, 20, 1, 1, NULL, 'w', 7, 0, 0), "
		"(7, NULL, -5, 1, NULL, 'w', -1, 0, 0), (11, -3, NULL, 1, NULL, 'w', 3, 0, 0), "
		"(13, -9223372036854775808, 2, 1, NULL, 'w', 4, 0, 0)");
	fx_exec(db, "INSERT INTO lost_events VALUES (-5, 0, 1), (NULL, -3, NULL), (1099511627776, NULL, 1), "
		"(7, -9223372036854775808, 1), (NULL, 9223372036854775807, 2)");
	check(db);
	fx_close(db);
}

/* What the oracle cannot say but must not crash: text, reals and blobs in number
 * columns, duplicate ids (a table without its primary key), columns in another order
 * or missing, an index named like an event table. Rows per CPU switch still add up. */
static void test_hostile_types(void **state)
{
	(void)state;
	sqlite3 *db = fx_open();

	fx_exec(db, "CREATE TABLE sched_switch (next_pid, prev_state, cpu, ts, prev_pid, id, next_comm)");
	fx_exec(db, "CREATE TABLE sched_wakeup (field_pid, id)");
	fx_exec(db, "CREATE TABLE stacks (x); CREATE INDEX sched_wakeup_new ON stacks (x)");
	fx_exec(db, "INSERT INTO sched_switch VALUES (7, 'S', 0, 10, 1, 1, x'00ff'), (8, 1.5, 0, 'x', 7, 1, 'n'), "
		"('seven', 0, 'cpu', 30, 8, 2, NULL), (9, 0, 0, 1e300, 'seven', NULL, 'n'), "
		"(7, 0, x'01', -1e300, 9, 3, 'n'), (NULL, NULL, NULL, NULL, NULL, NULL, NULL)");
	fx_exec(db, "INSERT INTO sched_wakeup VALUES (7, 2), ('x', 2), (NULL, NULL), (9, 1)");
	assert_int_equal(derive_sched(db, "main"), 0);
	/* one interval per switch, one head per CPU seen */
	assert_int_equal(fx_int(db, "SELECT count(*) FROM main.oncpu"),
			 6 + fx_int(db, "SELECT count(DISTINCT CAST(cpu AS INTEGER)) + "
				    "(SELECT count(*) > 0 FROM sched_switch WHERE cpu IS NULL) FROM sched_switch"));
	assert_int_equal(derive_sched(db, "temp"), 0);
	assert_true(derive_present(db, "temp", "sched"));
	assert_int_equal(derive_sched(db, "elsewhere"), -1);
	assert_false(derive_present(db, "elsewhere", "sched"));
	assert_false(derive_present(db, "main", "io"));
	fx_close(db);
}

/* Many tasks, their pids all alike in the low bits (a map that hashed them weakly
 * would put them in one place and take quadratic time): 60,000 switches, each to a
 * new task, done quickly and right. */
static void test_many_tasks(void **state)
{
	(void)state;
	sqlite3 *db = new_db(T_WAKEUP);
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO sched_switch (id, ts, cpu, prev_comm, prev_pid, "
					    "prev_state, next_comm, next_pid) VALUES (?1, ?1, ?1 % 2, 'p', "
					    "?2, 1, 'n', ?3)", -1, &st, NULL), SQLITE_OK);
	fx_exec(db, "BEGIN");
	for (long long i = 1; i <= 60000; i++) {
		sqlite3_bind_int64(st, 1, i);
		sqlite3_bind_int64(st, 2, i > 2 ? (i - 2) << 22 : 0);
		sqlite3_bind_int64(st, 3, i << 22);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	fx_exec(db, "COMMIT");
	assert_int_equal(derive_sched(db, "main"), 0);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM main.oncpu WHERE status = 'ok'"), 59998);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM main.runq_waits WHERE status = 'no_start'"), 60000);
	fx_close(db);
}

/* No scheduler events at all: empty tables, not missing ones. */
static void test_empty(void **state)
{
	(void)state;
	sqlite3 *db = fx_open();

	assert_int_equal(derive_sched(db, "temp"), 0);
	assert_int_equal(fx_int(db, "SELECT (SELECT count(*) FROM oncpu) + (SELECT count(*) FROM runq_waits) "
				"+ (SELECT count(*) FROM offcpu)"), 0);
	fx_close(db);
	db = new_db(T_ALL);
	check(db);
	fx_close(db);
}

/* Every status of every table, as "table:status" in seen[] (the streams reach them all). */
static const char *const statuses[] = {
	"oncpu:ok", "oncpu:head", "oncpu:open", "oncpu:lost_events", "oncpu:mismatch",
	"runq_waits:ok", "runq_waits:no_start", "runq_waits:no_wakeup", "runq_waits:no_switch_out",
	"runq_waits:lost_events", "offcpu:ok", "offcpu:lost_events",
};
#define NR_STATUSES (sizeof(statuses) / sizeof(statuses[0]))

static void count_statuses(sqlite3 *db, const char *mine, bool seen[])
{
	for (int i = 0; i < 3; i++) {
		char *name = sqlite3_mprintf(mine, tables[i]);
		char *sql = sqlite3_mprintf("SELECT DISTINCT '%s:' || status FROM %s", tables[i], name);
		sqlite3_stmt *st = prep(db, sql);

		while (sqlite3_step(st) == SQLITE_ROW)
			for (size_t k = 0; k < NR_STATUSES; k++)
				seen[k] |= !strcmp((const char *)sqlite3_column_text(st, 0), statuses[k]);
		sqlite3_finalize(st);
		sqlite3_free(sql);
		sqlite3_free(name);
	}
}

static void test_random_streams(void **state)
{
	(void)state;
	const char *env = getenv("DERIVE_SEEDS");
	int seeds = env ? atoi(env) : 40;
	bool seen[NR_STATUSES] = { false };
	long long waking = 0, wakers = 0, unnamed = 0;

	for (int seed = 1; seed <= seeds; seed++) {
		sqlite3 *db = random_db((uint64_t)seed, 300 + seed * 37 % 2000);
		const char *mine = seed % 5 ? "main.%s" : "main.mine_%s";

		if (seed % 5)
			check(db);
		else
			check_temp(db);
		count_statuses(db, mine, seen);
		waking += has_rows(db, "sched_waking");
		wakers += fx_int(db, "SELECT count(*) FROM %s WHERE waker_pid > 0 AND waker_comm IS NOT NULL",
				 strcmp(mine, "main.%s") ? "main.mine_runq_waits" : "main.runq_waits");
		unnamed += fx_int(db, "SELECT count(*) FROM %s WHERE waker_pid > 0 AND waker_comm IS NULL",
				  strcmp(mine, "main.%s") ? "main.mine_runq_waits" : "main.runq_waits");
		fx_close(db);
	}
	for (size_t k = 0; k < NR_STATUSES; k++)
		if (!seen[k])
			fail_msg("no random stream gave %s", statuses[k]);
	/* the streams had sched_waking, wakers with names and wakers without */
	assert_true(waking > 0 && wakers > 0 && unnamed > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heads_opens_preemption),
		cmocka_unit_test(test_mismatch),
		cmocka_unit_test(test_losses),
		cmocka_unit_test(test_wakeups),
		cmocka_unit_test(test_waking),
		cmocka_unit_test(test_names_states),
		cmocka_unit_test(test_hostile_integers),
		cmocka_unit_test(test_hostile_types),
		cmocka_unit_test(test_many_tasks),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_random_streams),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
