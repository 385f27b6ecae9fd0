/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for ftrec's command line (record/cli.c, record/tasks.c): getopt
 * bundling and attached arguments give the same options as the spelled-out
 * form, "--" ends the options wherever positionals are, positional durations
 * only where a command declares one, default output files, --help made from
 * the tables (every option listed, help wins over errors), and -p / -L checked
 * against this test's own threads (ground truth: gettid() in each thread).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/msg.h"
#include "record/record.h"

/* The presets' descriptions (declared for ftrec by record/main.c's table). */
extern const struct record_cmd record_cmd_iolat, record_cmd_tpoint, record_cmd_funccount,
	record_cmd_funcslower, record_cmd_funcgraph, record_cmd_kprobe;

#define ARGC(v) ((int)(sizeof(v) / sizeof((v)[0])) - 1)

static const struct record_cmd *const all_cmds[] = {
	&record_cmd_record, &record_cmd_iolat, &record_cmd_tpoint, &record_cmd_funccount,
	&record_cmd_funcslower, &record_cmd_funcgraph, &record_cmd_kprobe,
};

/* The option handler of the function presets: records what it saw. */
struct seen {
	int keys[8];
	const char *args[8];
	int n;
};
static int note_option(struct record_opts *o, int key, const char *arg, void *ctx)
{
	(void)o;
	struct seen *s = ctx;
	if (s->n < 8) {
		s->keys[s->n] = key;
		s->args[s->n++] = arg;
	}
	return 0;
}

/* parse(): record_parse() with CMD (its option handler replaced by note_option). */
static int parse(const struct record_cmd *cmd, struct record_opts *o, struct record_args *a,
		 struct seen *s, int argc, char **argv)
{
	struct record_cmd c = *cmd;
	if (c.option)
		c.option = note_option;
	record_opts_init(o, cmd->name, argc, argv);
	memset(s, 0, sizeof(*s));
	return record_parse(o, &c, argc, argv, s, a);
}

static void test_common_options(void **state)
{
	(void)state;
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	char *argv[] = { "record", "-e", "block:block_rq_issue,block:block_rq_complete", "-f",
			 "nr_sector > 8", "-e", "sched:*", "-s", "-p", pid, "-d", "1.5",
			 "-b", "100", "-C", "mono", "--max-size", "2", "-o", "x.ftz", "-q",
			 "--", "dd", "if=/dev/zero", "-s", NULL };
	struct record_opts o;
	struct record_args a;
	struct seen s;
	assert_int_equal(parse(&record_cmd_record, &o, &a, &s, ARGC(argv), argv), 0);
	assert_int_equal(o.nr_events, 3);
	assert_string_equal(o.events[1].event, "block_rq_complete");
	assert_string_equal(o.events[0].filter, "nr_sector > 8");
	assert_string_equal(o.events[1].filter, "nr_sector > 8"); /* -f covers the whole -e list */
	assert_null(o.events[2].filter);
	assert_true(o.stacktrace && o.quiet);
	assert_int_equal(o.pid, getpid());
	assert_true(o.duration == 1.5);
	assert_int_equal(o.buffer_kb, 100);
	assert_string_equal(o.clock, "mono");
	assert_int_equal(o.max_size, 2 * 1024 * 1024);
	assert_string_equal(o.output, "x.ftz");
	assert_string_equal(o.command[0], "dd");
	assert_string_equal(o.command[2], "-s"); /* the COMMAND's own options are its own */
	assert_null(o.command[3]);
	assert_int_equal(a.n, 0);
	free(a.v);
	record_opts_free(&o);
}

/* What the parser made of a command line, to compare spellings. */
static void fingerprint(const struct record_opts *o, const struct record_args *a,
			const struct seen *s, char *out, size_t size)
{
	size_t len = (size_t)snprintf(out, size, "stack=%d quiet=%d dur=%g buf=%lu out=%s pid=%d tid=%d follow=%d",
				      o->stacktrace, o->quiet, o->duration, o->buffer_kb,
				      o->output ? o->output : "-", o->pid, o->tid, o->follow);
	for (size_t i = 0; i < a->n; i++)
		len += (size_t)snprintf(out + len, size - len, " pos=%s", a->v[i]);
	for (int i = 0; i < s->n; i++)
		len += (size_t)snprintf(out + len, size - len, " opt%d=%s", s->keys[i],
					s->args[i] ? s->args[i] : "");
	for (char **c = o->command; c && *c; c++)
		len += (size_t)snprintf(out + len, size - len, " cmd=%s", *c);
}

static void test_bundling_is_the_same(void **state)
{
	(void)state;
	char pid[16], attached[24];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(attached, sizeof(attached), "-qp%d", (int)getpid());
	char *spelled[] = { "funcgraph", "-s", "-q", "-p", pid, "-d", "5", "-b", "64", "-m", "3",
			    "-C", "-o", "g.ftz", "vfs_read", "--", "ls", NULL };
	char *bundled[] = { "funcgraph", "-sqp", pid, "-d5", "-b64", "-m3", "-C", "-og.ftz",
			    "vfs_read", "--", "ls", NULL };
	char *mixed[] = { "funcgraph", "vfs_read", "-s", attached, "--duration=5",
			  "--buffer-kb", "64", "-Cm", "3", "--output", "g.ftz", "--", "ls", NULL };
	char *const *lines[] = { spelled, bundled, mixed };
	int counts[] = { ARGC(spelled), ARGC(bundled), ARGC(mixed) };
	char first[512] = "", now[512];

	for (size_t i = 0; i < 3; i++) {
		struct record_opts o;
		struct record_args a;
		struct seen s;
		assert_int_equal(parse(&record_cmd_funcgraph, &o, &a, &s, counts[i], (char **)lines[i]), 0);
		fingerprint(&o, &a, &s, now, sizeof(now));
		/* -m and -C reach the preset, in either order */
		assert_non_null(strstr(now, "opt109=3"));
		assert_non_null(strstr(now, "opt67="));
		if (i == 0)
			snprintf(first, sizeof(first), "%s", now);
		else if (i == 1)
			assert_string_equal(now, first);
		free(a.v);
		record_opts_free(&o);
		assert_non_null(strstr(now, "stack=1 quiet=1 dur=5 buf=64 out=g.ftz"));
		assert_non_null(strstr(now, " pos=vfs_read"));
		assert_non_null(strstr(now, " cmd=ls"));
	}
}

static void test_dashdash_ends_options(void **state)
{
	(void)state;
	char *argv[] = { "tpoint", "block:block_rq_issue", "bytes > 1", "-d", "2", "--", "ls", "-s",
			 "block:x", NULL };
	struct record_opts o;
	struct record_args a;
	struct seen s;
	assert_int_equal(parse(&record_cmd_tpoint, &o, &a, &s, ARGC(argv), argv), 0);
	assert_int_equal(a.n, 2);
	assert_string_equal(a.v[0], "block:block_rq_issue");
	assert_string_equal(a.v[1], "bytes > 1");
	assert_false(o.stacktrace);
	assert_true(o.duration == 2);
	assert_string_equal(o.command[0], "ls");
	assert_string_equal(o.command[1], "-s");
	free(a.v);
	record_opts_free(&o);

	/* An option's argument "--" is its argument, not the end of the options. */
	char *arg[] = { "record", "-e", "a:b", "-f", "--", "-o", "x.ftz", NULL };
	assert_int_equal(parse(&record_cmd_record, &o, &a, &s, ARGC(arg), arg), 0);
	assert_string_equal(o.events[0].filter, "--");
	assert_null(o.command);
	assert_string_equal(o.output, "x.ftz");
	free(a.v);
	record_opts_free(&o);
}

/* expect_fail CMD ARGS...: record_parse() refuses the line. */
static void expect_fail(const struct record_cmd *cmd, int argc, char **argv)
{
	struct record_opts o;
	struct record_args a;
	struct seen s;
	if (parse(cmd, &o, &a, &s, argc, argv) != -1)
		fail_msg("accepted: %s %s %s", argv[0], argc > 1 ? argv[1] : "", argc > 2 ? argv[2] : "");
	free(a.v);
	record_opts_free(&o);
}
#define FAILS(cmd, ...)                                               \
	do {                                                          \
		char *v_[] = { (char *)(cmd)->name, ##__VA_ARGS__, NULL };      \
		expect_fail(cmd, ARGC(v_), v_);                       \
	} while (0)

static void test_positional_duration(void **state)
{
	(void)state;
	struct record_opts o;
	struct record_args a;
	struct seen s;
	char *argv[] = { "iolat", "-s", "2.5", NULL };
	assert_int_equal(parse(&record_cmd_iolat, &o, &a, &s, ARGC(argv), argv), 0);
	assert_true(o.duration == 2.5);
	assert_int_equal(a.n, 0); /* the duration is not passed on as an argument */
	assert_string_equal(o.output, "iolat.ftz");
	free(a.v);
	record_opts_free(&o);

	FAILS(&record_cmd_iolat, "-d", "1", "2");     /* twice */
	FAILS(&record_cmd_iolat, "1", "2");           /* one only */
	FAILS(&record_cmd_iolat, "soon");
	FAILS(&record_cmd_iolat, "0");
	/* No duration argument where perf-tools has none: refused, not taken as a name. */
	FAILS(&record_cmd_tpoint, "sched:sched_switch", "5");
	FAILS(&record_cmd_funccount, "vfs_read", "5");
	FAILS(&record_cmd_funcgraph, "vfs_read", "5");
	FAILS(&record_cmd_funcslower, "vfs_read", "100", "5");
	FAILS(&record_cmd_kprobe, "p:vfs_read", "5");
	FAILS(&record_cmd_record, "-e", "a:b", "-o", "x", "5");
}

static void test_bad_values(void **state)
{
	(void)state;
	FAILS(&record_cmd_tpoint, "-d", "nan", "a:b");
	FAILS(&record_cmd_tpoint, "-d", "inf", "a:b");
	FAILS(&record_cmd_tpoint, "-d", "-1", "a:b");
	FAILS(&record_cmd_tpoint, "-d5x", "a:b");
	FAILS(&record_cmd_tpoint, "-b", "1.5", "a:b");
	FAILS(&record_cmd_tpoint, "-b", "0", "a:b");
	FAILS(&record_cmd_tpoint, "--max-size", "0", "a:b");
	FAILS(&record_cmd_tpoint, "-o", "", "a:b");
	FAILS(&record_cmd_tpoint, "-x", "a:b");
	FAILS(&record_cmd_tpoint, "-sx", "a:b");
	FAILS(&record_cmd_tpoint, "--bogus", "a:b");
	FAILS(&record_cmd_tpoint, "--stack=1", "a:b");
	FAILS(&record_cmd_tpoint, "a:b", "-d");         /* missing argument */
	FAILS(&record_cmd_tpoint, "-e", "a:b");         /* -e is `record`'s */
	FAILS(&record_cmd_tpoint, "a:b", "--");         /* no COMMAND */
	FAILS(&record_cmd_tpoint, "a:b", "c", "d");     /* too many */
	FAILS(&record_cmd_tpoint);                      /* none */
	FAILS(&record_cmd_funcslower, "f");
	FAILS(&record_cmd_record, "-f", "x > 1", "-e", "a:b");
	FAILS(&record_cmd_record, "-e", "noseparator");
	FAILS(&record_cmd_record, "-e", "a:b", "-p", "cmd");   /* no COMMAND */
	FAILS(&record_cmd_tpoint, "--follow", "a:b");          /* without -p */
	const char *bad_ids[] = { "0", "-1", "abc", "99999999999", "2147483648", " 1", "+1",
				  "1 ", "0x10", "", "4194305" /* above the kernel's PID_MAX_LIMIT */ };
	for (size_t i = 0; i < sizeof(bad_ids) / sizeof(bad_ids[0]); i++) {
		FAILS(&record_cmd_tpoint, "-p", (char *)bad_ids[i], "a:b");
		FAILS(&record_cmd_tpoint, "-L", (char *)bad_ids[i], "a:b");
	}
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	FAILS(&record_cmd_tpoint, "-p", pid, "-L", pid, "a:b");
}

static void test_default_outputs(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(all_cmds) / sizeof(all_cmds[0]); i++) {
		char want[64];
		snprintf(want, sizeof(want), "%s.ftz", all_cmds[i]->name);
		if (all_cmds[i] == &record_cmd_record)
			assert_null(all_cmds[i]->output_default); /* -o is required */
		else
			assert_string_equal(all_cmds[i]->output_default, want);
	}
}

/* Every option the parser takes is in the help, in the form it takes it. */
static void test_help_lists_every_option(void **state)
{
	(void)state;
	const char *common[] = { "--stack", "-s, --stack", "-p, --pid PID", "-L, --tid TID",
				 "--follow", "-d, --duration SECONDS", "--buffer-kb KB", "--clock CLOCK",
				 "--max-size MB", "-o, --output FILE", "-q, --quiet", "-h, --help" };
	for (size_t i = 0; i < sizeof(all_cmds) / sizeof(all_cmds[0]); i++) {
		const struct record_cmd *c = all_cmds[i];
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		record_print_help(c, f);
		fclose(f);
		for (size_t k = 0; k < sizeof(common) / sizeof(common[0]); k++)
			if (!strstr(text, common[k]))
				fail_msg("ftrec %s --help lacks '%s'", c->name, common[k]);
		for (const struct record_option *x = c->options; x && x->key; x++) {
			char want[64];
			snprintf(want, sizeof(want), "\n  %s%c", x->short_name ? "-" : "    --",
				 x->short_name ? x->short_name : x->long_name[0]);
			assert_non_null(strstr(text, want));
		}
		for (const struct record_positional *p = c->positionals; p && p->name; p++)
			assert_non_null(strstr(text, p->name));
		assert_true(strstr(text, "-e, --event") ? c->takes_events : !c->takes_events);
		for (char *line = text, *end; *line; line = end + 1) {
			end = strchrnul(line, '\n');
			if (end - line > 79)
				fail_msg("ftrec %s --help: line over 79 columns: %.*s", c->name,
					 (int)(end - line), line);
			if (!*end)
				break;
		}
		free(text);
	}
}

static void test_help_wins(void **state)
{
	(void)state;
	char *argv[] = { "iolat", "-d", "soon", "--bogus", "-p", "0", "--help", NULL };
	struct record_opts o;
	struct record_args a;
	struct seen s;
	FILE *keep = stdout;
	stdout = fopen("/dev/null", "w");
	assert_int_equal(parse(&record_cmd_iolat, &o, &a, &s, ARGC(argv), argv), 1);
	char *bundled[] = { "tpoint", "-sh", NULL };
	free(a.v);
	record_opts_free(&o);
	assert_int_equal(parse(&record_cmd_tpoint, &o, &a, &s, ARGC(bundled), bundled), 1);
	fclose(stdout);
	stdout = keep;
	free(a.v);
	record_opts_free(&o);
}

static pthread_barrier_t started, done;
static pid_t thread_ids[3];
static void *worker(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&started);
	pthread_barrier_wait(&done);
	return NULL;
}

static void test_process_and_threads(void **state)
{
	(void)state;
	pthread_t t[3];
	pthread_barrier_init(&started, NULL, 4);
	pthread_barrier_init(&done, NULL, 4);
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, &thread_ids[i]);
	pthread_barrier_wait(&started);

	int *tids;
	long n = tasks_of_process(getpid(), &tids);
	assert_int_equal(n, 4);
	bool seen_main = false;
	for (long i = 0; i < n; i++)
		seen_main |= tids[i] == getpid();
	assert_true(seen_main);
	for (int k = 0; k < 3; k++) {
		bool found = false;
		for (long i = 0; i < n; i++)
			found |= tids[i] == thread_ids[k];
		assert_true(found);
	}
	free(tids);

	char thread[16], pid[16];
	snprintf(thread, sizeof(thread), "%d", (int)thread_ids[1]);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	FAILS(&record_cmd_tpoint, "-p", thread, "a:b"); /* a thread is not a process */
	struct record_opts o;
	struct record_args a;
	struct seen s;
	char *by_tid[] = { "tpoint", "-L", thread, "a:b", NULL };
	assert_int_equal(parse(&record_cmd_tpoint, &o, &a, &s, ARGC(by_tid), by_tid), 0);
	assert_int_equal(o.tid, thread_ids[1]);
	assert_int_equal(o.pid, 0);
	free(a.v);
	record_opts_free(&o);
	char *follow[] = { "tpoint", "--follow", "-p", pid, "a:b", NULL };
	assert_int_equal(parse(&record_cmd_tpoint, &o, &a, &s, ARGC(follow), follow), 0);
	assert_true(o.follow);
	assert_int_equal(o.pid, getpid());
	free(a.v);
	record_opts_free(&o);

	pthread_barrier_wait(&done);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(tasks_of_process(999999999, &tids), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_common_options),
		cmocka_unit_test(test_bundling_is_the_same),
		cmocka_unit_test(test_dashdash_ends_options),
		cmocka_unit_test(test_positional_duration),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_default_outputs),
		cmocka_unit_test(test_help_lists_every_option),
		cmocka_unit_test(test_help_wins),
		cmocka_unit_test(test_process_and_threads),
	};
	msg_set_prefix("ftrec (test)"); /* the refusals printed are ftrec's, as cmd_main would name them */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
