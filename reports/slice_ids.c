// SPDX-License-Identifier: MIT
/*
 * slice_ids.c - temp.slice's id range (slice.h): the ids of the events of a time
 * window, every event table's bounds found by binary search over its rowid (ids are
 * numbered in time order), so that a report's SQL reads one rowid range of a table,
 * not all of it. The range may be wider than the window's events, never narrower:
 * in_slice() decides each row.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reports/slice.h"
#include "store/db.h"

/*
 * In one event table, the first id whose ts >= since (*first) and the last whose
 * ts < until (*last), by binary search over the rowid: ids are assigned in time
 * order, so ts (column ts_col) does not decrease with id. Each probe is one rowid seek.
 */
static int id_bounds(sqlite3 *db, const char *table, const char *ts_col, int64_t since, int64_t until,
		     int64_t *first, int64_t *last)
{
	char *sql = sqlite3_mprintf("SELECT id, \"%w\" FROM \"%w\" WHERE id >= ?1 ORDER BY id LIMIT 1",
				    ts_col, table);
	char *ends = sqlite3_mprintf("SELECT min(id), max(id) FROM \"%w\"", table);
	sqlite3_stmt *st = NULL, *e = NULL;
	int rc = -1;

	if (!sql || !ends || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, ends, -1, &e, NULL) != SQLITE_OK)
		goto out;
	if (sqlite3_step(e) != SQLITE_ROW || sqlite3_column_type(e, 0) == SQLITE_NULL) {
		*first = INT64_MAX; /* empty table */
		*last = INT64_MIN;
		rc = 0;
		goto out;
	}
	int64_t min_id = sqlite3_column_int64(e, 0), max_id = sqlite3_column_int64(e, 1);

	for (int pass = 0; pass < 2; pass++) {
		/* pass 0: the first id with ts >= since; pass 1: the first with ts >= until */
		int64_t bound = pass ? until : since, lo = min_id, hi = max_id + 1;

		while (lo < hi) {
			int64_t mid = lo + (hi - lo) / 2, id, ts;

			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, mid);
			if (sqlite3_step(st) != SQLITE_ROW) {
				hi = mid;
				continue;
			}
			id = sqlite3_column_int64(st, 0);
			ts = sqlite3_column_int64(st, 1);
			if (ts >= bound)
				hi = mid;
			else
				lo = id + 1;
		}
		if (pass == 0)
			*first = lo;
		else
			*last = lo - 1;
	}
	rc = 0;
out:
	sqlite3_free(sql);
	sqlite3_free(ends);
	sqlite3_finalize(st);
	sqlite3_finalize(e);
	return rc;
}

static void widen(int64_t *lo, int64_t *hi, int64_t first, int64_t last)
{
	if (first < *lo)
		*lo = first;
	if (last > *hi)
		*hi = last;
}

static int64_t sub_sat(int64_t a, int64_t b)
{
	int64_t d;

	return __builtin_sub_overflow(a, b, &d) ? (b > 0 ? INT64_MIN : INT64_MAX) : d;
}

/*
 * The syscalls stored as their pairs (meta syscall_store, import/import_syscalls.c):
 * their views give an exit's id as a sum, which no index finds. The range is made to
 * hold every one of them all the same, from the pairs and the lone exits (tables): an
 * exit at or after since belongs to a call entered at or after since - the longest
 * call (meta syscall_max_dur_ns), so ids from that entry on; an event before until
 * comes before the first entry at or after until. The range is wider than the events'
 * then (by one longest call); in_slice decides each row.
 */
static void pairs_bounds(const struct slice *s, sqlite3 *db, int64_t *lo, int64_t *hi)
{
	char *store = db_meta_text(db, "syscall_store");
	bool pairs = store && !strcmp(store, "pairs");
	int64_t base = 0, longest = -1, first, last;
	sqlite3_stmt *st = NULL;

	free(store);
	if (!pairs)
		return;
	if (sqlite3_prepare_v2(db, "SELECT base_ts FROM syscall_range", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER &&
	    db_meta_int(db, "syscall_max_dur_ns", &longest))
		base = sqlite3_column_int64(st, 0);
	else
		longest = -1;
	sqlite3_finalize(st);
	if (longest < 0) { /* not to be bounded: every id */
		*lo = INT64_MIN;
		*hi = INT64_MAX;
		return;
	}
	if (!id_bounds(db, "syscall_lone_exits", "ts", s->since_ns, s->until_ns, &first, &last))
		widen(lo, hi, first, last);
	if (id_bounds(db, "syscall_pairs", "ts_rel", sub_sat(sub_sat(s->since_ns, base), longest),
		      sub_sat(s->until_ns, base), &first, &last))
		return;
	/* no entry at or after until: an exit after the last entry may be before it */
	if (sqlite3_prepare_v2(db, "SELECT max(id) FROM syscall_pairs", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && last >= sqlite3_column_int64(st, 0))
		last = INT64_MAX;
	sqlite3_finalize(st);
	widen(lo, hi, first, last);
}

/* temp.slice's id range: over every event table. */
int slice_window_ids(struct slice *s, sqlite3 *db)
{
	sqlite3_stmt *st;

	s->lo_id = INT64_MIN;
	s->hi_id = INT64_MAX;
	if (!s->since_arg && !s->until_arg && !s->edge_cut)
		return 0;
	if (!db_has_table(db, "event_types") ||
	    sqlite3_prepare_v2(db, "SELECT table_name FROM event_types WHERE table_name "
			       "IS NOT NULL", -1, &st, NULL) != SQLITE_OK)
		return 0; /* no list of tables: in_slice's ts test alone */
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t first = INT64_MAX, last = INT64_MIN;
		const char *table = (const char *)sqlite3_column_text(st, 0);

		/* (a view: the syscalls stored as their pairs, bounded below) */
		if (!table || !db_has_table(db, table) || db_is_view(db, "main", table) ||
		    id_bounds(db, table, "ts", s->since_ns, s->until_ns, &first, &last))
			continue;
		widen(&lo, &hi, first, last);
	}
	sqlite3_finalize(st);
	pairs_bounds(s, db, &lo, &hi);
	s->lo_id = lo;
	s->hi_id = hi;
	return 0;
}

