/* SPDX-License-Identifier: MIT */
/*
 * test_report_sched.c - the scheduler tables (import/derive_sched.c: oncpu,
 * runq_waits, offcpu) and the reports over them (runqlat, cpudist, offcpu, summary)
 * on hand-made sched_switch / sched_wakeup rows whose right answer is known by
 * construction: a sleep and its wakeup, a preemption, a task migrating CPUs, a
 * second wakeup of a queued task, the capture's first events (no huge waits from
 * before it), lost events on one CPU (intervals across them dropped and counted),
 * a switch missing from a filtered recording, the idle tasks (pid 0), sched_waking
 * instead of sched_wakeup; then the
 * reports through the front end: the numbers, the slice (by switch-in / switch-out),
 * --by, --folded with stacks, the output contract; funclatency on hand-made calls, and
 * on the samples (function_graph, the profiler, funcslower's returns alone).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/cmd.h"
#include "import/dbcache.h"
#include "reports/args.h"
#include "reports/lost.h"
#include "reports/sched_common.h"
#include "reports/views.h"
#include "tests/report_func_fixture.h"
#include "tests/funcgraph_fixture.h"

/* prev_state values as kernel 6.x writes them */
#define R      0
#define S      1
#define D      2
#define RPLUS  256   /* TASK_REPORT_MAX: preempted */
#define US     1000LL

static int next_id;

static sqlite3 *sched_db(void)
{
	sqlite3 *db = fx_open();

	next_id = 0;
	fx_exec(db, "CREATE TABLE sched_switch(id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, cpu INTEGER "
		"NOT NULL, pid INTEGER, stack_id INTEGER, prev_comm TEXT, prev_pid INTEGER, prev_prio "
		"INTEGER, prev_state INTEGER, next_comm TEXT, next_pid INTEGER, next_prio INTEGER)");
	fx_exec(db, "CREATE TABLE sched_wakeup(id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, cpu INTEGER "
		"NOT NULL, pid INTEGER, stack_id INTEGER, comm TEXT, field_pid INTEGER, prio INTEGER, "
		"target_cpu INTEGER)");
	fx_exec(db, "CREATE TABLE lost_events(cpu INTEGER NOT NULL, ts INTEGER, count INTEGER)");
	fx_exec(db, "CREATE TABLE stacks(stack_id INTEGER NOT NULL, depth INTEGER NOT NULL, "
		"addr INTEGER NOT NULL, symbol TEXT, PRIMARY KEY (stack_id, depth)) WITHOUT ROWID");
	fx_exec(db, "CREATE VIEW events AS SELECT id, ts, cpu, pid FROM sched_switch "
		"UNION ALL SELECT id, ts, cpu, pid FROM sched_wakeup");
	return db;
}

/* A switch on cpu at ts us: prev (in state) -> next. Tasks are named "t<pid>". */
static void sw_stack(sqlite3 *db, int64_t ts, int cpu, int prev, int state, int next, int stack)
{
	char stack_id[16] = "NULL";

	if (stack)
		snprintf(stack_id, sizeof(stack_id), "%d", stack);
	fx_exec(db, "INSERT INTO sched_switch VALUES (%d, %lld, %d, %d, %s, 't%d', %d, 120, %d, 't%d', "
		"%d, 120)", ++next_id, (long long)(ts * US), cpu, prev, stack_id, prev, prev, state,
		next, next);
}

static void sw(sqlite3 *db, int64_t ts, int cpu, int prev, int state, int next)
{
	sw_stack(db, ts, cpu, prev, state, next, 0);
}

/* A wakeup of pid, traced on cpu (the waker's) at ts us. */
static void wake(sqlite3 *db, int64_t ts, int cpu, int pid)
{
	fx_exec(db, "INSERT INTO sched_wakeup VALUES (%d, %lld, %d, 1, NULL, 't%d', %d, 120, %d)",
		++next_id, (long long)(ts * US), cpu, pid, pid, cpu);
}

static void load(sqlite3 *db)
{
	assert_int_equal(sched_views(db), 0);
}

/* Run a report; the exit status, stdout in *out. */
static int run(const char *name, sqlite3 *db, char **out, char **err, int argc, char **argv)
{
	return fx_run_io(name, db, out, err, argc, argv);
}

/* A sleep on CPU 0, its wakeup from CPU 1, the run 500 us later; a preemption. */
static void two_tasks(sqlite3 *db)
{
	sw(db, 100, 0, 0, R, 10);      /* idle -> 10 */
	sw(db, 300, 0, 10, S, 0);      /* 10 sleeps after 200 us */
	sw(db, 400, 1, 0, R, 20);      /* idle -> 20 on CPU 1 */
	wake(db, 1000, 1, 10);         /* 20 wakes 10 */
	sw(db, 1500, 0, 0, R, 10);     /* 10 runs: waited 500 us, off CPU 1200 us */
	sw(db, 1600, 1, 20, RPLUS, 30); /* 20 preempted by 30 after 1200 us */
	sw(db, 1900, 1, 30, S, 20);    /* 20 back: waited 300 us (preempted) */
	sw(db, 2000, 0, 10, S, 0);     /* 10 ran 500 us */
}

static void test_oncpu(void **state)
{
	(void)state;
	sqlite3 *db = sched_db();

	two_tasks(db);
	load(db);
	/* complete intervals: 10 (200, 500 us), 20 (1200), 30 (300); idle's between */
	assert_string_equal(fx_text(db, "SELECT group_concat((dur_ns / 1000) || end_state_text, ',') FROM "
				    "(SELECT * FROM oncpu WHERE pid != 0 AND status = 'ok' ORDER BY start_id)"),
			    "200S,1200R+,500S,300S");
	/* the edges: each CPU's task before its first switch (head), after its last (open) */
	assert_string_equal(fx_text(db, "SELECT group_concat(cpu || ':' || pid || ':' || status, ',') "
				    "FROM (SELECT * FROM oncpu WHERE status != 'ok' ORDER BY cpu, status)"),
			    "0:0:head,0:0:open,1:0:head,1:20:open");
	assert_int_equal(fx_int(db, "SELECT count(*) FROM oncpu WHERE status = 'head' AND dur_ns IS NOT NULL"), 0);
	fx_close(db);
}

static void test_runq_and_offcpu(void **state)
{
	(void)state;
	sqlite3 *db = sched_db();

	two_tasks(db);
	load(db);
	/* 10: woken at 1000, ran at 1500; 20: preempted at 1600, ran at 1900 */
	assert_string_equal(fx_text(db, "SELECT group_concat(pid || ':' || queued_by || ':' || (wait_ns / 1000), ',') "
				    "FROM (SELECT * FROM runq_waits WHERE status = 'ok' ORDER BY run_id)"),
			    "10:wakeup:500,20:preempted:300");
	/* 10 and 20's first switch-ins (at 100 and 400) had no start in the capture: no wait
	 * from the capture's beginning, no huge latency */
	assert_int_equal(fx_int(db, "SELECT count(*) FROM runq_waits WHERE status = 'no_start'"), 3);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM runq_waits WHERE status = 'no_start' "
				"AND wait_ns IS NOT NULL"), 0);
	/* off CPU: 10 from 300 to 1500 (S, 500 of it queued), 20 from 1600 to 1900 (R+) */
	assert_string_equal(fx_text(db, "SELECT group_concat(pid || ':' || state_text || ':' || (off_ns / 1000) "
				    "|| ':' || (runq_ns / 1000) || ':' || out_cpu || cpu, ',') "
				    "FROM (SELECT * FROM offcpu ORDER BY on_id)"),
			    "10:S:1200:500:00,20:R+:300:300:11");
	/* the idle tasks (pid 0, one per CPU) are never a task's wait or off-CPU time */
	assert_int_equal(fx_int(db, "SELECT count(*) FROM runq_waits WHERE pid = 0"), 0);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM offcpu WHERE pid = 0"), 0);
	fx_close(db);
}

/* A task migrates: out on CPU 0, woken from CPU 1, runs on CPU 1. A second wakeup of the
 * queued task does not restart its wait. A task whose first event is a wakeup (asleep
 * since before the capture) has its wait measured from it. */
static void test_migration_and_wakeups(void **state)
{
	(void)state;
	sqlite3 *db = sched_db();

	wake(db, 10, 1, 40);        /* 40 asleep since before the capture */
	sw(db, 70, 1, 0, R, 40);    /* waited 60 */
	sw(db, 100, 0, 0, R, 10);
	sw(db, 200, 0, 10, S, 0);   /* 10 sleeps on CPU 0 */
	wake(db, 300, 1, 10);       /* first wakeup */
	wake(db, 350, 0, 10);       /* a second one: already queued */
	sw(db, 420, 1, 40, S, 10);  /* 10 runs on CPU 1: waited 120, off 220 */
	sw(db, 500, 1, 10, D, 0);
	load(db);
	assert_string_equal(fx_text(db, "SELECT group_concat(pid || ':' || (wait_ns / 1000), ',') FROM "
				    "(SELECT * FROM runq_waits WHERE status = 'ok' ORDER BY run_id)"),
			    "40:60,10:120");
	assert_string_equal(fx_text(db, "SELECT out_cpu || '->' || cpu || ':' || (off_ns / 1000) FROM offcpu "
				    "WHERE pid = 10"), "0->1:220");
	assert_int_equal(fx_int(db, "SELECT dur_ns / 1000 FROM oncpu WHERE pid = 10 AND cpu = 1"), 80);
	assert_string_equal(fx_text(db, "SELECT end_state_text FROM oncpu WHERE pid = 10 AND cpu = 1"), "D");
	fx_close(db);
}

/* Lost events on CPU 1 between 150 and 350 us: CPU 1's interval across them, and waits
 * and off-CPU times overlapping the window (on any CPU) are dropped; CPU 0's not. */
static void test_lost_events(void **state)
{
	(void)state;
	sqlite3 *db = sched_db();

	sw(db, 100, 0, 0, R, 10);
	sw(db, 150, 1, 0, R, 20);     /* the last event on CPU 1 before the loss */
	sw(db, 200, 0, 10, S, 0);
	fx_exec(db, "INSERT INTO lost_events VALUES (1, %lld, 7)", 350 * US);
	sw(db, 350, 1, 20, R, 0);     /* CPU 1's first event after the loss */
	wake(db, 400, 0, 10);         /* 10 slept from 200: across the loss window */
	sw(db, 450, 0, 0, R, 10);
	sw(db, 500, 0, 10, RPLUS, 30);
	sw(db, 700, 0, 30, S, 10);    /* 10 waited 200, after the window: kept */
	load(db);
	assert_string_equal(fx_text(db, "SELECT status FROM oncpu WHERE pid = 20 AND cpu = 1"), "lost_events");
	assert_int_equal(fx_int(db, "SELECT count(*) FROM oncpu WHERE cpu = 0 AND status = 'lost_events'"), 0);
	/* 10's off-CPU 200 -> 450 overlaps the window: dropped; its wait 400 -> 450 does not */
	assert_string_equal(fx_text(db, "SELECT group_concat(status || ':' || coalesce((off_ns / 1000), '-'), ',') "
				    "FROM (SELECT * FROM offcpu WHERE pid = 10 ORDER BY on_id)"),
			    "lost_events:-,ok:200");
	assert_string_equal(fx_text(db, "SELECT group_concat(status || ':' || coalesce(wait_ns / 1000, '-'), ',') "
				    "FROM (SELECT * FROM runq_waits WHERE pid = 10 ORDER BY run_id)"),
			    "no_start:-,ok:50,ok:200");
	/* the report says how many it dropped */
	char *out, *err;
	char *argv[] = { "offcpu" };

	assert_int_equal(run("offcpu", db, &out, &err, 1, argv), 0);
	assert_non_null(strstr(err, "1 off-CPU intervals left out: events were lost during them"));
	assert_non_null(strstr(err, "lost"));
	free(out);
	free(err);
	fx_close(db);
}

/* A recording that misses switches (limited to some tasks, or a kernel that does not
 * trace one): the next switch on the CPU switches out another task. */
static void test_missing_switch(void **state)
{
	(void)state;
	sqlite3 *db = sched_db();

	sw(db, 100, 0, 0, R, 10);
	sw(db, 200, 0, 50, S, 60);   /* 10's switch-out to 50 is not in the capture */
	sw(db, 300, 1, 0, R, 10);    /* 10 again, without a switch-out: no wait, no off time */
	sw(db, 400, 1, 10, S, 0);
	load(db);
	assert_string_equal(fx_text(db, "SELECT status FROM oncpu WHERE start_ts = 100000"), "mismatch");
	assert_string_equal(fx_text(db, "SELECT status FROM runq_waits WHERE pid = 10 AND run_ts = 300000"),
			    "no_switch_out");
	assert_int_equal(fx_int(db, "SELECT count(*) FROM offcpu WHERE pid = 10"), 0);
	assert_int_equal(fx_int(db, "SELECT dur_ns / 1000 FROM oncpu WHERE pid = 10 AND cpu = 1"), 100);
	fx_close(db);
}

static void pair_workload(sqlite3 *db)
{
	/* two tasks taking turns on CPU 0 in 3 ms slices for 10 turns each, pid 10 first */
	fx_exec(db, "INSERT INTO tasks VALUES (10, 10, 'spin'), (11, 10, 'spin'), (20, 20, 'other')");
	sw(db, 0, 0, 0, R, 10);
	for (int i = 1; i <= 20; i++)
		sw(db, i * 3000, 0, i % 2 ? 10 : 20, RPLUS, i % 2 ? 20 : 10);
}

static void test_runqlat_report(void **state)
{
	(void)state;
	sqlite3 *db = sched_db();
	char *out;

	pair_workload(db);
	/* 10 waited 9 times (3000 us each), 20 waited 9 times (its first run has no start) */
	char *a1[] = { "runqlat", "--summary", "--by", "tid", "--csv" };
	assert_int_equal(run("runqlat", db, &out, NULL, 5, a1), 0);
	assert_string_equal(out, "tid,comm,count,total_ms,avg_us,p50_us,p90_us,p99_us,max_us\n"
			    "10,t10,10,30.0,3000.0,3000.0,3000.0,3000.0,3000.0\n"
			    "20,t20,9,27.0,3000.0,3000.0,3000.0,3000.0,3000.0\n");
	free(out);
	/* the histogram: 19 waits of 3000 us, bucket 2048 -> 4095 */
	char *a2[] = { "runqlat", "--json" };
	assert_int_equal(run("runqlat", db, &out, NULL, 2, a2), 0);
	assert_non_null(strstr(out, "{\"low_us\":2048,\"high_us\":4095,\"count\":19}"));
	free(out);
	/* the slice by switch-in: --since 30 ms (inclusive) keeps the waits ending at 30..60 ms */
	char *a3[] = { "runqlat", "--summary", "--csv", "--since", "0.030", "-H" };
	assert_int_equal(run("runqlat", db, &out, NULL, 5, a3), 0);
	assert_non_null(strstr(out, "\n11,"));
	free(out);
	/* --by pid: 10's process; text histogram under "pid = 10 (spin)" */
	char *a4[] = { "runqlat", "--by", "pid" };
	assert_int_equal(run("runqlat", db, &out, NULL, 3, a4), 0);
	assert_non_null(strstr(out, "pid = 10 (spin)\n"));
	assert_non_null(strstr(out, "      2048 -> 4095       : 10 "));
	free(out);
	char *a5[] = { "runqlat", "--by", "cpu" };
	char *err;
	assert_int_equal(run("runqlat", db, &out, &err, 3, a5), CMD_EXIT_ERROR);
	assert_string_equal(err, "ftana report runqlat: bad --by 'cpu' (tid, pid, comm or waker)\n");
	free(out);
	free(err);
	fx_close(db);
}

static void test_cpudist_report(void **state)
{
	(void)state;
	sqlite3 *db = sched_db();
	char *out;

	pair_workload(db);
	/* 20 complete slices of 3000 us; the last (10's from 60 ms) is open */
	char *a1[] = { "cpudist", "--summary", "--csv", "--by", "comm" };
	assert_int_equal(run("cpudist", db, &out, NULL, 5, a1), 0);
	assert_string_equal(out, "comm,count,total_ms,avg_us,p50_us,p90_us,p99_us,max_us\n"
			    "t10,10,30.0,3000.0,3000.0,3000.0,3000.0,3000.0\n"
			    "t20,10,30.0,3000.0,3000.0,3000.0,3000.0,3000.0\n");
	free(out);
	/* by switch-out: --until 9 ms (exclusive) keeps the slices ending at 3 and 6 ms */
	char *a2[] = { "cpudist", "--summary", "--csv", "--until", "0.009" };
	assert_int_equal(run("cpudist", db, &out, NULL, 5, a2), 0);
	assert_string_equal(out, "count,total_ms,avg_us,p50_us,p90_us,p99_us,max_us\n"
			    "2,6.0,3000.0,3000.0,3000.0,3000.0,3000.0\n");
	free(out);
	fx_close(db);
}

static void test_offcpu_report(void **state)
{
	(void)state;
	sqlite3 *db = sched_db();
	char *out, *err;

	fx_exec(db, "INSERT INTO stacks VALUES (1, 0, 16, '__schedule+0x10/0x80'), "
		"(1, 1, 32, 'do_nanosleep+0x20/0x90'), (2, 0, 48, NULL)");
	fx_exec(db, "INSERT INTO meta VALUES ('stacktrace', '1')");
	sw(db, 0, 0, 0, R, 10);
	for (int i = 0; i < 4; i++) { /* 10 sleeps 20 ms four times, 1 ms on CPU each time */
		sw_stack(db, i * 21000 + 1000, 0, 10, S, 0, 1);
		wake(db, i * 21000 + 21000, 1, 10);
		sw(db, i * 21000 + 21000, 0, 0, R, 10);
	}
	sw_stack(db, 90000, 0, 10, D, 0, 2); /* then 5 ms in D */
	wake(db, 95000, 1, 10);
	sw(db, 95000, 0, 0, R, 10);
	char *a1[] = { "offcpu", "--csv" };
	assert_int_equal(run("offcpu", db, &out, NULL, 2, a1), 0);
	assert_string_equal(out, "tid,comm,state,count,total_ms,avg_us,max_us,runq_ms\n"
			    "10,t10,S,4,80.0,20000.0,20000.0,0.0\n"
			    "10,t10,D,1,5.0,5000.0,5000.0,0.0\n");
	free(out);
	char *a2[] = { "offcpu", "--folded" };
	assert_int_equal(run("offcpu", db, &out, NULL, 2, a2), 0);
	assert_string_equal(out, "t10;do_nanosleep;__schedule 80000\nt10;0x30 5000\n");
	free(out);
	char *a3[] = { "offcpu", "--folded", "--json" };
	assert_int_equal(run("offcpu", db, &out, &err, 3, a3), CMD_EXIT_ERROR);
	assert_non_null(strstr(err, "--folded is text"));
	free(out);
	free(err);
	fx_close(db);
}

/* --by tid: a group's label is its first row's name in the order the SQL views gave
 * (cpudist: CPU, then switch-in; runqlat: switch-in), whatever order the tables hold:
 * 10 runs as "sh" on CPU 1, then exec's "ls" on CPU 0. */
static void test_by_labels(void **state)
{
	(void)state;
	sqlite3 *db = sched_db();
	char *out;

	sw(db, 100, 1, 0, R, 10);
	sw(db, 200, 1, 10, RPLUS, 0);
	sw(db, 300, 0, 0, R, 10);
	fx_exec(db, "INSERT INTO sched_switch VALUES (%d, %lld, 0, 1, NULL, 'ls', 10, 120, 256, 't0', 0, 120)",
		++next_id, 400 * US);
	fx_exec(db, "UPDATE sched_switch SET prev_comm = 'sh', next_comm = 'sh' WHERE id <= 3 AND 10 IN "
		"(prev_pid, next_pid)");
	fx_exec(db, "UPDATE sched_switch SET prev_comm = 'sh' WHERE prev_pid = 10 AND id = 2");
	sw(db, 500, 1, 0, R, 10);
	sw(db, 600, 1, 10, S, 0);
	char *a1[] = { "cpudist", "--by", "tid", "--csv" };
	assert_int_equal(run("cpudist", db, &out, NULL, 4, a1), 0);
	assert_string_equal(out, "tid,comm,low_us,high_us,count\n10,ls,0,1,0\n10,ls,2,3,0\n10,ls,4,7,0\n"
			    "10,ls,8,15,0\n10,ls,16,31,0\n10,ls,32,63,0\n10,ls,64,127,3\n");
	free(out);
	char *a2[] = { "runqlat", "--by", "tid", "--csv" };
	assert_int_equal(run("runqlat", db, &out, NULL, 4, a2), 0);
	assert_non_null(strstr(out, "\n10,ls,"));
	free(out);
	fx_close(db);
}

/* A capture with sched_waking and no sched_wakeup (trace-cmd's usual choice): its
 * wakeups are measured, no warning says wakeups were not recorded, the summary has its
 * run-queue part; runq_waits names the waker. */
static void test_waking_report(void **state)
{
	(void)state;
	sqlite3 *db = sched_db();
	char *out, *err;

	fx_exec(db, "DROP VIEW events; DROP TABLE sched_wakeup");
	fx_exec(db, "CREATE TABLE sched_waking(id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, cpu INTEGER "
		"NOT NULL, pid INTEGER, stack_id INTEGER, comm TEXT, field_pid INTEGER, prio INTEGER, "
		"target_cpu INTEGER)");
	fx_exec(db, "CREATE VIEW events AS SELECT id, ts, cpu, pid FROM sched_switch "
		"UNION ALL SELECT id, ts, cpu, pid FROM sched_waking");
	fx_exec(db, "INSERT INTO tasks VALUES (20, 20, 'waker')");
	sw(db, 100, 0, 0, R, 10);
	sw(db, 300, 0, 10, S, 0);
	sw(db, 400, 1, 0, R, 20);
	fx_exec(db, "INSERT INTO sched_waking VALUES (%d, %lld, 1, 20, NULL, 't10', 10, 120, 0)",
		++next_id, 1000 * US);
	sw(db, 1500, 0, 0, R, 10);
	char *a1[] = { "runqlat", "--summary", "--csv" };
	assert_int_equal(run("runqlat", db, &out, &err, 3, a1), 0);
	assert_string_equal(out, "count,total_ms,avg_us,p50_us,p90_us,p99_us,max_us\n"
			    "1,0.5,500.0,500.0,500.0,500.0,500.0\n");
	assert_null(strstr(err, "not recorded"));
	free(out);
	free(err);
	char *a2[] = { "summary", "--json" };
	assert_int_equal(run("summary", db, &out, NULL, 2, a2), 0);
	assert_non_null(strstr(out, "\"runq\":[\n{\"tid\":10,\"comm\":\"t10\",\"waits\":1,"));
	free(out);
	assert_string_equal(fx_text(db, "SELECT waker_pid || waker_comm FROM runq_waits WHERE status = 'ok'"),
			    "20waker");
	fx_close(db);
}

static void test_no_sched_events(void **state)
{
	(void)state;
	sqlite3 *db = fx_open();
	char *out, *err;
	char *argv[] = { "runqlat" };

	fx_exec(db, "CREATE TABLE lost_events(cpu INTEGER NOT NULL, ts INTEGER, count INTEGER)");
	assert_int_equal(run("runqlat", db, &out, &err, 1, argv), CMD_EXIT_ERROR);
	assert_non_null(strstr(err, "no sched_switch events"));
	assert_string_equal(out, "");
	free(out);
	free(err);
	fx_close(db);
}

static void test_summary_report(void **state)
{
	(void)state;
	sqlite3 *db = sched_db();
	char *out;

	fx_exec(db, "INSERT INTO meta VALUES ('first_ts', '0'), ('last_ts', '60000000'), "
		"('nr_cpus', '1'), ('events_total', '21'), ('end_state', 'clean')");
	pair_workload(db);
	char *a1[] = { "summary", "--json", "--top", "1" };
	assert_int_equal(run("summary", db, &out, NULL, 4, a1), 0);
	/* 10 ran 10 slices of 3 ms = 30 ms of the 60 ms window; 20 too but --top 1 */
	assert_non_null(strstr(out, "\"cpu\":[\n{\"tid\":10,\"comm\":\"t10\",\"cpu_ms\":30.0,\"cpu_pct\":50.0,\"slices\":10}\n]"));
	assert_non_null(strstr(out, "\"runq\":[\n{\"tid\":10,"));
	assert_non_null(strstr(out, "{\"part\":\"io\",\"record\":\"block:block_rq_issue,block_rq_complete\"}"));
	assert_null(strstr(out, "\"io\":["));
	free(out);
	/* the window clips: 20's open slice from 60 ms counts nothing, --until 4.5 ms cuts
	 * 20's first slice (3 -> 6 ms) to 1.5 ms */
	char *a2[] = { "summary", "--json", "--until", "0.0045" };
	assert_int_equal(run("summary", db, &out, NULL, 4, a2), 0);
	assert_non_null(strstr(out, "{\"tid\":10,\"comm\":\"t10\",\"cpu_ms\":3.0,"));
	assert_non_null(strstr(out, "{\"tid\":20,\"comm\":\"t20\",\"cpu_ms\":1.5,"));
	free(out);
	fx_close(db);

	/* a database without meta's first_ts/last_ts: the window is the first to the last
	 * switch, not the int64 range (a head interval would count from INT64_MIN) */
	db = sched_db();
	sw(db, 1000, 0, 10, S, 20); /* 10's head interval: start unknown */
	sw(db, 4000, 0, 20, S, 10);
	char *a3[] = { "summary", "--json" };
	assert_int_equal(run("summary", db, &out, NULL, 2, a3), 0);
	assert_non_null(strstr(out, "{\"tid\":20,\"comm\":\"t20\",\"cpu_ms\":3.0,\"cpu_pct\":100.0,"));
	assert_null(strstr(out, "\"tid\":10,"));
	free(out);
	fx_close(db);
}

static void test_funclatency(void **state)
{
	(void)state;
	sqlite3 *db = graph_db();
	char *out, *err;

	fx_exec(db, "CREATE TABLE lost_events(cpu INTEGER NOT NULL, ts INTEGER, count INTEGER)");
	/* vfs_read (B) three times: 3 us, 10 us, 1500 us; ksys_read (A) once around one */
	add_entry(db, 1, 0, 100, A, 0);
	add_entry(db, 2, 0, 100, B, 1);
	add_exit(db, 3, 0, 100, B, 1, 3000);
	add_exit(db, 4, 0, 100, A, 0, 9000);
	add_entry(db, 5, 1, 200, B, 0);
	add_exit(db, 6, 1, 200, B, 0, 10000);
	add_entry(db, 7, 1, 200, B, 0);
	add_exit(db, 8, 1, 200, B, 0, 1500000);
	add_entry(db, 9, 1, 200, B, 0); /* no return: no duration */
	char *a1[] = { "funclatency", "-f", "vfs_read", "--json" };
	assert_int_equal(run("funclatency", db, &out, NULL, 4, a1), 0);
	assert_non_null(strstr(out, "{\"low_us\":2,\"high_us\":3,\"count\":1}"));
	assert_non_null(strstr(out, "{\"low_us\":8,\"high_us\":15,\"count\":1}"));
	assert_non_null(strstr(out, "{\"low_us\":1024,\"high_us\":2047,\"count\":1}"));
	free(out);
	char *a2[] = { "funclatency", "-f", "vfs_read", "--summary", "--csv", "--by", "tid" };
	assert_int_equal(run("funclatency", db, &out, NULL, 7, a2), 0);
	assert_string_equal(out, "tid,comm,count,total_ms,avg_us,p50_us,p90_us,p99_us,max_us\n"
			    "200,<...>,2,1.51,755.0,10.0,1500.0,1500.0,1500.0\n"
			    "100,<...>,1,0.003,3.0,3.0,3.0,3.0,3.0\n");
	free(out);
	char *a3[] = { "funclatency", "-f", "nosuch" };
	assert_int_equal(run("funclatency", db, &out, &err, 3, a3), CMD_EXIT_ERROR);
	assert_string_equal(err, "ftana report funclatency: no calls of 'nosuch' in this capture "
			    "(the functions it has: ftana report funcgraph FILE)\n");
	free(out);
	free(err);
	char *a4[] = { "funclatency" };
	assert_int_equal(run("funclatency", db, &out, &err, 1, a4), CMD_EXIT_ERROR);
	assert_string_equal(err, "ftana report funclatency: which function? give -f FUNC\n");
	free(out);
	free(err);
	fx_close(db);
}

/* Open a copy of samples/NAME.ftz (ftana_open caches its database beside it: not in
 * the source tree). */
static sqlite3 *open_sample(const char *name, char *dir)
{
	char cmd[512], path[256];
	bool damaged = false;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/%s.ftz", dir, name);
	snprintf(cmd, sizeof(cmd), "cp samples/%s.ftz %s", name, path);
	if (system(cmd) != 0)
		fail_msg("samples/%s.ftz is missing", name);
	sqlite3 *db = dbcache_open(path, NULL, &damaged);
	assert_non_null(db);
	return db;
}

static void remove_dir(const char *dir)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* The lab's function_graph capture (ftrec funcgraph ksys_read -- workload read ...):
 * for its most called functions and ksys_read, funclatency's count and total are the
 * `calls` rows with a duration (the kernel's rettime - calltime). */
static void test_funclatency_funcgraph_sample(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_report_sched.XXXXXX";
	sqlite3 *db = open_sample("funcgraph", dir);
	struct { char func[128]; long long count, total_ns; } want[4];
	int n = 0;
	sqlite3_stmt *st;

	/* the expected values first: the report rebuilds `calls` (no statement may read it) */
	assert_int_equal(funcgraph_views(db), 0);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT func, count(*), sum(dur_ns) FROM calls "
					    "WHERE dur_ns IS NOT NULL GROUP BY func "
					    "ORDER BY func = 'ksys_read' DESC, count(*) DESC LIMIT 4",
					    -1, &st, NULL), SQLITE_OK);
	for (; n < 4 && sqlite3_step(st) == SQLITE_ROW; n++) {
		snprintf(want[n].func, sizeof(want[n].func), "%s", sqlite3_column_text(st, 0));
		want[n].count = sqlite3_column_int64(st, 1);
		want[n].total_ns = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	assert_int_equal(n, 4);
	assert_string_equal(want[0].func, "ksys_read");
	for (int i = 0; i < n; i++) {
		char *out, line[64];
		char *argv[] = { "funclatency", "-f", want[i].func, "--summary", "--csv", "-H" };

		assert_int_equal(run("funclatency", db, &out, NULL, 6, argv), 0);
		/* count, total_ms, ... */
		snprintf(line, sizeof(line), "\n%lld,", want[i].count);
		char *row = strstr(out, line);

		assert_non_null(row);
		double total_ms = atof(strchr(row + 1, ',') + 1);

		assert_true(total_ms * 1e6 - (double)want[i].total_ns < 1 &&
			    total_ms * 1e6 - (double)want[i].total_ns > -1);
		free(out);
	}
	/* ksys_read ran for the workload's read: once at least */
	assert_true(fx_int(db, "SELECT count(*) FROM calls WHERE func = 'ksys_read'") >= 1);
	sqlite3_close(db);
	remove_dir(dir);
}

/* The profiler capture (ftrec funccount --profile *sys_getppid -- workload bursts 3 1000
 * 1000): 3 x 1000 calls, the kernel's time for them. */
static void test_funclatency_profile_sample(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_report_sched.XXXXXX";
	sqlite3 *db = open_sample("funccount_profile", dir);
	char *out, *err;
	char *argv[] = { "funclatency", "-f", "__do_sys_getppid", "--csv" };

	assert_non_null(strstr(fx_text(db, "SELECT value FROM meta WHERE key = 'cmdline'"),
			       "workload bursts 3 1000 "));
	assert_int_equal(run("funclatency", db, &out, &err, 4, argv), 0);
	char want[200];

	snprintf(want, sizeof(want), "func,count,total_ms,avg_us\n__do_sys_getppid,3000,%s,",
		 fx_text(db, "SELECT max(time_ns) / 1e6 FROM function_profile"));
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(err, "keeps totals"));
	free(out);
	free(err);
	sqlite3_close(db);
	remove_dir(dir);
}

/* The funcslower capture (ftrec funcslower do_nanosleep 10000 -- workload sleep 5 50 &&
 * workload sleep 20 1): function_graph returns only, of the 5 sleeps of 50 ms (the 20
 * of 1 ms were under the 10 ms threshold). A return carries calltime and rettime, so
 * funclatency gives each sleep's duration (issue 22: it said the capture had no
 * funcgraph_exit events), and warns that faster calls were not recorded. */
static void test_funclatency_funcslower_sample(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_report_sched.XXXXXX";
	sqlite3 *db = open_sample("funcslower", dir);
	char *out, *err, want[200];
	char *hist[] = { "funclatency", "-f", "do_nanosleep", "--csv" };
	char *summary[] = { "funclatency", "-f", "do_nanosleep", "--summary", "--csv" };

	assert_non_null(strstr(fx_text(db, "SELECT value FROM meta WHERE key = 'cmdline'"),
			       "do_nanosleep 10000 -- sh -c workload sleep 5 50 && workload sleep 20 1"));
	assert_int_equal(fx_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'funcgraph_entry'"), 0);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM funcgraph_exit"), 5);
	assert_int_equal(run("funclatency", db, &out, &err, 4, hist), 0);
	/* 50 ms = 50000 us: the bucket 32768..65535, all five */
	assert_non_null(strstr(out, "\n32768,65535,5\n"));
	assert_non_null(strstr(err, "warning: this capture has function_graph returns only (ftrec "
			       "funcslower: calls faster than its threshold were not recorded)"));
	free(out);
	free(err);
	assert_int_equal(run("funclatency", db, &out, NULL, 5, summary), 0);
	/* count and total: the kernel's rettime - calltime of the 5 returns, as imported;
	 * the shortest is a 50 ms sleep at least */
	snprintf(want, sizeof(want), "count,total_ms,avg_us,p50_us,p90_us,p99_us,max_us\n5,%s,",
		 fx_text(db, "SELECT sum(rettime - calltime) / 1e6 FROM funcgraph_exit"));
	assert_non_null(strstr(out, want));
	assert_true(fx_int(db, "SELECT min(rettime - calltime) FROM funcgraph_exit") >= 50000000);
	free(out);
	sqlite3_close(db);
	remove_dir(dir);
}

/* Rows no kernel writes (NULL fields, text in number columns, comms with ';', newlines
 * and escapes, times at the int64 edges): every report runs to the end, exit 0, and
 * text stays one line per row. */
static void test_hostile_rows(void **state)
{
	(void)state;
	sqlite3 *db = sched_db();
	static const char *const names[] = { "runqlat", "cpudist", "offcpu", "summary" };

	fx_exec(db, "INSERT INTO sched_switch VALUES (1, -5, 0, 1, NULL, 'a;b c', NULL, 0, NULL, "
		"'x\ny', 7, 0), (2, 10, 0, 1, 99, 'q', 7, 0, 'S', 'p\x1b[2J', 8, 0), "
		"(3, 9223372036854775806, 0, 1, NULL, 'r', 8, 0, -1, 'z', 7, 0), "
		"(4, 9223372036854775807, 1, 1, NULL, NULL, 7, 0, 1, NULL, NULL, 0)");
	fx_exec(db, "INSERT INTO sched_wakeup VALUES (5, 20, 1, 1, NULL, 'w', 7, 0, 0), "
		"(6, 30, 1, 1, NULL, 'w', NULL, 0, 0), (7, 40, 1, 1, NULL, 'w', 'seven', 0, 0)");
	fx_exec(db, "INSERT INTO lost_events VALUES (0, NULL, NULL), (1, -1, 5)");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *out, *err;
		char *argv[] = { (char *)names[i] };

		assert_int_equal(run(names[i], db, &out, &err, 1, argv), 0);
		assert_null(strchr(out, '\x1b'));
		free(out);
		free(err);
	}
	char *out, *err;
	char *argv[] = { "offcpu", "--folded" };

	assert_int_equal(run("offcpu", db, &out, &err, 2, argv), 0);
	for (char *line = out; *line; line = strchr(line, '\n') + 1)
		assert_non_null(strchr(line, ' ')); /* every line "stack value": no split comm */
	free(out);
	free(err);
	fx_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oncpu),
		cmocka_unit_test(test_runq_and_offcpu),
		cmocka_unit_test(test_migration_and_wakeups),
		cmocka_unit_test(test_lost_events),
		cmocka_unit_test(test_missing_switch),
		cmocka_unit_test(test_runqlat_report),
		cmocka_unit_test(test_cpudist_report),
		cmocka_unit_test(test_offcpu_report),
		cmocka_unit_test(test_by_labels),
		cmocka_unit_test(test_waking_report),
		cmocka_unit_test(test_no_sched_events),
		cmocka_unit_test(test_summary_report),
		cmocka_unit_test(test_funclatency),
		cmocka_unit_test(test_funclatency_funcgraph_sample),
		cmocka_unit_test(test_funclatency_profile_sample),
		cmocka_unit_test(test_funclatency_funcslower_sample),
		cmocka_unit_test(test_hostile_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
