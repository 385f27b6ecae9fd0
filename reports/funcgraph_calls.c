/* SPDX-License-Identifier: MIT */
/*
 * funcgraph_calls.c - build temp.call_rows (schema/reports/funcgraph.sql), the rows
 * of the `calls` view, from the funcgraph_entry / funcgraph_exit events of the whole
 * capture. Reports slice the view in SQL (schema/reports/funcgraph_report.sql).
 *
 * Why C and not SQL: matching an exit to its entry alone is a window function
 * (LAG over each thread's events at one depth), but a real capture also has
 * returns whose entries came before the recording, entries whose returns come
 * after it, and holes where events were lost. Deciding what encloses what then
 * needs each thread's call stack as it was at each event -- a sequential walk. In
 * SQL that is a recursive CTE stepping one event per iteration (row-at-a-time,
 * seconds per 100k events); here it is one ordered scan and a stack per thread.
 *
 * Rules (mark, don't guess):
 *   - an exit matches the innermost open entry of its thread at the same depth and
 *     function; open entries deeper than it lost their exits (flag 2);
 *   - an exit without a matching entry becomes a call without start (flag 1), its
 *     duration still known from the kernel's calltime/rettime; it adopts the calls
 *     of its thread one level deeper that were still waiting for a parent;
 *   - an entry at a depth already open means the older entry lost its exit (flag 2);
 *   - entries still open at the end have no exit (flag 2);
 *   - an exit with overrun != 0, or a call on a CPU that lost events while it ran,
 *     gets flag 4 (events may be missing inside it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reports/args.h"
#include "reports/views.h"
#include "store/db.h"

enum { CALL_NO_ENTRY = 1, CALL_NO_EXIT = 2, CALL_LOSSY = 4 };

struct frame {
	int64_t call_id, entry_id, ts, func, child_dur;
	int cpu, pid, depth, children, flags;
	bool has_parent;
};

/*
 * One thread's open calls and its finished calls still waiting for a parent. The
 * orphans are a max-heap by depth: a return without entry at depth d adopts those at
 * d + 1 and gives up the deeper ones, popping only those; the rest stay untouched
 * (a list scanned per return cost the square of the returns: 300,000 returns without
 * entries, issue 25).
 */
struct thread {
	int64_t task;
	struct frame *stack;
	int depth, cap;
	struct frame *orphans; /* only call_id, depth, dur in child_dur are used */
	int n_orphans, orphan_cap;
};

/* The threads, and an index of them by task (open addressing; a capture may have
 * any number of threads: a scan per event was the square of them). */
struct builder {
	sqlite3 *db;
	sqlite3_stmt *insert, *adopt;
	struct thread *threads;
	int n_threads, cap_threads;
	int *slots;       /* index + 1 into threads, 0 empty; slot_mask + 1 of them */
	size_t slot_mask;
	int64_t next_id;
};

static size_t task_slot(const struct builder *b, int64_t task)
{
	uint64_t h = (uint64_t)task * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ (h >> 29)) & b->slot_mask;
}

/* The index, twice the threads' room (rebuilt whole when the threads grow). */
static int index_threads(struct builder *b)
{
	size_t n = 64;

	while (n < 2 * (size_t)b->cap_threads)
		n *= 2;
	int *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	free(b->slots);
	b->slots = slots;
	b->slot_mask = n - 1;
	for (int i = 0; i < b->n_threads; i++) {
		size_t at = task_slot(b, b->threads[i].task);

		while (b->slots[at])
			at = (at + 1) & b->slot_mask;
		b->slots[at] = i + 1;
	}
	return 0;
}

static struct thread *thread_of(struct builder *b, int64_t task)
{
	size_t at;

	for (at = b->slots ? task_slot(b, task) : 0; b->slots && b->slots[at]; at = (at + 1) & b->slot_mask)
		if (b->threads[b->slots[at] - 1].task == task)
			return &b->threads[b->slots[at] - 1];
	if (b->n_threads == b->cap_threads) {
		int cap = b->cap_threads ? 2 * b->cap_threads : 16;
		struct thread *t = realloc(b->threads, cap * sizeof(*t));

		if (!t)
			return NULL;
		b->threads = t;
		b->cap_threads = cap;
		if (index_threads(b))
			return NULL;
		for (at = task_slot(b, task); b->slots[at]; at = (at + 1) & b->slot_mask)
			;
	}
	struct thread *t = &b->threads[b->n_threads++];
	memset(t, 0, sizeof(*t));
	t->task = task;
	b->slots[at] = b->n_threads;
	return t;
}

static int grow(void **arr, int *cap, int need, size_t size)
{
	if (need <= *cap)
		return 0;
	int cap2 = *cap ? 2 * *cap : 32;
	void *p = realloc(*arr, cap2 * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = cap2;
	return 0;
}

/* The orphans' heap (struct thread): push o (room made); pop the deepest. */
static void orphan_push(struct thread *t, struct frame o)
{
	int i = t->n_orphans++;

	for (; i > 0 && t->orphans[(i - 1) / 2].depth < o.depth; i = (i - 1) / 2)
		t->orphans[i] = t->orphans[(i - 1) / 2];
	t->orphans[i] = o;
}

static struct frame orphan_pop(struct thread *t)
{
	struct frame top = t->orphans[0], last = t->orphans[--t->n_orphans];
	int i = 0;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= t->n_orphans)
			break;
		if (c + 1 < t->n_orphans && t->orphans[c + 1].depth > t->orphans[c].depth)
			c++;
		if (t->orphans[c].depth <= last.depth)
			break;
		t->orphans[i] = t->orphans[c];
		i = c;
	}
	if (t->n_orphans)
		t->orphans[i] = last;
	return top;
}

/* Write one finished call; dur < 0 means unknown; exit_id < 0: no return seen. */
static int emit(struct builder *b, struct thread *t, const struct frame *f, int64_t parent,
		int64_t exit_id, int exit_cpu, int64_t end_ts, int64_t dur)
{
	sqlite3_stmt *st = b->insert;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, f->call_id);
	sqlite3_bind_int(st, 2, f->cpu);
	sqlite3_bind_int(st, 3, f->pid);
	sqlite3_bind_int64(st, 4, t->task);
	sqlite3_bind_int(st, 5, f->depth);
	sqlite3_bind_int64(st, 6, f->func);
	f->entry_id >= 0 ? sqlite3_bind_int64(st, 7, f->ts) : sqlite3_bind_null(st, 7);
	exit_id >= 0 ? sqlite3_bind_int64(st, 8, end_ts) : sqlite3_bind_null(st, 8);
	dur >= 0 ? sqlite3_bind_int64(st, 9, dur) : sqlite3_bind_null(st, 9);
	parent >= 0 ? sqlite3_bind_int64(st, 10, parent) : sqlite3_bind_null(st, 10);
	f->entry_id >= 0 ? sqlite3_bind_int64(st, 11, f->entry_id) : sqlite3_bind_null(st, 11);
	exit_id >= 0 ? sqlite3_bind_int64(st, 12, exit_id) : sqlite3_bind_null(st, 12);
	sqlite3_bind_int(st, 13, f->children);
	sqlite3_bind_int64(st, 14, f->child_dur);
	sqlite3_bind_int(st, 15, f->flags);
	exit_id >= 0 ? sqlite3_bind_int(st, 16, exit_cpu) : sqlite3_bind_null(st, 16);
	if (sqlite3_step(st) != SQLITE_DONE)
		return -EIO;

	/* Tell the enclosing call, or wait for a parent that returns later. */
	if (parent >= 0) {
		struct frame *p = &t->stack[t->depth - 1];
		p->children++;
		if (dur > 0)
			p->child_dur += dur;
	} else if (f->depth > 0) {
		if (grow((void **)&t->orphans, &t->orphan_cap, t->n_orphans + 1, sizeof(struct frame)))
			return -ENOMEM;
		orphan_push(t, (struct frame){ .call_id = f->call_id, .depth = f->depth, .child_dur = dur });
	}
	return 0;
}

/* Pop the top frame of t as a call whose exit was never seen. */
static int pop_unfinished(struct builder *b, struct thread *t)
{
	struct frame f = t->stack[--t->depth];

	f.flags |= CALL_NO_EXIT;
	return emit(b, t, &f, f.has_parent ? t->stack[t->depth - 1].call_id : -1, -1, 0, 0, -1);
}

static int on_call(struct builder *b, struct thread *t, const struct frame *in)
{
	int rc;

	while (t->depth > 0 && t->stack[t->depth - 1].depth >= in->depth)
		if ((rc = pop_unfinished(b, t)))
			return rc;
	if (grow((void **)&t->stack, &t->cap, t->depth + 1, sizeof(struct frame)))
		return -ENOMEM;
	struct frame *f = &t->stack[t->depth];
	*f = *in;
	f->call_id = b->next_id++;
	f->has_parent = t->depth > 0 && t->stack[t->depth - 1].depth == in->depth - 1;
	t->depth++;
	return 0;
}

/* A return whose entry was not seen: adopt the waiting calls one level deeper. Those
 * at its depth or above still wait for a shallower parent; deeper ones skipped a level
 * (lost events): they stay roots. */
static int adopt_orphans(struct builder *b, struct thread *t, struct frame *f)
{
	while (t->n_orphans && t->orphans[0].depth > f->depth) {
		struct frame o = orphan_pop(t);

		if (o.depth != (int64_t)f->depth + 1)
			continue;
		sqlite3_reset(b->adopt);
		sqlite3_bind_int64(b->adopt, 1, f->call_id);
		sqlite3_bind_int64(b->adopt, 2, o.call_id);
		if (sqlite3_step(b->adopt) != SQLITE_DONE)
			return -EIO;
		f->children++;
		if (o.child_dur > 0)
			f->child_dur += o.child_dur;
	}
	return 0;
}

static int on_return(struct builder *b, struct thread *t, const struct frame *in,
		   int64_t exit_id, int64_t dur, bool lossy)
{
	int rc;

	while (t->depth > 0 && t->stack[t->depth - 1].depth > in->depth)
		if ((rc = pop_unfinished(b, t)))
			return rc;
	if (t->depth > 0 && t->stack[t->depth - 1].depth == in->depth &&
	    t->stack[t->depth - 1].func != in->func)
		if ((rc = pop_unfinished(b, t)))
			return rc;

	struct frame f;
	if (t->depth > 0 && t->stack[t->depth - 1].depth == in->depth) {
		f = t->stack[--t->depth];
	} else {
		f = *in;
		f.call_id = b->next_id++;
		f.entry_id = -1;
		f.flags = CALL_NO_ENTRY;
		f.has_parent = t->depth > 0 && t->stack[t->depth - 1].depth == in->depth - 1;
		if ((rc = adopt_orphans(b, t, &f)))
			return rc;
	}
	if (lossy)
		f.flags |= CALL_LOSSY;
	return emit(b, t, &f, f.has_parent ? t->stack[t->depth - 1].call_id : -1,
		    exit_id, in->cpu, in->ts, dur);
}

static const char *const events_sql[] = {
	/* both tables */
	"SELECT id, ts, cpu, pid, func, depth, 0, NULL, NULL, NULL FROM funcgraph_entry "
	"UNION ALL SELECT id, ts, cpu, pid, func, depth, 1, overrun, calltime, rettime "
	"FROM funcgraph_exit ORDER BY id",
	/* exits only (funcslower recordings: tracing_thresh drops entries) */
	"SELECT id, ts, cpu, pid, func, depth, 1, overrun, calltime, rettime "
	"FROM funcgraph_exit ORDER BY id",
};

static int walk(struct builder *b, sqlite3_stmt *ev)
{
	int rc = 0, step;

	while ((step = sqlite3_step(ev)) == SQLITE_ROW) {
		struct frame in = {
			.entry_id = sqlite3_column_int64(ev, 0),
			.ts = sqlite3_column_int64(ev, 1),
			.cpu = sqlite3_column_int(ev, 2),
			.pid = sqlite3_column_int(ev, 3),
			.func = sqlite3_column_int64(ev, 4),
			.depth = sqlite3_column_int(ev, 5),
		};
		/* Idle tasks are all pid 0: each CPU's is its own thread. */
		struct thread *t = thread_of(b, in.pid ? in.pid : -1 - (int64_t)in.cpu);
		if (!t)
			return -ENOMEM;
		if (sqlite3_column_int(ev, 6) == 0) {
			rc = on_call(b, t, &in);
		} else {
			int64_t calltime = sqlite3_column_int64(ev, 8);
			int64_t rettime = sqlite3_column_int64(ev, 9);
			/* the capture's two u64s: a difference past int64 is no duration */
			bool fits = rettime >= calltime && (calltime >= 0 || rettime <= INT64_MAX + calltime);

			rc = on_return(b, t, &in, in.entry_id, fits ? rettime - calltime : -1,
				     sqlite3_column_int64(ev, 7) != 0);
		}
		if (rc)
			return rc;
	}
	if (step != SQLITE_DONE)
		return -EIO;
	for (int i = 0; i < b->n_threads; i++)
		while (b->threads[i].depth > 0)
			if ((rc = pop_unfinished(b, &b->threads[i])))
				return rc;
	return 0;
}

/* Calls that were running on a CPU while it lost events may miss callees. */
static const char lost_sql[] =
	"UPDATE call_rows SET flags = flags | 4 WHERE EXISTS (SELECT 1 FROM lost_events l "
	"WHERE l.cpu IN (call_rows.cpu, call_rows.exit_cpu) AND l.ts >= coalesce(call_rows.start_ts, 0) "
	"AND l.ts <= coalesce(call_rows.end_ts, 9223372036854775807))";

int funcgraph_build_calls(sqlite3 *db)
{
	struct builder b = { .db = db, .next_id = 1 };
	sqlite3_stmt *ev = NULL;
	int rc = -EIO;

	if (!db_has_table(db, "funcgraph_exit"))
		return -ENOENT;
	const char *sql = events_sql[db_has_table(db, "funcgraph_entry") ? 0 : 1];
	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, sql, -1, &ev, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO call_rows(id, cpu, pid, task, depth, ip, start_ts, "
			       "end_ts, dur_ns, parent_id, entry_id, exit_id, children, child_dur_ns, "
			       "flags, exit_cpu) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
			       "?12, ?13, ?14, ?15, ?16)",
			       -1, &b.insert, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "UPDATE call_rows SET parent_id = ?1 WHERE id = ?2",
			       -1, &b.adopt, NULL) != SQLITE_OK)
		goto out;
	rc = walk(&b, ev);
	if (!rc && db_has_table(db, "lost_events") &&
	    sqlite3_exec(db, lost_sql, NULL, NULL, NULL) != SQLITE_OK)
		rc = -EIO;
out:
	if (rc == -EIO)
		db_step_error(db);
	sqlite3_exec(db, rc ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL);
	sqlite3_finalize(ev);
	sqlite3_finalize(b.insert);
	sqlite3_finalize(b.adopt);
	for (int i = 0; i < b.n_threads; i++) {
		free(b.threads[i].stack);
		free(b.threads[i].orphans);
	}
	free(b.threads);
	free(b.slots);
	return rc;
}

int funcgraph_views(sqlite3 *db)
{
	/* The walk covers the whole capture once; reports slice its rows in SQL. */
	if (args_setup(db) || db_exec_file(db, "schema/reports/funcgraph.sql") ||
	    funcgraph_build_calls(db) ||
	    db_exec_file(db, "schema/reports/funcgraph_calls.sql"))
		return -1;
	return 0;
}

/* For `ftana sql`: `calls` of a capture with function_graph entries and exits. */
static int views_calls_build(sqlite3 *db)
{
	if (!db_has_capture_table(db, "funcgraph_entry") || !db_has_capture_table(db, "funcgraph_exit"))
		return 0;
	return funcgraph_views(db); /* one walk over every function_graph event */
}

const struct report_views views_calls = { "calls", views_calls_build, .per_run = true };
