/* SPDX-License-Identifier: MIT */
/*
 * derive_syscalls.c - derive_syscalls (derive.h): every syscall entry paired with its
 * exit, into syscall_pairs, syscall_names and syscall_range (schema/derive_syscalls.sql),
 * in one pass over the capture's syscalls:sys_enter_NAME / sys_exit_NAME tables
 * (event_types: NAME is the kernel's own, never a number table) merged in id order (ids
 * are global and time-ordered). tests/oracle/syscount.sql is the SQL the rows must equal
 * (tests/test_derive_syscalls.c); schema/reports/syscount.sql makes `syscall_calls`.
 *
 * The rule, and what it keeps in memory: syscall_pairing.c (import_stream.c applies
 * it to the decoded events when only the totals are asked). Here: one open statement
 * per syscall table (the merge) and one entry per lost_events row.
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
#include "import/derive_util.h"
#include "import/syscall_pairing.h"
#include "store/db.h"

#define SQL_FILE "schema/derive_syscalls.sql"
#define TOTALS_FILE "schema/derive_syscall_totals.sql"

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

struct pass {
	sqlite3 *db;
	const char *schema;
	struct source *src;
	int nsrc;
	struct source **heap; /* the sources with a current row, by (id, order) */
	int nheap;
	struct loss_windows w;
	struct syscall_pairing pr;
	struct syscall_call *queue; /* the rows made, not yet inserted: a ring */
	size_t q_first, q_len, q_cap;
	struct syscall_call *row;   /* the row being inserted (derive_feed) */
	struct dcell ret;           /* the current exit's ret */
};

/* ---------------------------------------------------------------- the syscall tables */

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
				      .name = syscall_pairing_name(&ps->pr, name + (is_exit ? 9 : 10),
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
	return syscall_pairing_number(&ps->pr);
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

/* A new row at the ring's end, or NULL out of memory (syscall_pairing.slot). */
static struct syscall_call *queue_push(void *arg)
{
	struct pass *ps = arg;

	if (ps->q_len == ps->q_cap) {
		size_t cap = ps->q_cap ? ps->q_cap * 2 : 16;
		struct syscall_call *q = cap < SIZE_MAX / sizeof(*q) ? calloc(cap, sizeof(*q)) : NULL;

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

/* Were events lost (any CPU) after a and up to b? (syscall_pairing.lost) */
static bool lost_between(void *arg, struct dint a, struct dint b)
{
	const struct pass *ps = arg;

	return !a.null && !b.null && loss_hi_upto(&ps->w, b) > loss_hi_upto(&ps->w, a);
}

/* The current row of s, the first of the merge. */
static int event(struct pass *ps, const struct source *s)
{
	struct syscall_event ev = { .id = s->id, .ts = dint_col(s->st, C_TS), .cpu = dint_col(s->st, C_CPU),
				    .tid = dint_col(s->st, C_PID), .name = s->name, .is_exit = s->is_exit };

	if (s->is_exit) {
		sqlite3_value *ret = sqlite3_column_value(s->st, C_RET);
		int type = sqlite3_value_type(ret);

		if (type == SQLITE_TEXT || type == SQLITE_BLOB) { /* a hostile format's ret: as it is */
			const char *bytes = type == SQLITE_TEXT ? (const char *)sqlite3_value_text(ret) :
					    (const char *)sqlite3_value_blob(ret);

			if (dc_text(&ps->ret, bytes ? bytes : "", sqlite3_value_bytes(ret)))
				return -1;
		}
		ps->ret.type = type;
		ps->ret.i = type == SQLITE_INTEGER ? sqlite3_value_int64(ret) : 0;
		ps->ret.r = type == SQLITE_FLOAT ? sqlite3_value_double(ret) : 0;
		ev.ret = &ps->ret;
	}
	return syscall_pairing_event(&ps->pr, &ev);
}

/* The next syscall_pairs row into ps->row (derive_feed): 1, 0 the end, -1 an error. */
static int next_call(void *arg)
{
	struct pass *ps = arg;

	while (!ps->q_len) {
		if (ps->pr.overflow)
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
		int rc = syscall_pairing_end(&ps->pr);

		if (rc <= 0)
			return rc;
	}
	ps->row = &ps->queue[ps->q_first];
	ps->q_first = (ps->q_first + 1) % ps->q_cap;
	ps->q_len--;
	return 1;
}

static void call_column(void *arg, sqlite3_context *ctx, int col)
{
	const struct pass *ps = arg;
	const struct syscall_call *c = ps->row;

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
	syscall_pairing_stop(&ps->pr);
}

/* One pass: ts_rel from the first event's time, or (from_zero) from 0. 0, -1, or 1: some
 * time was too far from the first for an integer ts_rel. */
static int one_pass(struct pass *ps, bool from_zero)
{
	if (derive_tables_create(ps->db, ps->schema, SQL_FILE) ||
	    derive_tables_create(ps->db, ps->schema, TOTALS_FILE) || open_sources(ps))
		return -1;
	syscall_pairing_start(&ps->pr, from_zero ? 0 : first_time(ps));
	if (derive_feed(ps->db, ps->schema, "syscall_pairs", &calls_feed, ps))
		return -1;
	return ps->pr.overflow ? 1 : syscall_pairing_write(&ps->pr, ps->db, ps->schema, false);
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

	ps.pr.lost = lost_between;
	ps.pr.slot = queue_push;
	ps.pr.arg = &ps;

	if (derive_check_schema(schema) || db_exec(db, "SAVEPOINT derive_syscalls"))
		return -1;
	rc = derive(&ps);
	close_pass(&ps);
	for (int i = 0; i < ps.nsrc; i++)
		free(ps.src[i].table);
	free(ps.src);
	syscall_pairing_free(&ps.pr);
	dtext_free(&ps.ret.text);
	loss_windows_free(&ps.w);
	return derive_end(db, "derive_syscalls", rc);
}

int derive_syscall_pairs_empty(sqlite3 *db, const char *schema)
{
	return derive_check_schema(schema) || derive_tables_create(db, schema, SQL_FILE) ? -1 : 0;
}

bool derive_syscalls_present(sqlite3 *db, const char *schema)
{
	return derive_tables_present(db, schema, SQL_FILE) && derive_syscall_totals_present(db, schema);
}

bool derive_syscall_totals_present(sqlite3 *db, const char *schema)
{
	return derive_tables_present(db, schema, TOTALS_FILE);
}
