/* SPDX-License-Identifier: MIT */
/*
 * derive_util.h - what derive_io.c and derive_syscalls.c share besides derive_int.h:
 * their tables made from an embedded SQL file (schema/derive_*.sql, so that the names
 * are reserved like every table our SQL creates: import/import_names.c), and the cap
 * on what a pairing keeps pending.
 */
#ifndef IMPORT_DERIVE_UTIL_H
#define IMPORT_DERIVE_UTIL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "import/derive_int.h"

/*
 * The file PATH (store/sql_files.h) holds CREATE TABLE derived.NAME statements:
 * replace each such table (or a view of that name) in SCHEMA by an empty one, the file
 * run with "derived." made SCHEMA. 0, or -1 after msg_error.
 */
int derive_tables_create(sqlite3 *db, const char *schema, const char *path);

/* Does SCHEMA hold every table PATH creates, with the file's columns? */
bool derive_tables_present(sqlite3 *db, const char *schema, const char *path);

/*
 * The most entries a pairing keeps pending at once (requests in flight, threads inside
 * a syscall): a real system has thousands; a hostile capture could make one per event.
 * Past it the older half is given up (derive_io.c, derive_syscalls.c say how). 2^19; a
 * variable so that a test can make it small.
 */
extern size_t derive_pending_max;

/*
 * A hash map of fixed-size entries keyed by their first ksize bytes (a multiple of 8,
 * compared byte for byte: zero a key's padding), for what a pairing keeps pending:
 * entries are removed when done, so memory follows what is pending, not what was seen;
 * the hash is keyed per map from the kernel's random bytes, so a capture cannot choose
 * keys that all collide. Entries move when the map grows or loses one: a pointer is
 * valid until the next pmap_add or pmap_del.
 */
struct pmap {
	unsigned char *slots; /* cap slots: a 64-bit hash (0: empty) and an entry */
	size_t ksize, esize, ssize, cap, len;
	uint64_t seed[2];
};
void pmap_init(struct pmap *m, size_t ksize, size_t esize);
/* The entry of key, or NULL. */
void *pmap_find(const struct pmap *m, const void *key);
/* The entry of key, or a new one (zeroed, the key copied: *added); NULL out of memory. */
void *pmap_add(struct pmap *m, const void *key, bool *added);
/* Remove an entry pmap_find or pmap_add gave. */
void pmap_del(struct pmap *m, void *entry);
/* The entry in slot i (0 <= i < m->cap), or NULL when it is empty. */
void *pmap_slot(const struct pmap *m, size_t i);
void pmap_free(struct pmap *m);

/* n random bytes (the kernel's; without entropy yet, early at boot: the clock and an
 * address): the keys of the hashes a capture must not be able to aim at. */
void derive_random(void *buf, size_t n);

/* The median of ages[0..n) (n > 0; the array is reordered). */
int64_t derive_median(int64_t *ages, size_t n);
/* The median of age(entry) over m's entries (m->len > 0): the cut at or below which
 * the older half goes. 0, or -1 after msg_error. */
int derive_median_age(const struct pmap *m, int64_t (*age)(const void *entry), int64_t *cut);

/*
 * Rows made in C and inserted by SQLite itself: INSERT INTO SCHEMA.TABLE SELECT * FROM
 * a virtual table whose rows next() makes and column() gives (cheaper per row than
 * binding each value of a prepared INSERT: a capture's millions of syscalls). next:
 * 1 a row, 0 the end, -1 an error (after msg_error); column: sqlite3_result_* of the
 * current row's column col. 0, or -1 after msg_error.
 */
struct dfeed_ops {
	int ncols;
	int (*next)(void *arg);
	void (*column)(void *arg, sqlite3_context *ctx, int col);
};
int derive_feed(sqlite3 *db, const char *schema, const char *table, const struct dfeed_ops *ops,
		void *arg);
/* A dint, a dcell (its type SQLITE_BLOB too: the bytes in text) as the result of ctx. */
void dfeed_dint(sqlite3_context *ctx, struct dint v);
void dfeed_cell(sqlite3_context *ctx, const struct dcell *c);

/* The end of rows written with drows (derive_int.h): flushed when rc is 0, closed.
 * rc, or -1 when the flush fails. */
int derive_rows_done(struct drows *r, int rc);

/*
 * The end of a derivation run inside SAVEPOINT NAME: released when rc is 0, else rolled
 * back (nothing of it stays). 0, or -1.
 */
int derive_end(sqlite3 *db, const char *name, int rc);

/* derive_present (derive.h) of "io" and "syscalls": SCHEMA holds their tables. */
bool derive_io_present(sqlite3 *db, const char *schema);
bool derive_syscalls_present(sqlite3 *db, const char *schema);
bool derive_syscall_totals_present(sqlite3 *db, const char *schema);

#endif
