/* SPDX-License-Identifier: MIT */
/*
 * test_svg.c - the pictures on hand-made rows whose right answer is known by
 * construction: a flame graph's frame values and order (report stacks --svg), names
 * from a hostile capture (markup, entities, quotes, control bytes, invalid UTF-8,
 * XML-forbidden code points, a CDATA end, a 100,000-byte name) reaching the SVG only
 * escaped and the file staying well-formed XML, a heat map's cells (iolat --heatmap)
 * at column and log2-bucket boundaries, and the refused option combinations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "common/cmd.h"
#include "tests/report_func_fixture.h"

#define MS 1000000LL

/* Folded counts by construction: a;b 3, a;c 2, a 1 (an event stopped in a), d 1. */
static sqlite3 *stacks_db(const char *extra_symbol)
{
	sqlite3 *db = fx_open();

	fx_exec(db, "CREATE TABLE stacks(stack_id, depth, addr, symbol)");
	fx_exec(db, "CREATE TABLE lost_events(cpu, ts, count)");
	fx_exec(db, "CREATE TABLE ev(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id)");
	fx_exec(db, "INSERT INTO stacks VALUES (1, 0, 1, 'b+0x1/0x9'), (1, 1, 2, 'a'), "
		"(2, 0, 3, 'c'), (2, 1, 2, 'a'), (3, 0, 2, 'a'), (4, 0, 4, 'd')");
	fx_exec(db, "INSERT INTO ev VALUES (1, 10, 0, 5, 1), (2, 20, 0, 5, 1), (3, 30, 0, 5, 1), "
		"(4, 40, 0, 5, 2), (5, 50, 0, 5, 2), (6, 60, 0, 5, 3), (7, 70, 1, 5, 4)");
	if (extra_symbol) {
		sqlite3_stmt *st;

		assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO stacks VALUES (5, 0, 9, ?1), "
						    "(5, 1, 2, 'a')", -1, &st, NULL), SQLITE_OK);
		sqlite3_bind_blob(st, 1, extra_symbol, (int)strlen(extra_symbol), SQLITE_STATIC);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_finalize(st);
		/* a BLOB would print as text anyway: store it as TEXT, bytes unchanged */
		fx_exec(db, "UPDATE stacks SET symbol = CAST(symbol AS TEXT) WHERE stack_id = 5");
		fx_exec(db, "INSERT INTO ev VALUES (8, 80, 0, 5, 5)");
	}
	return db;
}

/* The data-v of the frame whose title starts with "NAME (". -1 if none. */
static long long frame_value(const char *svg, const char *name)
{
	char needle[256];

	snprintf(needle, sizeof(needle), "><title>%s (", name);
	const char *hit = strstr(svg, needle);
	if (!hit)
		return -1;
	const char *g = hit;
	while (g > svg && strncmp(g, "<g class=\"f\" data-v=\"", 21))
		g--;
	return strtoll(g + 21, NULL, 10);
}

static void test_flame_values(void **state)
{
	sqlite3 *db = stacks_db(NULL);
	char *out, *argv[] = { "stacks", "--svg", NULL };

	assert_int_equal(fx_run("stacks", db, &out, 2, argv), 0);
	assert_non_null(strstr(out, "data-total=\"7\" data-omitted=\"0\""));
	assert_int_equal(frame_value(out, "all"), 7);
	assert_int_equal(frame_value(out, "a"), 6); /* its own 1 and its callees' 5 */
	assert_int_equal(frame_value(out, "b"), 3);  /* +offset dropped, as the text does */
	assert_int_equal(frame_value(out, "c"), 2);
	assert_int_equal(frame_value(out, "d"), 1);
	assert_non_null(strstr(out, "<title>a (6 events, 85.71%)</title>"));
	/* callers' frames side by side in alphabetical order: a, then d */
	assert_true(strstr(out, "<title>a (") < strstr(out, "<title>d ("));
	assert_true(strstr(out, "<title>b (") < strstr(out, "<title>c ("));
	/* d is 1/7 of the 1180 px at x = 10 + 6/7 * 1180, one level (16 px) above the root
	 * (whose bottom is 142 - 34 px: 3 levels, 60 px of title above, 34 below) */
	assert_non_null(strstr(out, "<rect x=\"1021.43\" y=\"76\" width=\"168.57\""));
	free(out);

	/* a slice: seconds from the first event (10): events 3 (30) to 5 (50): b 1, c 2 */
	char *slice[] = { "stacks", "--svg", "--since", "+0.00000002", "--until", "+0.000000045", NULL };
	fx_exec(db, "INSERT INTO meta VALUES ('first_ts', '10'), ('last_ts', '70')");
	assert_int_equal(fx_run("stacks", db, &out, 6, slice), 0);
	assert_non_null(strstr(out, "data-total=\"3\""));
	assert_int_equal(frame_value(out, "b"), 1);
	assert_int_equal(frame_value(out, "c"), 2);
	assert_int_equal(frame_value(out, "d"), -1);
	free(out);

	/* frames narrower than --min-width are left out and counted as omitted */
	char *wide[] = { "stacks", "--svg", "--min-width", "340", NULL }; /* c: 337 px */
	assert_int_equal(fx_run("stacks", db, &out, 4, wide), 0);
	assert_non_null(strstr(out, "data-total=\"7\" data-omitted=\"3\""));  /* c 2 and d 1 */
	assert_int_equal(frame_value(out, "c"), -1);
	assert_int_equal(frame_value(out, "b"), 3);
	free(out);
	fx_close(db);
}

/* Is the text valid UTF-8 with only the control characters XML allows, and no
 * U+FFFE/U+FFFF? */
static bool xml_chars_ok(const unsigned char *s)
{
	while (*s) {
		if (*s < 0x20 && *s != '\n' && *s != '\t')
			return false;
		if (*s == 0x7f)
			return false;
		if (*s < 0x80) {
			s++;
			continue;
		}
		int n = *s >= 0xf0 ? 4 : *s >= 0xe0 ? 3 : *s >= 0xc2 ? 2 : 0;
		if (!n)
			return false;
		for (int i = 1; i < n; i++)
			if ((s[i] & 0xc0) != 0x80)
				return false;
		if (n == 3 && s[0] == 0xef && s[1] == 0xbf && (s[2] == 0xbe || s[2] == 0xbf))
			return false;
		s += n;
	}
	return true;
}

static int count(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* python3's XML parser on the text: 0 parsed, 1 not, 77 no python3. */
static int xml_parses(const char *svg)
{
	char path[] = "/tmp/test_svg_XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, svg, strlen(svg)), (ssize_t)strlen(svg));
	close(fd);
	char *cmd;
	assert_true(asprintf(&cmd, "command -v python3 >/dev/null || exit 77; python3 -c "
			     "'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' %s", path) > 0);
	int rc = system(cmd);
	free(cmd);
	unlink(path);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : 1;
}

static void test_hostile_names(void **state)
{
	static const char *const names[] = {
		"<script>alert(1)</script>", "x&y&lt", "q\"u'o", "]]>", "\x1b[2J\x07", "\x01\x7f",
		"\xff\xfe bad", "\xef\xbf\xbe forbidden", "\xed\xa0\x80 surrogate",
	};
	char *long_name = malloc(100001);

	assert_non_null(long_name);
	memset(long_name, 'x', 100000);
	long_name[100000] = 0;
	for (size_t i = 0; i <= sizeof(names) / sizeof(names[0]); i++) {
		const char *name = i < sizeof(names) / sizeof(names[0]) ? names[i] : long_name;
		sqlite3 *db = stacks_db(name);
		char *out, *argv[] = { "stacks", "--svg", "--min-width", "0", NULL };

		assert_int_equal(fx_run("stacks", db, &out, 4, argv), 0);
		assert_true(xml_chars_ok((const unsigned char *)out));
		/* the markup we write, and none of the name's */
		assert_int_equal(count(out, "<script"), 1);
		assert_int_equal(count(out, "]]>"), 2); /* the ends of our style and script */
		if (count(out, "<title>") != 6) /* all, a-d, the name */
			fail_msg("name %zu: %d titles", i, count(out, "<title>"));
		assert_non_null(strstr(out, "data-total=\"8\""));
		int parsed = xml_parses(out);
		if (parsed != 77)
			assert_int_equal(parsed, 0);
		free(out);
		fx_close(db);
	}
	/* what the names became: as `report stacks` prints them, then XML's entities */
	sqlite3 *db = stacks_db(names[0]);
	char *out, *argv[] = { "stacks", "--svg", NULL };
	assert_int_equal(fx_run("stacks", db, &out, 2, argv), 0);
	assert_non_null(strstr(out, "<title>&lt;script&gt;alert(1)&lt;/script&gt; (1 events"));
	free(out);
	fx_close(db);
	db = stacks_db(names[2]);
	assert_int_equal(fx_run("stacks", db, &out, 2, argv), 0);
	assert_non_null(strstr(out, "<title>q&quot;u&apos;o (1 events"));
	free(out);
	fx_close(db);
	db = stacks_db(names[4]);
	assert_int_equal(fx_run("stacks", db, &out, 2, argv), 0);
	assert_non_null(strstr(out, "<title>\\x1b[2J\\x07 (1 events"));
	free(out);
	fx_close(db);
	db = stacks_db(names[7]);
	assert_int_equal(fx_run("stacks", db, &out, 2, argv), 0);
	assert_non_null(strstr(out, "<title>\\xef\\xbf\\xbe forbidden (1 events"));
	free(out);
	fx_close(db);
	/* the long name: its title cut at 4096 characters, its label at the frame's width */
	db = stacks_db(long_name);
	assert_int_equal(fx_run("stacks", db, &out, 2, argv), 0);
	char *title = strstr(out, "<title>xxxx");
	assert_non_null(title);
	assert_int_equal(strspn(title + 7, "x"), 4094);
	assert_int_equal(strncmp(title + 7 + 4094, ".. (1 events", 12), 0);
	assert_true(strlen(out) < 30000);
	free(out);
	fx_close(db);
	free(long_name);
}

/* Block I/O rows: issue at ts, completion at ts + lat, one sector each. */
static sqlite3 *block_db(void)
{
	sqlite3 *db = fx_open();

	fx_exec(db, "CREATE TABLE block_rq_issue(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
		"dev, sector, nr_sector, bytes, ioprio, rwbs, comm, cmd)");
	fx_exec(db, "CREATE TABLE block_rq_complete(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
		"dev, sector, nr_sector, error, ioprio, rwbs, cmd)");
	fx_exec(db, "CREATE TABLE lost_events(cpu, ts, count)");
	fx_exec(db, "INSERT INTO meta VALUES ('first_ts', '0'), ('last_ts', '%lld')", 10 * MS);
	return db;
}

static void io(sqlite3 *db, int64_t ts, int64_t lat_ns)
{
	static int id, sector;
	int64_t s = ++sector;

	fx_exec(db, "INSERT INTO block_rq_issue VALUES (%d, %lld, 0, 7, NULL, 1048576, %lld, 1, 512, 0, "
		"'R', 'dd', '')", ++id, (long long)ts, (long long)s);
	fx_exec(db, "INSERT INTO block_rq_complete VALUES (%d, %lld, 0, 0, NULL, 1048576, %lld, 1, 0, "
		"0, 'R', '')", ++id, (long long)(ts + lat_ns), (long long)s);
}

/* The count of the cell at column col (x = 90 + col * w) and bucket row (from the
 * top, y = 110 + row * 18); 0 when the cell is not drawn. */
static long long cell(const char *svg, double w, int col, int row)
{
	for (const char *p = svg; (p = strstr(p, "<rect class=\"c\" data-n=\"")); p++) {
		long long n;
		double x;
		int y;

		if (sscanf(p, "<rect class=\"c\" data-n=\"%lld\" x=\"%lf\" y=\"%d\"", &n, &x, &y) == 3 &&
		    (int)((x - 90) / w + 0.5) == col && y == 110 + row * 18)
			return n;
	}
	return 0;
}

static void test_heatmap_cells(void **state)
{
	sqlite3 *db = block_db();
	char *out, *err;

	/* buckets: 0-1 us (0), 2-3 us (1), 512-1023 us (9), 1024-2047 us (10) */
	io(db, 0, 1999);           /* col 0, bucket 0 */
	io(db, MS - 1, 2000);      /* col 0, bucket 1: the last ns of column 0 */
	io(db, MS, 1023999);       /* col 1, bucket 9 */
	io(db, 2 * MS, 1024000);   /* col 2, bucket 10 */
	io(db, 2 * MS + 5, 2047999); /* col 2, bucket 10 */
	char *argv[] = { "iolat", "--heatmap", "--col", "0.001", NULL };

	assert_int_equal(fx_run_io("iolat", db, &out, &err, 4, argv), 0);
	assert_string_equal(err, "");
	/* 0 .. 10 ms in 1 ms columns: 11 columns of 960/11 px; rows 10 (top) .. 0 */
	assert_non_null(strstr(out, "data-total=\"5\" data-columns=\"11\" data-col-ns=\"1000000\""));
	double w = 960.0 / 11;
	assert_int_equal(cell(out, w, 0, 10), 1);
	assert_int_equal(cell(out, w, 0, 9), 1);
	assert_int_equal(cell(out, w, 1, 1), 1);
	assert_int_equal(cell(out, w, 2, 0), 2);
	assert_int_equal(count(out, "<rect class=\"c\""), 4);
	/* the column totals: 2, 1, 2 */
	assert_int_equal(count(out, "<rect class=\"t\""), 3);
	assert_non_null(strstr(out, "<rect class=\"t\" data-n=\"1\" x=\"177.27\" y=\"84.00\" "
			       "width=\"87.27\" height=\"20.00\""));
	assert_non_null(strstr(out, "<title>0.002000 - 0.003000 s, 1024 - 2047 us: 2 I/Os</title>"));
	assert_int_equal(xml_chars_ok((const unsigned char *)out), true);
	free(out);
	free(err);

	/* the slice: --since 1 ms leaves 3 I/Os, the columns start there */
	char *slice[] = { "iolat", "--heatmap", "--col", "0.001", "--since", "0.001", NULL };
	assert_int_equal(fx_run("iolat", db, &out, 6, slice), 0);
	assert_non_null(strstr(out, "data-total=\"3\" data-columns=\"10\""));
	assert_int_equal(cell(out, 960.0 / 10, 1, 0), 2);
	free(out);

	/* no I/O in the slice: an empty picture and a warning */
	char *empty[] = { "iolat", "--heatmap", "--since", "0.0095", NULL };
	assert_int_equal(fx_run_io("iolat", db, &out, &err, 4, empty), 0);
	assert_non_null(strstr(out, "data-total=\"0\""));
	assert_non_null(strstr(err, "warning: no I/Os in this slice"));
	free(out);
	free(err);
	fx_close(db);
}

/* One line on stderr, exit 1, nothing on stdout. */
static void refused(const char *name, sqlite3 *db, int argc, char **argv, const char *what)
{
	char *out, *err;

	assert_int_equal(fx_run_io(name, db, &out, &err, argc, argv), CMD_EXIT_ERROR);
	assert_string_equal(out, "");
	assert_int_equal(count(err, "\n"), 1);
	if (!strstr(err, what))
		fail_msg("'%s' not in: %s", what, err);
	free(out);
	free(err);
}

static void test_refusals(void **state)
{
	sqlite3 *db = stacks_db(NULL);
	char *a[] = { "stacks", "--svg", "--json", NULL };
	char *b[] = { "stacks", "-o", "x.svg", NULL };
	char *c[] = { "stacks", "--svg", "--folded", NULL };
	char *d[] = { "stacks", "--svg", "--min-width", "-1", NULL };
	char *e[] = { "stacks", "--min-width", "1", NULL };
	char *f[] = { "stacks", "--svg", "-o", "/", NULL };

	refused("stacks", db, 3, a, "--svg is a picture");
	refused("stacks", db, 3, b, "-o writes the flame graph: give --svg");
	refused("stacks", db, 3, c, "--svg and --folded are different views");
	refused("stacks", db, 4, d, "bad --min-width '-1'");
	refused("stacks", db, 3, e, "give --svg");
	refused("stacks", db, 4, f, "is a directory");
	fx_close(db);

	db = block_db();
	io(db, 0, 1000);
	char *g[] = { "iolat", "--heatmap", "--hist", NULL };
	char *h[] = { "iolat", "--heatmap", "--col", "0", NULL };
	char *i[] = { "iolat", "--col", "1", NULL };
	char *j[] = { "iolat", "--heatmap", "--col", "0.000001", NULL }; /* 10001 columns */
	char *k[] = { "iolat", "--heatmap", "--csv", NULL };
	char *l[] = { "iolat", "--heatmap", "-o", "/nonexistent-dir/x.svg", NULL };

	refused("iolat", db, 3, g, "--heatmap and --hist are different views");
	refused("iolat", db, 4, h, "bad --col '0'");
	refused("iolat", db, 3, i, "--col shapes the heat map: give --heatmap");
	refused("iolat", db, 4, j, "at most 5000");
	refused("iolat", db, 3, k, "--heatmap is a picture");
	refused("iolat", db, 4, l, "cannot write /nonexistent-dir/x.svg: No such file or directory");
	fx_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flame_values),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_heatmap_cells),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
