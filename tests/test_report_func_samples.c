/* SPDX-License-Identifier: MIT */
/*
 * test_report_func_samples.c - the function reports on the kernel lab's real
 * captures in samples/ (Debian 6.1 under qemu, see samples/README.md), so they
 * are tested where the lab cannot run. The ground truth is what the workload was
 * told to do, read from the capture's own recorded command line (meta.command,
 * meta.cmdline: "workload getppid 1000", ...), and the kernel's own calltime /
 * rettime -- never a number computed by the code under test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "import/dbcache.h"
#include "reports/args.h"
#include "tests/report_func_fixture.h"

static char tmpdir[] = "/tmp/test_report_func_samples.XXXXXX";

/*
 * Open a copy of samples/NAME.ftz: ftana_open caches its database beside the
 * .ftz, which must not land in the source tree.
 */
static sqlite3 *open_sample(const char *name)
{
	char cmd[512], path[256];
	bool damaged = false;

	snprintf(path, sizeof(path), "%s/%s.ftz", tmpdir, name);
	snprintf(cmd, sizeof(cmd), "cp samples/%s.ftz %s", name, path);
	if (system(cmd) != 0)
		fail_msg("samples/%s.ftz is missing (make samples)", name);
	sqlite3 *db = dbcache_open(path, NULL, &damaged);
	assert_non_null(db);
	assert_false(damaged);
	return db;
}

/* The number after WORDS in the recorded command line, e.g. "workload getppid " -> K. */
static long long recorded_arg(sqlite3 *db, const char *words)
{
	const char *cmd = fx_text(db, "SELECT value FROM meta WHERE key = 'cmdline'");
	const char *at = strstr(cmd, words);
	long long v;

	if (!at || sscanf(at + strlen(words), "%lld", &v) != 1)
		fail_msg("'%s' not in the recorded command line '%s'", words, cmd);
	return v;
}

/* `workload getppid K` under `ftrec funccount '*sys_getppid'`: K calls, nothing else. */
static void test_funccount(void **state)
{
	sqlite3 *db = open_sample("funccount");
	long long k = recorded_arg(db, "workload getppid ");
	char *out, line[128];
	char *argv[] = { "funccount", NULL };
	char *by_interval[] = { "funccount", "-i", "0.1", NULL };

	assert_int_equal(fx_run("funccount", db, &out, 1, argv), 0);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM fc_totals"), 1);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_totals WHERE func LIKE '%%sys_getppid'"), k);
	snprintf(line, sizeof(line), "sys_getppid %6lld", k);
	assert_int_equal(fx_count_lines(out, line), 1);
	free(out);
	/* intervals add up to the total */
	assert_int_equal(fx_run("funccount", db, &out, 3, by_interval), 0);
	assert_int_equal(fx_int(db, "SELECT sum(count) FROM fc_interval_rows"), k);
	assert_true(fx_count_lines(out, "interval ") >= 1);
	free(out);
	fx_close(db);
}

/*
 * `workload bursts B K MS` under `ftrec funccount --profile -i SECS '*sys_getppid'`
 * on the lab's profiler kernel: B*K calls in all (the profiler counts every task, and
 * nothing else called getppid), and bursts MS ms apart land in different intervals.
 */
static void test_funccount_profile(void **state)
{
	sqlite3 *db = open_sample("funccount_profile");
	long long b = recorded_arg(db, "workload bursts ");
	long long k = recorded_arg(db, "workload bursts 3 ");
	char *out;
	char *argv[] = { "funccount", NULL };
	char *by_interval[] = { "funccount", "-i", "0.5", NULL };

	assert_int_equal(b, 3); /* the scenario's B, which the second lookup assumed */
	assert_int_equal(fx_int(db, "SELECT value FROM meta WHERE key = 'function_profile'"), 1);
	/* the lab kernel has function_graph: the profiler timed every call it counted */
	assert_int_equal(fx_int(db, "SELECT count(*) FROM function_profile WHERE time_ns IS NULL OR time_ns <= 0"), 0);
	assert_int_equal(fx_run("funccount", db, &out, 1, argv), 0);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM fc_totals"), 1);
	assert_int_equal(fx_int(db, "SELECT count FROM fc_totals WHERE func LIKE '%%sys_getppid'"), b * k);
	assert_int_equal(fx_count_lines(out, "function profiler"), 0); /* a note: -v, stderr */
	free(out);
	assert_int_equal(fx_run("funccount", db, &out, 3, by_interval), 0);
	assert_int_equal(fx_int(db, "SELECT sum(count) FROM fc_interval_rows"), b * k);
	assert_true(fx_int(db, "SELECT count(DISTINCT interval) FROM fc_interval_rows") >= b);
	free(out);
	fx_close(db);
}

/* M sleeps of MS ms (and shorter ones) under a USECS threshold: exactly the M long ones. */
static void test_funcslower(void **state)
{
	sqlite3 *db = open_sample("funcslower");
	long long usecs = recorded_arg(db, "nanosleep ");
	long long m = recorded_arg(db, "workload sleep ");
	char words[64];
	char *out;
	char *argv[] = { "funcslower", "-P", NULL };
	char *hist[] = { "funcslower", "--hist", NULL };
	char *graph[] = { "funcslower", "--graph", "-P", NULL };

	snprintf(words, sizeof(words), "workload sleep %lld ", m);
	long long ms = recorded_arg(db, words);
	assert_int_equal(fx_run("funcslower", db, &out, 2, argv), 0);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM slow_calls WHERE dur_ns >= %lld", ms * 1000000), m);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM slow_calls WHERE dur_ns < %lld", usecs * 1000), 0);
	assert_int_equal(fx_count_lines(out, "workload"), fx_int(db, "SELECT count(*) FROM slow_calls"));
	free(out);
	assert_int_equal(fx_run("funcslower", db, &out, 2, hist), 0);
	assert_int_equal(fx_int(db, "SELECT sum(count) FROM funcslower_hist"),
			 fx_int(db, "SELECT count(*) FROM slow_calls"));
	free(out);
	/* the kernel's return lines: every slow call, "} /" "* do_nanosleep *" "/", '*' above 10 ms */
	assert_int_equal(fx_run("funcslower", db, &out, 3, graph), 0);
	assert_int_equal(fx_count_lines(out, "workloa-"), fx_int(db, "SELECT count(*) FROM slow_calls"));
	assert_int_equal(fx_count_lines(out, " us |  } /* do_nanosleep */"), m);
	assert_int_equal(fx_count_lines(out, "| * 5"), m);
	free(out);
	fx_close(db);
}

/* One read(2) under `ftrec funcgraph ksys_read`: a complete, consistent call tree. */
static void test_funcgraph(void **state)
{
	sqlite3 *db = open_sample("funcgraph");
	char *out;
	char *argv[] = { "funcgraph", "--tree", NULL };
	char *depth1[] = { "funcgraph", "-m", "1", NULL };
	const char *workload = "(SELECT pid FROM tasks WHERE comm = 'workload')";

	assert_int_equal(fx_run("funcgraph", db, &out, 2, argv), 0);
	/* every entry of the workload met its exit */
	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls WHERE pid IN %s", workload),
			 fx_int(db, "SELECT count(*) FROM funcgraph_exit WHERE pid IN %s", workload));
	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls WHERE pid IN %s AND flags <> 0", workload), 0);
	/* durations are the kernel's, and no caller is shorter than its callees */
	assert_int_equal(fx_int(db, "SELECT sum(dur_ns) FROM calls "
				"WHERE func = 'ksys_read' AND pid IN %s", workload),
			 fx_int(db, "SELECT sum(rettime - calltime) FROM funcgraph_exit x JOIN symbols s "
				"ON s.addr = x.func WHERE s.name = 'ksys_read' AND pid IN %s", workload));
	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls p WHERE dur_ns < "
				"(SELECT sum(c.dur_ns) FROM calls c WHERE c.parent_id = p.id)"), 0);
	assert_true(fx_int(db, "SELECT count(*) FROM calls WHERE children > 0") >= 1);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM calls p WHERE children > 0 AND child_dur_ns <> "
				"(SELECT sum(c.dur_ns) FROM calls c WHERE c.parent_id = p.id)"), 0);
	/* ksys_read calls vfs_read */
	assert_true(fx_int(db, "SELECT count(*) FROM fg_paths WHERE path = 'ksys_read;vfs_read'") >= 1);
	assert_int_equal(fx_count_lines(out, "    vfs_read "), 1);
	free(out);
	/* -m 1: only the depth-0 calls, each one line with the kernel's duration */
	assert_int_equal(fx_run("funcgraph", db, &out, 3, depth1), 0);
	/* (ftrec's own threads are left out, as in every report: END names them) */
	assert_int_equal(fx_count_lines(out, "();"),
			 fx_int(db, "SELECT count(*) FROM funcgraph_exit WHERE depth = 0 AND "
				"' ' || (SELECT group_concat(value, ' ') FROM meta WHERE key IN "
				"('ftrec_tids', 'notrace_pids')) || ' ' NOT LIKE '%% ' || pid || ' %%'"));
	assert_int_equal(fx_count_lines(out, "{"), 0);
	free(out);
	fx_close(db);
}

/* `workload read FILE BYTES` under a return probe on ksys_read: $retval == BYTES. */
static void test_kprobe_read(void **state)
{
	sqlite3 *db = open_sample("kprobe_read");
	long long bytes = recorded_arg(db, "/lab/bin/workload ");
	char *out, line[64];
	char *argv[] = { "kprobe", NULL };

	assert_int_equal(fx_run("kprobe", db, &out, 1, argv), 0);
	/* $retval is x64 by default: the kernel prints it 0x%Lx */
	snprintf(line, sizeof(line), "<- ksys_read) ret=0x%llx", bytes);
	assert_int_equal(fx_count_lines(out, line), 1);
	free(out);
	fx_close(db);
}

/*
 * `workload open PATH` under an entry probe fetching the user's string, with -s:
 * PATH exactly, and below the hit its kernel stack through the openat(2) syscall.
 */
static void test_kprobe_open(void **state)
{
	sqlite3 *db = open_sample("kprobe_open");
	const char *cmd = fx_text(db, "SELECT value FROM meta WHERE key = 'command'");
	char path[256], line[300], *out;
	char *argv[] = { "kprobe", "--probe", "kopen", NULL };

	assert_int_equal(sscanf(cmd, "workload open %255s", path), 1);
	assert_int_equal(fx_run("kprobe", db, &out, 3, argv), 0);
	snprintf(line, sizeof(line), "kopen: (do_sys_openat2+0x0) path=\"%s\"", path);
	assert_int_equal(fx_count_lines(out, line), 1);
	const char *hit = strstr(out, line), *next = strstr(hit, "\n => ");
	assert_non_null(next);
	assert_ptr_equal(next, strchr(hit, '\n')); /* the stack follows the hit directly */
	assert_non_null(strstr(next, " => __x64_sys_openat\n"));
	free(out);
	fx_close(db);
}

static int setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_funccount),
		cmocka_unit_test(test_funccount_profile),
		cmocka_unit_test(test_funcslower),
		cmocka_unit_test(test_funcgraph),
		cmocka_unit_test(test_kprobe_read),
		cmocka_unit_test(test_kprobe_open),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
