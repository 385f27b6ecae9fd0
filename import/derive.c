/* SPDX-License-Identifier: MIT */
/*
 * derive.c - what the derivations share (derive_int.h) and derive_present (derive.h):
 * each family's tables checked by its own file.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "common/msg.h"
#include "import/derive.h"
#include "import/derive_int.h"
#include "import/derive_util.h"
#include "store/db.h"

int dtext_copy(struct dtext *t, const char *s, int len)
{
	if (!s) {
		t->len = -1;
		return 0;
	}
	if (len < 0)
		len = (int)strlen(s);
	if ((size_t)len + 1 > t->cap) {
		size_t cap = (size_t)len + 16;
		char *n = realloc(t->s, cap);

		if (!n)
			return -1;
		t->s = n;
		t->cap = cap;
	}
	memcpy(t->s, s, (size_t)len);
	t->s[len] = '\0';
	t->len = len;
	return 0;
}

int dtext_set(struct dtext *t, sqlite3_stmt *st, int col)
{
	const char *s = (const char *)sqlite3_column_text(st, col);

	return dtext_copy(t, s, s ? sqlite3_column_bytes(st, col) : -1);
}

void dtext_free(struct dtext *t)
{
	free(t->s);
	t->s = NULL;
	t->cap = 0;
	t->len = -1;
}

/* ---------------------------------------------------------------- the map */

/* The slot of a key: a hash keyed per map (a 64 x 64 -> 128-bit multiply folded, as
 * wyhash mixes), so that a capture cannot choose pids that all land in one place. */
static uint64_t mix(const struct dmap *m, struct dint k)
{
	__uint128_t r = (__uint128_t)((uint64_t)k.v ^ m->seed[0]) * (m->seed[1] ^ (uint64_t)k.null);

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

void dmap_init(struct dmap *m, size_t esize)
{
	*m = (struct dmap){ .esize = esize };
	if (getrandom(m->seed, sizeof(m->seed), GRND_NONBLOCK) != (ssize_t)sizeof(m->seed)) {
		/* no entropy yet (early boot): the clock and the map's address */
		m->seed[0] = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uintptr_t)m;
		m->seed[1] = (uint64_t)clock() * 0xbf58476d1ce4e5b9ULL;
	}
	m->seed[1] |= 3; /* odd, and never 1 once a NULL key flips bit 0 */
}

void *dmap_slot(const struct dmap *m, size_t i)
{
	struct dmap_head *h = (struct dmap_head *)(m->slots + i * m->esize);

	return h->used ? h : NULL;
}

/* The slot of key, or the empty slot where it would go (m->cap > 0, never full). */
static struct dmap_head *probe(const struct dmap *m, struct dint key)
{
	size_t i = (size_t)mix(m, key) & (m->cap - 1);

	for (;;) {
		struct dmap_head *h = (struct dmap_head *)(m->slots + i * m->esize);

		if (!h->used || (h->null == key.null && (key.null || h->key == key.v)))
			return h;
		i = (i + 1) & (m->cap - 1);
	}
}

static int grow(struct dmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	unsigned char *old = m->slots;
	size_t old_cap = m->cap;

	if (cap > SIZE_MAX / 2 / m->esize)
		return -1;
	m->slots = calloc(cap, m->esize);
	if (!m->slots) {
		m->slots = old;
		return -1;
	}
	m->cap = cap;
	for (size_t i = 0; i < old_cap; i++) {
		struct dmap_head *h = (struct dmap_head *)(old + i * m->esize);

		if (h->used)
			memcpy(probe(m, (struct dint){ h->key, h->null }), h, m->esize);
	}
	free(old);
	return 0;
}

void *dmap_find(const struct dmap *m, struct dint key)
{
	if (!m->cap)
		return NULL;
	struct dmap_head *h = probe(m, key);

	return h->used ? h : NULL;
}

void *dmap_get(struct dmap *m, struct dint key, bool *added)
{
	*added = false;
	if ((m->len + 1) * 2 > m->cap && grow(m))
		return NULL;
	struct dmap_head *h = probe(m, key);

	if (!h->used) {
		memset(h, 0, m->esize);
		h->used = true;
		h->null = key.null;
		h->key = key.null ? 0 : key.v;
		m->len++;
		*added = true;
	}
	return h;
}

void dmap_free(struct dmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->len = 0;
}

/* ---------------------------------------------------------------- tables */

/* The columns of TABLE (temp first, as an unqualified name resolves) as "a,b,c", or
 * NULL when it has none (no such table or view). */
static char *column_list(sqlite3 *db, const char *table)
{
	sqlite3_stmt *st;
	char *list = NULL;

	if (sqlite3_prepare_v2(db, "SELECT group_concat(name, ',') FROM pragma_table_info(?1)", -1, &st,
			       NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		list = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return list;
}

bool derive_has(sqlite3 *db, const char *table)
{
	char *cols = column_list(db, table);

	free(cols);
	return cols != NULL;
}

static bool list_has(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		if (strcspn(p, ",") == n && !strncasecmp(p, name, n))
			return true;
	}
	return false;
}

int derive_select(sqlite3 *db, const char *table, const char *const *cols, int ncols,
		  const char *tail, sqlite3_stmt **st)
{
	char *have = column_list(db, table);
	char *sql;

	*st = NULL;
	if (!have)
		return 0;
	sql = sqlite3_mprintf("SELECT");
	for (int i = 0; sql && i < ncols; i++) {
		char *more = list_has(have, cols[i]) ?
			sqlite3_mprintf("%s%s \"%w\"", sql, i ? "," : "", cols[i]) :
			sqlite3_mprintf("%s%s NULL", sql, i ? "," : "");

		sqlite3_free(sql);
		sql = more;
	}
	char *full = sql ? sqlite3_mprintf("%s FROM \"%w\" %s", sql, table, tail) : NULL;

	free(have);
	sqlite3_free(sql);
	if (!full)
		return msg_error("out of memory");
	*st = db_prepare(db, full);
	sqlite3_free(full);
	return *st ? 0 : -1;
}

static bool schema_ok(const char *schema)
{
	return schema && (!strcmp(schema, "main") || !strcmp(schema, "temp"));
}

int derive_check_schema(const char *schema)
{
	if (schema_ok(schema))
		return 0;
	return msg_error("derived tables go to main or temp, not '%s'", schema ? schema : "(null)");
}

/* INSERT INTO SCHEMA.NAME VALUES (?, ...), ROWS rows of N. */
static sqlite3_stmt *insert(sqlite3 *db, const char *schema, const char *name, int n, int rows)
{
	char *sql = sqlite3_mprintf("INSERT INTO \"%w\".\"%w\" VALUES ", schema, name);
	sqlite3_stmt *st = NULL;

	for (int r = 0; sql && r < rows; r++)
		for (int i = 0; sql && i < n; i++) {
			char *more = sqlite3_mprintf("%s%s?%s", sql, i ? ", " : r ? ", (" : "(",
						     i == n - 1 ? ")" : "");

			sqlite3_free(sql);
			sql = more;
		}
	if (sql)
		st = db_prepare(db, sql);
	else
		msg_error("out of memory");
	sqlite3_free(sql);
	return st;
}

int drows_open(struct drows *r, sqlite3 *db, const char *schema, const char *name, int ncols)
{
	*r = (struct drows){ .db = db, .ncols = ncols };
	r->cells = calloc((size_t)DROWS * (size_t)ncols, sizeof(*r->cells));
	if (!r->cells)
		return msg_error("out of memory");
	r->one = insert(db, schema, name, ncols, 1);
	r->many = r->one ? insert(db, schema, name, ncols, DROWS) : NULL;
	return r->many ? 0 : -1;
}

void dc_diff(struct dcell *c, struct dint a, struct dint b)
{
	int64_t d;

	if (a.null || b.null) {
		c->type = SQLITE_NULL;
	} else if (__builtin_sub_overflow(a.v, b.v, &d)) {
		/* SQLite computes an overflowing integer subtraction in doubles */
		c->type = SQLITE_FLOAT;
		c->r = (double)a.v - (double)b.v;
	} else {
		c->type = SQLITE_INTEGER;
		c->i = d;
	}
}

int dc_text(struct dcell *c, const char *s, int len)
{
	c->type = s ? SQLITE_TEXT : SQLITE_NULL;
	return s && dtext_copy(&c->text, s, len) ? msg_error("out of memory") : 0;
}

static void bind_cell(sqlite3_stmt *st, int param, const struct dcell *c)
{
	switch (c->type) {
	case SQLITE_INTEGER: sqlite3_bind_int64(st, param, c->i); break;
	case SQLITE_FLOAT: sqlite3_bind_double(st, param, c->r); break;
	case SQLITE_TEXT: sqlite3_bind_text(st, param, c->text.s, c->text.len, SQLITE_STATIC); break;
	default: sqlite3_bind_null(st, param); break;
	}
}

/* Write rows [0, n) of r->cells with st (n of them per statement). */
static int write_rows(struct drows *r, sqlite3_stmt *st, int first, int n)
{
	for (int k = 0; k < n * r->ncols; k++)
		bind_cell(st, k + 1, &r->cells[(size_t)first * (size_t)r->ncols + (size_t)k]);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_step_error(r->db);

	sqlite3_reset(st);
	return rc;
}

int drows_add(struct drows *r)
{
	if (++r->n < DROWS)
		return 0;
	r->n = 0;
	return write_rows(r, r->many, 0, DROWS);
}

int drows_flush(struct drows *r)
{
	for (int i = 0; i < r->n; i++)
		if (write_rows(r, r->one, i, 1))
			return -1;
	r->n = 0;
	return 0;
}

void drows_close(struct drows *r)
{
	sqlite3_finalize(r->one);
	sqlite3_finalize(r->many);
	for (size_t k = 0; r->cells && k < (size_t)DROWS * (size_t)r->ncols; k++)
		dtext_free(&r->cells[k].text);
	free(r->cells);
	r->cells = NULL;
	r->one = r->many = NULL;
}

/* ---------------------------------------------------------------- derive_present */

bool derive_present(sqlite3 *db, const char *schema, const char *name)
{
	if (!schema_ok(schema))
		return false;
	if (!strcmp(name, "sched"))
		return derive_sched_present(db, schema);
	if (!strcmp(name, "io"))
		return derive_io_present(db, schema);
	if (!strcmp(name, "syscalls"))
		return derive_syscalls_present(db, schema);
	if (!strcmp(name, "syscall_totals"))
		return derive_syscall_totals_present(db, schema);
	return false;
}

const struct derivation derivations[] = {
	{ "sched", (const char *const[]){ "sched:sched_switch", "sched:sched_wakeup",
		"sched:sched_wakeup_new", "sched:sched_waking", NULL }, false, derive_sched, false, NULL },
	{ "io", (const char *const[]){ "block:block_rq_insert", "block:block_rq_issue",
		"block:block_rq_complete", NULL }, false, derive_io, false, NULL },
	{ "syscalls", (const char *const[]){ "syscalls:sys_enter_*", "syscalls:sys_exit_*", NULL },
	  true, derive_syscalls, false, NULL },
	{ "syscall_totals", (const char *const[]){ "syscalls:sys_enter_*", "syscalls:sys_exit_*", NULL },
	  true, NULL, true, "syscalls" },
	{ NULL, NULL, false, NULL, false, NULL },
};
