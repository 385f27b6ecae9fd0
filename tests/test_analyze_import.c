// SPDX-License-Identifier: MIT
/*
 * test_analyze_import.c - decode + import of a real kernel's ring-buffer pages
 * (google/schedviz test data: 404 sub-buffers, 28,922 sched events), wrapped into
 * a .ftz by the format library's writer.
 *
 * Ground truth is libtraceevent's own print pass (tep_print_event) over the raw
 * trace_pipe_raw file, outside our decode layer: counts per type, the order and
 * timestamps, and every sched_wakeup/sched_switch text line rebuilt from our
 * columns. Then the same file cut at many offsets and with flipped bytes (under
 * ASan): partial import, damage reported, never a crash. Last, the ftana binary
 * ($FTANA from tests/run.sh): exit codes, the one warning, the cache (the cache
 * outside an unwritable directory is in tests/test_db_live.sh, which can mount one).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <traceevent/kbuffer.h>
#include <traceevent/trace-seq.h>

#include "decode/decode.h"
#include "import/import.h"
#include "tests/analyze_fixture.h"
#include "tests/report_func_fixture.h"

/* Relative to the repository root, where tests/run.sh runs us; TESTDATA overrides. */
#define TESTDATA_DEFAULT "tests/data"
#define TARBALL_IN_TESTDATA "rawpages/schedviz-sched-rawpages.tar.gz"
#define MAX_EVENTS 40000

struct truth_event {
	char name[32];
	char info[160];
	unsigned long long ts;
};

static char dir[64], ftz[128], db_path[160];
static struct truth_event *truth;
static int nr_truth;
static long ftz_size;

/* libtraceevent alone over DIR/traces/cpu0: the reference. */
static int build_truth(void)
{
	char path[256], *buf, *hp;
	size_t len, hp_len;
	const char *evs[] = { "sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_migrate_task" };
	struct tep_handle *tep = tep_alloc();
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	struct trace_seq s;

	snprintf(path, sizeof(path), "%s/formats/header_page", dir);
	hp = fx_slurp(path, &hp_len);
	if (!tep || !kb || !hp)
		return -1;
	tep_set_long_size(tep, 8);
	tep_parse_header_page(tep, hp, hp_len, 8);
	free(hp);
	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/formats/sched/%s/format", dir, evs[i]);
		buf = fx_slurp(path, &len);
		if (buf && tep_parse_event(tep, buf, len, "sched"))
			return -1;
		free(buf);
	}
	snprintf(path, sizeof(path), "%s/traces/cpu0", dir);
	buf = fx_slurp(path, &len);
	truth = calloc(MAX_EVENTS, sizeof(*truth));
	if (!buf || !truth)
		return -1;
	trace_seq_init(&s);
	for (size_t off = 0; off + 4096 <= len; off += 4096) {
		unsigned long long ts;
		void *ev;

		kbuffer_load_subbuffer(kb, buf + off);
		for (ev = kbuffer_read_event(kb, &ts); ev && nr_truth < MAX_EVENTS;
		     ev = kbuffer_next_event(kb, &ts)) {
			struct tep_record rec = { .ts = ts, .data = ev, .size = kbuffer_event_size(kb) };
			struct truth_event *t = &truth[nr_truth++];

			trace_seq_reset(&s);
			tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_NAME);
			trace_seq_terminate(&s);
			snprintf(t->name, sizeof(t->name), "%s", s.buffer);
			trace_seq_reset(&s);
			tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
			trace_seq_terminate(&s);
			snprintf(t->info, sizeof(t->info), "%s", s.buffer);
			t->ts = ts;
		}
	}
	trace_seq_destroy(&s);
	free(buf);
	kbuffer_free(kb);
	tep_free(tep);
	return 0;
}

static int group_setup(void **state)
{
	char cmd[1024], tarball[512];
	const char *testdata = getenv("TESTDATA");
	struct stat st;

	snprintf(tarball, sizeof(tarball), "%s/%s", testdata ? testdata : TESTDATA_DEFAULT,
		 TARBALL_IN_TESTDATA);
	if (access(tarball, R_OK) != 0) {
		fprintf(stderr, "test data %s missing (run from the repository root or set TESTDATA)\n",
			tarball);
		return -1;
	}
	strcpy(dir, "/tmp/test_analyze.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(cmd, sizeof(cmd), "tar xzf '%s' -C %s", tarball, dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "cannot extract %s\n", tarball);
		return -1;
	}
	snprintf(ftz, sizeof(ftz), "%s/sched.ftz", dir);
	snprintf(db_path, sizeof(db_path), "%s/sched.db", dir);
	/* 16 pages per section: 26 sections, so cuts land in many places */
	if (fx_wrap_raw_dir(dir, ftz, 16) < 0 || stat(ftz, &st) < 0 || build_truth() < 0)
		return -1;
	ftz_size = st.st_size;
	return 0;
}

static int group_teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	free(truth);
	return system(cmd) == 0 ? 0 : -1;
}

/* A refusal is said in one line naming SRC (-2: the damage, before the metadata). */
static sqlite3 *import_into(const char *src, const char *out, struct import_result *res, int *rc)
{
	struct fx_capture e;
	sqlite3 *db = NULL;
	char *err;

	unlink(out);
	fx_capture_begin(&e, STDERR_FILENO);
	*rc = import_ftz(src, out, false, res);
	err = fx_capture_end(&e);
	if (*rc < 0) {
		assert_ptr_equal(strchr(err, '\n'), err + strlen(err) - 1);
		assert_non_null(strstr(err, src));
		if (*rc == -2)
			assert_non_null(strstr(err, "damaged at offset"));
	} else {
		fputs(err, stderr); /* a warning, as ftana would show it */
	}
	free(err);
	if (*rc == 0)
		assert_int_equal(sqlite3_open_v2(out, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	return db;
}

static long long query_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long long v = -1;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int truth_count(const char *name)
{
	int n = 0;

	for (int i = 0; i < nr_truth; i++)
		n += !strcmp(truth[i].name, name);
	return n;
}

/* Rows per type, the events view and event_types agree with libtraceevent's count. */
static void test_counts(void **state)
{
	struct import_result res;
	int rc;
	sqlite3 *db = import_into(ftz, db_path, &res, &rc);

	assert_int_equal(rc, 0);
	assert_int_equal(nr_truth, 28922); /* the data set's published figure */
	assert_false(res.damaged);
	assert_int_equal(res.events, nr_truth);
	assert_int_equal(query_int(db, "SELECT count(*) FROM events"), nr_truth);
	assert_int_equal(query_int(db, "SELECT count(*) FROM sched_switch"), truth_count("sched_switch"));
	assert_int_equal(query_int(db, "SELECT count(*) FROM sched_wakeup"), truth_count("sched_wakeup"));
	assert_int_equal(query_int(db, "SELECT count(*) FROM sched_wakeup_new"),
			 truth_count("sched_wakeup_new"));
	assert_int_equal(query_int(db, "SELECT count FROM event_types WHERE name = 'sched_switch'"),
			 truth_count("sched_switch"));
	/* a format without events gets no table */
	assert_int_equal(query_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'sched_migrate_task'"), 0);
	assert_int_equal(query_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'events' AND type = 'view'"), 1);
	sqlite3_close(db);
}

/* ids follow the ring order; ts and type of the n-th id are the n-th event's. */
static void test_order_and_ts(void **state)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int i = 0;

	assert_int_equal(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT id, ts, type FROM events ORDER BY id", -1,
					    &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		assert_true(i < nr_truth);
		assert_int_equal(sqlite3_column_int64(st, 0), i + 1);
		assert_int_equal((unsigned long long)sqlite3_column_int64(st, 1), truth[i].ts);
		assert_string_equal((const char *)sqlite3_column_text(st, 2), truth[i].name);
		i++;
	}
	assert_int_equal(i, nr_truth);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* Every event's text as libtraceevent prints it, rebuilt from our typed columns. */
static void check_lines(sqlite3 *db, const char *name, const char *sql, bool prefix_only)
{
	sqlite3_stmt *st;
	int i = 0, checked = 0;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *mine = (const char *)sqlite3_column_text(st, 0);
		const char *tail = (const char *)sqlite3_column_text(st, 1);

		while (i < nr_truth && strcmp(truth[i].name, name))
			i++;
		assert_true(i < nr_truth);
		if (prefix_only) {
			assert_memory_equal(truth[i].info, mine, strlen(mine));
			assert_non_null(strstr(truth[i].info, tail));
		} else {
			assert_string_equal(truth[i].info, mine);
		}
		i++;
		checked++;
	}
	sqlite3_finalize(st);
	assert_int_equal(checked, truth_count(name));
}

static void test_field_values(void **state)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	check_lines(db, "sched_wakeup", "SELECT printf('comm=%s pid=%d prio=%d target_cpu=%03d', "
		    "comm, field_pid, prio, target_cpu), '' FROM sched_wakeup ORDER BY id", false);
	check_lines(db, "sched_wakeup_new", "SELECT printf('comm=%s pid=%d prio=%d target_cpu=%03d', "
		    "comm, field_pid, prio, target_cpu), '' FROM sched_wakeup_new ORDER BY id", false);
	check_lines(db, "sched_switch",
		    "SELECT printf('prev_comm=%s prev_pid=%d prev_prio=%d prev_state=', prev_comm, prev_pid, prev_prio),"
		    " printf(' ==> next_comm=%s next_pid=%d next_prio=%d', next_comm, next_pid, next_prio)"
		    " FROM sched_switch ORDER BY id", true);
	/* comms seen in events reach tasks */
	assert_true(query_int(db, "SELECT count(*) FROM tasks t JOIN sched_switch s ON s.next_pid = t.pid"
			      " AND s.next_comm = t.comm") > 0);
	sqlite3_close(db);
}

/* The iterator itself: same count, timestamps never go back. */
static void test_decode_iterator(void **state)
{
	struct dec *d = dec_open(ftz);
	struct dec_event ev;
	unsigned long long last = 0;
	int n = 0;

	assert_non_null(d);
	assert_int_equal(dec_stats(d)->nr_pages, 404);
	while (dec_next(d, &ev) > 0) {
		assert_true(ev.ts >= last);
		assert_int_equal(ev.record->ts, ev.ts);
		assert_non_null(ev.event);
		assert_string_equal(ev.event->name, truth[n].name);
		last = ev.ts;
		n++;
	}
	assert_int_equal(n, nr_truth);
	assert_false(dec_damage(d, NULL, NULL));
	dec_close(d);
}

static int copy_damaged(const char *out, long cut, long flip)
{
	size_t len;
	char *buf = fx_slurp(ftz, &len);
	FILE *f = fopen(out, "wb");
	int rc = 0;

	if (!buf || !f)
		return -1;
	if (flip >= 0 && (size_t)flip < len)
		buf[flip] ^= 0x5a;
	if (fwrite(buf, 1, cut < 0 ? (long)len : cut, f) != (size_t)(cut < 0 ? (long)len : cut))
		rc = -1;
	free(buf);
	return fclose(f) || rc ? -1 : 0;
}

/* A cut anywhere: what comes before is imported, never more than the whole, more
 * the later the cut; a cut inside a section is damage. */
static void test_truncated(void **state)
{
	char cut_path[160], cut_db[170];
	uint64_t prev = 0;

	snprintf(cut_path, sizeof(cut_path), "%s/cut.ftz", dir);
	snprintf(cut_db, sizeof(cut_db), "%s/cut.db", dir);
	for (int k = 1; k <= 48; k++) {
		long cut = ftz_size * k / 48 - (k % 3); /* also a little off the even spread */
		struct import_result res;
		int rc;
		sqlite3 *db;

		assert_int_equal(copy_damaged(cut_path, cut, -1), 0);
		db = import_into(cut_path, cut_db, &res, &rc);
		if (rc == -2) { /* cut inside the metadata: nothing to import, said so */
			assert_int_equal(prev, 0);
			continue;
		}
		assert_int_equal(rc, 0);
		assert_true(res.events <= (uint64_t)nr_truth);
		assert_true(res.events >= prev);
		if (cut < ftz_size)
			assert_true(res.damaged || query_int(db, "SELECT value = 'no-end-section'"
							     " FROM meta WHERE key = 'end_state'") == 1);
		else
			assert_int_equal(res.events, nr_truth);
		assert_int_equal(query_int(db, "SELECT count(*) FROM events"), res.events);
		prev = res.events;
		sqlite3_close(db);
	}
	assert_int_equal(prev, nr_truth);
}

static void test_flipped(void **state)
{
	char bad_path[160], bad_db[170];

	snprintf(bad_path, sizeof(bad_path), "%s/flip.ftz", dir);
	snprintf(bad_db, sizeof(bad_db), "%s/flip.db", dir);
	for (int k = 0; k < 40; k++) {
		long at = 16 + (ftz_size - 16) * k / 40 + k; /* past the file header */
		struct import_result res;
		int rc;
		sqlite3 *db;

		assert_int_equal(copy_damaged(bad_path, -1, at), 0);
		db = import_into(bad_path, bad_db, &res, &rc);
		if (rc == -2)
			continue; /* flipped inside the metadata sections */
		assert_int_equal(rc, 0);
		assert_true(res.damaged); /* every byte after the file header is checksummed */
		assert_true(res.damage_offset <= (uint64_t)at);
		assert_true(res.events < (uint64_t)nr_truth);
		sqlite3_close(db);
	}
}

/* Run `$FTANA ARGS` with stderr captured; returns the exit status. */
static int run_ftana(char *errbuf, size_t errlen, const char *fmt, ...)
{
	char args[1024], cmd[1400], errfile[128];
	va_list ap;
	FILE *f;
	size_t n;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(errfile, sizeof(errfile), "%s/stderr.txt", dir);
	snprintf(cmd, sizeof(cmd), "%s %s >/dev/null 2>%s", getenv("FTANA"), args, errfile);
	st = system(cmd);
	f = fopen(errfile, "r");
	n = f ? fread(errbuf, 1, errlen - 1, f) : 0;
	errbuf[n] = '\0';
	if (f)
		fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_cli(void **state)
{
	char err[4096], path[200], cache[220];
	struct stat a, b;

	if (!getenv("FTANA")) {
		print_message("FTANA not set (run through tests/run.sh): CLI checks need the binary\n");
		fail();
	}
	/* info reads the capture and builds nothing; the first query builds the cache
	 * beside it once, later ones reuse it */
	snprintf(path, sizeof(path), "%s/cli.ftz", dir);
	snprintf(cache, sizeof(cache), "%s.db", path);
	assert_int_equal(copy_damaged(path, -1, -1), 0);
	assert_int_equal(run_ftana(err, sizeof(err), "info %s", path), 0);
	assert_int_not_equal(stat(cache, &a), 0);
	assert_int_equal(run_ftana(err, sizeof(err), "sql %s 'select 1'", path), 0);
	assert_int_equal(stat(cache, &a), 0);
	assert_int_equal(run_ftana(err, sizeof(err), "sql %s 'select count(*) from events' --csv", path), 0);
	assert_int_equal(stat(cache, &b), 0);
	assert_true(a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec &&
		    a.st_ino == b.st_ino);
	/* a changed .ftz is imported again */
	assert_int_equal(copy_damaged(path, -1, -1), 0);
	assert_int_equal(run_ftana(err, sizeof(err), "sql %s 'select 1' --json", path), 0);
	assert_int_equal(stat(cache, &b), 0);
	assert_true(a.st_ino != b.st_ino);
	/* not an .ftz: one line, exit 1 */
	snprintf(path, sizeof(path), "%s/formats/header_page", dir);
	assert_int_equal(run_ftana(err, sizeof(err), "info %s", path), 1);
	assert_int_equal(count_lines(err), 1);
	assert_non_null(strstr(err, path));
	/* damaged: exit 3, the warning once with the offset, also from the cache */
	snprintf(path, sizeof(path), "%s/cut2.ftz", dir);
	assert_int_equal(copy_damaged(path, ftz_size - 100, -1), 0);
	assert_int_equal(run_ftana(err, sizeof(err), "sql %s 'select count(*) from events'", path), 3);
	assert_int_equal(count_lines(err), 1);
	assert_non_null(strstr(err, "damaged at offset"));
	assert_int_equal(run_ftana(err, sizeof(err), "info %s", path), 3);
	assert_int_equal(count_lines(err), 1);
	/* a bad query: exit 1 */
	assert_int_equal(run_ftana(err, sizeof(err), "sql %s 'select nope from nothing'", ftz), 1);
	/* -o */
	snprintf(path, sizeof(path), "%s/out.db", dir);
	assert_int_equal(run_ftana(err, sizeof(err), "db %s -o %s", ftz, path), 0);
	assert_int_equal(run_ftana(err, sizeof(err), "sql %s 'select count(*) from sched_switch'", path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_order_and_ts),
		cmocka_unit_test(test_field_values),
		cmocka_unit_test(test_decode_iterator),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_flipped),
		cmocka_unit_test(test_cli),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
