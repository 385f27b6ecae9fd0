/* SPDX-License-Identifier: MIT */
/*
 * test_report_iolat.c - the iolat pairing (schema/reports/iolat.sql) and report on
 * hand-made block_rq_* rows whose right answer is known by construction: completions
 * out of order, the same sector twice, reads and writes on one sector, lost events,
 * flushes, completions without a start, a kernel without the bytes field, and the
 * summary's percentiles and histogram on a known latency set.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "analyze/ftana.h"
#include "reports/report_util.h"
#include "tests/report_func_fixture.h"

int report_iolat(sqlite3 *db, int argc, char **argv);

#define DEV   (253 << 20)        /* 253,0 */
#define DEV2  (8 << 20 | 16)     /* 8,16 */
#define MS    1000000LL

enum kind { INSERT, ISSUE, COMPLETE };

/* The columns `ftana db` makes on kernel 6.18 (the format fields, by name). */
static sqlite3 *block_db(bool with_bytes)
{
	sqlite3 *db = fx_open();

	fx_exec(db, "CREATE TABLE block_rq_insert(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
		"dev, sector, nr_sector, %s ioprio, rwbs, comm, cmd)", with_bytes ? "bytes," : "");
	fx_exec(db, "CREATE TABLE block_rq_issue(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
		"dev, sector, nr_sector, %s ioprio, rwbs, comm, cmd)", with_bytes ? "bytes," : "");
	fx_exec(db, "CREATE TABLE block_rq_complete(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
		"dev, sector, nr_sector, error, ioprio, rwbs, cmd)");
	fx_exec(db, "CREATE TABLE lost_events(cpu, ts, count)");
	return db;
}

static int next_id;

/* One event; ids follow the call order, as the importer's global time order does. */
static void rq(sqlite3 *db, enum kind k, int64_t ts, int cpu, int dev, int64_t sector,
	       int nr_sector, const char *rwbs)
{
	static const char *const tables[] = { "block_rq_insert", "block_rq_issue",
					      "block_rq_complete" };
	bool has_bytes = fx_int(db, "SELECT count(*) FROM pragma_table_info('block_rq_issue') "
				"WHERE name = 'bytes'");
	int id = ++next_id;

	if (k == COMPLETE)
		fx_exec(db, "INSERT INTO %s VALUES (%d, %lld, %d, 0, NULL, %d, %lld, %d, 0, 0, '%s', '')",
			tables[k], id, (long long)ts, cpu, dev, (long long)sector, nr_sector, rwbs);
	else if (has_bytes)
		fx_exec(db, "INSERT INTO %s VALUES (%d, %lld, %d, %d, NULL, %d, %lld, %d, %d, 0, '%s', "
			"'task%d', '')", tables[k], id, (long long)ts, cpu, 1000 + cpu, dev,
			(long long)sector, nr_sector, nr_sector * 512, rwbs, cpu);
	else
		fx_exec(db, "INSERT INTO %s VALUES (%d, %lld, %d, %d, NULL, %d, %lld, %d, 0, '%s', "
			"'task%d', '')", tables[k], id, (long long)ts, cpu, 1000 + cpu, dev,
			(long long)sector, nr_sector, rwbs, cpu);
}

static void load_iolat(sqlite3 *db)
{
	assert_int_equal(ftana_exec_sql_file(db, "schema/reports/iolat.sql"), 0);
}

static long long lat_of(sqlite3 *db, int dev, int64_t sector, const char *op)
{
	return fx_int(db, "SELECT lat_ns FROM io WHERE dev = %d AND sector = %lld AND op = '%s'",
		      dev, (long long)sector, op);
}

static long long dropped(sqlite3 *db, const char *reason)
{
	return fx_int(db, "SELECT coalesce(sum(count), 0) FROM io_dropped "
		      "WHERE what = 'completion' AND reason = '%s'", reason);
}

/* insert -> issue -> complete: the three latencies and the request's columns. */
static void test_one_request(void **state)
{
	sqlite3 *db = block_db(true);

	rq(db, INSERT, 1000, 0, DEV, 2048, 128, "WS");
	rq(db, ISSUE, 1500, 1, DEV, 2048, 128, "WS");
	rq(db, COMPLETE, 4000, 1, DEV, 2048, 128, "WS");
	load_iolat(db);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM io"), 1);
	assert_string_equal(fx_text(db, "SELECT disk || ' ' || type || ' ' || op FROM io"),
			    "253,0 WS W");
	assert_int_equal(fx_int(db, "SELECT bytes FROM io"), 65536);
	assert_int_equal(fx_int(db, "SELECT que_ns FROM io"), 500);
	assert_int_equal(fx_int(db, "SELECT lat_ns FROM io"), 2500);
	assert_int_equal(fx_int(db, "SELECT qlat_ns FROM io"), 3000);
	/* The issuer, and with -Q the inserter. */
	assert_string_equal(fx_text(db, "SELECT comm || pid || insert_comm || insert_pid FROM io"),
			    "task11001task01000");
	fx_close(db);
}

/* Completions in another order than the issues: each pairs with its own sector. */
static void test_reordered_completions(void **state)
{
	sqlite3 *db = block_db(true);

	rq(db, ISSUE, 100, 0, DEV, 100, 8, "R");
	rq(db, ISSUE, 200, 0, DEV, 200, 8, "R");
	rq(db, ISSUE, 300, 1, DEV2, 100, 8, "R"); /* same sector, other disk */
	rq(db, COMPLETE, 1300, 1, DEV2, 100, 8, "R");
	rq(db, COMPLETE, 1400, 0, DEV, 200, 8, "R");
	rq(db, COMPLETE, 1900, 1, DEV, 100, 8, "R");
	load_iolat(db);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM io"), 3);
	assert_int_equal(lat_of(db, DEV, 100, "R"), 1800);
	assert_int_equal(lat_of(db, DEV, 200, "R"), 1200);
	assert_int_equal(lat_of(db, DEV2, 100, "R"), 1000);
	assert_int_equal(dropped(db, "no_start"), 0);
	fx_close(db);
}

/*
 * One sector written twice in a row pairs twice; two requests in flight on one sector
 * (or a requeued one issued again) take the newest start, as iosnoop does, and the
 * other completion is dropped; a read and a write on one sector never mix.
 */
static void test_duplicate_sectors(void **state)
{
	sqlite3 *db = block_db(true);

	rq(db, ISSUE, 100, 0, DEV, 50, 8, "W");
	rq(db, COMPLETE, 400, 0, DEV, 50, 8, "W");
	rq(db, ISSUE, 1000, 0, DEV, 50, 8, "W");
	rq(db, COMPLETE, 1700, 0, DEV, 50, 8, "W");
	rq(db, ISSUE, 2000, 0, DEV, 60, 8, "W");
	rq(db, ISSUE, 2100, 0, DEV, 60, 8, "R");
	rq(db, ISSUE, 2500, 1, DEV, 60, 8, "W"); /* re-issue of sector 60 */
	rq(db, COMPLETE, 2600, 1, DEV, 60, 8, "W");
	rq(db, COMPLETE, 2900, 1, DEV, 60, 8, "R");
	rq(db, COMPLETE, 3000, 1, DEV, 60, 8, "W");
	load_iolat(db);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM io WHERE sector = 50"), 2);
	assert_string_equal(fx_text(db, "SELECT group_concat(lat_ns, ',') FROM (SELECT lat_ns "
				    "FROM io WHERE sector = 50 ORDER BY id)"), "300,700");
	assert_int_equal(lat_of(db, DEV, 60, "W"), 100);
	assert_int_equal(lat_of(db, DEV, 60, "R"), 800);
	assert_int_equal(dropped(db, "no_start"), 1);
	fx_close(db);
}

/*
 * A loss on CPU 1 reported at 5000, whose previous request event on CPU 1 was at
 * 1500: the lost events lie in (1500, 5000), so the pairs overlapping it, on any CPU,
 * are excluded; pairs wholly before or after it stay. A loss with an unknown count
 * (-1) excludes the same way.
 */
static void test_lost_events(void **state)
{
	sqlite3 *db = block_db(true);

	rq(db, ISSUE, 1000, 0, DEV, 10, 8, "R");
	rq(db, COMPLETE, 1200, 1, DEV, 10, 8, "R");  /* before the gap: kept */
	rq(db, ISSUE, 1400, 0, DEV, 20, 8, "R");
	rq(db, ISSUE, 1500, 1, DEV, 30, 8, "R");     /* CPU 1's last event before the loss */
	rq(db, COMPLETE, 2000, 0, DEV, 20, 8, "R");  /* spans the gap (other CPU): excluded */
	rq(db, COMPLETE, 5000, 1, DEV, 30, 8, "R");  /* first event after the loss: excluded */
	rq(db, ISSUE, 5100, 0, DEV, 40, 8, "R");
	rq(db, COMPLETE, 5600, 1, DEV, 40, 8, "R");  /* after the gap: kept */
	rq(db, ISSUE, 7000, 0, DEV, 50, 8, "R");
	rq(db, COMPLETE, 9000, 0, DEV, 50, 8, "R");  /* spans an unknown-size loss: excluded */
	fx_exec(db, "INSERT INTO lost_events VALUES (1, 5000, 37), (0, 8000, -1)");
	load_iolat(db);
	assert_string_equal(fx_text(db, "SELECT group_concat(sector, ',') FROM (SELECT sector "
				    "FROM io ORDER BY id)"), "10,40");
	assert_int_equal(dropped(db, "lost_events"), 3);

	/* The report says so first, with the count. */
	char *out, *argv[] = { "iolat", NULL };
	assert_int_equal(fx_report(report_iolat, db, &out, 1, argv), 0);
	assert_non_null(strstr(out, "WARNING: the capture lost 37 events (and 1 losses of unknown size)"));
	assert_true(strstr(out, "WARNING") == out);
	assert_int_equal(fx_count_lines(out, "pairs excluded: events were lost"), 1);
	free(out);
	fx_close(db);
}

/*
 * Flushes carry no sector and no bytes: one pairs with its own completion, not with a
 * write at sector 0, shows sector NULL and 0 bytes; an old kernel's (sector_t)-1 too.
 */
static void test_flushes(void **state)
{
	sqlite3 *db = block_db(true);

	rq(db, ISSUE, 100, 0, DEV, 0, 0, "FF");
	rq(db, ISSUE, 150, 0, DEV, 0, 8, "WS");
	rq(db, COMPLETE, 400, 1, DEV, 0, 8, "WS");
	rq(db, COMPLETE, 900, 1, DEV, 0, 0, "FF");
	rq(db, ISSUE, 1000, 0, DEV2, -1, 0, "FF");
	rq(db, COMPLETE, 1300, 0, DEV2, -1, 0, "FF");
	load_iolat(db);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM io"), 3);
	assert_int_equal(fx_int(db, "SELECT lat_ns FROM io WHERE op = 'W'"), 250);
	assert_int_equal(fx_int(db, "SELECT lat_ns FROM io WHERE op = 'F' AND dev = %d", DEV), 800);
	assert_int_equal(fx_int(db, "SELECT lat_ns FROM io WHERE op = 'F' AND dev = %d", DEV2), 300);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM io WHERE op = 'F' AND sector IS NULL "
				"AND bytes = 0"), 2);
	/* A write with a preflush ("FWS") is a write. */
	assert_string_equal(fx_text(db, "SELECT CASE WHEN 'FWS' GLOB 'F[RWDFN]*' THEN 'W' END"), "W");
	fx_close(db);
}

/* Completions whose start the capture does not have are dropped and counted. */
static void test_missing_start(void **state)
{
	sqlite3 *db = block_db(true);

	rq(db, COMPLETE, 100, 0, DEV, 8, 8, "R");
	rq(db, ISSUE, 200, 0, DEV, 16, 8, "R");
	rq(db, COMPLETE, 300, 0, DEV, 16, 8, "R");
	rq(db, COMPLETE, 310, 0, DEV, 16, 8, "R"); /* a second completion of one request */
	rq(db, ISSUE, 400, 0, DEV, 24, 8, "R");    /* issued, never completed */
	load_iolat(db);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM io"), 1);
	assert_int_equal(dropped(db, "no_start"), 2);
	fx_close(db);
}

/* Latencies over 60 s cannot be real: excluded and counted. */
static void test_absurd(void **state)
{
	sqlite3 *db = block_db(true);

	rq(db, ISSUE, 0, 0, DEV, 8, 8, "R");
	rq(db, COMPLETE, 61000 * MS, 0, DEV, 8, 8, "R");
	load_iolat(db);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM io"), 0);
	assert_int_equal(dropped(db, "absurd"), 1);
	fx_close(db);
}

/* A kernel whose block_rq_issue has no bytes field: nr_sector * 512. */
static void test_no_bytes_field(void **state)
{
	sqlite3 *db = block_db(false);

	rq(db, ISSUE, 100, 0, DEV, 8, 16, "W");
	rq(db, COMPLETE, 300, 0, DEV, 8, 16, "W");
	load_iolat(db);
	assert_int_equal(fx_int(db, "SELECT bytes FROM io"), 8192);
	fx_close(db);
}

/*
 * Ten writes of 1..10 ms (nearest-rank p50 = 5, p90 = 9, p99 = 10) and a read of
 * 1.5 ms: the summary per disk and type, -Q's listing without directly issued
 * requests, and the histogram's bucket.
 */
static void test_summary_and_listing(void **state)
{
	sqlite3 *db = block_db(true);
	char *out;

	for (int i = 1; i <= 10; i++) {
		int64_t t = i * 100 * MS;
		rq(db, INSERT, t - MS, 0, DEV, i * 8, 8, "W");
		rq(db, ISSUE, t, 0, DEV, i * 8, 8, "W");
		rq(db, COMPLETE, t + i * MS, 0, DEV, i * 8, 8, "W");
	}
	rq(db, ISSUE, 2000 * MS, 1, DEV, 4096, 8, "R");
	rq(db, COMPLETE, 2000 * MS + 1500000, 1, DEV, 4096, 8, "R");

	char *summary[] = { "iolat", "--summary", "--hist", NULL };
	assert_int_equal(fx_report(report_iolat, db, &out, 3, summary), 0);
	/* count, IOPS over the 1.9015 s span, MB/s, then min avg p50 p90 p99 max. */
	assert_non_null(strstr(out, "253,0 W               10       5.3     0.022    1.000    5.500    5.000    9.000   10.000   10.000"));
	assert_non_null(strstr(out, "253,0 R                1"));
	assert_non_null(strstr(out, "all                   11"));
	assert_non_null(strstr(out, "      1024 -> 2047       : 1        |****************************************|"));
	assert_int_equal(fx_count_lines(out, "LATms"), 0);
	free(out);

	char *queued[] = { "iolat", "-Q", "-n", "^task0$", NULL };
	assert_int_equal(fx_report(report_iolat, db, &out, 4, queued), 0);
	assert_int_equal(fx_count_lines(out, "task0 "), 10);
	assert_int_equal(fx_count_lines(out, "     1.00     2.00"), 1); /* QUEms, LATms from insert */
	assert_int_equal(fx_count_lines(out, "1 I/Os without an insert event"), 1);
	free(out);

	char *bad[] = { "iolat", "--by", "nothing", NULL };
	assert_int_equal(fx_report(report_iolat, db, &out, 3, bad), FTANA_EXIT_ERROR);
	free(out);
	fx_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_request),
		cmocka_unit_test(test_reordered_completions),
		cmocka_unit_test(test_duplicate_sectors),
		cmocka_unit_test(test_lost_events),
		cmocka_unit_test(test_flushes),
		cmocka_unit_test(test_missing_start),
		cmocka_unit_test(test_absurd),
		cmocka_unit_test(test_no_bytes_field),
		cmocka_unit_test(test_summary_and_listing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
