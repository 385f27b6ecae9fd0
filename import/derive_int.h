/* SPDX-License-Identifier: MIT */
/*
 * derive_int.h - what the derive_*.c files share (derive.h is the contract): integers
 * read from a table that may hold anything, SQLite's arithmetic on them, a small hash
 * map keyed by such an integer (memory grows with the distinct keys: tasks, CPUs,
 * never with a key's value), and reading a table's columns by name.
 */
#ifndef IMPORT_DERIVE_INT_H
#define IMPORT_DERIVE_INT_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * An integer column's value: NULL or a 64-bit integer. Anything else a hand-made
 * database holds (text, a real, a blob) is read as SQLite converts it to an integer.
 */
struct dint {
	int64_t v;
	bool null;
};

static inline struct dint dint_col(sqlite3_stmt *st, int col)
{
	sqlite3_value *v = sqlite3_column_value(st, col);

	if (sqlite3_value_type(v) == SQLITE_NULL)
		return (struct dint){ 0, true };
	return (struct dint){ sqlite3_value_int64(v), false };
}

static inline bool dint_is(struct dint a, struct dint b) /* SQL's a IS b */
{
	return a.null ? b.null : !b.null && a.v == b.v;
}

/* A growable text copy (a comm kept from one row to a later one). */
struct dtext {
	char *s;
	int len;      /* -1: NULL */
	size_t cap;
};
/* Copy len bytes of s (NULL: SQL NULL). 0, or -1 out of memory. */
int dtext_copy(struct dtext *t, const char *s, int len);
int dtext_set(struct dtext *t, sqlite3_stmt *st, int col); /* column col of a row */
static inline const char *dtext_str(const struct dtext *t) /* NULL for SQL's NULL */
{
	return t->len < 0 ? NULL : t->s;
}
void dtext_free(struct dtext *t);

/*
 * Rows for one output table, written DROWS to an INSERT (SQLite's cost is per statement
 * as much as per row): fill drows_cells(r) with the dc_* setters, then drows_add;
 * drows_flush writes what is left. Texts are copied (a row outlives its inputs).
 */
#define DROWS 16
struct dcell {
	int type; /* SQLITE_NULL, SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT (in text) */
	int64_t i;
	double r;
	struct dtext text;
};
struct drows {
	sqlite3 *db;
	sqlite3_stmt *one, *many;
	int ncols, n;
	struct dcell *cells; /* DROWS rows of ncols */
};
int drows_open(struct drows *r, sqlite3 *db, const char *schema, const char *name, int ncols);
static inline struct dcell *drows_cells(struct drows *r)
{
	return r->cells + (size_t)r->n * (size_t)r->ncols;
}
int drows_add(struct drows *r);
int drows_flush(struct drows *r);
void drows_close(struct drows *r);

static inline void dc_null(struct dcell *c)
{
	c->type = SQLITE_NULL;
}
static inline void dc_int(struct dcell *c, struct dint a)
{
	c->type = a.null ? SQLITE_NULL : SQLITE_INTEGER;
	c->i = a.v;
}
/* SQL's a - b: NULL if either is NULL; a real when the integers overflow (as SQLite). */
void dc_diff(struct dcell *c, struct dint a, struct dint b);
/* Text (len -1: up to its NUL; s NULL: SQL NULL). 0, or -1 out of memory. */
int dc_text(struct dcell *c, const char *s, int len);

/*
 * Open-addressing hash map from an integer (or NULL) to a fixed-size entry whose first
 * member is a struct dmap_head. Entries move when the map grows: a pointer from
 * dmap_get is valid until the next dmap_get on the same map. The hash is keyed per map
 * from the kernel's random bytes: a capture cannot make its keys collide.
 */
struct dmap_head {
	int64_t key;
	bool used, null;
};
struct dmap {
	unsigned char *slots;
	size_t esize, cap, len;
	uint64_t seed[2]; /* the hash's key (random per map) */
};
void dmap_init(struct dmap *m, size_t esize);
/* The entry of key (zeroed with its head set when new: *added true), or NULL when out
 * of memory. */
void *dmap_get(struct dmap *m, struct dint key, bool *added);
/* The entry of key, or NULL when there is none. */
void *dmap_find(const struct dmap *m, struct dint key);
/* Slot i (0 <= i < m->cap): its entry, or NULL when the slot is empty. */
void *dmap_slot(const struct dmap *m, size_t i);
void dmap_free(struct dmap *m);

/*
 * SELECT the columns COLS of TABLE (NULL in place of a column it lacks; the names are
 * ours, never a file's) followed by TAIL ("ORDER BY 1", or ""). *st is NULL when there
 * is no such table or view. 0, or -1 after msg_error.
 */
int derive_select(sqlite3 *db, const char *table, const char *const *cols, int ncols,
		  const char *tail, sqlite3_stmt **st);
/* Does TABLE (a table or view, in any schema) exist? */
bool derive_has(sqlite3 *db, const char *table);

/* "main" or "temp": the only schemas a derivation writes (anything else: an error). */
int derive_check_schema(const char *schema);

/*
 * Loss windows (derive_losses.c): for every lost_events row with a time, on its CPU,
 * hi = lost_events.ts and lo = the latest event of TABLES on that CPU before hi (-1:
 * none). Memory: one entry per lost_events row.
 */
struct loss {
	struct dint cpu;
	int64_t hi, lo;
	bool has; /* lo found (else -1) */
};
struct loss_windows {
	struct loss *l; /* by cpu (NULL first), then hi */
	size_t n;
	int64_t *his, *los; /* every window's hi, lo: sorted */
};
int loss_windows_load(sqlite3 *db, struct loss_windows *w, const char *const *tables, int ntables);
void loss_windows_free(struct loss_windows *w);
/* Windows ending at or before ts / beginning before ts (0 for a NULL ts: it sorts first). */
int64_t loss_hi_upto(const struct loss_windows *w, struct dint ts);
int64_t loss_lo_before(const struct loss_windows *w, struct dint ts);
/* Where cpu's losses are in w->l, and how many of them are at or before ts. */
void loss_cpu_range(const struct loss_windows *w, struct dint cpu, size_t *first, size_t *n);
int64_t loss_cpu_upto(const struct loss_windows *w, size_t first, size_t n, struct dint ts);

/* derive_present (derive.h) of "sched": SCHEMA holds its tables (derive_sched.c). */
bool derive_sched_present(sqlite3 *db, const char *schema);

#endif
