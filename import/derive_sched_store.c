/* SPDX-License-Identifier: MIT */
/*
 * derive_sched_store.c - the stored form of oncpu, runq_waits and offcpu
 * (derive_sched_store.h): links to the events where the events give a row back, whole
 * rows elsewhere, and the views that join them. A view's link part gives:
 *
 *   oncpu       S the switch-in (start_id), E the next switch on its CPU: cpu, pid, comm
 *               S's (cpu, next_pid, next_comm; '<idle>' for pid 0), start_ts S.ts,
 *               end_id/end_ts E's, dur_ns E.ts - S.ts, end_state/end_stack_id E's
 *               prev_state and stack_id, end_state_text its text, status 'ok'.
 *   runq_waits  S the switch-in (run_id), Q the first enqueue: run_ts, cpu, pid, comm
 *               S's, queued_ts Q.ts, queued_by Q's kind, status 'ok', wait_ns
 *               S.ts - Q.ts, waker_pid Q's common pid (none for a switch-out), its
 *               name from tasks ('<idle>' for 0).
 *   offcpu      S (on_id) and Q as above, O the switch-out: off_ts, out_cpu, state,
 *               stack_id O's (ts, cpu, prev_state, stack_id), state_text, status 'ok',
 *               off_ns S.ts - O.ts, runq_ns S.ts - Q.ts, the waker as above.
 *
 * A link is 10-15 bytes where the row was 55-61. The views read the events by rowid
 * (links are made only where id is the events' INTEGER PRIMARY KEY) and have no row
 * order of their own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "import/derive_sched_store.h"
#include "import/derive_util.h"
#include "store/db.h"

#define SQL_FILE "schema/derive_sched.sql"

static const char *const row_tables[3] = { "oncpu_rows", "runq_rows", "offcpu_rows" };
static const char *const link_tables[3] = { "oncpu_link", "runq_link", "offcpu_link" };
static const int row_cols[3] = { 12, 11, 15 }, link_cols[3] = { 2, 3, 4 };
static const char *const views[3] = { "oncpu", "runq_waits", "offcpu" };

const char *sched_state_text(struct dint s, char *buf)
{
	static const char letters[] = "SDTtXZPI";
	char *p = buf;

	if (s.null)
		return "";
	if ((s.v & 255) == 0)
		return s.v == 0 ? "R" : "R+";
	for (int i = 0; i < 8; i++)
		if (s.v & (1 << i)) {
			if (p != buf)
				*p++ = '|';
			*p++ = letters[i];
		}
	*p = '\0';
	return buf;
}

/* Is TABLE's column id its rowid (INTEGER PRIMARY KEY)? A missing table: true (no link reads it). */
static bool id_is_rowid(sqlite3 *db, const char *table, const char *col)
{
	sqlite3_stmt *st;
	bool yes = false;

	if (!derive_has(db, table))
		return true;
	if (sqlite3_prepare_v2(db, "SELECT pk = 1 AND upper(type) = 'INTEGER' AND (SELECT count(*) FROM "
			       "pragma_table_info(?1) WHERE pk > 0) = 1 FROM pragma_table_info(?1) WHERE name = ?2",
			       -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
	yes = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return yes;
}

/* Has TABLE (when it exists) every column of the comma-separated list COLS? */
static bool has_columns(sqlite3 *db, const char *table, const char *cols)
{
	sqlite3_stmt *st;
	bool yes = false;

	if (!derive_has(db, table))
		return true;
	if (sqlite3_prepare_v2(db, "SELECT count(*) = length(?2) - length(replace(?2, ',', '')) + 1 FROM "
			       "pragma_table_info(?1) WHERE instr(',' || ?2 || ',', ',' || name || ',') > 0",
			       -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, cols, -1, SQLITE_STATIC);
	yes = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return yes;
}

/* May links be made: does every column a view reads exist, each event table's id its rowid? */
static bool links_possible(sqlite3 *db, const char *wakeup)
{
	const char *const wakes[2] = { wakeup, "sched_wakeup_new" };

	if (!derive_has(db, "sched_switch") || !derive_has(db, "tasks") || !id_is_rowid(db, "sched_switch", "id") ||
	    !has_columns(db, "sched_switch", "id,ts,cpu,prev_state,next_pid,next_comm,stack_id") ||
	    !id_is_rowid(db, "tasks", "pid") || !has_columns(db, "tasks", "pid,comm"))
		return false;
	for (int i = 0; i < 2; i++)
		if (!id_is_rowid(db, wakes[i], "id") || !has_columns(db, wakes[i], "id,ts,pid"))
			return false;
	return true;
}

int sched_store_open(struct sched_store *s, sqlite3 *db, const char *schema, const char *wakeup)
{
	*s = (struct sched_store){ .db = db, .schema = schema, .wakeup = wakeup };
	dmap_init(&s->states, sizeof(struct dmap_head));
	s->links = links_possible(db, wakeup);
	/* the views of an older layout, or tables of these names (a database made elsewhere) */
	for (int i = 0; i < 3; i++) {
		char *sql = sqlite3_mprintf("DROP %s IF EXISTS \"%w\".\"%w\"",
					    db_is_view(db, schema, views[i]) ? "VIEW" : "TABLE", schema, views[i]);
		int rc = sql ? db_exec(db, sql) : msg_error("out of memory");

		sqlite3_free(sql);
		if (rc)
			return -1;
	}
	if (derive_tables_create(db, schema, SQL_FILE))
		return -1;
	for (int i = 0; i < 3; i++)
		if (drows_open(&s->rows[i], db, schema, row_tables[i], row_cols[i]) ||
		    drows_open(&s->link[i], db, schema, link_tables[i], link_cols[i]))
			return -1;
	return 0;
}

int sched_store_add(struct sched_store *s, int t)
{
	return drows_add(&s->rows[t]);
}

/* A prev_state a link shows: its text is written once. */
static int note_state(struct sched_store *s, struct dint state)
{
	bool added;

	if (state.null)
		return 0;
	return dmap_get(&s->states, state, &added) ? 0 : msg_error("out of memory");
}

/* The heap's least link to its table. */
static int heap_pop(struct sched_store *s, int t)
{
	struct sched_heap *h = &s->heap[t];
	struct dcell *c = drows_cells(&s->link[t]);

	for (int i = 0; i < link_cols[t]; i++)
		dc_int(&c[i], (struct dint){ h->a[0].v[i], false });
	h->a[0] = h->a[--h->n];
	for (int i = 0;;) { /* sift down */
		int l = 2 * i + 1, m = i;

		if (l < h->n && h->a[l].v[0] < h->a[m].v[0])
			m = l;
		if (l + 1 < h->n && h->a[l + 1].v[0] < h->a[m].v[0])
			m = l + 1;
		if (m == i)
			break;
		struct sched_link x = h->a[i];

		h->a[i] = h->a[m];
		h->a[m] = x;
		i = m;
	}
	return drows_add(&s->link[t]);
}

static int link_add(struct sched_store *s, int t, struct sched_link l)
{
	struct sched_heap *h = &s->heap[t];

	if (!h->a && !(h->a = malloc(SCHED_REORDER * sizeof(*h->a))))
		return msg_error("out of memory");
	if (h->n == SCHED_REORDER && heap_pop(s, t))
		return -1;
	int i = h->n++;

	for (; i > 0 && h->a[(i - 1) / 2].v[0] > l.v[0]; i = (i - 1) / 2) /* sift up */
		h->a[i] = h->a[(i - 1) / 2];
	h->a[i] = l;
	return 0;
}

int sched_store_link_oncpu(struct sched_store *s, int64_t start_id, int64_t end_gap, struct dint end_state)
{
	return note_state(s, end_state) || link_add(s, SCHED_ONCPU, (struct sched_link){ { start_id, end_gap } });
}

int sched_store_link_runq(struct sched_store *s, int64_t run_id, int64_t q_gap, int kind)
{
	return link_add(s, SCHED_RUNQ, (struct sched_link){ { run_id, q_gap, kind } });
}

int sched_store_link_offcpu(struct sched_store *s, int64_t on_id, int64_t off_gap, int64_t q_gap, int kind,
			    struct dint state)
{
	return note_state(s, state) ||
	       link_add(s, SCHED_OFFCPU, (struct sched_link){ { on_id, off_gap, q_gap, kind } });
}

static int write_states(struct sched_store *s)
{
	struct drows r;
	int rc = drows_open(&r, s->db, s->schema, "sched_state_texts", 2);

	for (size_t i = 0; !rc && i < s->states.cap; i++) {
		const struct dmap_head *h = dmap_slot(&s->states, i);
		struct dcell *c;
		char buf[24];

		if (!h)
			continue;
		c = drows_cells(&r);
		dc_int(&c[0], (struct dint){ h->key, false });
		rc = dc_text(&c[1], sched_state_text((struct dint){ h->key, false }, buf), -1) || drows_add(&r);
	}
	return derive_rows_done(&r, rc);
}

/* The waker's columns of a link whose queuing event is Q (kind 1: none). */
static void waker(sqlite3_str *sql, int kind)
{
	if (kind == 1)
		sqlite3_str_appendall(sql, ", NULL AS waker_pid, NULL AS waker_comm");
	else
		sqlite3_str_appendall(sql, ", Q.pid AS waker_pid, CASE WHEN Q.pid IS NULL THEN NULL WHEN "
				      "Q.pid = 0 THEN '<idle>' ELSE (SELECT t.comm FROM tasks t WHERE t.pid = "
				      "Q.pid) END AS waker_comm");
}

#define STATE_TEXT(col) "coalesce((SELECT x.text FROM sched_state_texts x WHERE x.state = " col "), '')"

/* One link branch of runq_waits or offcpu per kind of queuing event whose table exists. */
static void queued_branches(struct sched_store *s, sqlite3_str *sql, int t)
{
	static const char *const by[4] = { NULL, "preempted", "wakeup", "wakeup_new" };
	const char *from[4] = { NULL, "sched_switch", s->wakeup, "sched_wakeup_new" };

	for (int k = 1; k <= 3; k++) {
		if (!derive_has(s->db, from[k]))
			continue;
		if (t == SCHED_RUNQ)
			sqlite3_str_appendf(sql, "SELECT l.run_id AS run_id, S.ts AS run_ts, S.cpu AS cpu, "
					    "S.next_pid AS pid, S.next_comm AS comm, Q.ts AS queued_ts, '%s' AS "
					    "queued_by, 'ok' AS status, S.ts - Q.ts AS wait_ns", by[k]);
		else
			sqlite3_str_appendall(sql, "SELECT l.on_id AS on_id, S.ts AS on_ts, S.cpu AS cpu, "
					      "S.next_pid AS pid, S.next_comm AS comm, O.ts AS off_ts, O.cpu AS "
					      "out_cpu, O.prev_state AS state, " STATE_TEXT("O.prev_state")
					      " AS state_text, O.stack_id AS stack_id, 'ok' AS status, S.ts - O.ts "
					      "AS off_ns, S.ts - Q.ts AS runq_ns");
		waker(sql, k);
		if (t == SCHED_RUNQ)
			sqlite3_str_appendf(sql, " FROM runq_link l JOIN sched_switch S ON S.id = l.run_id JOIN "
					    "\"%w\" Q ON Q.id = l.run_id - l.q_gap WHERE l.kind = %d\nUNION ALL ",
					    from[k], k);
		else
			sqlite3_str_appendf(sql, " FROM offcpu_link l JOIN sched_switch S ON S.id = l.on_id JOIN "
					    "sched_switch O ON O.id = l.on_id - l.off_gap JOIN \"%w\" Q ON Q.id = "
					    "l.on_id - l.q_gap WHERE l.kind = %d\nUNION ALL ", from[k], k);
	}
}

static int make_view(struct sched_store *s, int t)
{
	sqlite3_str *sql = sqlite3_str_new(s->db);

	sqlite3_str_appendf(sql, "CREATE VIEW \"%w\".\"%w\" AS ", s->schema, views[t]);
	if (s->links && t == SCHED_ONCPU)
		sqlite3_str_appendall(sql, "SELECT S.cpu AS cpu, S.next_pid AS pid, CASE WHEN S.next_pid = 0 "
				      "THEN '<idle>' ELSE S.next_comm END AS comm, l.start_id AS start_id, S.ts "
				      "AS start_ts, E.id AS end_id, E.ts AS end_ts, E.ts - S.ts AS dur_ns, "
				      "E.prev_state AS end_state, " STATE_TEXT("E.prev_state") " AS "
				      "end_state_text, E.stack_id AS end_stack_id, 'ok' AS status FROM oncpu_link "
				      "l JOIN sched_switch S ON S.id = l.start_id JOIN sched_switch E ON E.id = "
				      "l.start_id + l.end_gap\nUNION ALL ");
	else if (s->links)
		queued_branches(s, sql, t);
	sqlite3_str_appendf(sql, "SELECT * FROM \"%w\"", row_tables[t]);
	char *text = sqlite3_str_finish(sql);
	int rc = text ? db_exec(s->db, text) : msg_error("out of memory");

	sqlite3_free(text);
	return rc;
}

int sched_store_finish(struct sched_store *s)
{
	for (int i = 0; i < 3; i++) {
		while (s->heap[i].n)
			if (heap_pop(s, i))
				return -1;
		if (drows_flush(&s->rows[i]) || drows_flush(&s->link[i]))
			return -1;
	}
	if (write_states(s))
		return -1;
	for (int i = 0; i < 3; i++)
		if (make_view(s, i))
			return -1;
	return 0;
}

void sched_store_close(struct sched_store *s)
{
	for (int i = 0; i < 3; i++) {
		drows_close(&s->rows[i]);
		drows_close(&s->link[i]);
		free(s->heap[i].a);
	}
	dmap_free(&s->states);
}

bool sched_store_present(sqlite3 *db, const char *schema)
{
	for (int i = 0; i < 3; i++)
		if (!db_is_view(db, schema, views[i]))
			return false;
	return derive_tables_present(db, schema, SQL_FILE);
}
