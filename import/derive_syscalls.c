/* SPDX-License-Identifier: MIT */
/*
 * derive_syscalls.c - derive_syscalls (derive.h): every syscall entry paired with its
 * exit, into syscall_pairs, syscall_names and syscall_range (schema/derive_syscalls.sql),
 * in one pass over the capture's syscalls:sys_enter_NAME / sys_exit_NAME tables
 * (event_types: NAME is the kernel's own, never a number table) merged in id order (ids
 * are global and time-ordered). tests/oracle/syscount.sql is the SQL the rows must equal
 * (tests/test_derive_syscalls.c); schema/reports/syscount.sql makes `syscall_calls`.
 *
 * The rule: an entry pairs with the next syscall event of the same thread when that is
 * the exit of the same syscall (the same NAME) and no events were lost on ANY CPU
 * between them (a lost_events.ts > the entry's ts and <= the exit's). An entry without
 * one (exit_group, execve's old image, a call still running at the stop, a loss) is a
 * call with NULL exit_gap, ret and dur_ns; exits without their entry are left out.
 * Threads are told apart as SQL's PARTITION BY pid does for the importer's values (an
 * integer or NULL; anything else a hand-made database holds is read as its integer).
 *
 * Memory: one entry per thread inside a syscall (its entry waiting for the next event),
 * one per syscall table (an open statement each: the merge) and one per lost_events row.
 * Past derive_pending_max threads waiting (a hostile capture: a new thread id per event)
 * the older half is written as unpaired, and an exit that comes for one of them later
 * is left out.
 *
 * Size: a row is about 28 bytes for a getpid entry and its exit (14 an event): id is
 * the rowid, ts_rel counts from the first event (6 bytes, not 8, on a host up for
 * more than 39 hours), exit_gap is exit_id - id (1 byte, or none when the exit is the
 * next event: SQLite stores 0 and 1 in the row's header), syscall an index ordered by
 * count (the commonest two: none).
 */
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "import/derive.h"
#include "import/derive_int.h"
#include "import/derive_syscall_totals.h"
#include "import/derive_util.h"
#include "store/db.h"

#define SQL_FILE "schema/derive_syscalls.sql"

static const char *const cols[] = { "id", "ts", "cpu", "pid", "ret" };
enum { C_ID, C_TS, C_CPU, C_PID, C_RET };
enum { P_ID, P_TS, P_CPU, P_TID, P_SYSCALL, P_GAP, P_RET, P_DUR, NR_P }; /* syscall_pairs */

/* One syscall table: its rows in id order, the current one in st. */
struct source {
	sqlite3_stmt *st;
	int64_t id;   /* the current row's */
	char *table;
	int name;     /* index into names (then the syscall's number in syscall_names) */
	bool is_exit;
	int order;    /* type_id order: a tie of ids goes to the first */
};

struct name {
	char *text;
	int64_t entries; /* event_types.count of its entries: the commonest get the smallest numbers */
	int number;
};

/* A syscall_pairs row. */
struct call {
	int64_t id, gap;
	struct dint ts_rel, cpu, tid;
	int syscall;
	bool paired;
	struct dcell ret, dur; /* ret's type may be SQLITE_BLOB (derive_util.h) */
};

/* A thread's tid as the map's key (its padding zeroed). */
struct tid_key {
	int64_t v;
	uint64_t null;
};

/* A thread inside a syscall: its entry, waiting for the thread's next syscall event. */
struct thread {
	struct tid_key k;
	int syscall;
	int64_t id;
	struct dint ts, cpu;
};

struct pass {
	sqlite3 *db;
	const char *schema;
	struct source *src;
	int nsrc;
	struct source **heap; /* the sources with a current row, by (id, order) */
	int nheap;
	struct name *names;
	int nnames;
	struct loss_windows w;
	struct pmap threads;    /* the threads inside a syscall */
	struct call *queue;     /* the rows made, not yet inserted: a ring */
	size_t q_first, q_len, q_cap;
	struct call *row;       /* the row being inserted (derive_feed) */
	struct syscall_totals totals;
	size_t end_slot;        /* at the end: the next thread still waiting */
	int64_t base;           /* ts_rel = ts - base */
	bool overflow;          /* some ts - base did not fit: again, from 0 */
	struct dint first, last;
};

/* ---------------------------------------------------------------- the syscall tables */

/* The index of NAME in ps->names, added (unsorted) when new; -1 out of memory. */
static int name_index(struct pass *ps, const char *text, int64_t entries)
{
	for (int i = 0; i < ps->nnames; i++)
		if (!strcmp(ps->names[i].text, text)) {
			ps->names[i].entries += entries;
			return i;
		}
	struct name *n = realloc(ps->names, (size_t)(ps->nnames + 1) * sizeof(*n));

	if (!n)
		return -1;
	ps->names = n;
	n[ps->nnames] = (struct name){ strdup(text), entries, 0 };
	return n[ps->nnames].text ? ps->nnames++ : -1;
}

static int cmp_by_count(const void *a, const void *b)
{
	const struct name *x = *(const struct name *const *)a, *y = *(const struct name *const *)b;

	if (x->entries != y->entries)
		return x->entries > y->entries ? -1 : 1;
	return strcmp(x->text, y->text);
}

/* Number the names, the commonest entries first (0 and 1 take no bytes in a row). */
static int number_names(struct pass *ps)
{
	struct name **order = malloc((size_t)(ps->nnames ? ps->nnames : 1) * sizeof(*order));

	if (!order)
		return msg_error("out of memory");
	for (int i = 0; i < ps->nnames; i++)
		order[i] = &ps->names[i];
	qsort(order, (size_t)ps->nnames, sizeof(*order), cmp_by_count);
	for (int i = 0; i < ps->nnames; i++)
		order[i]->number = i;
	free(order);
	return 0;
}

/*
 * The capture's syscall tables, as reports/snoop.c's syscall_events has them: event_types
 * rows of system syscalls named sys_enter_?* or sys_exit_?* that have a table. A database
 * without event_types (or without those columns) has none.
 */
static int list_sources(struct pass *ps)
{
	static const char *const with_count =
		"SELECT name, table_name, count FROM event_types WHERE system = 'syscalls' AND "
		"table_name IN (SELECT name FROM sqlite_master) AND (name GLOB 'sys_enter_?*' OR name GLOB 'sys_exit_?*') "
		"ORDER BY type_id";
	sqlite3_stmt *st;
	int step;

	if (sqlite3_prepare_v2(ps->db, with_count, -1, &st, NULL) != SQLITE_OK &&
	    sqlite3_prepare_v2(ps->db, "SELECT name, table_name, 0 FROM event_types WHERE system = "
			       "'syscalls' AND table_name IN (SELECT name FROM sqlite_master) AND (name GLOB 'sys_enter_?*' OR "
			       "name GLOB 'sys_exit_?*') ORDER BY type_id", -1, &st, NULL) != SQLITE_OK)
		return 0;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *table = (const char *)sqlite3_column_text(st, 1);
		bool is_exit = !strncmp(name, "sys_exit_", 9);
		struct source *s = realloc(ps->src, (size_t)(ps->nsrc + 1) * sizeof(*s));

		if (!s)
			break;
		ps->src = s;
		s = &ps->src[ps->nsrc];
		*s = (struct source){ .table = strdup(table), .is_exit = is_exit, .order = ps->nsrc,
				      .name = name_index(ps, name + (is_exit ? 9 : 10),
							 is_exit ? 0 : sqlite3_column_int64(st, 2)) };
		if (!s->table || s->name < 0) {
			free(s->table);
			break;
		}
		ps->nsrc++;
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE)
		return step == SQLITE_ROW ? msg_error("out of memory") : db_step_error(ps->db);
	return number_names(ps);
}

/* ---------------------------------------------------------------- the merge */

static bool before(const struct source *a, const struct source *b)
{
	return a->id < b->id || (a->id == b->id && a->order < b->order);
}

static void sift_down(struct pass *ps, int i)
{
	for (;;) {
		int l = 2 * i + 1, m = i;

		if (l < ps->nheap && before(ps->heap[l], ps->heap[m]))
			m = l;
		if (l + 1 < ps->nheap && before(ps->heap[l + 1], ps->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		struct source *t = ps->heap[i];

		ps->heap[i] = ps->heap[m];
		ps->heap[m] = t;
		i = m;
	}
}

/* Step source s: 1 a row, 0 its end (finalized), -1 an error. */
static int advance(struct pass *ps, struct source *s)
{
	int step = sqlite3_step(s->st);

	if (step == SQLITE_ROW) {
		s->id = sqlite3_column_int64(s->st, C_ID);
		return 1;
	}
	sqlite3_finalize(s->st);
	s->st = NULL;
	return step == SQLITE_DONE ? 0 : msg_error("%s: %s", s->table, sqlite3_errmsg(ps->db));
}

static int open_sources(struct pass *ps)
{
	ps->heap = malloc((size_t)(ps->nsrc ? ps->nsrc : 1) * sizeof(*ps->heap));
	if (!ps->heap)
		return msg_error("out of memory");
	ps->nheap = 0;
	for (int i = 0; i < ps->nsrc; i++) {
		struct source *s = &ps->src[i];
		int rc;

		if (derive_select(ps->db, s->table, cols, s->is_exit ? 5 : 4, "ORDER BY 1", &s->st))
			return -1;
		if (s->st && (rc = advance(ps, s)) != 0) {
			if (rc < 0)
				return -1;
			ps->heap[ps->nheap++] = s;
		}
	}
	for (int i = ps->nheap / 2 - 1; i >= 0; i--)
		sift_down(ps, i);
	return 0;
}

/* ---------------------------------------------------------------- the rows */

/* A new row at the ring's end, or NULL out of memory. */
static struct call *queue_push(struct pass *ps)
{
	if (ps->q_len == ps->q_cap) {
		size_t cap = ps->q_cap ? ps->q_cap * 2 : 16;
		struct call *q = cap < SIZE_MAX / sizeof(*q) ? calloc(cap, sizeof(*q)) : NULL;

		if (!q)
			return NULL;
		for (size_t i = 0; i < ps->q_cap; i++) /* unwrapped: the rows and their buffers */
			q[i] = ps->queue[(ps->q_first + i) % ps->q_cap];
		free(ps->queue);
		ps->queue = q;
		ps->q_first = 0;
		ps->q_cap = cap;
	}
	return &ps->queue[(ps->q_first + ps->q_len++) % ps->q_cap];
}

/* The row of thread t's entry; x: the exit it pairs with (its row), or NULL. */
static int put_call(struct pass *ps, const struct thread *t, const struct source *x)
{
	int64_t ts_rel = 0, gap = 0;

	if (!t->ts.null && __builtin_sub_overflow(t->ts.v, ps->base, &ts_rel)) {
		ps->overflow = true;
		return 0;
	}
	if (x && __builtin_sub_overflow(x->id, t->id, &gap))
		return msg_error("syscall event ids %lld and %lld: too far apart", (long long)t->id,
				 (long long)x->id);
	struct call *c = queue_push(ps);

	if (!c)
		return msg_error("out of memory");
	c->id = t->id;
	c->gap = gap;
	c->ts_rel = (struct dint){ ts_rel, t->ts.null };
	c->cpu = t->cpu;
	c->tid = (struct dint){ t->k.v, t->k.null != 0 };
	c->syscall = ps->names[t->syscall].number;
	c->paired = x != NULL;
	if (!x)
		return syscall_totals_add(&ps->totals, c->syscall, c->tid, NULL, NULL);
	dc_diff(&c->dur, dint_col(x->st, C_TS), t->ts);
	sqlite3_value *ret = sqlite3_column_value(x->st, C_RET);

	switch (sqlite3_value_type(ret)) {
	case SQLITE_INTEGER:
		dc_int(&c->ret, (struct dint){ sqlite3_value_int64(ret), false });
		break;
	case SQLITE_FLOAT:
		c->ret.type = SQLITE_FLOAT;
		c->ret.r = sqlite3_value_double(ret);
		break;
	case SQLITE_TEXT:
	case SQLITE_BLOB: { /* a hostile format's ret: kept as it is */
		int type = sqlite3_value_type(ret);
		const char *bytes = type == SQLITE_TEXT ? (const char *)sqlite3_value_text(ret) :
				    (const char *)sqlite3_value_blob(ret);

		if (dc_text(&c->ret, bytes ? bytes : "", sqlite3_value_bytes(ret)))
			return -1;
		c->ret.type = type;
		break;
	}
	default:
		dc_null(&c->ret);
		break;
	}
	return syscall_totals_add(&ps->totals, c->syscall, c->tid, &c->ret, &c->dur);
}

/* Were events lost (any CPU) after a and up to b? */
static bool lost_between(const struct loss_windows *w, struct dint a, struct dint b)
{
	return !a.null && !b.null && loss_hi_upto(w, b) > loss_hi_upto(w, a);
}

static int64_t thread_age(const void *t)
{
	return ((const struct thread *)t)->id;
}

/* More than derive_pending_max threads inside a syscall: the older half is written as
 * unpaired. 0 or -1. */
static int evict(struct pass *ps)
{
	struct pmap old = ps->threads;
	int64_t cut;
	int rc = 0;

	if (derive_median_age(&old, thread_age, &cut))
		return -1;
	pmap_init(&ps->threads, sizeof(struct tid_key), sizeof(struct thread));
	for (size_t i = 0; !rc && i < old.cap; i++) {
		const struct thread *t = pmap_slot(&old, i);
		struct thread *to;
		bool added;

		if (!t)
			continue;
		if (t->id <= cut)
			rc = put_call(ps, t, NULL);
		else if (!(to = pmap_add(&ps->threads, &t->k, &added)))
			rc = msg_error("out of memory");
		else
			*to = *t;
	}
	pmap_free(&old);
	return rc;
}

/* The current row of s, the first of the merge. */
static int event(struct pass *ps, const struct source *s)
{
	struct dint tid = dint_col(s->st, C_PID), ts = dint_col(s->st, C_TS);
	struct tid_key k = { tid.null ? 0 : tid.v, tid.null };
	struct thread *t = pmap_find(&ps->threads, &k);
	bool added;

	if (!ts.null) {
		if (ps->first.null || ts.v < ps->first.v)
			ps->first = ts;
		if (ps->last.null || ts.v > ps->last.v)
			ps->last = ts;
	}
	if (t) {
		bool paired = s->is_exit && s->name == t->syscall && !lost_between(&ps->w, t->ts, ts);

		if (put_call(ps, t, paired ? s : NULL))
			return -1;
		if (s->is_exit) {
			pmap_del(&ps->threads, t);
			return 0;
		}
	} else if (s->is_exit) {
		return 0; /* an exit without its entry */
	} else if (!(t = pmap_add(&ps->threads, &k, &added))) {
		return msg_error("out of memory");
	}
	t->syscall = s->name;
	t->id = s->id;
	t->ts = ts;
	t->cpu = dint_col(s->st, C_CPU);
	return ps->threads.len > derive_pending_max ? evict(ps) : 0;
}

/* The next syscall_pairs row into ps->row (derive_feed): 1, 0 the end, -1 an error. */
static int next_call(void *arg)
{
	struct pass *ps = arg;

	while (!ps->q_len) {
		if (ps->overflow)
			return 0;
		if (ps->nheap) {
			struct source *s = ps->heap[0];
			int rc;

			if (event(ps, s) || (rc = advance(ps, s)) < 0)
				return -1;
			if (!rc)
				ps->heap[0] = ps->heap[--ps->nheap];
			sift_down(ps, 0);
			continue;
		}
		/* the entries still waiting at the end: no exit */
		const struct thread *t = NULL;

		while (ps->end_slot < ps->threads.cap && !(t = pmap_slot(&ps->threads, ps->end_slot)))
			ps->end_slot++;
		if (!t)
			return 0;
		ps->end_slot++;
		if (put_call(ps, t, NULL))
			return -1;
	}
	ps->row = &ps->queue[ps->q_first];
	ps->q_first = (ps->q_first + 1) % ps->q_cap;
	ps->q_len--;
	return 1;
}

static void call_column(void *arg, sqlite3_context *ctx, int col)
{
	const struct pass *ps = arg;
	const struct call *c = ps->row;

	switch (col) {
	case P_ID: sqlite3_result_int64(ctx, c->id); break;
	case P_TS: dfeed_dint(ctx, c->ts_rel); break;
	case P_CPU: dfeed_dint(ctx, c->cpu); break;
	case P_TID: dfeed_dint(ctx, c->tid); break;
	case P_SYSCALL: sqlite3_result_int(ctx, c->syscall); break;
	case P_GAP: dfeed_dint(ctx, (struct dint){ c->gap, !c->paired }); break;
	case P_RET: if (c->paired) dfeed_cell(ctx, &c->ret); else sqlite3_result_null(ctx); break;
	default: if (c->paired) dfeed_cell(ctx, &c->dur); else sqlite3_result_null(ctx); break;
	}
}

static const struct dfeed_ops calls_feed = { NR_P, next_call, call_column };

static int put_names(struct pass *ps)
{
	struct drows r;
	int rc = drows_open(&r, ps->db, ps->schema, "syscall_names", 2);

	for (int i = 0; !rc && i < ps->nnames; i++) {
		struct dcell *c = drows_cells(&r);

		dc_int(&c[0], (struct dint){ ps->names[i].number, false });
		rc = dc_text(&c[1], ps->names[i].text, -1) || drows_add(&r);
	}
	if (derive_rows_done(&r, rc))
		return -1;
	bool totals;

	if (syscall_totals_write(&ps->totals, ps->db, ps->schema, &totals))
		return -1;
	char *sql = sqlite3_mprintf("INSERT INTO \"%w\".syscall_range VALUES (?1, ?2, ?3, ?4)", ps->schema);
	sqlite3_stmt *st = sql ? db_prepare(ps->db, sql) : NULL;

	sqlite3_free(sql);
	if (!st)
		return -1;
	if (!ps->first.null) {
		sqlite3_bind_int64(st, 1, ps->first.v);
		sqlite3_bind_int64(st, 2, ps->last.v);
	}
	sqlite3_bind_int64(st, 3, ps->base);
	sqlite3_bind_int(st, 4, totals);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_step_error(ps->db);
	sqlite3_finalize(st);
	return rc;
}

/* The base: the time of the first event (ts_rel then fits in 6 bytes for 39 hours). */
static int64_t first_time(const struct pass *ps)
{
	if (!ps->nheap || sqlite3_column_type(ps->heap[0]->st, C_TS) == SQLITE_NULL)
		return 0;
	return sqlite3_column_int64(ps->heap[0]->st, C_TS);
}

static void close_pass(struct pass *ps)
{
	for (int i = 0; i < ps->nsrc; i++) {
		sqlite3_finalize(ps->src[i].st);
		ps->src[i].st = NULL;
	}
	free(ps->heap);
	ps->heap = NULL;
	ps->nheap = 0;
	for (size_t i = 0; i < ps->q_cap; i++) {
		dtext_free(&ps->queue[i].ret.text);
		dtext_free(&ps->queue[i].dur.text);
	}
	free(ps->queue);
	ps->queue = NULL;
	ps->q_first = ps->q_len = ps->q_cap = 0;
	pmap_free(&ps->threads);
	syscall_totals_free(&ps->totals);
}

/* One pass: ts_rel from the first event's time, or (from_zero) from 0. 0, -1, or 1: some
 * time was too far from the first for an integer ts_rel. */
static int one_pass(struct pass *ps, bool from_zero)
{
	ps->first = ps->last = (struct dint){ 0, true };
	ps->overflow = false;
	ps->end_slot = 0;
	pmap_init(&ps->threads, sizeof(struct tid_key), sizeof(struct thread));
	syscall_totals_init(&ps->totals);
	if (derive_tables_create(ps->db, ps->schema, SQL_FILE) || open_sources(ps))
		return -1;
	ps->base = from_zero ? 0 : first_time(ps);
	if (derive_feed(ps->db, ps->schema, "syscall_pairs", &calls_feed, ps))
		return -1;
	return ps->overflow ? 1 : put_names(ps);
}

static int derive(struct pass *ps)
{
	if (list_sources(ps))
		return -1;
	if (loss_windows_load(ps->db, &ps->w, NULL, 0))
		return -1;
	int rc = one_pass(ps, false);

	if (rc == 1) {
		/* times too far apart for one base (a hostile capture): absolute times */
		close_pass(ps);
		if (db_exec(ps->db, "ROLLBACK TO derive_syscalls"))
			return -1;
		rc = one_pass(ps, true);
	}
	return rc ? -1 : 0;
}

int derive_syscalls(sqlite3 *db, const char *schema)
{
	struct pass ps = { .db = db, .schema = schema };
	int rc;

	if (derive_check_schema(schema) || db_exec(db, "SAVEPOINT derive_syscalls"))
		return -1;
	rc = derive(&ps);
	close_pass(&ps);
	for (int i = 0; i < ps.nsrc; i++)
		free(ps.src[i].table);
	free(ps.src);
	for (int i = 0; i < ps.nnames; i++)
		free(ps.names[i].text);
	free(ps.names);
	loss_windows_free(&ps.w);
	return derive_end(db, "derive_syscalls", rc);
}

bool derive_syscalls_present(sqlite3 *db, const char *schema)
{
	return derive_tables_present(db, schema, SQL_FILE);
}
