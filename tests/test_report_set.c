// SPDX-License-Identifier: MIT
/*
 * test_report_set.c - `ftana report`, `info` and `sql` on the files of one --rotate
 * series given together (reports/report_front.c's FILE..., report_open_inputs): the
 * same rows as on the database `ftana db A B C -o X.db` built, each file's losses
 * in the reports' one-line loss warning (text and JSON), a missing or foreign file
 * refused in one line naming it, -o never onto any file of the series.
 * The series is synthetic (tests/capture_builder.h): 3 files of 100 numbered
 * records each, files 1, 2 and 3 flagged with a loss of 5, 100 and 20 events; and a
 * disk ring of 3 kept segments, losses in 2 of them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "analyze/commands.h"
#include "common/cmd.h"
#include "tests/capture_series.h"
#include "tests/report_func_fixture.h"

#define BASE_INFO CS_BASE_INFO "hostname=h1\nboot_id=b1\n"

static char dir[64];
static char path[8][300];

/* A file of capture ID with INFO keys EXTRA, the formats when META, records
 * FIRST..FIRST+N-1, a loss of LOST before record FIRST+N/2, END when END. */
static void write_file(const char *name, const char *id, const char *extra, bool meta,
		       unsigned first, unsigned n, uint64_t lost, bool end)
{
	char p[300], *info;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	assert_true(asprintf(&info, BASE_INFO "capture_id=%s\n%s", id, extra) > 0);
	cs_write_file(p, info, meta, first, n, lost, end);
	free(info);
}

/* File INDEX of series ID: records FIRST..FIRST+99, a loss of LOST before record FIRST+50. */
static void series_file(const char *name, const char *id, unsigned index, unsigned first,
			uint64_t lost)
{
	char extra[64];

	snprintf(extra, sizeof(extra), "series_prefix=s-\nseries_index=%u\n", index);
	write_file(name, id, extra, true, first, 100, lost, true);
}

#define RING_KEYS "ring_size=1048576\nring_segment_size=131072\nring_prefix=r.ring-\n"

/* Segment NO of ring r.ftz: records FIRST..FIRST+99, a loss of LOST; no END (as ftrec). */
static void ring_segment(unsigned no, unsigned first, uint64_t lost)
{
	char name[64], extra[256];

	snprintf(name, sizeof(name), "r.ring-%06u.ftz", no);
	snprintf(extra, sizeof(extra), RING_KEYS "ring_segment=%u\nring_before_pages=%u\n"
		 "ring_before_events=%u\nring_before_bytes=%u\n", no, first / 100, first, first * 10);
	write_file(name, "ring1", extra, false, first, 100, lost, false);
}

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test_report_set.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	setenv("XDG_CACHE_HOME", dir, 1);
	series_file("s-0001.ftz", "cap1", 1, 0, 5);
	series_file("s-0002.ftz", "cap1", 2, 100, 100);
	series_file("s-0003.ftz", "cap1", 3, 200, 20);
	series_file("other-0003.ftz", "cap2", 3, 200, 0); /* another recording's file 3 */
	for (int i = 0; i < 3; i++)
		snprintf(path[i], sizeof(path[i]), "%s/s-%04d.ftz", dir, i + 1);
	snprintf(path[3], sizeof(path[3]), "%s/joined.db", dir);
	snprintf(path[4], sizeof(path[4]), "%s/other-0003.ftz", dir);
	snprintf(path[5], sizeof(path[5]), "%s/typo.ftz", dir);
	/* a disk ring: segments 1-2 trimmed, 3-5 kept, losses in 3 and 5 */
	write_file("r.ftz", "ring1", RING_KEYS, true, 0, 0, 0, true);
	ring_segment(3, 200, 7);
	ring_segment(4, 300, 0);
	ring_segment(5, 400, 9);
	snprintf(path[6], sizeof(path[6]), "%s/r.ftz", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

/* Run an ftana command (argv[0] its name) with stdout and stderr captured. */
static int run(int (*cmd)(int, char **), char **out, char **err, int argc, const char **argv)
{
	struct fx_capture o, e;

	fx_capture_begin(&o, STDOUT_FILENO);
	fx_capture_begin(&e, STDERR_FILENO);
	int rc = cmd(argc, (char **)argv);
	*err = fx_capture_end(&e);
	*out = fx_capture_end(&o);
	return rc;
}

static int report(char **out, char **err, int argc, const char **argv)
{
	return run(cmd_report, out, err, argc, argv);
}

/* One line on stderr, naming WHAT. */
static void one_line(const char *err, const char *what)
{
	if (!strstr(err, what) || strchr(err, '\n') != err + strlen(err) - 1)
		fail_msg("expected one line naming '%s', got '%s'", what, err);
}

/* The joined database, as `ftana db A B C -o X.db` builds it: the ground the series' runs match. */
static void build_db(void)
{
	char *out, *err;
	const char *argv[] = { "db", path[0], path[1], path[2], "-o", path[3] };

	if (access(path[3], F_OK) == 0)
		return;
	assert_int_equal(run(cmd_db, &out, &err, 6, argv), CMD_EXIT_OK);
	free(out);
	free(err);
}

static void test_sql_same_rows(void **state)
{
	const char *q = "SELECT count(*), min(seq), max(seq), sum(seq) FROM seq_event; "
			"SELECT cpu, ts, count FROM lost_events ORDER BY ts";
	const char *series[] = { "sql", "--csv", path[0], path[1], path[2], q };
	const char *db[] = { "sql", "--csv", path[3], q };
	char *out, *err, *want, *err2;

	(void)state;
	build_db();
	assert_int_equal(run(cmd_sql, &out, &err, 6, series), CMD_EXIT_OK);
	assert_int_equal(run(cmd_sql, &want, &err2, 4, db), CMD_EXIT_OK);
	/* ground truth: the test wrote records 0..299 and the two losses */
	assert_non_null(strstr(want, "300,0,299,44850"));
	assert_non_null(strstr(want, ",100\n"));
	assert_non_null(strstr(want, ",20\n"));
	assert_string_equal(out, want);
	free(out), free(err), free(want), free(err2);
	/* one file and the SQL: as before */
	const char *one[] = { "sql", path[0], "SELECT count(*) AS n FROM seq_event", "--csv" };
	assert_int_equal(run(cmd_sql, &out, &err, 4, one), CMD_EXIT_OK);
	assert_string_equal(out, "n\n100\n");
	free(out), free(err);
}

static void test_info_same(void **state)
{
	const char *series[] = { "info", path[0], path[1], path[2] };
	const char *db[] = { "info", path[3] };
	char *out, *err, *want, *err2;

	(void)state;
	build_db();
	assert_int_equal(run(cmd_info, &out, &err, 4, series), CMD_EXIT_OK);
	assert_int_equal(run(cmd_info, &want, &err2, 2, db), CMD_EXIT_OK);
	assert_string_equal(out, want);
	/* each file's losses */
	assert_non_null(strstr(out, "s-0002.ftz"));
	assert_non_null(strstr(out, "s-0003.ftz"));
	free(out), free(err), free(want), free(err2);
}

static void test_report_same_rows(void **state)
{
	const char *series[] = { "report", "tpoint", "--csv", path[0], path[1], path[2] };
	const char *summary[] = { "report", "summary", path[0], path[1], path[2] };
	const char *summary_db[] = { "report", "summary", path[3] };
	char *out, *err, *want, *err2;

	(void)state;
	build_db();
	/* tpoint re-decodes one file: a series is refused in one line */
	assert_int_equal(report(&out, &err, 6, series), CMD_EXIT_ERROR);
	one_line(err, "ftana report tpoint: it re-decodes one file");
	free(out), free(err);
	assert_int_equal(report(&out, &err, 5, summary), CMD_EXIT_OK);
	assert_int_equal(report(&want, &err2, 3, summary_db), CMD_EXIT_OK);
	assert_string_equal(out, want);
	assert_string_equal(err, err2);
	free(out), free(err), free(want), free(err2);
}

static void test_loss_warning_per_file(void **state)
{
	const char *text[] = { "report", "summary", path[0], path[1], path[2] };
	const char *json[] = { "report", "summary", "--json", path[0], path[1], path[2] };
	const char *part[] = { "report", "summary", "--since", "0.0001", path[0], path[1], path[2] };
	const char *late[] = { "report", "summary", "--since", "0.0002", path[0], path[1], path[2] };
	const char *want = "lost 125 events (5 in s-0001.ftz, 100 in s-0002.ftz, 20 in s-0003.ftz)";
	char *out, *err;

	(void)state;
	assert_int_equal(report(&out, &err, 5, text), CMD_EXIT_OK);
	one_line(err, want);
	free(out), free(err);
	assert_int_equal(report(&out, &err, 6, json), CMD_EXIT_OK);
	one_line(err, want);
	/* one entry in "warnings", the same text */
	assert_non_null(strstr(out, "\"warnings\":[\"the capture lost 125 events (5 in s-0001.ftz, "));
	assert_null(strstr(strstr(out, "\"warnings\":["), "\",\""));
	assert_non_null(strstr(out, "\"files\":["));
	assert_non_null(strstr(out, "s-0003.ftz\"],"));
	free(out), free(err);
	/* from 0.1 ms after the first event on (record 100): files 2 and 3's losses, by time */
	assert_int_equal(report(&out, &err, 7, part), CMD_EXIT_OK);
	one_line(err, "lost 120 events (100 in s-0002.ftz, 20 in s-0003.ftz) in this report's time range");
	free(out), free(err);
	/* file 2 left out: a gap, named in the same line as the other files' losses */
	const char *gap[] = { "report", "summary", path[0], path[2] };
	assert_int_equal(report(&out, &err, 4, gap), CMD_EXIT_OK);
	one_line(err, "files 2 of this capture (a ring's segments or a series' files) are missing");
	one_line(err, "; the capture lost 25 events (5 in s-0001.ftz, 20 in s-0003.ftz)");
	free(out), free(err);
	/* from 0.2 ms on (record 200) only file 3's loss is in range: no per-file list */
	assert_int_equal(report(&out, &err, 7, late), CMD_EXIT_OK);
	one_line(err, "lost 20 events in this report's time range");
	assert_null(strstr(err, "s-0003.ftz"));
	free(out), free(err);
}

/* A ring's head brings its segments: the warning names the segments with losses. */
static void test_ring_loss_warning(void **state)
{
	const char *argv[] = { "report", "summary", "--json", path[6] };
	const char *q[] = { "sql", "--csv", path[6], "SELECT count(*), min(seq), max(seq) FROM seq_event" };
	char *out, *err;

	(void)state;
	assert_int_equal(run(cmd_sql, &out, &err, 4, q), CMD_EXIT_OK);
	assert_non_null(strstr(out, "\n300,200,499\n"));
	free(out), free(err);
	assert_int_equal(report(&out, &err, 4, argv), CMD_EXIT_OK);
	one_line(err, "lost 16 events (7 in r.ring-000003.ftz, 9 in r.ring-000005.ftz)");
	assert_non_null(strstr(out, "lost 16 events (7 in r.ring-000003.ftz, 9 in r.ring-000005.ftz)"));
	assert_null(strstr(out, "\"files\"")); /* one FILE given */
	free(out), free(err);
}

static void test_refusals(void **state)
{
	const char *typo[] = { "report", "summary", path[0], path[1], path[5] };
	const char *junk[] = { "report", "summary", path[0], "-v", "extra" };
	const char *foreign[] = { "report", "summary", path[0], path[1], path[4] };
	const char *info_typo[] = { "info", path[0], path[5] };
	const char *sql_typo[] = { "sql", path[0], path[5], "SELECT 1" };
	char *out, *err;

	(void)state;
	assert_int_equal(report(&out, &err, 5, typo), CMD_EXIT_ERROR);
	one_line(err, "typo.ftz: No such file or directory");
	assert_string_equal(out, "");
	free(out), free(err);
	assert_int_equal(report(&out, &err, 5, junk), CMD_EXIT_ERROR);
	one_line(err, "extra: No such file or directory");
	free(out), free(err);
	assert_int_equal(report(&out, &err, 5, foreign), CMD_EXIT_ERROR);
	one_line(err, "capture_id differs");
	free(out), free(err);
	assert_int_equal(run(cmd_info, &out, &err, 3, info_typo), CMD_EXIT_ERROR);
	one_line(err, "typo.ftz: No such file or directory");
	free(out), free(err);
	assert_int_equal(run(cmd_sql, &out, &err, 4, sql_typo), CMD_EXIT_ERROR);
	one_line(err, "typo.ftz: No such file or directory");
	free(out), free(err);
	/* an argument after the SQL: the SQL taken for a file is named, with the syntax */
	const char *sql_extra[] = { "sql", path[0], "SELECT 1", "extra" };
	assert_int_equal(run(cmd_sql, &out, &err, 4, sql_extra), CMD_EXIT_ERROR);
	one_line(err, "SELECT 1: No such file or directory (FILE... come first");
	assert_string_equal(out, "");
	free(out), free(err);
	const char *info_foreign[] = { "info", path[0], path[1], path[4] };
	assert_int_equal(run(cmd_info, &out, &err, 4, info_foreign), CMD_EXIT_ERROR);
	one_line(err, "capture_id differs");
	free(out), free(err);
}

/* -o of a picture never over any file of the series. */
static void test_out_onto_input(void **state)
{
	(void)state;
	for (int i = 0; i < 3; i++) {
		char before[64], *out, *err;
		struct stat st;
		const char *argv[] = { "report", "stacks", "--svg", "-o", path[i],
				       path[0], path[1], path[2] };

		assert_int_equal(stat(path[i], &st), 0);
		snprintf(before, sizeof(before), "%lld", (long long)st.st_size);
		assert_int_equal(report(&out, &err, 8, argv), CMD_EXIT_ERROR);
		one_line(err, "that is the input");
		assert_int_equal(stat(path[i], &st), 0);
		assert_int_equal(st.st_size, atoll(before));
		free(out), free(err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sql_same_rows),
		cmocka_unit_test(test_info_same),
		cmocka_unit_test(test_report_same_rows),
		cmocka_unit_test(test_loss_warning_per_file),
		cmocka_unit_test(test_ring_loss_warning),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_out_onto_input),
	};

	(void)cb_open, (void)cb_close; /* the builder's, unused: write_file writes its own INFO and END */
	return cmocka_run_group_tests(tests, setup, teardown);
}
