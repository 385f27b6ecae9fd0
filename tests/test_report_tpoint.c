/* SPDX-License-Identifier: MIT */
/*
 * test_report_tpoint.c - `ftana report tpoint` on a hand-made capture (capture_builder.h:
 * records whose time, task and order are known by construction) with its JSON rows:
 * the slice per decoded event (--since inclusive, --until exclusive, -p = every thread
 * of the process by tasks.tgid, -L, -n, --cpu, ftrec's threads left out unless
 * --include-ftrec), a kernel stack going with the event before it, --event, and the
 * columns ts_s/cpu/pid/comm/event/text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "common/cmd.h"
#include "import/dbcache.h"
#include "reports/lost.h"
#include "tests/capture_builder.h"
#include "tests/report_func_fixture.h"

static char tmpdir[] = "/tmp/test_report_tpoint.XXXXXX";
static char path[256];

#define MY_EVENT 100
#define KSTACK 101

static const char my_event_format[] =
	"name: my_event\nID: 100\n" CB_COMMON("4")
	"\tfield:int val;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"val=%d\", REC->val\n";

static const char kernel_stack_format[] =
	"name: kernel_stack\nID: 101\n" CB_COMMON("4")
	"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
	"print fmt: \"\\t=> %ps\\n\", (void *)REC->caller[0]\n";

static void my_event(struct cb_capture *c, int pid, int32_t val)
{
	uint8_t *r = cb_record(c, MY_EVENT, pid, 12);

	memcpy(r + 8, &val, 4);
}

static void kernel_stack(struct cb_capture *c, int pid)
{
	uint8_t *r = cb_record(c, KSTACK, pid, 32);
	int32_t size = 2;
	uint64_t frames[2] = { 0xffffffff81001000ULL, 0xffffffff81002000ULL };

	memcpy(r + 8, &size, 4);
	memcpy(r + 16, frames, sizeof(frames));
}

/*
 * The capture (one CPU, record k at 1001000 + 1000 k ns; the first event is 1001000):
 *   k  event         pid
 *   0  my_event 0    100   process 100
 *   1  kernel_stack  100   (goes with k0)
 *   2  my_event 1    101   a thread of 100
 *   3  my_event 2    200   (ftrec's thread when ftrec_tids says so)
 *   4  kernel_stack  200   (goes with k3)
 *   5  my_event 3    100
 */
static int setup(void **state)
{
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(path, sizeof(path), "%s/t.ftz", tmpdir);
	struct cb_capture *c = cb_open(path);
	if (!c)
		return -1;
	cb_format(c, "sched", "my_event", my_event_format);
	cb_format(c, "ftrace", "kernel_stack", kernel_stack_format);
	my_event(c, 100, 0);
	kernel_stack(c, 100);
	my_event(c, 101, 1);
	my_event(c, 200, 2);
	kernel_stack(c, 200);
	my_event(c, 100, 3);
	if (cb_close(c))
		return -1;

	bool damaged = false;
	sqlite3 *db = dbcache_open(path, NULL, &damaged);

	if (!db || damaged)
		return -1;
	sqlite3_close(db);
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/*
 * The capture's database, with the tasks a recording's saved_tgids would give: setup
 * had ftana import the .ftz into its cache beside it (read-only through ftana_open),
 * which the tests open themselves to add them.
 */
static sqlite3 *open_capture(const char *ftrec_tids)
{
	char cache[300];
	sqlite3 *db;

	snprintf(cache, sizeof(cache), "%s.db", path);
	assert_int_equal(sqlite3_open(cache, &db), SQLITE_OK);
	fx_exec(db, "INSERT OR REPLACE INTO tasks VALUES (100, 100, 'app'), (101, 100, 'app-worker'), "
		"(200, 200, 'other')");
	fx_exec(db, "DELETE FROM meta WHERE key IN ('ftrec_tids', 'notrace_pids')");
	if (ftrec_tids)
		fx_exec(db, "INSERT INTO meta VALUES ('ftrec_tids', '%s')", ftrec_tids);
	fx_capture_file = path;
	return db;
}

/* "v0 s v1 ..." : the rows of `tpoint --json ARGS`: my_event's val, s for a stack. */
static const char *rows_of(sqlite3 *db, int argc, char **argv)
{
	static char seen[256];
	char *out;

	seen[0] = 0;
	assert_int_equal(fx_run("tpoint", db, &out, argc, argv), 0);
	for (const char *p = out; (p = strstr(p, "\"event\":")); p++) {
		const char *what = strstr(p, "\"event\":\"kernel_stack\"") == p ? "s" :
				   strstr(p, "\"event\":\"my_event\",\"text\":\"val=") == p ? NULL : "?";
		char one[8];

		if (what)
			snprintf(one, sizeof(one), "%s", what);
		else
			snprintf(one, sizeof(one), "v%c", p[strlen("\"event\":\"my_event\",\"text\":\"val=")]);
		snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s%s", *seen ? " " : "", one);
	}
	free(out);
	return seen;
}

#define ROWS(want, ...) do { \
	char *argv_[] = { "tpoint", "--json", __VA_ARGS__ }; \
	assert_string_equal(rows_of(db, sizeof(argv_) / sizeof(argv_[0]), argv_), want); \
} while (0)

static void test_slice(void **state)
{
	sqlite3 *db = open_capture(NULL);

	ROWS("v0 s v1 v2 s v3", "--cpu", "0");
	ROWS("", "--cpu", "1");
	/* since inclusive (k2 at 1003000 = 0.000002 s after the first event), until exclusive */
	ROWS("v1 v2 s v3", "--since", "0.000002");
	ROWS("v0 s", "--until", "0.000002");
	ROWS("v2 s", "--since", "0.000003", "--until", "0.000005");
	/* -p: the process with its thread 101; -L: that thread; -n: by comm */
	ROWS("v0 s v1 v3", "-p", "100");
	ROWS("v1", "-L", "101");
	ROWS("v1", "-p", "101"); /* a thread's id is no process */
	ROWS("v2 s", "-n", "^oth");
	/* --event: the stacks go with their events */
	ROWS("v0 s v1 v2 s v3", "--event", "sched:my_event");
	sqlite3_close(db);
}

static void test_ftrec_threads(void **state)
{
	sqlite3 *db = open_capture("200");

	ROWS("v0 s v1 v3", "--cpu", "0");
	ROWS("v0 s v1 v2 s v3", "--include-ftrec");
	sqlite3_close(db);
}

static void test_columns(void **state)
{
	sqlite3 *db = open_capture(NULL);
	char *out, *argv[] = { "tpoint", "--json", "-L", "101", NULL };
	char *csv[] = { "tpoint", "--csv", "-L", "101", NULL };

	assert_int_equal(fx_run("tpoint", db, &out, 4, argv), 0);
	assert_non_null(strstr(out, "\"rows\":[\n{\"ts_s\":0.001003,\"cpu\":0,\"pid\":101,\"comm\":\"app-worker\","
				    "\"event\":\"my_event\",\"text\":\"val=1\"}\n]"));
	free(out);
	assert_int_equal(fx_run("tpoint", db, &out, 4, csv), 0);
	assert_string_equal(out, "ts_s,cpu,pid,comm,event,text\n0.001003,0,101,app-worker,my_event,val=1\n");
	free(out);
	/* an event the capture lacks: one line, exit 1 */
	char *none[] = { "tpoint", "--event", "nosuch:my_event", NULL };
	assert_int_equal(fx_run("tpoint", db, &out, 3, none), CMD_EXIT_ERROR);
	assert_string_equal(out, "");
	free(out);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slice),
		cmocka_unit_test(test_ftrec_threads),
		cmocka_unit_test(test_columns),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
