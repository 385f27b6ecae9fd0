/* SPDX-License-Identifier: MIT */
/*
 * derive_util.c - derived tables from an embedded SQL file, and the median the
 * pairings' cap uses (derive_util.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "common/msg.h"
#include "common/select.h"
#include "import/derive_util.h"
#include "store/db.h"
#include "store/sql_files.h"

#define PLACEHOLDER "derived."

size_t derive_pending_max = (size_t)1 << 19;

/* The next "derived." of text outside a -- comment, or NULL. */
static const char *next_placeholder(const char *p)
{
	while (*p) {
		if (p[0] == '-' && p[1] == '-')
			p += strcspn(p, "\n");
		else if (!strncmp(p, PLACEHOLDER, strlen(PLACEHOLDER)))
			return p;
		else
			p++;
	}
	return NULL;
}

static size_t ident_len(const char *p)
{
	size_t n = 0;

	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	return n;
}

/*
 * The columns of the table whose name starts at p, "a,b,c": the first word of each
 * definition between its parentheses (our own files: no nested commas but in (...)).
 * sqlite3_malloc'd, or NULL.
 */
static char *file_columns(const char *p)
{
	sqlite3_str *s = sqlite3_str_new(NULL);
	int depth = 0;
	bool want = true;

	for (p = strchr(p, '('); p && *p; p++) {
		if (*p == '(' && ++depth == 1)
			continue;
		if (*p == ')' && --depth == 0)
			break;
		if (depth == 1 && *p == ',') {
			sqlite3_str_appendchar(s, 1, ',');
			want = true;
		} else if (want && ident_len(p)) {
			sqlite3_str_append(s, p, (int)ident_len(p));
			p += ident_len(p) - 1;
			want = false;
		}
	}
	return sqlite3_str_finish(s);
}

/* The columns of SCHEMA.TABLE as "a,b,c" (sqlite3_malloc'd), or NULL: no such table. */
static char *table_columns(sqlite3 *db, const char *schema, const char *table)
{
	sqlite3_stmt *st;
	char *cols = NULL;

	if (sqlite3_prepare_v2(db, "SELECT group_concat(name, ',') FROM pragma_table_info(?1, ?2)", -1,
			       &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		cols = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return cols;
}

int derive_tables_create(sqlite3 *db, const char *schema, const char *path)
{
	const char *text = sql_file_text(path), *p, *q;
	sqlite3_str *sql = sqlite3_str_new(db);

	if (!text) {
		sqlite3_free(sqlite3_str_finish(sql));
		return msg_error("no SQL file %s", path);
	}
	/* first every table's DROP, then the file with the schema put in */
	for (p = text; (p = next_placeholder(p)); p += strlen(PLACEHOLDER)) {
		const char *name = p + strlen(PLACEHOLDER);
		int len = (int)ident_len(name);
		char *n = sqlite3_mprintf("%.*s", len, name);

		sqlite3_str_appendf(sql, "DROP %s IF EXISTS \"%w\".\"%w\";\n",
				    n && db_is_view(db, schema, n) ? "VIEW" : "TABLE", schema, n ? n : "");
		sqlite3_free(n);
	}
	for (p = text; (q = next_placeholder(p)); p = q + strlen(PLACEHOLDER)) {
		sqlite3_str_append(sql, p, (int)(q - p));
		sqlite3_str_appendf(sql, "\"%w\".", schema);
	}
	sqlite3_str_appendall(sql, p);
	char *all = sqlite3_str_finish(sql);
	int rc = all ? db_exec(db, all) : msg_error("out of memory");

	sqlite3_free(all);
	return rc;
}

bool derive_tables_present(sqlite3 *db, const char *schema, const char *path)
{
	const char *text = sql_file_text(path);
	bool all = text != NULL;

	for (const char *p = text; all && (p = next_placeholder(p)); p += strlen(PLACEHOLDER)) {
		const char *name = p + strlen(PLACEHOLDER);
		char *n = sqlite3_mprintf("%.*s", (int)ident_len(name), name);
		char *want = file_columns(name), *have = n ? table_columns(db, schema, n) : NULL;

		all = want && have && !strcmp(want, have) && !db_is_view(db, schema, n);
		sqlite3_free(n);
		sqlite3_free(want);
		sqlite3_free(have);
	}
	return all;
}

int derive_rows_done(struct drows *r, int rc)
{
	if (!rc)
		rc = drows_flush(r);
	drows_close(r);
	return rc ? -1 : 0;
}

int derive_end(sqlite3 *db, const char *name, int rc)
{
	char *sql = sqlite3_mprintf(rc ? "ROLLBACK TO \"%w\"; RELEASE \"%w\"" : "RELEASE \"%w\"", name, name);

	if (!sql)
		return msg_error("out of memory");
	if (rc)
		sqlite3_exec(db, sql, NULL, NULL, NULL);
	else
		rc = db_exec(db, sql);
	sqlite3_free(sql);
	return rc ? -1 : 0;
}

/* ---------------------------------------------------------------- the feed */

/*
 * An eponymous-only virtual table, registered for one INSERT and removed after it. Its
 * name starts with sqlite_: no table of a capture can have it (SQLite refuses the
 * prefix, the importer renames it), so a table never stands in its place.
 */
#define FEED "sqlite_ftana_derive_feed"

struct feed {
	const struct dfeed_ops *ops;
	void *arg;
	int rc;     /* the producer's error: -1 */
	bool eof;
};
struct feed_vtab {
	sqlite3_vtab base;
	struct feed *f;
};
struct feed_cursor {
	sqlite3_vtab_cursor base;
	struct feed *f;
	sqlite3_int64 row;
};

static int feed_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **vt,
			char **err)
{
	struct feed *f = aux;
	sqlite3_str *s = sqlite3_str_new(db);
	struct feed_vtab *v;

	(void)argc;
	(void)argv;
	(void)err;
	sqlite3_str_appendall(s, "CREATE TABLE x(");
	for (int i = 0; i < f->ops->ncols; i++)
		sqlite3_str_appendf(s, "%sc%d", i ? ", " : "", i);
	sqlite3_str_appendall(s, ")");
	char *sql = sqlite3_str_finish(s);
	int rc = sql ? sqlite3_declare_vtab(db, sql) : SQLITE_NOMEM;

	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return rc;
	v = sqlite3_malloc(sizeof(*v));
	if (!v)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	v->f = f;
	*vt = &v->base;
	return SQLITE_OK;
}

static int feed_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

static int feed_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	(void)vt;
	info->estimatedCost = 1e9;
	return SQLITE_OK;
}

static int feed_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **cur)
{
	struct feed_cursor *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->f = ((struct feed_vtab *)vt)->f;
	*cur = &c->base;
	return SQLITE_OK;
}

static int feed_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(cur);
	return SQLITE_OK;
}

static int feed_next(sqlite3_vtab_cursor *cur)
{
	struct feed_cursor *c = (struct feed_cursor *)cur;
	struct feed *f = c->f;

	if (f->eof)
		return SQLITE_OK;
	int rc = f->ops->next(f->arg);

	c->row++;
	if (rc < 0) {
		f->rc = -1;
		f->eof = true;
		return SQLITE_ERROR;
	}
	f->eof = rc == 0;
	return SQLITE_OK;
}

static int feed_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc, sqlite3_value **argv)
{
	(void)idx;
	(void)idx_str;
	(void)argc;
	(void)argv;
	/* one pass: a second scan (none of ours makes one) sees the end */
	return feed_next(cur);
}

static int feed_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct feed_cursor *)cur)->f->eof;
}

static int feed_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct feed *f = ((struct feed_cursor *)cur)->f;

	f->ops->column(f->arg, ctx, col);
	return SQLITE_OK;
}

static int feed_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((struct feed_cursor *)cur)->row;
	return SQLITE_OK;
}

static const sqlite3_module feed_module = {
	.iVersion = 0,
	.xConnect = feed_connect,
	.xBestIndex = feed_best_index,
	.xDisconnect = feed_disconnect,
	.xOpen = feed_open,
	.xClose = feed_close,
	.xFilter = feed_filter,
	.xNext = feed_next,
	.xEof = feed_eof,
	.xColumn = feed_column,
	.xRowid = feed_rowid,
};

int derive_feed(sqlite3 *db, const char *schema, const char *table, const struct dfeed_ops *ops, void *arg)
{
	struct feed f = { .ops = ops, .arg = arg };
	char *sql = sqlite3_mprintf("INSERT INTO \"%w\".\"%w\" SELECT * FROM " FEED, schema, table);
	int rc;

	if (!sql)
		return msg_error("out of memory");
	if (sqlite3_create_module_v2(db, FEED, &feed_module, &f, NULL) != SQLITE_OK) {
		sqlite3_free(sql);
		return msg_error("%s", sqlite3_errmsg(db));
	}
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK && !f.rc)
		msg_error("%s: %s", table, sqlite3_errmsg(db));
	sqlite3_create_module_v2(db, FEED, NULL, NULL, NULL);
	sqlite3_free(sql);
	return rc == SQLITE_OK && !f.rc ? 0 : -1;
}

void dfeed_dint(sqlite3_context *ctx, struct dint v)
{
	if (v.null)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_int64(ctx, v.v);
}

void dfeed_cell(sqlite3_context *ctx, const struct dcell *c)
{
	switch (c->type) {
	case SQLITE_INTEGER: sqlite3_result_int64(ctx, c->i); break;
	case SQLITE_FLOAT: sqlite3_result_double(ctx, c->r); break;
	case SQLITE_TEXT: sqlite3_result_text(ctx, c->text.s, c->text.len, SQLITE_TRANSIENT); break;
	case SQLITE_BLOB: sqlite3_result_blob(ctx, c->text.s, c->text.len, SQLITE_TRANSIENT); break;
	default: sqlite3_result_null(ctx); break;
	}
}

/* ---------------------------------------------------------------- pmap */

/* 64 x 64 -> 128 bits, folded: the mixing step of a keyed hash (wyhash's). */
static uint64_t fold(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static uint64_t key_hash(const struct pmap *m, const void *key)
{
	const unsigned char *k = key;
	uint64_t h = m->seed[0];

	for (size_t i = 0; i < m->ksize; i += 8) {
		uint64_t w;

		memcpy(&w, k + i, 8);
		h = fold(h ^ w, m->seed[1] ^ (0x9e3779b97f4a7c15ULL * (i + 1)));
	}
	return h | 1; /* 0 marks an empty slot */
}

void derive_random(void *buf, size_t n)
{
	if (getrandom(buf, n, GRND_NONBLOCK) == (ssize_t)n)
		return;
	uint64_t x = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)buf ^ ((uint64_t)clock() << 32);

	for (size_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		((uint8_t *)buf)[i] = (uint8_t)(x >> 56);
	}
}

void pmap_init(struct pmap *m, size_t ksize, size_t esize)
{
	*m = (struct pmap){ .ksize = ksize, .esize = esize, .ssize = 8 + ((esize + 7) & ~(size_t)7) };
	derive_random(m->seed, sizeof(m->seed));
	m->seed[0] |= 1;
	m->seed[1] |= 1;
}

static uint64_t *slot_hash(const struct pmap *m, size_t i)
{
	return (uint64_t *)(m->slots + i * m->ssize);
}

void *pmap_slot(const struct pmap *m, size_t i)
{
	return *slot_hash(m, i) ? slot_hash(m, i) + 1 : NULL;
}

/* The slot of key (hash h), or the empty one where it would go. */
static size_t probe(const struct pmap *m, const void *key, uint64_t h)
{
	size_t i = (size_t)h & (m->cap - 1);

	for (;; i = (i + 1) & (m->cap - 1)) {
		uint64_t *sh = slot_hash(m, i);

		if (!*sh || (*sh == h && !memcmp(sh + 1, key, m->ksize)))
			return i;
	}
}

void *pmap_find(const struct pmap *m, const void *key)
{
	return m->len ? pmap_slot(m, probe(m, key, key_hash(m, key))) : NULL;
}

static int grow(struct pmap *m)
{
	struct pmap old = *m;
	size_t cap = m->cap ? m->cap * 2 : 256;

	if (cap > SIZE_MAX / 2 / m->ssize || !(m->slots = calloc(cap, m->ssize))) {
		m->slots = old.slots;
		return -1;
	}
	m->cap = cap;
	for (size_t i = 0; i < old.cap; i++) {
		uint64_t *sh = slot_hash(&old, i);

		if (*sh)
			memcpy(slot_hash(m, probe(m, sh + 1, *sh)), sh, m->ssize);
	}
	free(old.slots);
	return 0;
}

void *pmap_add(struct pmap *m, const void *key, bool *added)
{
	*added = false;
	if ((m->len + 1) * 4 > m->cap * 3 && grow(m))
		return NULL;
	uint64_t h = key_hash(m, key);
	uint64_t *sh = slot_hash(m, probe(m, key, h));

	if (!*sh) {
		*sh = h;
		memset(sh + 1, 0, m->ssize - 8);
		memcpy(sh + 1, key, m->ksize);
		m->len++;
		*added = true;
	}
	return sh + 1;
}

void pmap_del(struct pmap *m, void *entry)
{
	size_t i = (size_t)((unsigned char *)entry - 8 - m->slots) / m->ssize;

	/* backward shift: pull each later entry of the run into the hole when its home
	 * slot does not lie (cyclically) after the hole */
	for (size_t j = i;;) {
		j = (j + 1) & (m->cap - 1);
		uint64_t *sj = slot_hash(m, j);

		if (!*sj)
			break;
		size_t home = (size_t)*sj & (m->cap - 1);

		if (((j - home) & (m->cap - 1)) >= ((j - i) & (m->cap - 1))) {
			memcpy(slot_hash(m, i), sj, m->ssize);
			i = j;
		}
	}
	*slot_hash(m, i) = 0;
	m->len--;
}

void pmap_free(struct pmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->len = 0;
}

int derive_median_age(const struct pmap *m, int64_t (*age)(const void *entry), int64_t *cut)
{
	int64_t *ages = malloc((m->len ? m->len : 1) * sizeof(*ages));
	size_t n = 0;

	if (!ages)
		return msg_error("out of memory");
	for (size_t i = 0; i < m->cap && n < m->len; i++) {
		const void *e = pmap_slot(m, i);

		if (e)
			ages[n++] = age(e);
	}
	*cut = n ? derive_median(ages, n) : INT64_MIN;
	free(ages);
	return 0;
}

int64_t derive_median(int64_t *a, size_t n)
{
	return select_kth(a, n, n / 2);
}
