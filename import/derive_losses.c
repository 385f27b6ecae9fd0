/* SPDX-License-Identifier: MIT */
/*
 * derive_losses.c - the loss windows of the scheduler derivation (derive_int.h).
 *
 * The kernel flags a loss on the first sub-buffer read after it: lost_events.ts on
 * that CPU. Its window runs from the last scheduler event recorded on that CPU before
 * lost_events.ts (-1: none) to lost_events.ts; the lost events lie inside it. A
 * window's start needs the events after it in id order (ids and times may disagree in
 * a hand-made database), so it is found before the ordered pass, in one unordered scan
 * of (cpu, ts) that gives each event to the first loss on its CPU after it; the
 * running maximum over a CPU's losses is then each window's start. Losses are few
 * (one per flagged sub-buffer): memory is one entry per lost_events row.
 */
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "import/derive_int.h"

static int cmp_dint(struct dint a, struct dint b)
{
	if (a.null || b.null)
		return (int)b.null - (int)a.null; /* NULL first, as SQLite sorts */
	return (a.v > b.v) - (a.v < b.v);
}

static int cmp_loss(const void *pa, const void *pb)
{
	const struct loss *a = pa, *b = pb;
	int c = cmp_dint(a->cpu, b->cpu);

	return c ? c : (a->hi > b->hi) - (a->hi < b->hi);
}

static int cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return (a > b) - (a < b);
}

/* The first index in v[0..n) whose value is > x (upper) or >= x (!upper). */
static size_t bound(const int64_t *v, size_t n, int64_t x, bool upper)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (upper ? v[mid] <= x : v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first loss of w->l[first..first+n) whose hi is > ts. */
static size_t first_after(const struct loss_windows *w, size_t first, size_t n, int64_t ts)
{
	size_t lo = first, hi = first + n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->l[mid].hi <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void loss_cpu_range(const struct loss_windows *w, struct dint cpu, size_t *first, size_t *n)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_dint(w->l[mid].cpu, cpu) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (hi < w->n && !cmp_dint(w->l[hi].cpu, cpu))
		hi++;
	*n = hi > lo ? hi - lo : 0;
}

int64_t loss_cpu_upto(const struct loss_windows *w, size_t first, size_t n, struct dint ts)
{
	/* a NULL time sorts before every loss */
	return ts.null || !n ? 0 : (int64_t)(first_after(w, first, n, ts.v) - first);
}

int64_t loss_hi_upto(const struct loss_windows *w, struct dint ts)
{
	return ts.null || !w->n ? 0 : (int64_t)bound(w->his, w->n, ts.v, true);
}

int64_t loss_lo_before(const struct loss_windows *w, struct dint ts)
{
	return ts.null || !w->n ? 0 : (int64_t)bound(w->los, w->n, ts.v, false);
}

static int load_losses(sqlite3 *db, struct loss_windows *w)
{
	static const char *const cols[] = { "cpu", "ts" };
	sqlite3_stmt *st;
	size_t cap = 0;
	int step;

	if (derive_select(db, "lost_events", cols, 2, "", &st))
		return -1;
	if (!st)
		return 0;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 1) == SQLITE_NULL)
			continue;
		if (w->n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct loss *l = ncap < SIZE_MAX / sizeof(*l) ? realloc(w->l, ncap * sizeof(*l)) : NULL;

			if (!l) {
				sqlite3_finalize(st);
				return msg_error("out of memory");
			}
			w->l = l;
			cap = ncap;
		}
		w->l[w->n++] = (struct loss){ dint_col(st, 0), sqlite3_column_int64(st, 1), 0, false };
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE)
		return msg_error("lost_events: %s", sqlite3_errmsg(db));
	if (w->n)
		qsort(w->l, w->n, sizeof(*w->l), cmp_loss);
	return 0;
}

/* Give every event of TABLE to the first loss after it on its CPU (lo: the latest). */
static int scan_events(sqlite3 *db, struct loss_windows *w, const char *table)
{
	static const char *const cols[] = { "cpu", "ts" };
	struct dint last_cpu = { 0, true };
	size_t first = 0, n = 0;
	sqlite3_stmt *st;
	int step;

	if (derive_select(db, table, cols, 2, "", &st))
		return -1;
	if (!st)
		return 0;
	loss_cpu_range(w, last_cpu, &first, &n);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct dint cpu = dint_col(st, 0);

		if (sqlite3_column_type(st, 1) == SQLITE_NULL)
			continue;
		if (!dint_is(cpu, last_cpu)) {
			loss_cpu_range(w, cpu, &first, &n);
			last_cpu = cpu;
		}
		int64_t ts = sqlite3_column_int64(st, 1);
		size_t k = first_after(w, first, n, ts);

		if (k < first + n && (!w->l[k].has || w->l[k].lo < ts)) {
			w->l[k].lo = ts;
			w->l[k].has = true;
		}
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : msg_error("%s: %s", table, sqlite3_errmsg(db));
}

int loss_windows_load(sqlite3 *db, struct loss_windows *w, const char *const *tables, int ntables)
{
	memset(w, 0, sizeof(*w));
	if (load_losses(db, w))
		return -1;
	if (!w->n)
		return 0;
	for (int i = 0; i < ntables; i++)
		if (scan_events(db, w, tables[i]))
			return -1;
	w->his = malloc(w->n * sizeof(*w->his));
	w->los = malloc(w->n * sizeof(*w->los));
	if (!w->his || !w->los)
		return msg_error("out of memory");
	/* a window's start: the latest event before any loss up to it on its CPU */
	for (size_t i = 0; i < w->n; i++) {
		const struct loss *prev = i ? &w->l[i - 1] : NULL;

		if (prev && prev->has && !cmp_dint(prev->cpu, w->l[i].cpu) &&
		    (!w->l[i].has || prev->lo > w->l[i].lo)) {
			w->l[i].lo = prev->lo;
			w->l[i].has = true;
		}
		w->his[i] = w->l[i].hi;
	}
	for (size_t i = 0; i < w->n; i++) {
		if (!w->l[i].has)
			w->l[i].lo = -1;
		w->los[i] = w->l[i].lo;
	}
	qsort(w->his, w->n, sizeof(*w->his), cmp_i64);
	qsort(w->los, w->n, sizeof(*w->los), cmp_i64);
	return 0;
}

void loss_windows_free(struct loss_windows *w)
{
	free(w->l);
	free(w->his);
	free(w->los);
	memset(w, 0, sizeof(*w));
}
