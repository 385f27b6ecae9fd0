/* SPDX-License-Identifier: MIT */
/*
 * test_nearest_rank.c - store/nearest_rank.c against the SQL it replaced, which is its
 * oracle: min(CASE WHEN row_number() OVER (PARTITION BY g ORDER BY v) >= (n * P + 99) /
 * 100 THEN v END). Groups of random integers (many equal, sorted, reversed, one, two),
 * with NULLs, with reals beside integers, with text and blobs; P from -5 to 150.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "store/nearest_rank.h"

static const int ps[] = { -5, 0, 1, 25, 50, 90, 99, 100, 101, 150 };

static void exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err);
}

/* Every group of table t(g, v), every P: the aggregate's value IS the oracle's. */
static void agree(sqlite3 *db, const char *what)
{
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		char *sql = sqlite3_mprintf(
			"WITH r AS (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS rank, "
			"count(*) OVER (PARTITION BY g) AS n FROM t), "
			"o AS (SELECT g, min(CASE WHEN rank >= (n * %d + 99) / 100 THEN v END) AS want FROM r GROUP BY g), "
			"a AS (SELECT g, nearest_rank(v, %d) AS got FROM t GROUP BY g) "
			"SELECT count(*), sum(o.want IS a.got AND typeof(o.want) = typeof(a.got)) "
			"FROM o JOIN a ON a.g IS o.g", ps[i], ps[i]);
		sqlite3_stmt *st;

		assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		int groups = sqlite3_column_int(st, 0), same = sqlite3_column_int(st, 1);

		if (groups == 0 || groups != same)
			fail_msg("%s, P %d: %d of %d groups agree", what, ps[i], same, groups);
		sqlite3_finalize(st);
		sqlite3_free(sql);
	}
}

static sqlite3 *fresh(void)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(nearest_rank_register(db), 0);
	exec(db, "CREATE TABLE t (g, v)");
	return db;
}

static void integers(void **state)
{
	(void)state;
	sqlite3 *db = fresh();
	sqlite3_stmt *ins;

	srand(42);
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?, ?)", -1, &ins, NULL), SQLITE_OK);
	for (int g = 0; g < 300; g++) {
		int n = g < 10 ? g + 1 : 1 + rand() % 2000, spread = g % 3 == 0 ? 3 : 1000000;

		for (int i = 0; i < n; i++) {
			int64_t v = g % 5 == 1 ? i : g % 5 == 2 ? n - i : rand() % spread - spread / 4;

			sqlite3_bind_int(ins, 1, g);
			if (g % 7 == 3 && i % 5 == 0)
				sqlite3_bind_null(ins, 2);
			else
				sqlite3_bind_int64(ins, 2, g == 11 ? INT64_MAX - i : v);
			assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
			sqlite3_reset(ins);
		}
	}
	sqlite3_finalize(ins);
	exec(db, "INSERT INTO t VALUES (NULL, 5), (NULL, 3), (1000, NULL), (1000, NULL)");
	agree(db, "integers");
	sqlite3_close(db);
}

static void other_types(void **state)
{
	(void)state;
	sqlite3 *db = fresh();

	/* reals beside integers (equal ones too), text, blobs, NULLs: SQLite's order */
	exec(db, "INSERT INTO t VALUES (1, 3), (1, 2.5), (1, 3.0), (1, -1), (1, 9007199254740993),"
		 " (1, 9007199254740992.0), (2, 'b'), (2, 'a'), (2, x'00'), (2, 7), (2, NULL), (2, 'ab'),"
		 " (2, x''), (2, ''), (3, 1.5), (3, NULL), (3, NULL), (3, 0.5), (4, 'z')");
	agree(db, "mixed types");
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(integers),
		cmocka_unit_test(other_types),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
