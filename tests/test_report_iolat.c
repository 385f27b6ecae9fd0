/* SPDX-License-Identifier: MIT */
/*
 * test_report_iolat.c - the iolat pairing (import/derive_io.c) and report on
 * hand-made block_rq_* rows whose right answer is known by construction: completions
 * out of order, the same sector twice, reads and writes on one sector, lost events,
 * flushes, completions without a start, a kernel without the bytes field; then the
 * report through the front end (fx_run): the slice decided by each I/O's start event
 * (--since inclusive, --until exclusive, -p as the process, -L, -n, --cpu, ftrec's
 * threads), -Q, --interval intervals in iolatency's buckets, the summary's percentiles, the
 * output contract (JSON keys, CSV one table, refused combinations).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "common/cmd.h"
#include "reports/lost.h"
#include "reports/slice.h"
#include "reports/views.h"
#include "store/db.h"
#include "tests/report_func_fixture.h"

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

/* One event of task pid; ids follow the call order, as the importer's global time order does. */
static void rq_task(sqlite3 *db, enum kind k, int64_t ts, int cpu, int pid, int dev,
		    int64_t sector, int nr_sector, const char *rwbs)
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
			"'task%d', '')", tables[k], id, (long long)ts, cpu, pid, dev,
			(long long)sector, nr_sector, nr_sector * 512, rwbs, pid);
	else
		fx_exec(db, "INSERT INTO %s VALUES (%d, %lld, %d, %d, NULL, %d, %lld, %d, 0, '%s', "
			"'task%d', '')", tables[k], id, (long long)ts, cpu, pid, dev,
			(long long)sector, nr_sector, rwbs, pid);
}

/* The same by task 1000 + cpu ("task1000", ...). */
static void rq(sqlite3 *db, enum kind k, int64_t ts, int cpu, int dev, int64_t sector,
	       int nr_sector, const char *rwbs)
{
	rq_task(db, k, ts, cpu, 1000 + cpu, dev, sector, nr_sector, rwbs);
}

/* The pairs (import/derive_io.c, into TEMP) and the views over them. */
static void load_iolat(sqlite3 *db)
{
	assert_int_equal(iolat_views(db), 0);
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

/* fx_run with stderr captured too (warnings, notes, errors). */
static int run_err(sqlite3 *db, char **out, char **err, int argc, char **argv)
{
	return fx_run_io("iolat", db, out, err, argc, argv);
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
	/* The submitter (the inserter), the inserter, and the issuer. */
	assert_string_equal(fx_text(db, "SELECT comm || pid || insert_comm || insert_pid || issue_comm || "
				    "issue_pid FROM io"), "task10001000task10001000task10011001");
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

	/* The report warns on stderr and in the JSON document, with the count. */
	char *out, *err, *argv[] = { "iolat", "--json", NULL };
	assert_int_equal(run_err(db, &out, &err, 2, argv), 0);
	assert_non_null(strstr(err, "ftana report iolat: warning: the capture lost 37 events "
			       "(and 1 loss of unknown size)"));
	assert_non_null(strstr(out, "\"warnings\":[\"the capture lost 37 events (and 1 loss of"));
	assert_null(strstr(out, "excluded")); /* notes are -v's, on stderr */
	assert_null(strstr(err, "note:"));
	free(out);
	free(err);
	/* -v: the notes say what was left out, on stderr only */
	char *verbose[] = { "iolat", "-v", NULL };
	assert_int_equal(run_err(db, &out, &err, 2, verbose), 0);
	assert_int_equal(fx_count_lines(err, "note: 3 pairs excluded: events were lost"), 1);
	assert_int_equal(fx_count_lines(out, "note"), 0);
	assert_int_equal(fx_count_lines(out, "WARNING"), 0);
	assert_int_equal(fx_count_lines(out, "task"), 2); /* sectors 10 and 40 */
	free(out);
	free(err);
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

/* --- the report through the front end --- */

/* needle must be in out; on failure both are shown. */
#define assert_has(out, needle) do { \
	if (!strstr((out), (needle))) \
		fail_msg("'%s' not in:\n%s", (needle), (out)); \
} while (0)


#define S 1000000000LL /* one second; the capture's first event is at 1 s */

/* The sectors of the rows the last run selected, in listing (completion) order. */
static const char *selected(sqlite3 *db)
{
	return fx_text(db, "SELECT coalesce(group_concat(sector, ','), '') FROM "
		       "(SELECT sector FROM iolat_sel ORDER BY id)");
}

/* Run iolat with the options (NULL-terminated); the selected sectors, or "error". */
static const char *slice_of(sqlite3 *db, const char *const *opts)
{
	char *argv[8] = { "iolat" }, *out;
	int argc = 1;

	while (*opts && argc < 7)
		argv[argc++] = (char *)*opts++;
	int rc = fx_run("iolat", db, &out, argc, argv);

	free(out);
	return rc ? "error" : selected(db);
}
#define SLICE(db, ...) slice_of(db, (const char *const[]){ __VA_ARGS__, NULL })

/*
 * Seven I/Os of 1 ms (but D, E, G) whose START decides the slice; sector = name:
 *   sector 10 A: issued at 1.0 s by 100 on CPU 0, completed on CPU 1
 *          20 B: issued at 2.0 s by 101 (a thread of process 100) on CPU 1
 *          30 C: issued at 3.0 s by 100 on CPU 0
 *          40 D: issued at 3.0 s - 1 ns by 200 on CPU 1, completed at 3.5 s
 *          50 E: issued at 0.5 s by 200 on CPU 0, completed at 1.5 s
 *          60 F: issued at 2.5 s by 300, ftrec's own thread
 *          70 G: inserted at 0.9 s by 100 on CPU 1, issued at 1.1 s by 200 (a kworker
 *                dispatching it) on CPU 0, completed at 1.2 s
 * (seconds from the first event, which is at 1 s of the trace clock; last at 4.5 s).
 */
static sqlite3 *slice_db(void)
{
	sqlite3 *db = block_db(true);

	fx_exec(db, "CREATE TABLE event_types (type_id INTEGER PRIMARY KEY, system TEXT, name TEXT, "
		"table_name TEXT, format TEXT, print_fmt TEXT, count INTEGER)");
	fx_exec(db, "INSERT INTO event_types VALUES (1, 'block', 'block_rq_insert', 'block_rq_insert', "
		"NULL, NULL, 1), (2, 'block', 'block_rq_issue', 'block_rq_issue', NULL, NULL, 7), "
		"(3, 'block', 'block_rq_complete', 'block_rq_complete', NULL, NULL, 7)");
	fx_exec(db, "INSERT INTO tasks VALUES (100, 100, 'app'), (101, 100, 'app-worker'), "
		"(200, 200, 'kworker/0:1'), (300, 300, 'ftrec')");
	fx_exec(db, "INSERT INTO meta VALUES ('first_ts', '%lld'), ('last_ts', '%lld'), "
		"('ftrec_tids', '300'), ('wall_offset_ns', '%lld')", S, 4 * S + S / 2,
		1796292000000000000LL - S); /* the first event at 2026-12-03T10:00:00Z */
	rq_task(db, ISSUE, S + S / 2, 0, 200, DEV, 50, 8, "R");            /* E */
	rq_task(db, INSERT, S + 9 * S / 10, 1, 100, DEV, 70, 8, "W");      /* G */
	rq_task(db, ISSUE, 2 * S, 0, 100, DEV, 10, 8, "R");                /* A */
	rq_task(db, COMPLETE, 2 * S + 1000000, 1, 0, DEV, 10, 8, "R");
	rq_task(db, ISSUE, 2 * S + S / 10, 0, 200, DEV, 70, 8, "W");       /* G */
	rq_task(db, COMPLETE, 2 * S + 2 * S / 10, 0, 0, DEV, 70, 8, "W");
	rq_task(db, COMPLETE, 2 * S + S / 2, 0, 0, DEV, 50, 8, "R");       /* E */
	rq_task(db, ISSUE, 3 * S, 1, 101, DEV, 20, 8, "R");                /* B */
	rq_task(db, COMPLETE, 3 * S + 1000000, 0, 0, DEV, 20, 8, "R");
	rq_task(db, ISSUE, 3 * S + S / 2, 0, 300, DEV, 60, 8, "W");        /* F */
	rq_task(db, COMPLETE, 3 * S + S / 2 + 1000000, 0, 0, DEV, 60, 8, "W");
	rq_task(db, ISSUE, 4 * S - 1, 1, 200, DEV, 40, 8, "R");            /* D */
	rq_task(db, ISSUE, 4 * S, 0, 100, DEV, 30, 8, "R");                /* C */
	rq_task(db, COMPLETE, 4 * S + 1000000, 0, 0, DEV, 30, 8, "R");
	rq_task(db, COMPLETE, 4 * S + S / 2, 1, 0, DEV, 40, 8, "R");       /* D */
	return db;
}

static void test_slice_by_start_event(void **state)
{
	sqlite3 *db = slice_db();

	/* everything but ftrec's own I/O, in completion order */
	assert_string_equal(SLICE(db, NULL), "10,70,50,20,30,40");
	assert_string_equal(SLICE(db, "--include-ftrec"), "10,70,50,20,60,30,40");
	/* --since inclusive (A at 1.0 s), --until exclusive (C at 3.0 s out, D at 3.0 s - 1 ns
	 * in although it completes at 3.5 s); E started before --since: out, though it
	 * completed inside */
	assert_string_equal(SLICE(db, "--since", "+1", "--until", "+3"), "10,70,20,40");
	assert_string_equal(SLICE(db, "--since", "+1.000000001"), "70,20,30,40");
	assert_string_equal(SLICE(db, "--until", "+2.999999999"), "10,70,50,20");
	/* the same as trace-clock seconds, as the listing prints them (first event at 1 s) */
	assert_string_equal(SLICE(db, "--since", "2", "--until", "4"), "10,70,20,40");
	/* below the first event's time: seconds from it, as before (1.6 s of the trace clock) */
	assert_string_equal(SLICE(db, "--since", "0.6"), "10,70,20,30,40");
	/* the same window as UTC wall-clock times */
	assert_string_equal(SLICE(db, "--since", "10:00:01", "--until", "2026-12-03T10:00:03Z"),
			    "10,70,20,40");
	/* -p: the process, every thread of it (101 via tasks.tgid); G was submitted
	 * (inserted) by 100 and issued by the kworker 200: it is 100's; --issuer: 200's */
	assert_string_equal(SLICE(db, "-p", "100"), "10,70,20,30");
	assert_string_equal(SLICE(db, "-p", "100", "--issuer"), "10,20,30");
	assert_string_equal(SLICE(db, "-p", "200", "--issuer"), "70,50,40");
	assert_string_equal(SLICE(db, "-L", "101"), "20");
	assert_string_equal(SLICE(db, "-n", "^app"), "10,70,20,30");
	assert_string_equal(SLICE(db, "-p", "300"), ""); /* ftrec's, left out */
	assert_string_equal(SLICE(db, "-p", "300", "--include-ftrec"), "60");
	/* --cpu: the issuing CPU (A completed on CPU 1, issued on 0: out) */
	assert_string_equal(SLICE(db, "--cpu", "1"), "20,40");
	assert_string_equal(SLICE(db, "--cpu", "0", "-p", "100"), "10,70,30"); /* G issued on 0 */
	/* -Q: the insert starts the I/O: its time, CPU and task (the inserter, 100) */
	assert_string_equal(SLICE(db, "-Q"), "70");
	assert_string_equal(SLICE(db, "-Q", "-p", "100"), "70");
	assert_string_equal(SLICE(db, "-Q", "--cpu", "1"), "70");
	assert_string_equal(SLICE(db, "-Q", "--since", "0.95"), "");
	assert_string_equal(SLICE(db, "--since", "0.95", "-p", "200"), "40");
	assert_string_equal(SLICE(db, "--since", "0.95", "-p", "200", "--issuer"), "70,40");
	/* -D */
	assert_string_equal(SLICE(db, "-D", "8,16"), "");
	assert_string_equal(SLICE(db, "-D", "253,0", "-L", "101"), "20");
	fx_close(db);
}

/* The listing's columns: snake_case keys in JSON/CSV, iosnoop's headers in text. */
static void test_listing_contract(void **state)
{
	sqlite3 *db = slice_db();
	char *out;
	char *json[] = { "iolat", "-Q", "--json", NULL };
	char *wall[] = { "iolat", "-L", "101", "--json", "--wall", NULL };
	char *csv[] = { "iolat", "-L", "101", "--csv", NULL };
	char *text[] = { "iolat", "-s", "-t", "-Q", NULL };

	assert_int_equal(fx_run("iolat", db, &out, 3, json), 0);
	assert_has(out, "{\"report\":\"iolat\",\"file\":\"(database)\",\"rows\":[\n"
			       "{\"start_s\":1.9,\"end_s\":2.2,\"comm\":\"task100\",\"pid\":100,"
			       "\"type\":\"W\",\"disk\":\"253,0\",\"sector\":70,\"bytes\":4096,"
			       "\"que_ms\":200.0,\"lat_ms\":300.0}\n]\n,\"warnings\":[]}\n");
	free(out);
	assert_int_equal(fx_run("iolat", db, &out, 5, wall), 0);
	assert_has(out, "\"start_wall\":\"2026-12-03T10:00:02.000000000Z\","
			       "\"end_wall\":\"2026-12-03T10:00:02.001000000Z\",\"comm\":\"task101\"");
	assert_has(out, "\"que_ms\":null,\"lat_ms\":1.0}");
	free(out);
	assert_int_equal(fx_run("iolat", db, &out, 4, csv), 0);
	assert_string_equal(out, "start_s,end_s,comm,pid,type,disk,sector,bytes,que_ms,lat_ms\n"
			    "3.0,3.001,task101,101,R,\"253,0\",20,4096,,1.0\n");
	free(out);
	assert_int_equal(fx_run("iolat", db, &out, 4, text), 0);
	assert_string_equal(out,
		"STARTs          ENDs            COMM         PID    TYPE DEV      BLOCK        BYTES     QUEms    LATms\n"
		"1.900000        2.200000        task100      100    W    253,0    70           4096     200.00   300.00\n");
	free(out);
	fx_close(db);
}

/*
 * --interval: one histogram per interval from the first event, an I/O in the interval of its
 * start, iolatency's millisecond buckets (<= 1, then (low, high]); empty intervals
 * show their 0 -> 1 bucket; --until cuts the last interval.
 */
static void test_intervals(void **state)
{
	sqlite3 *db = slice_db();
	char *out;
	char *one[] = { "iolat", "--interval", "1", "--json", NULL };
	char *half[] = { "iolat", "--interval", "0.5", NULL };
	char *cut[] = { "iolat", "--interval", "1", "--until", "+2.5", "--csv", NULL };

	assert_int_equal(fx_run("iolat", db, &out, 4, one), 0);
	/* E (1000 ms: 512 -> 1024) | A (1 ms: 0 -> 1), G (100 ms: 64 -> 128) |
	 * B (0 -> 1), D (500 ms: 256 -> 512) | C (0 -> 1) */
	assert_int_equal(fx_int(db, "SELECT count(DISTINCT k) FROM iolat_intervals"), 4);
	assert_string_equal(fx_text(db, "SELECT group_concat(k || ':' || low_ms || '-' || high_ms "
				    "|| '=' || count, ' ') FROM iolat_intervals WHERE count > 0"),
			    "0:512-1024=1 1:0-1=1 1:64-128=1 2:0-1=1 2:256-512=1 3:0-1=1");
	assert_int_equal(fx_int(db, "SELECT count(*) FROM iolat_intervals"), 11 + 8 + 10 + 1);
	assert_int_equal(fx_int(db, "SELECT sum(count) FROM iolat_intervals"), 6);
	assert_has(out, "\"intervals\":[\n{\"start_s\":1.0,\"end_s\":2.0,\"low_ms\":0,"
			       "\"high_ms\":1,\"count\":0},");
	assert_null(strstr(out, "\"rows\""));
	free(out);

	assert_int_equal(fx_run("iolat", db, &out, 3, half), 0);
	/* 7 intervals of 0.5 s, 1.0 .. 4.5 s (the window [first, last event) of a database
	 * that does not say when tracing stopped); two empty (1.0, 2.5), two with only
	 * slower I/O (E at 1.5, D at 3.5 s): four with a 0 in their 0 -> 1 bucket */
	assert_int_equal(fx_count_lines(out, "  >=(ms) .. <(ms)   : I/O      |Distribution"), 7);
	assert_int_equal(fx_count_lines(out, "       0 -> 1       : 0        |                                      |"), 4);
	assert_int_equal(fx_count_lines(out, "       0 -> 1       : 1        |######################################|"), 3);
	assert_has(out, "\n1.500000:\n  >=(ms) .. <(ms)   : I/O      |Distribution                          |\n"
			       "       0 -> 1       : 0        |                                      |\n\n2.000000:\n");
	assert_has(out, "     512 -> 1024    : 1        |######################################|\n");
	assert_int_equal(fx_count_lines(out, "COMM"), 0);
	free(out);

	assert_int_equal(fx_run("iolat", db, &out, 6, cut), 0);
	assert_string_equal(fx_text(db, "SELECT group_concat(start_ts || '-' || end_ts, ' ') FROM "
				    "(SELECT DISTINCT start_ts, end_ts FROM iolat_intervals)"),
			    "1000000000-2000000000 2000000000-3000000000 3000000000-3500000000");
	assert_has(out, "start_s,end_s,low_ms,high_ms,count\n1.0,2.0,0,1,0\n");
	assert_has(out, "\n3.0,3.5,0,1,1\n");
	free(out);

	/* --since 1.5 moves the first interval's start to 2.5 s of the trace clock:
	 * [2.5, 3.5) holds B, [3.5, 4.5) C and D */
	char *since[] = { "iolat", "--interval", "1", "--since", "+1.5", "--csv", "--no-header", NULL };
	assert_int_equal(fx_run("iolat", db, &out, 7, since), 0);
	assert_string_equal(fx_text(db, "SELECT group_concat(k || ':' || start_ts || ':' || low_ms "
				    "|| '=' || count, ' ') FROM iolat_intervals WHERE count > 0"),
			    "0:2500000000:0=1 1:3500000000:0=1 1:3500000000:256=1");
	assert_true(strncmp(out, "2.5,3.5,0,1,1\n", 14) == 0);
	free(out);
	fx_close(db);
}

/*
 * Ten writes of 1..10 ms (nearest-rank p50 = 5, p90 = 9, p99 = 10) and a read of
 * 1.5 ms: the summary per disk and type with a total row, the histogram's bucket,
 * both in one JSON document, and each alone in CSV; -Q's listing without the read
 * (issued directly, no insert).
 */
static sqlite3 *summary_db(void)
{
	sqlite3 *db = block_db(true);

	for (int i = 1; i <= 10; i++) {
		int64_t t = i * 100 * MS;
		rq(db, INSERT, t - MS, 0, DEV, i * 8, 8, "W");
		rq(db, ISSUE, t, 0, DEV, i * 8, 8, "W");
		rq(db, COMPLETE, t + i * MS, 0, DEV, i * 8, 8, "W");
	}
	rq(db, ISSUE, 2000 * MS, 1, DEV, 4096, 8, "R");
	rq(db, COMPLETE, 2000 * MS + 1500000, 1, DEV, 4096, 8, "R");
	return db;
}

static void test_summary_and_hist(void **state)
{
	sqlite3 *db = summary_db();
	char *out;
	char *both[] = { "iolat", "--summary", "--hist", "--json", NULL };
	char *text[] = { "iolat", "--summary", "--hist", NULL };
	char *csv_summary[] = { "iolat", "--summary", "--by", "type", "--csv", NULL };

	assert_int_equal(fx_run("iolat", db, &out, 4, both), 0);
	/* no meta: per second of the selection's span, 0.1 s to 2.0015 s */
	assert_string_equal(fx_text(db, "SELECT printf('%%d %%.4f %%.6f %%.3f %%.3f %%.3f %%.3f %%.3f %%.3f', "
				    "count, iops, mb_s, min_ms, avg_ms, p50_ms, p90_ms, p99_ms, max_ms) "
				    "FROM iolat_summary WHERE grp = '253,0 W'"),
			    "10 5.2590 0.021541 1.000 5.500 5.000 9.000 10.000 10.000");
	assert_string_equal(fx_text(db, "SELECT printf('%%d %%.3f %%.3f', count, min_ms, max_ms) "
				    "FROM iolat_summary WHERE grp IS NULL"), "11 1.000 10.000");
	assert_has(out, "\"summary\":[\n{\"disk\":\"253,0\",\"type\":\"R\",\"count\":1,");
	assert_has(out, "{\"disk\":\"all\",\"type\":null,\"count\":11,");
	assert_has(out, "\"histogram\":[\n{\"disk\":\"253,0\",\"type\":\"R\",\"low_us\":0,"
			       "\"high_us\":1,\"count\":0},");
	assert_has(out, "{\"disk\":\"253,0\",\"type\":\"R\",\"low_us\":1024,\"high_us\":2047,\"count\":1}");
	assert_null(strstr(out, "\"rows\""));
	free(out);

	/* text: both tables, a blank line between; no listing */
	assert_int_equal(fx_run("iolat", db, &out, 3, text), 0);
	/* disk and type in columns of their own; the total row labelled; each unit's
	 * decimals (ms: 3, iops: 1), whatever the value */
	assert_true(strncmp(out, "disk   type  count  iops  mb_s   min_ms  avg_ms  p50_ms  p90_ms  p99_ms  max_ms\n"
			    "253,0  R         1   0.5  0.002   1.500", 118) == 0);
	assert_int_equal(fx_count_lines(out, "253,0  W        10   5.3  0.022   1.000   5.500   5.000   9.000  10.000  10.000"), 1);
	assert_int_equal(fx_count_lines(out, "all             11"), 1);
	assert_has(out, "\n\ndisk = 253,0  type = R\n     usecs               : count     distribution\n");
	assert_has(out, "      1024 -> 2047       : 1        |****************************************|\n");
	assert_int_equal(fx_count_lines(out, "LATms"), 0);
	free(out);

	assert_int_equal(fx_run("iolat", db, &out, 5, csv_summary), 0);
	assert_true(strncmp(out, "type,count,iops,mb_s,min_ms,avg_ms,p50_ms,p90_ms,p99_ms,max_ms\nR,1,", 66) == 0);
	assert_has(out, "\nW,10,");
	assert_has(out, "\nall,11,"); /* the total row, labelled */
	free(out);

	/* -Q: the read was issued directly (no insert): not listed; -v says so */
	char *err, *queued[] = { "iolat", "-Q", "-v", NULL };
	assert_int_equal(run_err(db, &out, &err, 3, queued), 0);
	assert_int_equal(fx_count_lines(out, "task1000 "), 10);
	assert_int_equal(fx_count_lines(out, "     1.00     2.00"), 1); /* QUEms, LATms from insert */
	assert_int_equal(fx_count_lines(err, "note: 1 I/Os without an insert event"), 1);
	free(out);
	free(err);
	fx_close(db);
}

/* Combinations that cannot be honoured are refused with one line, nothing on stdout. */
static void test_refused(void **state)
{
	static const char *const bad[][5] = {
		{ "--csv", "--summary", "--hist" },
		{ "--csv", "--hist", "--interval", "1" },
		{ "--csv", "--json" },
		{ "--by", "comm" },                    /* groups nothing without --summary/--hist */
		{ "--by", "nothing", "--summary" },
		{ "--interval", "0" },
		{ "--interval", "0.0001" },
		{ "--interval", "x" },
		{ "--interval", "1e9" },
		{ "-i", "1" },                         /* the type glob: the interval is --interval */
		{ "-i", "" },
		{ "-D", "253" },
		{ "-D", "-1,0" },
		{ "-D", "4096,0" },
		{ "-p", "abc" },
		{ "extra" },
	};
	static const char *const why[] = {
		"CSV holds one table", "CSV holds one table", "--csv and --json exclude each other",
		"--by groups --summary and --hist", "bad --by 'nothing'", "bad --interval '0'",
		"bad --interval '0.0001' (seconds from 0.001 to 100000000)", "bad --interval 'x'", "bad --interval '1e9' (seconds from 0.001 to 100000000)",
		"bad -i '1': -i is the I/O type", "bad -i ''", "bad -D '253'", "bad -D '-1,0'", "bad -D '4096,0'",
		"bad -p 'abc'", "unexpected argument 'extra'",
	};
	sqlite3 *db = summary_db();

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[6] = { "iolat" }, *out, *err;
		int argc = 1;

		for (int j = 0; j < 5 && bad[i][j]; j++)
			argv[argc++] = (char *)bad[i][j];
		assert_int_equal(run_err(db, &out, &err, argc, argv), CMD_EXIT_ERROR);
		assert_string_equal(out, "");
		if (strncmp(err, "ftana report iolat: ", 20) || !strstr(err, why[i]) ||
		    strchr(err, '\n') != err + strlen(err) - 1)
			fail_msg("case %zu: '%s' is not one line saying '%s'", i, err, why[i]);
		free(out);
		free(err);
	}
	/* a slice of millions of intervals is refused before it is built */
	sqlite3_close(db);
	db = slice_db();
	char *fine[] = { "iolat", "--interval", "0.001", NULL }, *out, *err;
	fx_exec(db, "UPDATE meta SET value = '%lld' WHERE key = 'last_ts'", 10000 * S);
	assert_int_equal(run_err(db, &out, &err, 3, fine), CMD_EXIT_ERROR);
	assert_has(err, "ftana report iolat: --interval: 9999000 intervals in the 9999.000 s");
	free(out);
	free(err);
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
		cmocka_unit_test(test_slice_by_start_event),
		cmocka_unit_test(test_listing_contract),
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_summary_and_hist),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
