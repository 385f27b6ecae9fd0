/* SPDX-License-Identifier: MIT */
/*
 * test_derive_io.c - derive_io (import/derive_io.c: block I/O requests paired in one C
 * pass) against its oracle, the SQL views it replaced (tests/oracle/iolat.sql): io_pairs,
 * io_losses and io_dropped, and the `io` view over them (schema/reports/iolat.sql), equal
 * row for row, value and type, on hand-made databases: a requeue, two requests in flight
 * on one sector, flushes at sector 0 and -1, discards, a preflush, losses on another
 * CPU overlapping a pair, latencies over 60 s and below 0, completions without a start,
 * insert -> issue pairing, a capture without inserts or lost_events, hostile values
 * (times that overflow, NULLs, texts, reals and blobs where numbers belong, rwbs bytes
 * of every kind), seeded randomized streams, one large enough to drop finished keys;
 * derived into main (the importer's way) and into TEMP (the reports'); and the cap on
 * requests in flight.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "import/derive.h"
#include "import/derive_util.h"
#include "reports/views.h"
#include "store/db.h"
#include "tests/report_func_fixture.h"
#include "tests/derive_fixture.h"

#define ORACLE "tests/oracle/iolat.sql"
#define DEV  (253 << 20)
#define DEV2 (8 << 20 | 16)
#define S    1000000000LL

enum kind { INSERT, ISSUE, COMPLETE };
static const char *const tables[] = { "block_rq_insert", "block_rq_issue", "block_rq_complete" };
static int next_id;

/* Bits of io_db: the optional tables. */
enum { NO_INSERT = 1, NO_LOST = 2, NO_BYTES = 4 };

/* The block tables as `ftana db` makes them on 6.x (untyped here: hostile values stay). */
static sqlite3 *io_db(int mask)
{
	sqlite3 *db = fx_open();

	next_id = 0;
	for (int k = 0; k < 3; k++) {
		if (k == INSERT && (mask & NO_INSERT))
			continue;
		fx_exec(db, "CREATE TABLE %s(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, dev, sector, "
			"nr_sector, %s%s ioprio, rwbs, comm, cmd)", tables[k],
			k == COMPLETE ? "error," : "", k != COMPLETE && !(mask & NO_BYTES) ? "bytes," : "");
	}
	if (!(mask & NO_LOST))
		fx_exec(db, "CREATE TABLE lost_events(cpu INTEGER NOT NULL, ts INTEGER, count INTEGER)");
	fx_exec(db, "INSERT INTO tasks VALUES (100, 100, 'dd'), (101, 100, 'dd'), (200, 200, 'kworker/0:1')");
	return db;
}

/*
 * One event with its values as SQL literals (a hostile test gives NULL, 'text', 1.0,
 * x'..'); task 100 + cpu. The id is the next one: ids follow the calls, as the importer's
 * global time order makes them.
 */
static int ev_sql(sqlite3 *db, enum kind k, const char *ts, const char *cpu, const char *dev,
		  const char *sector, const char *rwbs)
{
	int id = ++next_id;
	bool bytes = k != COMPLETE && fx_int(db, "SELECT count(*) FROM pragma_table_info('%s') "
					     "WHERE name = 'bytes'", tables[k]);

	fx_exec(db, "INSERT INTO %s(id, ts, cpu, pid, dev, sector, nr_sector, %s rwbs, comm) VALUES "
		"(%d, %s, %s, 100 + %s, %s, %s, 8, %s %s, %s)", tables[k],
		k == COMPLETE ? "error," : bytes ? "bytes," : "", id, ts, cpu, cpu, dev, sector,
		k == COMPLETE ? "0," : bytes ? "4096," : "", rwbs, k == COMPLETE ? "NULL" : "'dd'");
	return id;
}

static int rq(sqlite3 *db, enum kind k, long long ts, int cpu, int dev, long long sector, const char *rwbs)
{
	char t[32], c[16], d[16], s[32], r[64];

	snprintf(t, sizeof(t), "%lld", ts);
	snprintf(c, sizeof(c), "%d", cpu);
	snprintf(d, sizeof(d), "%d", dev);
	snprintf(s, sizeof(s), "%lld", sector);
	sqlite3_snprintf(sizeof(r), r, "%Q", rwbs);
	return ev_sql(db, k, t, c, d, s, r);
}

static void loss(sqlite3 *db, int cpu, long long ts)
{
	fx_exec(db, "INSERT INTO lost_events VALUES (%d, %lld, 5)", cpu, ts);
}

/* A copy of query SQL's rows as table NAME, its columns untyped (values kept as they are). */
static void snapshot(sqlite3 *db, const char *name, const char *sql)
{
	sqlite3_stmt *st;
	sqlite3_str *cols = sqlite3_str_new(db);

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	for (int i = 0; i < sqlite3_column_count(st); i++)
		sqlite3_str_appendf(cols, "%s\"%w\"", i ? ", " : "", sqlite3_column_name(st, i));
	sqlite3_finalize(st);
	char *c = sqlite3_str_finish(cols);

	fx_exec(db, "CREATE TABLE %s (%s); INSERT INTO %s %s", name, c, name, sql);
	sqlite3_free(c);
}

/* The derived rows (main.mine_*) against the oracle's views, loaded now into TEMP. */
static void compare_oracle(sqlite3 *db)
{
	dfx_load_oracle(db, ORACLE);
	dfx_same_rows(db, "io_pairs", "SELECT * FROM main.mine_io_pairs ORDER BY complete_id",
		      "SELECT * FROM temp.io_pairs ORDER BY complete_id");
	dfx_same_rows(db, "io_losses", "SELECT * FROM main.mine_io_losses ORDER BY cpu, hi, lo",
		      "SELECT * FROM temp.io_losses ORDER BY cpu, hi, lo");
	dfx_same_rows(db, "io_dropped", "SELECT * FROM main.mine_io_dropped", "SELECT * FROM temp.io_dropped");
	dfx_same_rows(db, "io", "SELECT * FROM main.mine_io ORDER BY id", "SELECT * FROM temp.io ORDER BY id");
}

/* Keep what iolat_views gave (the derived tables, the `io` view) as main.mine_*, and
 * drop them: the oracle takes the names. */
static void keep_mine(sqlite3 *db, const char *schema)
{
	static const char *const derived[] = { "io_pairs", "io_losses", "io_dropped" };

	snapshot(db, "main.mine_io", "SELECT * FROM io");
	fx_exec(db, "DROP VIEW temp.io; DROP VIEW temp.io_rq");
	for (int i = 0; i < 3; i++) {
		char *from = sqlite3_mprintf("SELECT * FROM %s.%s", schema, derived[i]);
		char *to = sqlite3_mprintf("main.mine_%s", derived[i]);

		snapshot(db, to, from);
		fx_exec(db, "DROP TABLE %s.%s", schema, derived[i]);
		sqlite3_free(from);
		sqlite3_free(to);
	}
}

/* derive_io into main (the importer's way), the views over it, then the oracle. */
static void check(sqlite3 *db)
{
	assert_int_equal(derive_io(db, "main"), 0);
	assert_true(derive_present(db, "main", "io"));
	assert_false(derive_present(db, "temp", "io"));
	assert_int_equal(iolat_views(db), 0);
	keep_mine(db, "main");
	compare_oracle(db);
}

/* The reports' way: iolat_views derives into TEMP, main lacking the tables. */
static void check_temp(sqlite3 *db)
{
	assert_false(derive_present(db, "main", "io"));
	assert_int_equal(iolat_views(db), 0);
	assert_true(derive_present(db, "temp", "io"));
	keep_mine(db, "temp");
	compare_oracle(db);
}

static long long status_count(sqlite3 *db, const char *status)
{
	return fx_int(db, "SELECT count(*) FROM main.mine_io_pairs WHERE status = '%s'", status);
}

/* ---------------------------------------------------------------- the edges */

/*
 * insert -> issue -> complete; a requeue (issued twice: measured from the last issue);
 * two requests in flight on one sector (the first completion takes the newer start, the
 * second has none); a read and a write on one sector; a completion of another disk.
 */
static void test_pairing(void **state)
{
	(void)state;
	sqlite3 *db = io_db(0);

	rq(db, INSERT, 1000, 0, DEV, 2048, "WS");
	rq(db, ISSUE, 1500, 1, DEV, 2048, "WS");
	rq(db, COMPLETE, 4000, 1, DEV, 2048, "WS");
	rq(db, ISSUE, 5000, 0, DEV, 100, "R");
	rq(db, ISSUE, 5200, 0, DEV, 100, "R");       /* requeued: issued again */
	rq(db, COMPLETE, 5900, 0, DEV, 100, "R");
	rq(db, ISSUE, 6000, 0, DEV, 300, "W");
	rq(db, ISSUE, 6100, 1, DEV, 300, "W");       /* a second request in flight on 300 */
	rq(db, ISSUE, 6150, 1, DEV, 300, "R");       /* a read of it: another key */
	rq(db, COMPLETE, 6300, 0, DEV, 300, "W");
	rq(db, COMPLETE, 6400, 1, DEV, 300, "W");    /* no start left */
	rq(db, COMPLETE, 6500, 1, DEV, 300, "RA");
	rq(db, COMPLETE, 6600, 1, DEV2, 2048, "WS"); /* another disk: no start */
	rq(db, INSERT, 7000, 0, DEV, 400, "W");
	rq(db, INSERT, 7100, 0, DEV, 400, "W");      /* inserted twice: the latest counts */
	rq(db, COMPLETE, 7150, 0, DEV, 400, "W");    /* a completion between insert and issue */
	rq(db, ISSUE, 7200, 1, DEV, 400, "W");
	rq(db, COMPLETE, 7900, 1, DEV, 400, "W");
	check(db);
	assert_int_equal(status_count(db, "ok"), 5);
	assert_int_equal(status_count(db, "no_start"), 3);
	assert_int_equal(fx_int(db, "SELECT lat_ns FROM mine_io WHERE sector = 100"), 700);
	assert_int_equal(fx_int(db, "SELECT que_ns FROM mine_io WHERE sector = 400"), 100);
	fx_close(db);
}

/*
 * Flushes at sector 0 (today's kernels) and -1 ((sector_t)-1 of old ones) pair with
 * their own completion, never with a write at sector 0; a preflush write ("FWS") is a
 * write; a discard; "F" alone and "FX" are ops F; an empty rwbs.
 */
static void test_ops(void **state)
{
	(void)state;
	sqlite3 *db = io_db(0);

	rq(db, ISSUE, 100, 0, DEV, 0, "FF");
	rq(db, ISSUE, 150, 0, DEV, 0, "WS");
	rq(db, ISSUE, 160, 0, DEV, 0, "FWS");
	rq(db, COMPLETE, 400, 1, DEV, 0, "WS");
	rq(db, COMPLETE, 450, 1, DEV, 0, "WFS");
	rq(db, COMPLETE, 900, 1, DEV, 0, "FF");
	rq(db, ISSUE, 1000, 0, DEV2, -1, "FF");
	rq(db, COMPLETE, 1300, 0, DEV2, -1, "FF");
	rq(db, ISSUE, 1400, 0, DEV, 4096, "D");
	rq(db, COMPLETE, 1500, 0, DEV, 4096, "DS");
	rq(db, ISSUE, 1600, 0, DEV, 8, "F");
	rq(db, COMPLETE, 1700, 0, DEV, 8, "FX");
	rq(db, ISSUE, 1800, 0, DEV, 16, "");
	rq(db, COMPLETE, 1900, 0, DEV, 16, "");
	rq(db, ISSUE, 2000, 0, DEV, 24, "N");
	rq(db, COMPLETE, 2100, 0, DEV, 24, "N");
	check(db);
	assert_int_equal(status_count(db, "ok"), 7);
	/* sector NULL: the old kernel's -1 (nr_sector is 8 here, so 0 stays 0) */
	assert_int_equal(fx_int(db, "SELECT count(*) FROM mine_io WHERE op = 'F' AND sector IS NULL"), 1);
	fx_close(db);
}

/*
 * A loss on CPU 1 reported at 5000, CPU 1's last request event before it at 1500: pairs
 * overlapping (1500, 5000] on any CPU are lost_events, pairs wholly before or after it
 * stay; the insert -> issue pair across it too; two losses on one CPU; a loss at the
 * very time of an event. Then a loss on a CPU without request events: its window runs
 * from the capture's start (-1), every pair begun before it is lost.
 */
static void test_losses(void **state)
{
	(void)state;
	sqlite3 *db = io_db(0);

	rq(db, ISSUE, 1000, 0, DEV, 10, "R");
	rq(db, COMPLETE, 1200, 1, DEV, 10, "R");
	rq(db, INSERT, 1300, 0, DEV, 20, "R");
	rq(db, ISSUE, 1400, 0, DEV, 20, "R");
	rq(db, ISSUE, 1500, 1, DEV, 30, "R");
	rq(db, INSERT, 1600, 0, DEV, 35, "W");
	rq(db, COMPLETE, 2000, 0, DEV, 20, "R");   /* spans the window from CPU 0 */
	rq(db, INSERT, 4900, 0, DEV, 45, "W");
	rq(db, ISSUE, 5000, 0, DEV, 35, "W");      /* its insert before the window */
	rq(db, ISSUE, 5050, 0, DEV, 45, "W");      /* its insert in the window, it after */
	rq(db, COMPLETE, 5300, 1, DEV, 45, "W");
	rq(db, COMPLETE, 5000, 1, DEV, 30, "R");
	rq(db, ISSUE, 5100, 0, DEV, 40, "R");
	rq(db, COMPLETE, 5600, 1, DEV, 40, "R");
	rq(db, COMPLETE, 5700, 1, DEV, 35, "W");
	rq(db, ISSUE, 7000, 0, DEV, 50, "R");
	rq(db, COMPLETE, 9000, 0, DEV, 50, "R");
	rq(db, ISSUE, 9500, 0, DEV, 60, "R");
	rq(db, COMPLETE, 9600, 0, DEV, 60, "R");
	loss(db, 1, 5000);
	loss(db, 0, 8000);
	loss(db, 0, 8500);
	check(db);
	assert_int_equal(status_count(db, "lost_events"), 4);
	assert_int_equal(status_count(db, "ok"), 4);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM mine_io_dropped WHERE what = 'queue' "
				"AND reason = 'lost_events'"), 1);
	assert_int_equal(fx_int(db, "SELECT lo FROM mine_io_losses WHERE cpu = 1"), 1500);
	fx_close(db);

	db = io_db(0);
	rq(db, ISSUE, 1000, 0, DEV, 10, "R");
	rq(db, COMPLETE, 1200, 1, DEV, 10, "R");
	rq(db, ISSUE, 1300, 0, DEV, 20, "R");
	rq(db, COMPLETE, 1400, 1, DEV, 20, "R");
	loss(db, 3, 1350);
	check_temp(db);
	assert_int_equal(fx_int(db, "SELECT lo FROM mine_io_losses WHERE cpu = 3"), -1);
	assert_int_equal(status_count(db, "lost_events"), 2);
	fx_close(db);
}

/* Latencies over 60 s (and exactly 60 s), below 0; the same for the queue. */
static void test_absurd_negative(void **state)
{
	(void)state;
	sqlite3 *db = io_db(0);

	rq(db, ISSUE, 0, 0, DEV, 8, "R");
	rq(db, COMPLETE, 61 * S, 0, DEV, 8, "R");
	rq(db, ISSUE, 62 * S, 0, DEV, 16, "R");
	rq(db, COMPLETE, 122 * S, 0, DEV, 16, "R");       /* exactly 60 s: ok */
	rq(db, ISSUE, 130 * S, 0, DEV, 24, "R");
	rq(db, COMPLETE, 129 * S, 0, DEV, 24, "R");       /* before its issue */
	rq(db, INSERT, 140 * S, 0, DEV, 32, "W");
	rq(db, ISSUE, 201 * S, 0, DEV, 32, "W");           /* queued over 60 s */
	rq(db, COMPLETE, 202 * S, 0, DEV, 32, "W");
	check(db);
	assert_int_equal(status_count(db, "absurd"), 1);
	assert_int_equal(status_count(db, "negative"), 1);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM mine_io_dropped WHERE what = 'queue' "
				"AND reason = 'absurd'"), 1);
	fx_close(db);
}

/* No block_rq_insert table, no lost_events (a hand-made .db), a kernel without bytes. */
static void test_missing_tables(void **state)
{
	(void)state;
	/* (no inserts and no bytes together: io's inner `bytes` would meet the insert
	 * stand-in's, ambiguous, in the oracle as in iolat.sql) */
	sqlite3 *db = io_db(NO_LOST | NO_BYTES);

	rq(db, ISSUE, 100, 0, DEV, 8, "W");
	rq(db, COMPLETE, 300, 0, DEV, 8, "W");
	rq(db, COMPLETE, 400, 0, DEV, 8, "W");
	check(db);
	fx_close(db);
	db = io_db(NO_INSERT | NO_LOST);
	rq(db, ISSUE, 100, 0, DEV, 8, "W");
	rq(db, COMPLETE, 300, 0, DEV, 8, "W");
	check_temp(db);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM mine_io"), 1);
	fx_close(db);
	/* nothing at all: empty tables */
	db = io_db(0);
	check(db);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM mine_io_pairs"), 0);
	fx_close(db);
}

/*
 * What a hostile capture or a hand-made database can hold: times whose differences
 * overflow 64 bits (SQLite makes them reals), negative times, NULL times, devs and
 * sectors; texts, reals and blobs where numbers belong (1.0 is 1, '1' is not); rwbs as
 * NULL, a number, a blob, multi-byte and broken UTF-8; losses at the extremes.
 */
static void test_hostile(void **state)
{
	(void)state;
	sqlite3 *db = io_db(0);

	ev_sql(db, ISSUE, "-9223372036854775807", "0", "1", "1", "'W'");
	ev_sql(db, COMPLETE, "9223372036854775807", "0", "1", "1", "'W'");
	ev_sql(db, ISSUE, "9223372036854775807", "1", "1", "2", "'W'");
	ev_sql(db, COMPLETE, "-9223372036854775808", "1", "1", "2", "'W'");
	ev_sql(db, ISSUE, "NULL", "0", "1", "3", "'R'");
	ev_sql(db, COMPLETE, "50", "0", "1", "3", "'R'");
	ev_sql(db, ISSUE, "60", "0", "NULL", "NULL", "NULL");
	ev_sql(db, COMPLETE, "70", "0", "NULL", "NULL", "NULL");
	ev_sql(db, ISSUE, "80", "0", "'8,0'", "1.0", "'R'");
	ev_sql(db, COMPLETE, "90", "0", "'8,0'", "1", "'R'");   /* 1.0 = 1 */
	ev_sql(db, ISSUE, "100", "0", "2", "'5'", "'R'");
	ev_sql(db, COMPLETE, "110", "0", "2", "5", "'R'");      /* '5' is not 5 */
	ev_sql(db, ISSUE, "120", "0", "2", "2.5", "'R'");
	ev_sql(db, COMPLETE, "130", "0", "2", "2.5", "'R'");
	ev_sql(db, ISSUE, "140", "0", "x'0102'", "x'0102030405060708090a'", "x'4657'");
	ev_sql(db, COMPLETE, "150", "0", "x'0102'", "x'0102030405060708090a'", "x'46'");
	ev_sql(db, ISSUE, "160", "0", "3", "1", "57005");
	ev_sql(db, COMPLETE, "170", "0", "3", "1", "5.5");
	ev_sql(db, ISSUE, "180", "0", "3", "2", "'\xc3\xa9W'");
	ev_sql(db, COMPLETE, "190", "0", "3", "2", "'\xc3\xa9S'");
	ev_sql(db, ISSUE, "200", "0", "3", "3", "'\xa9W' || x''");
	ev_sql(db, COMPLETE, "210", "0", "3", "3", "'\xa9W'");
	ev_sql(db, ISSUE, "220", "0", "3", "4", "'F\xc3\xa9'");
	ev_sql(db, COMPLETE, "230", "0", "3", "4", "'F\xc3\xa9'");
	ev_sql(db, ISSUE, "240", "0", "3", "5", "CAST(x'c3a9a9a9a9a9a9a9a9a9' AS TEXT)");
	ev_sql(db, COMPLETE, "250", "0", "3", "5", "CAST(x'c3a9a9a9a9a9a9a9a9a9' AS TEXT)");
	ev_sql(db, ISSUE, "260", "9223372036854775807", "4", "-9223372036854775808", "'W'");
	ev_sql(db, COMPLETE, "270", "-1", "4", "-9223372036854775808", "'W'");
	ev_sql(db, INSERT, "NULL", "0", "5", "5", "'W'");
	ev_sql(db, ISSUE, "280", "0", "5", "5", "'W'");
	ev_sql(db, COMPLETE, "290", "0", "5", "5", "'W'");
	fx_exec(db, "INSERT INTO lost_events VALUES (9223372036854775807, 265, NULL), "
		"(0, -9223372036854775808, 1), (1, 9223372036854775807, 1), (0, NULL, 1)");
	check(db);
	fx_close(db);
}

/* ---------------------------------------------------------------- random streams */

/* A stream over few keys (collisions on purpose), ts mostly rising, some losses. */
static sqlite3 *random_db(uint64_t seed, int events, int sectors)
{
	static const char *const rwbs[] = { "R", "W", "WS", "RA", "FWS", "FF", "F", "D", "DS", "N",
					    "RM", "WFS", "", "FR" };
	struct dfx_rng r = { seed };
	sqlite3 *db = io_db(dfx_pick(&r, 4) == 0 ? NO_INSERT : 0);
	bool inserts = fx_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'block_rq_insert'");
	long long ts = 1000;

	fx_exec(db, "BEGIN");
	for (int i = 0; i < events; i++) {
		int k = dfx_pick(&r, inserts ? 3 : 2) + !inserts;

		ts += dfx_pick(&r, 20) == 0 ? -(long long)dfx_pick(&r, 50) : dfx_pick(&r, 400);
		if (dfx_pick(&r, 500) == 0)
			ts += 61 * S;
		rq(db, (enum kind)k, ts, dfx_pick(&r, 3), dfx_pick(&r, 3) ? DEV : DEV2,
		   dfx_pick(&r, sectors) * 8LL - (dfx_pick(&r, 30) == 0), rwbs[dfx_pick(&r, 14)]);
		if (dfx_pick(&r, 60) == 0)
			loss(db, dfx_pick(&r, 4), ts + dfx_pick(&r, 3) - 1);
	}
	fx_exec(db, "COMMIT");
	return db;
}

static void test_random_streams(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 40; seed++) {
		sqlite3 *db = random_db(seed, 300 + (int)(seed % 7) * 50, 2 + (int)(seed % 5) * 3);

		if (seed % 2)
			check(db);
		else
			check_temp(db);
		fx_close(db);
	}
}

/* More finished keys than the map keeps (sequential I/O, a few in flight, inserts and
 * completions on two CPUs): they are dropped on the way, the pending stay. */
static void test_many_keys(void **state)
{
	(void)state;
	sqlite3 *db = io_db(0);
	long long ts = 1000;

	fx_exec(db, "BEGIN");
	for (int i = 0; i < 90000; i++) {
		rq(db, INSERT, ts += 10, 0, DEV, i * 8LL, "W");
		rq(db, ISSUE, ts += 10, 0, DEV, i * 8LL, "W");
		if (i >= 3)
			rq(db, COMPLETE, ts += 10, 1, DEV, (i - 3) * 8LL, "W");
		if (i % 20000 == 7)
			loss(db, 1, ts);
	}
	fx_exec(db, "COMMIT");
	check(db);
	assert_true(fx_int(db, "SELECT count(*) FROM mine_io") > 80000);
	fx_close(db);
}

/*
 * The cap on requests in flight (derive_util.h), made 8: 20 requests issued before any
 * completes. The older half of the pending is given up each time the cap is passed:
 * their completions have no start; the newest pair.
 */
static void test_cap(void **state)
{
	(void)state;
	sqlite3 *db = io_db(0);
	size_t cap = derive_pending_max;

	for (int i = 0; i < 20; i++)
		rq(db, ISSUE, 100 + i, 0, DEV, i * 8, "W");
	for (int i = 0; i < 20; i++)
		rq(db, COMPLETE, 1000 + i, 0, DEV, i * 8, "W");
	derive_pending_max = 8;
	int rc = derive_io(db, "main");

	derive_pending_max = cap;
	assert_int_equal(rc, 0);
	long long ok = fx_int(db, "SELECT count(*) FROM io_pairs WHERE status = 'ok'");

	assert_true(ok >= 4 && ok <= 8);
	assert_string_equal(fx_text(db, "SELECT status FROM io_pairs ORDER BY complete_id DESC LIMIT 1"), "ok");
	assert_string_equal(fx_text(db, "SELECT status FROM io_pairs ORDER BY complete_id LIMIT 1"), "no_start");
	fx_close(db);
}

/* The median the cap cuts at. */
static void test_median(void **state)
{
	(void)state;
	struct dfx_rng r = { 7 };

	for (int n = 1; n < 200; n++) {
		int64_t a[200], b[200];

		for (int i = 0; i < n; i++)
			a[i] = b[i] = (int64_t)(dfx_next(&r) % 50) - 25;
		int64_t m = derive_median(a, (size_t)n);
		int below = 0, above = 0;

		for (int i = 0; i < n; i++) {
			below += b[i] < m;
			above += b[i] > m;
		}
		assert_true(below <= n / 2 && above <= n - n / 2 - 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairing),
		cmocka_unit_test(test_ops),
		cmocka_unit_test(test_losses),
		cmocka_unit_test(test_absurd_negative),
		cmocka_unit_test(test_missing_tables),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_random_streams),
		cmocka_unit_test(test_many_keys),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_median),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
