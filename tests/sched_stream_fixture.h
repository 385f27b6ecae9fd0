/* SPDX-License-Identifier: MIT */
/*
 * sched_stream_fixture.h - scheduler event tables as the importer makes them (new_db),
 * and random but plausible streams of switches, wakeups and losses on 1-4 CPUs to
 * fill them (random_db), for tests/test_derive_sched.c. Header-only, as the other
 * fixtures: include after report_func_fixture.h (fx_*) and cmocka.
 */
#ifndef TESTS_SCHED_STREAM_FIXTURE_H
#define TESTS_SCHED_STREAM_FIXTURE_H

/* prev_state values */
#define R     0
#define S     1
#define D     2
#define RPLUS 256

enum { T_WAKEUP = 1, T_WAKEUP_NEW = 2, T_LOST = 4, T_ALL = 7, T_WAKING = 8 };

static long long next_id;

/* The tables as the importer makes them (those of mask). */
static sqlite3 *new_db(int mask)
{
	sqlite3 *db = fx_open();

	next_id = 0;
	fx_exec(db, "CREATE TABLE sched_switch (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, cpu INTEGER "
		"NOT NULL, pid INTEGER, stack_id INTEGER, prev_comm TEXT, prev_pid INTEGER, prev_prio "
		"INTEGER, prev_state INTEGER, next_comm TEXT, next_pid INTEGER, next_prio INTEGER)");
	static const char *const wakeups[] = { "sched_wakeup", "sched_wakeup_new", NULL, "sched_waking" };

	for (int i = 0; i < 4; i++)
		if (wakeups[i] && (mask & (T_WAKEUP << i)))
			fx_exec(db, "CREATE TABLE %s (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, cpu "
				"INTEGER NOT NULL, pid INTEGER, stack_id INTEGER, comm TEXT, field_pid "
				"INTEGER, prio INTEGER, target_cpu INTEGER)", wakeups[i]);
	if (mask & T_LOST)
		fx_exec(db, "CREATE TABLE lost_events (cpu INTEGER NOT NULL, ts INTEGER, count INTEGER)");
	return db;
}

/* ---------------------------------------------------------------- random streams */

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return r->s;
}

static int pick(struct rng *r, int n)
{
	return (int)(rnd(r) % (uint64_t)n);
}

#define MAX_TASKS 24
enum { ASLEEP, QUEUED, RUNNING };

struct sim {
	struct rng r;
	sqlite3 *db;
	sqlite3_stmt *sw, *wk, *wn, *waking, *lost;
	bool wakeup_too; /* with sched_waking: sched_wakeup follows most of them */
	int ncpu, ntask, cur[4], lose[4];
	bool pending_loss[4];
	int st[MAX_TASKS];
	char comm[MAX_TASKS][16];
	long long ts, id;
};

static void step_stmt(sqlite3_stmt *st)
{
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_reset(st);
}

/* Is an event on cpu recorded? Not while the CPU loses events; the first after a loss
 * brings its lost_events row. */
static bool recorded(struct sim *s, int cpu)
{
	if (s->lose[cpu] > 0) {
		s->lose[cpu]--;
		return false;
	}
	if (s->pending_loss[cpu] && s->lost) {
		sqlite3_bind_int(s->lost, 1, cpu);
		sqlite3_bind_int64(s->lost, 2, s->ts);
		if (pick(&s->r, 4))
			sqlite3_bind_int(s->lost, 3, 1 + pick(&s->r, 50));
		else
			sqlite3_bind_null(s->lost, 3);
		step_stmt(s->lost);
	}
	s->pending_loss[cpu] = false;
	return pick(&s->r, 100) >= 2; /* and now and then one is missing anyway */
}

static int pid_of(int task)
{
	return task < 0 ? 0 : 100 + task;
}

static void sim_switch(struct sim *s)
{
	static const int states[] = { S, S, S, D, R, RPLUS, RPLUS, RPLUS, 4, 8, 16, 32, 64, 128, 3,
				      1024, 1026 };
	int c = pick(&s->r, s->ncpu), prev = s->cur[c], next = -1, state = R;
	int queued[MAX_TASKS], n = 0;

	for (int t = 0; t < s->ntask; t++)
		if (s->st[t] == QUEUED)
			queued[n++] = t;
	if (n && pick(&s->r, 5))
		next = queued[pick(&s->r, n)];
	else if (!pick(&s->r, 20))
		next = pick(&s->r, s->ntask); /* not queued: inconsistent, as a filter makes it */
	if (prev >= 0) {
		state = states[pick(&s->r, sizeof(states) / sizeof(states[0]))];
		if (!pick(&s->r, 20)) /* exec: renamed during the slice */
			snprintf(s->comm[prev], sizeof(s->comm[prev]), "x%d", pick(&s->r, 1000));
		s->st[prev] = (state & 255) == 0 ? QUEUED : ASLEEP;
	}
	if (next >= 0) {
		for (int o = 0; o < s->ncpu; o++)
			if (s->cur[o] == next)
				s->cur[o] = -1;
		s->st[next] = RUNNING;
	}
	s->cur[c] = next;
	if (!recorded(s, c))
		return;
	sqlite3_stmt *st = s->sw;

	sqlite3_bind_int64(st, 1, s->id++);
	sqlite3_bind_int64(st, 2, s->ts);
	sqlite3_bind_int(st, 3, c);
	if (pick(&s->r, 3))
		sqlite3_bind_null(st, 4);
	else
		sqlite3_bind_int(st, 4, 1 + pick(&s->r, 5));
	if (prev >= 0 && pick(&s->r, 50))
		sqlite3_bind_text(st, 5, s->comm[prev], -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_text(st, 5, prev >= 0 ? NULL : "swapper/0", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 6, pid_of(prev));
	sqlite3_bind_int(st, 7, state);
	sqlite3_bind_text(st, 8, next >= 0 ? s->comm[next] : "swapper/0", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 9, pid_of(next));
	step_stmt(st);
}

/* A wakeup event of task t (-1: pid 0) traced on cpu c by the task running there. */
static void wake_event(struct sim *s, sqlite3_stmt *st, int c, int t)
{
	if (!recorded(s, c))
		return;
	sqlite3_bind_int64(st, 1, s->id++);
	sqlite3_bind_int64(st, 2, s->ts);
	sqlite3_bind_int(st, 3, c);
	sqlite3_bind_int(st, 4, pid_of(s->cur[c]));
	sqlite3_bind_text(st, 5, t >= 0 ? s->comm[t] : "swapper", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 6, pid_of(t));
	step_stmt(st);
}

static void sim_wakeup(struct sim *s, bool new_task)
{
	int c = pick(&s->r, s->ncpu), t;
	sqlite3_stmt *st = s->wk;

	if (new_task && s->ntask < MAX_TASKS && s->wn) {
		t = s->ntask++;
		snprintf(s->comm[t], sizeof(s->comm[t]), "n%d", t);
		st = s->wn;
	} else {
		int asleep[MAX_TASKS], n = 0;

		for (int i = 0; i < s->ntask; i++)
			if (s->st[i] == ASLEEP)
				asleep[n++] = i;
		t = n && pick(&s->r, 4) ? asleep[pick(&s->r, n)] : pick(&s->r, s->ntask + 1) - 1;
	}
	if (t >= 0 && s->st[t] == ASLEEP)
		s->st[t] = QUEUED;
	if (st == s->wk && s->waking) {
		/* sched_waking on the waker's CPU; sched_wakeup later on the target's, by
		 * whatever runs there (an IPI: often the idle task) */
		wake_event(s, s->waking, c, t);
		if (!s->wakeup_too || !pick(&s->r, 6))
			return;
		s->ts += pick(&s->r, 3);
		c = pick(&s->r, s->ncpu);
	}
	if (st)
		wake_event(s, st, c, t);
}

static sqlite3_stmt *prep(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	return st;
}

/* A random stream for seed: 1-4 CPUs, a few tasks, a few thousand events. */
static sqlite3 *random_db(uint64_t seed, int events)
{
	struct sim s = { .r = { seed * 0x9e3779b97f4a7c15ULL + 1 } };
	int mask = T_WAKEUP | (pick(&s.r, 4) ? T_WAKEUP_NEW : 0) | (pick(&s.r, 5) ? T_LOST : 0);
	int waking = pick(&s.r, 4); /* 2: sched_waking and sched_wakeup, 3: sched_waking only */

	if (waking >= 2)
		mask |= T_WAKING;
	s.wakeup_too = waking == 2;

	s.db = new_db(mask);
	s.sw = prep(s.db, "INSERT INTO sched_switch (id, ts, cpu, stack_id, prev_comm, prev_pid, prev_state, "
		    "next_comm, next_pid) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
	s.wk = prep(s.db, "INSERT INTO sched_wakeup (id, ts, cpu, pid, comm, field_pid) "
		    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
	if (mask & T_WAKEUP_NEW)
		s.wn = prep(s.db, "INSERT INTO sched_wakeup_new (id, ts, cpu, pid, comm, field_pid) "
			    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
	if (mask & T_WAKING)
		s.waking = prep(s.db, "INSERT INTO sched_waking (id, ts, cpu, pid, comm, field_pid) "
				"VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
	if (mask & T_LOST)
		s.lost = prep(s.db, "INSERT INTO lost_events VALUES (?1, ?2, ?3)");
	s.ncpu = 1 + pick(&s.r, 4);
	s.ntask = 3 + pick(&s.r, 8);
	s.ts = 1000000 + pick(&s.r, 1000);
	s.id = 1;
	for (int t = 0; t < s.ntask; t++) {
		snprintf(s.comm[t], sizeof(s.comm[t]), "t%d", t);
		s.st[t] = pick(&s.r, 2) ? ASLEEP : QUEUED;
	}
	for (int c = 0; c < s.ncpu; c++) {
		s.cur[c] = pick(&s.r, 3) ? c : -1;
		if (s.cur[c] >= 0)
			s.st[s.cur[c]] = RUNNING;
	}
	fx_exec(s.db, "BEGIN");
	for (int i = 0; i < events; i++) {
		int a = pick(&s.r, 100);

		s.ts += pick(&s.r, 10) ? 1 + pick(&s.r, 5000) : 0;
		s.id += !pick(&s.r, 30); /* ids need not be dense */
		if (a < 50)
			sim_switch(&s);
		else if (a < 85)
			sim_wakeup(&s, false);
		else if (a < 92)
			sim_wakeup(&s, true);
		else if (a < 95) {
			int c = pick(&s.r, s.ncpu);

			s.lose[c] = pick(&s.r, 6);
			s.pending_loss[c] = true;
		} else if (s.lost && !pick(&s.r, 10)) { /* a loss on a CPU with nothing yet */
			sqlite3_bind_int(s.lost, 1, 4 + pick(&s.r, 3));
			sqlite3_bind_int64(s.lost, 2, s.ts);
			sqlite3_bind_int(s.lost, 3, 1);
			step_stmt(s.lost);
		}
	}
	fx_exec(s.db, "COMMIT");
	sqlite3_finalize(s.sw);
	sqlite3_finalize(s.wk);
	sqlite3_finalize(s.wn);
	sqlite3_finalize(s.waking);
	sqlite3_finalize(s.lost);
	/* the tasks' names (the wakers'), one left out now and then */
	/* the capture's window (meta): none, around the switches, or cutting into them */
	int window = pick(&s.r, 3);

	if (window)
		fx_exec(s.db, "INSERT INTO meta SELECT 'complete_from_ns', min(ts) + %d FROM sched_switch;"
			"INSERT INTO meta SELECT 'traced_until_ns', max(ts) + %d FROM sched_switch",
			window == 1 ? -pick(&s.r, 100) : 1 + pick(&s.r, 20000),
			window == 1 ? pick(&s.r, 100) : -1 - pick(&s.r, 20000));
	fx_exec(s.db, "INSERT INTO tasks VALUES (0, 0, 'swapper/0')");
	for (int t = 0; t < s.ntask; t++)
		if (pick(&s.r, 6))
			fx_exec(s.db, "INSERT INTO tasks VALUES (%d, %d, '%s')", pid_of(t), pid_of(t), s.comm[t]);
	return s.db;
}

#endif
