/* SPDX-License-Identifier: MIT */
/*
 * nearest_rank.h - the SQL aggregate nearest_rank(VALUE, P): the value at rank
 * ceil(P * n / 100) of a group's n values in SQLite's ascending order, as
 *   min(CASE WHEN row_number() OVER (ORDER BY VALUE) >= (n * P + 99) / 100 THEN VALUE END)
 * says it (that SQL is its oracle in tests/test_nearest_rank.c): NULLs count in n and
 * sort first, the result is the first non-NULL value at or after that rank, NULL when
 * none is. P an integer. The window functions sorted every row of a group in SQLite's
 * sorter: 1.7 s for one percentile of 1 M scheduler intervals, where this sorts them
 * in C (issue 23: runqlat and cpudist --summary, iolat --summary, the diff page).
 */
#ifndef STORE_NEAREST_RANK_H
#define STORE_NEAREST_RANK_H

#include <sqlite3.h>

/* Register nearest_rank on db. 0, or -1 (SQLite's error). */
int nearest_rank_register(sqlite3 *db);

#endif
