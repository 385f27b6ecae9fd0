/* SPDX-License-Identifier: MIT */
/*
 * derive_sched.c - derive_sched (derive.h): the scheduler's events made into on-CPU
 * intervals (oncpu), run-queue waits (runq_waits) and off-CPU stretches (offcpu), in
 * one pass over sched_switch, the wakeups and sched_wakeup_new merged in id order
 * (ids are global and time-ordered), after the loss windows (derive_losses.c).
 * docs/SQL.md describes the rows; tests/oracle/sched.sql is the SQL they must equal
 * (tests/test_derive_sched.c), and its comments give every edge rule.
 *
 * The wakeups are sched:sched_waking when the capture has it (the task became runnable
 * then, before sched_wakeup; Perfetto's advice), else sched_wakeup: one of them, so a
 * wakeup is never counted twice. A wait and an off-CPU row name their waker: the task
 * whose wakeup was the first enqueue (the event's common pid; its name from tasks, and
 * "<idle>" for pid 0, as in oncpu).
 *
 * Per CPU the pass keeps the last switch (the interval it began ends at the next
 * switch there); per task (pid != 0) the stretch since its last switch: the event
 * that began it (head) and its first enqueue (a wakeup, or a switch-out while still
 * runnable). A switch-in makes a wait (and, after a switch-out, an off-CPU row) from
 * the task's stretch before it; its row is written at the next switch on that CPU,
 * which names the task (a rename during the slice shows at its switch-out). Memory:
 * one entry per CPU, per task and per row of tasks (the wakers' names), and one per
 * lost_events row: never per event.
 */
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "import/derive.h"
#include "import/derive_int.h"
#include "import/derive_sched_store.h"
#include "import/derive_sched_totals.h"
#include "import/derive_util.h"
#include "store/db.h"


/* The inputs, read by column name. */
static const char *const switch_cols[] = { "id", "ts", "cpu", "prev_pid", "prev_comm", "prev_state",
					   "next_pid", "next_comm", "stack_id" };
enum { SW_ID, SW_TS, SW_CPU, SW_PREV_PID, SW_PREV_COMM, SW_PREV_STATE, SW_NEXT_PID, SW_NEXT_COMM,
       SW_STACK, SW_NCOLS };
static const char *const wakeup_cols[] = { "id", "ts", "cpu", "field_pid", "pid" };
enum { WK_ID, WK_TS, WK_CPU, WK_PID, WK_WAKER, WK_NCOLS };
/* The scheduler's events (all of them bound the loss windows); the pass reads
 * sched_waking or sched_wakeup. */
static const char *const sched_tables[] = { "sched_switch", "sched_wakeup", "sched_wakeup_new",
					    "sched_waking" };
enum { SRC_SWITCH, SRC_WAKEUP, SRC_WAKEUP_NEW, NR_SOURCES };

/* A task's events: switch-in, switch-out, wakeups. The names order a tie of the first
 * enqueue's time as the SQL's "ts || kind" key does. */
enum kind { K_IN, K_OUT, K_WAKEUP, K_WAKEUP_NEW };
static const char *const kind_key[] = { "in", "out", "wakeup", "wakeup_new" };
static const char *const queued_by[] = { NULL, "preempted", "wakeup", "wakeup_new" };

struct task {
	struct dmap_head h;
	bool any;        /* an event seen: the next switch-in has a stretch before it */
	bool queued;     /* an enqueue in the current stretch */
	uint8_t head_kind, q_kind;
	int64_t seg;     /* switch-ins and -outs so far */
	struct dint head_ts, head_cpu, head_state, head_stack;
	int64_t head_hi; /* loss windows ended at the head */
	int64_t q_hi;    /* the least of those at the stretch's enqueues */
	int64_t q_ts;    /* the first enqueue's time (a NULL time reads back as 0) */
	bool q_neg;      /* its order: printf('%020d') sorts negatives first, by magnitude */
	uint64_t q_mag;
	struct dint q_waker; /* its waker: the wakeup's common pid (NULL: preempted) */
	/* what a link needs (derive_sched_store.h): the events' ids, and whether their
	 * values are as the views read them (clean) */
	int64_t head_id, q_id;
	bool head_clean, q_clean;
};

/* A switch-in's rows, written when the next switch on the CPU names the task. */
struct pending {
	struct dint run_id, run_ts, pid;
	const char *status;
	bool queued, wait, off, off_ok;
	uint8_t q_kind;
	int64_t q_ts;
	struct dint waker;
	struct dint off_ts, out_cpu, state, stack;
	int64_t q_id, off_id;
	bool s_clean, q_clean, off_clean; /* the switch-in, the enqueue, the switch-out */
};

struct cpu {
	struct dmap_head h;
	size_t loss_first, loss_n; /* its losses in the windows' list */
	uint64_t seq;              /* when its last switch came */
	struct dint id, ts, next_pid;
	int64_t losses;            /* its losses at or before that switch */
	struct dtext next_comm;
	bool clean;                /* that switch's values are as a view reads them */
	bool pending;
	struct pending p;
};

struct pass {
	sqlite3 *db;
	const char *schema;
	struct loss_windows w;
	struct dmap cpus, tasks;
	struct sched_store store; /* oncpu, runq_waits, offcpu */
	struct dmap names;   /* tasks: pid -> comm (the wakers' names) */
	uint64_t seq;
	struct sched_totals totals; /* sched_tasks, sched_statuses */
};

struct name {
	struct dmap_head h;
	struct dtext comm;
};

/* One oncpu row (the columns before the view's CASEs). */
struct interval {
	struct dint cpu, pid, start_id, start_ts, end_id, end_ts, state, stack;
	const char *comm;
	int comm_len;
	const char *status;
	bool link;           /* stored as a link: the view gives it back */
	int64_t end_gap;
};

static bool real_task(struct dint pid)
{
	return !pid.null && pid.v != 0;
}

static int emit_interval(struct pass *ps, const struct interval *iv)
{
	struct dcell *c = sched_store_cells(&ps->store, SCHED_ONCPU);
	bool ok = !strcmp(iv->status, "ok"), known = ok || !strcmp(iv->status, "head");
	bool idle = !iv->pid.null && iv->pid.v == 0;
	struct dint none = { 0, true };
	char text[24];

	dc_int(&c[0], iv->cpu);
	dc_int(&c[1], iv->pid);
	dc_int(&c[3], iv->start_id);
	dc_int(&c[4], iv->start_ts);
	dc_int(&c[5], iv->end_id);
	dc_int(&c[6], iv->end_ts);
	dc_diff(&c[7], ok ? iv->end_ts : none, iv->start_ts);
	dc_int(&c[8], known ? iv->state : none);
	dc_int(&c[10], known ? iv->stack : none);
	if (dc_text(&c[2], idle ? "<idle>" : iv->comm, idle ? -1 : iv->comm_len) ||
	    dc_text(&c[9], known ? sched_state_text(iv->state, text) : NULL, -1) ||
	    dc_text(&c[11], iv->status, -1) ||
	    sched_totals_interval(&ps->totals, iv->pid, iv->comm, iv->comm_len, iv->start_ts,
				  iv->end_ts, iv->status))
		return -1;
	if (iv->link)
		return sched_store_link_oncpu(&ps->store, iv->start_id.v, iv->end_gap, iv->state);
	return sched_store_add(&ps->store, SCHED_ONCPU);
}

/* Is text s (len bytes; NULL: none) the switch-in's next_comm? */
static bool same_text(const char *s, int len, const struct dtext *t)
{
	if (!s || t->len < 0)
		return !s && t->len < 0;
	if (len < 0)
		len = (int)strlen(s);
	return len == t->len && !memcmp(s, t->s, (size_t)len);
}

/* The name of a waker (NULL: none, or not in tasks), its length in *len (-1: up to NUL). */
static const char *waker_name(const struct pass *ps, struct dint pid, int *len)
{
	const struct name *n;

	*len = -1;
	if (pid.null)
		return NULL;
	if (pid.v == 0) /* the idle task of whichever CPU: tasks keeps one CPU's swapper/N */
		return "<idle>";
	if (!(n = dmap_find(&ps->names, pid)))
		return NULL;
	*len = n->comm.len;
	return dtext_str(&n->comm);
}

/* The rows of a switch-in on cpu, its task named comm (the switch-in's own name: s_comm). */
static int emit_pending(struct pass *ps, struct dint cpu, const struct pending *p, const char *comm,
			int comm_len, const struct dtext *s_comm)
{
	struct dcell *c = sched_store_cells(&ps->store, SCHED_RUNQ);
	bool link = ps->store.links && p->s_clean && p->q_clean && same_text(comm, comm_len, s_comm);
	struct dint none = { 0, true }, q_ts = { p->q_ts, !p->queued };
	int waker_len;
	const char *waker_comm = waker_name(ps, p->waker, &waker_len);
	char text[24];

	dc_int(&c[0], p->run_id);
	dc_int(&c[1], p->run_ts);
	dc_int(&c[2], cpu);
	dc_int(&c[3], p->pid);
	dc_int(&c[5], q_ts);
	dc_diff(&c[8], p->wait ? p->run_ts : none, q_ts);
	dc_int(&c[9], p->waker);
	if (dc_text(&c[4], comm, comm_len) ||
	    dc_text(&c[6], p->queued ? queued_by[p->q_kind] : NULL, -1) ||
	    dc_text(&c[7], p->status, -1) || dc_text(&c[10], waker_comm, waker_len) ||
	    sched_totals_wait(&ps->totals, p->pid, comm, comm_len, &c[8], p->status))
		return -1;
	if (link && p->wait ? sched_store_link_runq(&ps->store, p->run_id.v, p->run_id.v - p->q_id, p->q_kind) :
	    sched_store_add(&ps->store, SCHED_RUNQ))
		return -1;
	if (!p->off)
		return 0;
	if (sched_totals_offcpu(&ps->totals, p->pid, p->off_ok ? "ok" : "lost_events"))
		return -1;
	if (link && p->off_ok && p->queued && p->off_clean)
		return sched_store_link_offcpu(&ps->store, p->run_id.v, p->run_id.v - p->off_id,
					       p->run_id.v - p->q_id, p->q_kind, p->state);
	c = sched_store_cells(&ps->store, SCHED_OFFCPU);
	dc_int(&c[0], p->run_id);
	dc_int(&c[1], p->run_ts);
	dc_int(&c[2], cpu);
	dc_int(&c[3], p->pid);
	dc_int(&c[5], p->off_ts);
	dc_int(&c[6], p->out_cpu);
	dc_int(&c[7], p->state);
	dc_int(&c[9], p->stack);
	dc_diff(&c[11], p->off_ok ? p->run_ts : none, p->off_ts);
	dc_diff(&c[12], p->off_ok ? p->run_ts : none, q_ts);
	dc_int(&c[13], p->waker);
	if (dc_text(&c[4], comm, comm_len) || dc_text(&c[8], sched_state_text(p->state, text), -1) ||
	    dc_text(&c[10], p->off_ok ? "ok" : "lost_events", -1) ||
	    dc_text(&c[14], waker_comm, waker_len))
		return -1;
	return sched_store_add(&ps->store, SCHED_OFFCPU);
}

static struct task *task_get(struct pass *ps, struct dint pid)
{
	bool added;
	struct task *t = dmap_get(&ps->tasks, pid, &added);

	if (!t)
		msg_error("out of memory");
	return t;
}

/* The stretch's first enqueue: the least "ts || kind" (ts as printf('%020d') writes it). */
static void enqueue(struct task *t, struct dint ts, enum kind kind, int64_t hi, struct dint waker,
		    int64_t id, bool clean)
{
	int64_t v = ts.null ? 0 : ts.v;
	bool neg = v < 0;
	uint64_t mag = neg ? (uint64_t)-(v + 1) + 1 : (uint64_t)v;
	bool less = !t->queued || (neg != t->q_neg ? neg :
		    mag != t->q_mag ? mag < t->q_mag : strcmp(kind_key[kind], kind_key[t->q_kind]) < 0);

	if (less) {
		t->q_ts = v;
		t->q_neg = neg;
		t->q_mag = mag;
		t->q_kind = kind;
		t->q_waker = waker;
		t->q_id = id;
		t->q_clean = clean && !ts.null; /* (a NULL time reads back as 0) */
	}
	t->q_hi = t->queued && t->q_hi < hi ? t->q_hi : hi;
	t->queued = true;
}

/* A new stretch begins at a switch-in or -out. */
static void new_stretch(struct pass *ps, struct task *t, enum kind kind, struct dint ts,
			struct dint cpu, struct dint state, struct dint stack, int64_t id, bool clean)
{
	t->any = true;
	t->head_id = id;
	t->head_clean = clean;
	t->seg++;
	t->head_kind = kind;
	t->head_ts = ts;
	t->head_cpu = cpu;
	t->head_state = state;
	t->head_stack = stack;
	t->head_hi = loss_hi_upto(&ps->w, ts);
	t->queued = false;
}

/* Task pid switched out by switch id (clean: as a view reads it). */
static int task_out(struct pass *ps, struct dint pid, struct dint ts, struct dint cpu, struct dint state,
		    struct dint stack, int64_t id, bool clean)
{
	struct task *t;

	if (!real_task(pid))
		return 0;
	if (!(t = task_get(ps, pid)))
		return -1;
	new_stretch(ps, t, K_OUT, ts, cpu, state, stack, id, clean);
	/* still runnable (R, R+): it stays queued */
	if (!state.null && (state.v & 255) == 0)
		enqueue(t, ts, K_OUT, t->head_hi, (struct dint){ 0, true }, id, clean);
	return 0;
}

/* A switch-in: its wait (and off-CPU time) from the stretch before it, into *p. */
static int task_in(struct pass *ps, struct dint pid, struct dint id, struct dint ts, struct dint cpu,
		   bool clean, struct pending *p)
{
	struct dint none = { 0, true };
	struct task *t;

	if (!(t = task_get(ps, pid)))
		return -1;
	int64_t lo = loss_lo_before(&ps->w, ts);

	*p = (struct pending){ .run_id = id, .run_ts = ts, .pid = pid, .status = "no_start",
			       .waker = none, .s_clean = clean && !id.null };
	if (t->any) {
		p->q_id = t->q_id;
		p->q_clean = t->q_clean;
		p->off_id = t->head_id;
		p->off_clean = t->head_clean;
		p->queued = t->queued;
		p->q_ts = t->q_ts;
		p->q_kind = t->q_kind;
		p->waker = t->queued ? t->q_waker : (struct dint){ 0, true };
		if (t->head_kind == K_IN && t->seg > 0)
			p->status = "no_switch_out";
		else if (!t->queued)
			p->status = "no_wakeup";
		else if (lo > t->q_hi)
			p->status = "lost_events";
		else
			p->status = "ok";
		p->wait = !strcmp(p->status, "ok");
		p->off = t->seg > 0 && t->head_kind == K_OUT;
		p->off_ok = lo <= t->head_hi;
		p->off_ts = t->head_ts;
		p->out_cpu = t->head_cpu;
		p->state = t->head_state;
		p->stack = t->head_stack;
	}
	new_stretch(ps, t, K_IN, ts, cpu, none, none, 0, false);
	return 0;
}

/* Are the row's columns of these types (1 << SQLITE_*), as a view reads them? */
static bool typed(sqlite3_stmt *row, const int *cols, int n, int types)
{
	for (int i = 0; i < n; i++)
		if (!(types >> sqlite3_column_type(row, cols[i]) & 1))
			return false;
	return true;
}

#define INT_OR_NULL (1 << SQLITE_INTEGER | 1 << SQLITE_NULL)

static int on_wakeup(struct pass *ps, sqlite3_stmt *row, enum kind kind)
{
	struct dint pid = dint_col(row, WK_PID), ts = dint_col(row, WK_TS);
	struct task *t;

	if (!real_task(pid))
		return 0;
	if (!(t = task_get(ps, pid)))
		return -1;
	int64_t hi = loss_hi_upto(&ps->w, ts);

	if (!t->any) { /* asleep since before the capture: its first stretch begins here */
		t->any = true;
		t->head_kind = kind;
		t->head_ts = ts;
		t->head_cpu = dint_col(row, WK_CPU);
		t->head_state = t->head_stack = (struct dint){ 0, true };
		t->head_hi = hi;
		t->head_clean = false;
	}
	static const int ints[] = { WK_ID, WK_TS }, waker[] = { WK_WAKER };
	bool clean = typed(row, ints, 2, 1 << SQLITE_INTEGER) && typed(row, waker, 1, INT_OR_NULL);

	enqueue(t, ts, kind, hi, dint_col(row, WK_WAKER), dint_col(row, WK_ID).v, clean);
	return 0;
}

static int on_switch(struct pass *ps, sqlite3_stmt *row)
{
	struct dint id = dint_col(row, SW_ID), ts = dint_col(row, SW_TS), cpu = dint_col(row, SW_CPU);
	struct dint prev_pid = dint_col(row, SW_PREV_PID), next_pid = dint_col(row, SW_NEXT_PID);
	struct dint state = dint_col(row, SW_PREV_STATE), stack = dint_col(row, SW_STACK);
	const char *prev_comm = (const char *)sqlite3_column_text(row, SW_PREV_COMM);
	int prev_len = prev_comm ? sqlite3_column_bytes(row, SW_PREV_COMM) : -1;
	struct dint none = { 0, true };
	static const int ints[] = { SW_TS, SW_CPU, SW_PREV_PID, SW_PREV_STATE, SW_NEXT_PID, SW_STACK },
			 texts[] = { SW_PREV_COMM, SW_NEXT_COMM }, ids[] = { SW_ID };
	bool clean = typed(row, ids, 1, 1 << SQLITE_INTEGER) && typed(row, ints, 6, INT_OR_NULL) &&
		     typed(row, texts, 2, 1 << SQLITE_TEXT | 1 << SQLITE_NULL);
	bool first;
	struct cpu *c = dmap_get(&ps->cpus, cpu, &first);

	if (!c)
		return msg_error("out of memory");
	if (first) {
		c->next_comm.len = -1;
		loss_cpu_range(&ps->w, cpu, &c->loss_first, &c->loss_n);
	}
	int64_t losses = loss_cpu_upto(&ps->w, c->loss_first, c->loss_n, ts);

	if (first) {
		/* the task running before the CPU's first switch: began before the capture */
		struct interval head = { cpu, prev_pid, none, none, id, ts, state, stack, prev_comm,
					 prev_len, "head", false, 0 };

		if (emit_interval(ps, &head) || task_out(ps, prev_pid, ts, cpu, state, stack, id.v, clean))
			return -1;
	} else {
		bool same = dint_is(prev_pid, c->next_pid);
		/* the name at the switch-out when the same task ended the slice */
		const char *comm = same && prev_comm ? prev_comm : dtext_str(&c->next_comm);
		int len = same && prev_comm ? prev_len : c->next_comm.len;
		struct interval iv = { cpu, c->next_pid, c->id, c->ts, id, ts, state, stack, comm, len,
				       id.null ? "open" : losses > c->losses ? "lost_events" :
				       !same ? "mismatch" : "ok", false, 0 };

		/* an 'ok' interval of two clean switches with the switch-in's name: a link */
		iv.link = ps->store.links && !strcmp(iv.status, "ok") && c->clean && clean &&
			  same_text(comm, len, &c->next_comm) &&
			  !__builtin_sub_overflow(id.v, c->id.v, &iv.end_gap);
		/* Whatever the interval's status, the switch shows prev_pid leaving the CPU now:
		 * a task the capture still thought queued (its switch-in lost) ran, and its
		 * next wait starts here, not at the older enqueue. */
		if (emit_interval(ps, &iv) ||
		    (c->pending && emit_pending(ps, cpu, &c->p, comm, len, &c->next_comm)) ||
		    (!id.null && task_out(ps, prev_pid, ts, cpu, state, stack, id.v, clean)))
			return -1;
	}
	c->pending = !id.null && real_task(next_pid);
	if (c->pending && task_in(ps, next_pid, id, ts, cpu, clean, &c->p))
		return -1;
	c->clean = clean;
	c->id = id;
	c->ts = ts;
	c->next_pid = next_pid;
	c->losses = losses;
	c->seq = ps->seq++;
	if (dtext_set(&c->next_comm, row, SW_NEXT_COMM))
		return msg_error("out of memory");
	return 0;
}

static int cmp_seq(const void *pa, const void *pb)
{
	const struct cpu *a = *(struct cpu *const *)pa, *b = *(struct cpu *const *)pb;

	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* The capture's end: each CPU's last task runs past it ('open'). */
static int finish(struct pass *ps)
{
	struct cpu **order = calloc(ps->cpus.len ? ps->cpus.len : 1, sizeof(*order));
	struct dint none = { 0, true };
	size_t n = 0;
	int rc = 0;

	if (!order)
		return msg_error("out of memory");
	for (size_t i = 0; i < ps->cpus.cap; i++) {
		struct cpu *c = dmap_slot(&ps->cpus, i);

		if (c)
			order[n++] = c;
	}
	qsort(order, n, sizeof(*order), cmp_seq);
	for (size_t i = 0; i < n && !rc; i++) {
		struct cpu *c = order[i];
		struct dint cpu = { c->h.key, c->h.null };
		struct interval iv = { cpu, c->next_pid, c->id, c->ts, none, none, none, none,
				       dtext_str(&c->next_comm), c->next_comm.len, "open", false, 0 };

		rc = emit_interval(ps, &iv) ||
		     (c->pending && emit_pending(ps, cpu, &c->p, dtext_str(&c->next_comm),
						 c->next_comm.len, &c->next_comm));
	}
	free(order);
	if (!rc)
		rc = sched_store_finish(&ps->store);
	return rc || sched_totals_write(&ps->totals, ps->db, ps->schema) ? -1 : 0;
}

/* The inputs merged in id order (a NULL id first; a tie: sched_switch, then the wakeups). */
struct source {
	sqlite3_stmt *st;
	bool live;
	struct dint id;
};

static int advance(sqlite3 *db, struct source *s)
{
	int step = sqlite3_step(s->st);

	s->live = step == SQLITE_ROW;
	if (s->live)
		s->id = dint_col(s->st, 0);
	return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : db_step_error(db);
}

static int run_pass(struct pass *ps, struct source *src)
{
	for (int i = 0; i < NR_SOURCES; i++)
		if (src[i].st && advance(ps->db, &src[i]))
			return -1;
	for (;;) {
		int k = -1;

		for (int i = 0; i < NR_SOURCES; i++) {
			if (!src[i].live)
				continue;
			if (k < 0 || (src[i].id.null ? !src[k].id.null :
				      !src[k].id.null && src[i].id.v < src[k].id.v))
				k = i;
		}
		if (k < 0)
			return finish(ps);
		if ((k == SRC_SWITCH ? on_switch(ps, src[k].st) :
		     on_wakeup(ps, src[k].st, k == SRC_WAKEUP ? K_WAKEUP : K_WAKEUP_NEW)) ||
		    advance(ps->db, &src[k]))
			return -1;
	}
}

bool derive_sched_present(sqlite3 *db, const char *schema)
{
	return sched_store_present(db, schema);
}

/* The names of tasks (the wakers'), from tasks when the database has it. */
static int load_names(struct pass *ps)
{
	static const char *const cols[] = { "pid", "comm" };
	sqlite3_stmt *st;
	int step;

	if (derive_select(ps->db, "tasks", cols, 2, "", &st))
		return -1;
	if (!st)
		return 0;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		bool added;
		struct name *n;

		if (ps->names.len >= DB_TASKS_MAX) {
			sqlite3_finalize(st);
			return db_too_many_tasks();
		}
		n = dmap_get(&ps->names, dint_col(st, 0), &added);

		if (!n || (added && dtext_set(&n->comm, st, 1))) {
			sqlite3_finalize(st);
			return msg_error("out of memory");
		}
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : msg_error("tasks: %s", sqlite3_errmsg(ps->db));
}

/* sched_waking when the capture has any, else sched_wakeup. */
static const char *wakeup_table(sqlite3 *db)
{
	sqlite3_stmt *st;
	bool waking = false;

	if (derive_has(db, "sched_waking") &&
	    sqlite3_prepare_v2(db, "SELECT 1 FROM sched_waking LIMIT 1", -1, &st, NULL) == SQLITE_OK) {
		waking = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	return waking ? "sched_waking" : "sched_wakeup";
}

static int derive(struct pass *ps, const char *schema)
{
	const char *inputs[NR_SOURCES] = { "sched_switch", wakeup_table(ps->db), "sched_wakeup_new" };
	struct source src[NR_SOURCES] = { { 0 } };
	int rc = -1;

	if (sched_store_open(&ps->store, ps->db, schema, inputs[SRC_WAKEUP]) || load_names(ps) ||
	    loss_windows_load(ps->db, &ps->w, sched_tables, 4) ||
	    derive_select(ps->db, inputs[SRC_SWITCH], switch_cols, SW_NCOLS, "ORDER BY 1",
			  &src[SRC_SWITCH].st))
		goto out;
	for (int i = SRC_WAKEUP; i < NR_SOURCES; i++)
		if (derive_select(ps->db, inputs[i], wakeup_cols, WK_NCOLS, "ORDER BY 1", &src[i].st))
			goto out;
	rc = run_pass(ps, src);
out:
	for (int i = 0; i < NR_SOURCES; i++)
		sqlite3_finalize(src[i].st);
	return rc;
}

int derive_sched(sqlite3 *db, const char *schema)
{
	struct pass ps = { .db = db, .schema = schema };
	int rc;

	if (derive_check_schema(schema) || db_exec(db, "SAVEPOINT derive_sched"))
		return -1;
	sched_totals_init(&ps.totals, db);
	dmap_init(&ps.cpus, sizeof(struct cpu));
	dmap_init(&ps.tasks, sizeof(struct task));
	dmap_init(&ps.names, sizeof(struct name));
	rc = derive(&ps, schema);
	sched_store_close(&ps.store);
	for (size_t i = 0; i < ps.cpus.cap; i++) {
		struct cpu *c = dmap_slot(&ps.cpus, i);

		if (c)
			dtext_free(&c->next_comm);
	}
	for (size_t i = 0; i < ps.names.cap; i++) {
		struct name *n = dmap_slot(&ps.names, i);

		if (n)
			dtext_free(&n->comm);
	}
	dmap_free(&ps.cpus);
	dmap_free(&ps.tasks);
	dmap_free(&ps.names);
	loss_windows_free(&ps.w);
	sched_totals_free(&ps.totals);
	if (rc) {
		sqlite3_exec(db, "ROLLBACK TO derive_sched; RELEASE derive_sched", NULL, NULL, NULL);
		return -1;
	}
	return db_exec(db, "RELEASE derive_sched");
}
