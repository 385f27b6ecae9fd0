// SPDX-License-Identifier: MIT
/*
 * derive_sched_totals.c - per-task totals and per-status counts of the scheduler
 * rows, kept while derive_sched.c writes them (issue 23: `report summary` on a
 * capture of 20 M events groups a million intervals by task on every run, 0.6 s, where
 * the totals are a thousand rows). They answer the summary and the reports' notes of
 * rows left out when no slice is asked (reports/slice.c slice_active()); a slice
 * still reads the rows. The SQL whose results they hold is the reports' own
 * (schema/reports/summary_report.sql), and tests/test_derive_sched.c checks them
 * against it: the same window, clipping and counts.
 *
 * sched_tasks: per task (pid != 0), over the capture's window [t0, t1] (meta's
 * complete_from_ns and traced_until_ns, else the first and last switch): its on-CPU intervals ('ok', 'head',
 * 'open') clipped to the window (cpu_ns, slices of positive length, comm: the name in
 * the one ending last), and its run-queue waits of status 'ok' (waits, wait_ns,
 * max_wait_ns, runq_comm: the greatest name, as max(comm)). sched_statuses: per task,
 * rows per status of oncpu (pid != 0), runq_waits and offcpu. Both are per task so that
 * the slice's task filters (and its default, ftrec's own threads left out) still apply.
 */
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "import/derive_int.h"
#include "import/derive_sched_totals.h"

/* A number as SQLite keeps it: an integer, or a real once past int64. */
struct num {
	bool real;
	int64_t i;
	double r;
};

struct task_total {
	struct dmap_head h;
	struct num cpu_ns, wait_ns, max_wait;
	int64_t slices, last_end, waits, timed_waits;
	struct dtext cpu_comm, runq_comm;
	int64_t statuses[SCHED_NR_TABLES][SCHED_MAX_STATUSES]; /* rows per sched_totals.status */
};

static double num_real(struct num n)
{
	return n.real ? n.r : (double)n.i;
}

/* sum += v, as SQLite's sum() goes on past int64 (a real; it would stop with an error
 * on integers alone, which a difference of two int64 times never is: SQLite makes that
 * a real first, as here) */
static void num_add(struct num *sum, struct num v)
{
	int64_t n;

	if (!sum->real && !v.real && !__builtin_add_overflow(sum->i, v.i, &n)) {
		sum->i = n;
		return;
	}
	sum->r = num_real(*sum) + num_real(v);
	sum->real = true;
}

/* b - a in SQLite's arithmetic: a real when the integers overflow */
static struct num num_sub(int64_t b, int64_t a)
{
	struct num d = { false, 0, 0 };

	if (__builtin_sub_overflow(b, a, &d.i)) {
		d.real = true;
		d.r = (double)b - (double)a;
	}
	return d;
}

static bool num_greater(struct num a, struct num b)
{
	long double x = a.real ? (long double)a.r : (long double)a.i;
	long double y = b.real ? (long double)b.r : (long double)b.i;

	return x > y;
}

static int64_t meta_int(sqlite3 *db, const char *sql, bool *found)
{
	sqlite3_stmt *st;
	int64_t v = 0;

	*found = false;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		v = sqlite3_column_int64(st, 0);
		*found = true;
	}
	sqlite3_finalize(st);
	return v;
}

/* The window, as summary_report.sql's summary_window takes it with no slice. */
void sched_totals_init(struct sched_totals *t, sqlite3 *db)
{
	bool f0, f1;

	memset(t, 0, sizeof(*t));
	dmap_init(&t->tasks, sizeof(struct task_total));
	t->t0 = meta_int(db, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'complete_from_ns'", &f0);
	if (!f0)
		t->t0 = meta_int(db, "SELECT min(ts) FROM sched_switch", &f0);
	t->t1 = meta_int(db, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'traced_until_ns'", &f1);
	if (!f1)
		t->t1 = meta_int(db, "SELECT max(ts) FROM sched_switch", &f1);
	t->window = f0 && f1;
}

static struct task_total *task(struct sched_totals *t, struct dint pid)
{
	bool added;
	struct task_total *tt = dmap_get(&t->tasks, pid, &added);

	if (tt && added) {
		tt->cpu_comm.len = -1;
		tt->runq_comm.len = -1;
	}
	return tt;
}

/* A row of TABLE with STATUS for task tt: counted (a status past the list is not). */
static void count_status(struct sched_totals *t, struct task_total *tt, enum sched_table table,
			 const char *status)
{
	const char **names = t->status[table];
	int i;

	for (i = 0; i < SCHED_MAX_STATUSES && names[i]; i++)
		if (!strcmp(names[i], status))
			break;
	if (i == SCHED_MAX_STATUSES)
		return; /* derive_sched.c has fewer */
	names[i] = status;
	tt->statuses[table][i]++;
}

/* A row of TABLE for pid: *tt its task's entry (NULL: not a task, pid 0 or NULL). */
static int counted(struct sched_totals *t, struct dint pid, enum sched_table table, const char *status,
		   struct task_total **tt)
{
	*tt = NULL;
	if (pid.null || pid.v == 0)
		return 0;
	if (!(*tt = task(t, pid)))
		return msg_error("out of memory");
	count_status(t, *tt, table, status);
	return 0;
}

int sched_totals_interval(struct sched_totals *t, struct dint pid, const char *comm, int comm_len,
			  struct dint start_ts, struct dint end_ts, const char *status)
{
	struct task_total *tt;

	if (counted(t, pid, SCHED_ONCPU, status, &tt) < 0)
		return -1;
	if (!tt || !t->window || (strcmp(status, "ok") && strcmp(status, "head") && strcmp(status, "open")))
		return 0;
	int64_t a = start_ts.null || start_ts.v < t->t0 ? t->t0 : start_ts.v;
	int64_t b = end_ts.null || end_ts.v > t->t1 ? t->t1 : end_ts.v;

	if (b <= a)
		return 0;
	num_add(&tt->cpu_ns, num_sub(b, a));
	/* the name of the interval ending last; the first of a tie, as SQLite's max() keeps */
	if (!tt->slices++ || b > tt->last_end) {
		tt->last_end = b;
		if (dtext_copy(&tt->cpu_comm, comm, comm_len))
			return msg_error("out of memory");
	}
	return 0;
}

static int text_cmp(const struct dtext *a, const char *s, int len)
{
	/* SQLite's BINARY order: NULL first, then bytes */
	if (a->len < 0 || !s)
		return (a->len >= 0) - (s != NULL);
	int n = memcmp(a->s, s, (size_t)(a->len < len ? a->len : len));

	return n ? n : (a->len > len) - (a->len < len);
}

int sched_totals_wait(struct sched_totals *t, struct dint pid, const char *comm, int comm_len,
		      const struct dcell *wait_ns, const char *status)
{
	struct task_total *tt;

	if (counted(t, pid, SCHED_RUNQ, status, &tt) < 0)
		return -1;
	if (!tt || strcmp(status, "ok"))
		return 0;
	if (comm && comm_len < 0)
		comm_len = (int)strlen(comm);
	if (text_cmp(&tt->runq_comm, comm, comm_len) < 0 &&
	    dtext_copy(&tt->runq_comm, comm, comm_len))
		return msg_error("out of memory");
	tt->waits++;
	if (wait_ns->type == SQLITE_NULL)
		return 0; /* a time NULL in a hand-made table: max() and sum() leave it out */
	struct num w = { wait_ns->type != SQLITE_INTEGER, wait_ns->i, wait_ns->r };

	if (!tt->timed_waits++ || num_greater(w, tt->max_wait))
		tt->max_wait = w;
	num_add(&tt->wait_ns, w);
	return 0;
}

int sched_totals_offcpu(struct sched_totals *t, struct dint pid, const char *status)
{
	struct task_total *tt;

	return counted(t, pid, SCHED_OFFCPU, status, &tt);
}

static int put_num(sqlite3_stmt *st, int col, struct num n)
{
	return n.real ? sqlite3_bind_double(st, col, n.r) : sqlite3_bind_int64(st, col, n.i);
}

static int put_text(sqlite3_stmt *st, int col, const struct dtext *s)
{
	return s->len < 0 ? sqlite3_bind_null(st, col) :
	       sqlite3_bind_text(st, col, s->s, s->len, SQLITE_STATIC);
}

static int write_task(struct sched_totals *t, const struct task_total *tt, sqlite3_stmt *st,
		      sqlite3_stmt *st2)
{
	static const char *const tables[] = { "oncpu", "runq_waits", "offcpu" };

	sqlite3_bind_int64(st, 1, tt->h.key);
	put_text(st, 2, &tt->cpu_comm);
	put_num(st, 3, tt->cpu_ns);
	sqlite3_bind_int64(st, 4, tt->slices);
	put_text(st, 5, &tt->runq_comm);
	sqlite3_bind_int64(st, 6, tt->waits);
	if (tt->timed_waits) {
		put_num(st, 7, tt->wait_ns);
		put_num(st, 8, tt->max_wait);
	} else {
		sqlite3_bind_null(st, 7);
		sqlite3_bind_null(st, 8);
	}
	if (sqlite3_step(st) != SQLITE_DONE)
		return -1;
	sqlite3_reset(st);
	for (int k = 0; k < SCHED_NR_TABLES; k++)
		for (int i = 0; i < SCHED_MAX_STATUSES && t->status[k][i]; i++) {
			if (!tt->statuses[k][i])
				continue;
			sqlite3_bind_text(st2, 1, tables[k], -1, SQLITE_STATIC);
			sqlite3_bind_int64(st2, 2, tt->h.key);
			sqlite3_bind_text(st2, 3, t->status[k][i], -1, SQLITE_STATIC);
			sqlite3_bind_int64(st2, 4, tt->statuses[k][i]);
			if (sqlite3_step(st2) != SQLITE_DONE)
				return -1;
			sqlite3_reset(st2);
		}
	return 0;
}

int sched_totals_write(struct sched_totals *t, sqlite3 *db, const char *schema)
{
	char *sql = sqlite3_mprintf("INSERT INTO \"%w\".sched_tasks VALUES (?,?,?,?,?,?,?,?)", schema);
	char *sql2 = sqlite3_mprintf("INSERT INTO \"%w\".sched_statuses VALUES (?,?,?,?)", schema);
	sqlite3_stmt *st = NULL, *st2 = NULL;
	int rc = !sql || !sql2 || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
		 sqlite3_prepare_v2(db, sql2, -1, &st2, NULL) != SQLITE_OK;

	for (size_t i = 0; !rc && i < t->tasks.cap; i++) {
		const struct task_total *tt = dmap_slot(&t->tasks, i);

		rc = tt && write_task(t, tt, st, st2);
	}
	if (rc)
		msg_error("sched_tasks: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	sqlite3_finalize(st2);
	sqlite3_free(sql);
	sqlite3_free(sql2);
	return rc ? -1 : 0;
}

void sched_totals_free(struct sched_totals *t)
{
	for (size_t i = 0; i < t->tasks.cap; i++) {
		struct task_total *tt = dmap_slot(&t->tasks, i);

		if (tt) {
			dtext_free(&tt->cpu_comm);
			dtext_free(&tt->runq_comm);
		}
	}
	dmap_free(&t->tasks);
}
