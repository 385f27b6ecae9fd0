/* SPDX-License-Identifier: MIT */
/*
 * nearest_rank.c - the nearest_rank aggregate (nearest_rank.h). Each group keeps its
 * non-NULL values and the count of its NULLs. Integers alone (every interval a report
 * ranks) are 8 bytes each and the one asked for is selected, not sorted; once another
 * type comes, values are 16 bytes (text and blobs as copies SQLite makes) and sorted
 * in the order ORDER BY gives: numbers by value (an integer and a real compared
 * exactly), then text (BINARY), then blobs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/select.h"
#include "store/nearest_rank.h"

struct rv {
	int type;
	union {
		int64_t i;
		double r;
		sqlite3_value *v; /* TEXT, BLOB: sqlite3_value_dup */
	};
};

struct ranks {
	int64_t *iv;   /* while every value is an integer (the usual case): 8 bytes each */
	struct rv *v;  /* once one is not */
	size_t n, cap;
	int64_t nulls;
	int64_t p;
	int p_set;
	int failed;
};

static int class_of(int type)
{
	return type == SQLITE_INTEGER || type == SQLITE_FLOAT ? 0 : type == SQLITE_TEXT ? 1 : 2;
}

static int cmp_rv(const void *pa, const void *pb)
{
	const struct rv *a = pa, *b = pb;
	int ca = class_of(a->type), cb = class_of(b->type);

	if (ca != cb)
		return ca < cb ? -1 : 1;
	if (ca == 0) {
		if (a->type == SQLITE_INTEGER && b->type == SQLITE_INTEGER)
			return a->i < b->i ? -1 : a->i > b->i;
		/* long double holds every int64 and every double exactly (x86's 64-bit mantissa) */
		long double x = a->type == SQLITE_INTEGER ? (long double)a->i : (long double)a->r;
		long double y = b->type == SQLITE_INTEGER ? (long double)b->i : (long double)b->r;
		return x < y ? -1 : x > y;
	}
	const void *x = ca == 1 ? (const void *)sqlite3_value_text(a->v) : sqlite3_value_blob(a->v);
	const void *y = ca == 1 ? (const void *)sqlite3_value_text(b->v) : sqlite3_value_blob(b->v);
	int nx = sqlite3_value_bytes(a->v), ny = sqlite3_value_bytes(b->v);
	int c = nx && ny ? memcmp(x, y, (size_t)(nx < ny ? nx : ny)) : 0;

	return c ? c : nx < ny ? -1 : nx > ny;
}

/* Room for one more value; 0, or -1 out of memory. */
static int grow(struct ranks *r)
{
	if (r->n < r->cap)
		return 0;
	size_t cap = r->cap ? r->cap * 2 : 64, size = r->v ? sizeof(*r->v) : sizeof(*r->iv);
	void *m = cap < SIZE_MAX / size ? realloc(r->v ? (void *)r->v : (void *)r->iv, cap * size) : NULL;

	if (!m)
		return -1;
	if (r->v)
		r->v = m;
	else
		r->iv = m;
	r->cap = cap;
	return 0;
}

/* The first value that is not an integer: the integers so far become struct rv. */
static int go_mixed(struct ranks *r)
{
	struct rv *v = malloc((r->n ? r->n : 1) * sizeof(*v));

	if (!v)
		return -1;
	for (size_t i = 0; i < r->n; i++)
		v[i] = (struct rv){ .type = SQLITE_INTEGER, .i = r->iv[i] };
	free(r->iv);
	r->iv = NULL;
	r->v = v;
	r->cap = r->n ? r->n : 1;
	return 0;
}

static void step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct ranks *r = sqlite3_aggregate_context(ctx, sizeof(*r));
	int type = sqlite3_value_type(argv[0]);

	(void)argc;
	if (!r || r->failed)
		return;
	if (!r->p_set) {
		r->p = sqlite3_value_int64(argv[1]);
		r->p_set = 1;
	}
	if (type == SQLITE_NULL) {
		r->nulls++;
		return;
	}
	if ((type != SQLITE_INTEGER && !r->v && go_mixed(r)) || grow(r))
		goto nomem;
	if (!r->v) {
		r->iv[r->n++] = sqlite3_value_int64(argv[0]);
		return;
	}
	struct rv *e = &r->v[r->n];

	e->type = type;
	if (type == SQLITE_INTEGER)
		e->i = sqlite3_value_int64(argv[0]);
	else if (type == SQLITE_FLOAT)
		e->r = sqlite3_value_double(argv[0]);
	else if (!(e->v = sqlite3_value_dup(argv[0])))
		goto nomem;
	r->n++;
	return;
nomem:
	r->failed = 1;
	sqlite3_result_error_nomem(ctx);
}

static void release(struct ranks *r)
{
	for (size_t i = 0; r->v && i < r->n; i++)
		if (class_of(r->v[i].type))
			sqlite3_value_free(r->v[i].v);
	free(r->v);
	free(r->iv);
	r->v = NULL;
	r->iv = NULL;
	r->n = r->cap = 0;
}

static void final(sqlite3_context *ctx)
{
	struct ranks *r = sqlite3_aggregate_context(ctx, 0);

	if (!r || r->failed) {
		if (r)
			release(r);
		else
			sqlite3_result_null(ctx);
		return;
	}
	/* rank k = ceil(n * P / 100) of n rows, the NULLs first: (n * P + 99) / 100 in SQL's
	 * integer arithmetic, here without its overflow */
	__int128 n = (__int128)r->nulls + (__int128)r->n, k = (n * r->p + 99) / 100;
	__int128 at = k - r->nulls - 1; /* index among the sorted non-NULL values */

	if (at < 0)
		at = 0;
	if (at >= (__int128)r->n) {
		sqlite3_result_null(ctx);
	} else if (!r->v) {
		sqlite3_result_int64(ctx, select_kth(r->iv, r->n, (size_t)at));
	} else {
		qsort(r->v, r->n, sizeof(*r->v), cmp_rv);
		const struct rv *e = &r->v[(size_t)at];

		if (e->type == SQLITE_INTEGER)
			sqlite3_result_int64(ctx, e->i);
		else if (e->type == SQLITE_FLOAT)
			sqlite3_result_double(ctx, e->r);
		else
			sqlite3_result_value(ctx, e->v);
	}
	release(r);
}

int nearest_rank_register(sqlite3 *db)
{
	return sqlite3_create_function(db, "nearest_rank", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
				       NULL, step, final) == SQLITE_OK ? 0 : -1;
}
