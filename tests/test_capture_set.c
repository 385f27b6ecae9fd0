// SPDX-License-Identifier: MIT
/*
 * test_capture_set.c - a disk ring (ftrec --ring) and a --rotate series read as
 * one capture (decode/capture_set.c, decode/decode_set.c), on synthetic files
 * whose events are numbered by this test: record i carries i in its payload, so
 * what comes out is checked against what was written, not against the decoder.
 * Joins that must work (any argument order, the same file twice, a missing
 * file reported as a gap, a segment cut at its end read up to the cut) and
 * joins that must be refused in one line naming the file (another capture,
 * another boot, two files claiming one place, a plain capture, a segment alone,
 * a renamed segment, a symlinked segment, a ring_prefix that is a path).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "decode/decode.h"
#include "import/import.h"
#include "reports/lost.h"
#include "tests/capture_series.h"
#include "tests/report_func_fixture.h"

#define EV_TYPE CS_EVENT_TYPE
#define BASE_INFO CS_BASE_INFO

static char dir[64];

/* A file with INFO text INFO, the formats when META, records FIRST..FIRST+N-1, END when END. */
static void write_capture(const char *name, const char *info, bool meta, unsigned first,
			  unsigned n, bool end)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	cs_write_file(path, info, meta, first, n, 0, end);
}

static char *info_of(const char *id, const char *extra)
{
	char *s;

	assert_true(asprintf(&s, BASE_INFO "hostname=h1\nboot_id=b1\ncapture_id=%s\n%s", id, extra) > 0);
	return s;
}

static void series_file(const char *name, const char *id, unsigned index, unsigned first, unsigned n)
{
	char extra[64];
	char *info;

	snprintf(extra, sizeof(extra), "series_prefix=s-\nseries_index=%u\n", index);
	info = info_of(id, extra);
	write_capture(name, info, true, first, n, true);
	free(info);
}

#define RING_HEAD_KEYS "ring_size=1048576\nring_segment_size=131072\nring_prefix=r.ring-\n"

static void ring_head(const char *name, const char *keys)
{
	char *info = info_of("ring1", keys);

	write_capture(name, info, true, 0, 0, true);
	free(info);
}

static void ring_segment(const char *name, unsigned no, unsigned first, unsigned n)
{
	char extra[256];
	char *info;

	/* before: everything written before this segment, as ftrec counts it */
	snprintf(extra, sizeof(extra), RING_HEAD_KEYS "ring_segment=%u\nring_before_pages=%u\n"
		 "ring_before_events=%u\nring_before_bytes=%u\n", no, first / 100, first, first * 10);
	info = info_of("ring1", extra);
	write_capture(name, info, false, first, n, false);
	free(info);
}

struct got {
	unsigned n, first, last;
	bool in_order;
};

/* Open PATHS as one capture and read every event's number. */
static struct dec *read_set(const char **names, size_t n, struct got *g)
{
	char paths[8][256];
	const char *p[8];
	struct dec *d;
	struct dec_event ev;

	for (size_t i = 0; i < n; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir, names[i]);
		p[i] = paths[i];
	}
	d = dec_open_set(p, n);
	memset(g, 0, sizeof(*g));
	g->in_order = true;
	while (d && dec_next(d, &ev) > 0) {
		unsigned v;

		assert_int_equal(ev.type_id, EV_TYPE);
		memcpy(&v, (const uint8_t *)ev.record->data + 8, 4);
		if (g->n && v != g->last + 1)
			g->in_order = false;
		if (!g->n)
			g->first = v;
		g->last = v;
		g->n++;
	}
	return d;
}

static void kv_is(struct dec *d, const char *key, const char *want)
{
	char v[256] = "(absent)";
	const char *t = dec_end_text(d);

	ftz_kv_get(t, strlen(t), key, v, sizeof(v));
	assert_string_equal(v, want);
}

static void refused(const char **names, size_t n, const char *pattern)
{
	struct fx_capture e;
	struct got g;
	struct dec *d;
	char *err;

	fx_capture_begin(&e, STDERR_FILENO);
	d = read_set(names, n, &g);
	err = fx_capture_end(&e);
	if (d)
		fail_msg("opened, expected a refusal with '%s'", pattern);
	if (!strstr(err, pattern))
		fail_msg("error '%s' does not say '%s'", err, pattern);
	/* one line */
	assert_ptr_equal(strchr(err, '\n'), err + strlen(err) - 1);
	free(err);
}

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test_capture_set.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	series_file("s-0001.ftz", "cap1", 1, 0, 300);
	series_file("s-0002.ftz", "cap1", 2, 300, 250);
	series_file("s-0003.ftz", "cap1", 3, 550, 200);
	series_file("other-0002.ftz", "cap2", 2, 300, 250);       /* another recording */
	series_file("twin-0002.ftz", "cap1", 2, 300, 10);         /* claims file 2 too */
	char *info = info_of("cap1", "");
	write_capture("plain.ftz", info, true, 0, 10, true);       /* not a series file */
	free(info);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void test_series_join(void **state)
{
	const char *names[] = { "s-0003.ftz", "s-0001.ftz", "s-0002.ftz", "s-0001.ftz" };
	struct got g;
	struct dec *d = read_set(names, 4, &g);

	(void)state;
	assert_non_null(d);
	/* given out of order and file 1 twice: every event once, in order */
	assert_int_equal(g.n, 750);
	assert_int_equal(g.first, 0);
	assert_int_equal(g.last, 749);
	assert_true(g.in_order);
	kv_is(d, "segments", "3");
	kv_is(d, "segment_gaps", "");
	kv_is(d, "stop_reason", "builder");
	assert_false(dec_damage(d, NULL, NULL));
	dec_close(d);
}

static void test_series_gap(void **state)
{
	const char *names[] = { "s-0001.ftz", "s-0003.ftz" };
	struct got g;
	struct dec *d = read_set(names, 2, &g);

	(void)state;
	assert_non_null(d);
	assert_int_equal(g.n, 500);
	kv_is(d, "segment_gaps", "2");
	dec_close(d);
	/* the first file missing is a gap too */
	const char *late[] = { "s-0002.ftz", "s-0003.ftz" };
	d = read_set(late, 2, &g);
	assert_non_null(d);
	kv_is(d, "segment_gaps", "1");
	dec_close(d);
}

static void test_series_refused(void **state)
{
	(void)state;
	refused((const char *[]){ "s-0001.ftz", "other-0002.ftz" }, 2, "capture_id differs");
	refused((const char *[]){ "s-0001.ftz", "s-0002.ftz", "twin-0002.ftz" }, 3, "file 2 of the series");
	refused((const char *[]){ "s-0001.ftz", "plain.ftz" }, 2, "plain.ftz: not a file of an ftrec --rotate series");
	refused((const char *[]){ "s-0001.ftz", "nonexistent.ftz" }, 2, "nonexistent.ftz: No such file");
	char *info = info_of("cap1", "series_prefix=s-\nseries_index=4\n");
	char *other_boot = strstr(info, "boot_id=b1");
	other_boot[9] = '2';
	write_capture("boot-0004.ftz", info, true, 750, 10, true);
	free(info);
	refused((const char *[]){ "s-0001.ftz", "boot-0004.ftz" }, 2, "boot_id differs");
	info = info_of("cap1", "series_prefix=s-\nseries_index=0\n"); /* ftrec counts from 1 */
	write_capture("zero-0000.ftz", info, true, 0, 10, true);
	free(info);
	refused((const char *[]){ "zero-0000.ftz", "s-0001.ftz" }, 2, "zero-0000.ftz: not a file of an ftrec --rotate series");
}

static void test_ring(void **state)
{
	struct got g;
	struct dec *d;
	const char *head[] = { "r.ftz" };

	(void)state;
	ring_head("r.ftz", RING_HEAD_KEYS);
	/* segments 1-2 were trimmed by the ring; 3, 4, 5 are kept */
	ring_segment("r.ring-000003.ftz", 3, 400, 200);
	ring_segment("r.ring-000004.ftz", 4, 600, 200);
	ring_segment("r.ring-000005.ftz", 5, 800, 50);
	d = read_set(head, 1, &g);
	if (!d)
		fail_msg("the ring was refused (the error is on stderr)");
	assert_int_equal(g.n, 450);
	assert_int_equal(g.first, 400);
	assert_int_equal(g.last, 849);
	assert_true(g.in_order);
	kv_is(d, "segments", "3");
	kv_is(d, "ring_trimmed_segments", "2");
	kv_is(d, "ring_trimmed_events", "400");
	kv_is(d, "segment_gaps", "");
	kv_is(d, "segment_stats_2", "r.ring-000004.ftz events 200 first_ts 1601000 last_ts 1800000 lost_pages 0 lost_events 0");
	dec_close(d);

	/* a segment missing in the middle is a gap, not a trim */
	char p[256], q[256];
	snprintf(p, sizeof(p), "%s/r.ring-000004.ftz", dir);
	snprintf(q, sizeof(q), "%s/r.ring-000004.ftz.away", dir);
	assert_int_equal(rename(p, q), 0);
	d = read_set(head, 1, &g);
	assert_non_null(d);
	assert_int_equal(g.n, 250);
	kv_is(d, "segment_gaps", "4");
	dec_close(d);
	/* ... and every report's loss warning says so, in one line */
	char db_path[256], *text = NULL;
	size_t len = 0;
	struct import_result res;
	sqlite3 *db;
	snprintf(db_path, sizeof(db_path), "%s/r.db", dir);
	snprintf(p, sizeof(p), "%s/r.ftz", dir);
	assert_int_equal(import_ftz(p, db_path, false, &res), 0);
	assert_int_equal(res.events, 250);
	assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
	FILE *mem = open_memstream(&text, &len);
	assert_int_equal(lost_describe(db, "SELECT min(ts), max(ts) FROM events", 0, INT64_MAX, mem), 0);
	fclose(mem);
	sqlite3_close(db);
	unlink(db_path);
	/* one line (the message path adds the prefix and the newline) */
	assert_ptr_equal(strstr(text, "files 4 of this capture"), text);
	assert_null(strchr(text, '\n'));
	free(text);
	snprintf(p, sizeof(p), "%s/r.ring-000004.ftz", dir);
	assert_int_equal(rename(q, p), 0);

	/* cut inside the newest segment's last section: damage there, the rest read */
	snprintf(p, sizeof(p), "%s/r.ring-000005.ftz", dir);
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(truncate(p, st.st_size - 5), 0);
	d = read_set(head, 1, &g);
	assert_non_null(d);
	assert_int_equal(g.n, 400);
	const char *why = NULL;
	assert_true(dec_damage(d, NULL, &why));
	assert_non_null(strstr(why, "r.ring-000005.ftz"));
	dec_close(d);
	unlink(p);
}

static void test_ring_refused(void **state)
{
	char p[256], q[256];
	const char *head[] = { "r2.ftz" };

	(void)state;
	ring_head("r2.ftz", "ring_size=1048576\nring_segment_size=131072\nring_prefix=r2.ring-\n");
	ring_segment("r2.ring-000001.ftz", 1, 0, 10); /* says r.ring- inside: fine, the number counts */
	/* a segment renamed to another number */
	snprintf(p, sizeof(p), "%s/r2.ring-000001.ftz", dir);
	snprintf(q, sizeof(q), "%s/r2.ring-000007.ftz", dir);
	assert_int_equal(rename(p, q), 0);
	refused(head, 1, "not segment 7");
	unlink(q);
	/* a symlink where a segment should be */
	snprintf(q, sizeof(q), "%s/r2.ring-000002.ftz", dir);
	assert_int_equal(symlink("/etc/passwd", q), 0);
	refused(head, 1, "never links");
	unlink(q);
	/* a segment of another capture */
	char *info = info_of("someone-else", RING_HEAD_KEYS "ring_segment=3\n");
	write_capture("r2.ring-000003.ftz", info, false, 0, 10, false);
	free(info);
	refused(head, 1, "capture_id differs");
	snprintf(q, sizeof(q), "%s/r2.ring-000003.ftz", dir);
	unlink(q);
	/* a segment numbered 0 (ftrec counts from 1) is no segment: nothing wraps */
	snprintf(q, sizeof(q), "%s/r2.ring-000007.ftz", dir);
	snprintf(p, sizeof(p), "%s/r2.ring-000001.ftz", dir);
	ring_segment("r2.ring-000001.ftz", 1, 0, 10);
	ring_segment("r2.ring-000000.ftz", 0, 0, 10);
	struct got g;
	struct dec *d = read_set(head, 1, &g);
	if (!d)
		fail_msg("the ring was refused (the error is on stderr)");
	assert_int_equal(g.n, 10);
	kv_is(d, "segments", "1");
	kv_is(d, "ring_trimmed_segments", "0");
	dec_close(d);
	unlink(p);
	snprintf(q, sizeof(q), "%s/r2.ring-000000.ftz", dir);
	unlink(q);
	/* a prefix that is a path */
	ring_head("r3.ftz", "ring_size=1048576\nring_segment_size=131072\nring_prefix=../../etc/x\n");
	refused((const char *[]){ "r3.ftz" }, 1, "not a plain file name");
	ring_head("r4.ftz", "ring_size=1048576\nring_segment_size=131072\nring_prefix=.hidden\n");
	refused((const char *[]){ "r4.ftz" }, 1, "not a plain file name");
	/* a segment alone, and a ring head in a series join */
	ring_segment("r5.ring-000001.ftz", 1, 0, 10);
	refused((const char *[]){ "r5.ring-000001.ftz" }, 1, "a segment of a disk ring");
	refused((const char *[]){ "s-0001.ftz", "r2.ftz" }, 2, "open the ring's head alone");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_series_join),
		cmocka_unit_test(test_series_gap),
		cmocka_unit_test(test_series_refused),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_ring_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
