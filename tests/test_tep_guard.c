// SPDX-License-Identifier: MIT
/*
 * test_tep_guard.c - libtraceevent on text from the file cannot crash ftana
 * (decode/tep_guard.c, its use in decode_meta.c and report_tpoint.c).
 *
 * First the guard alone: steps that segfault, divide by zero, hang or exit are
 * run by no one but a child, the others run once in the parent, in order. Then
 * printk_formats lines of every malformed kind (under ASan: libtraceevent's
 * string functions are intercepted, so a read outside a string fails the test).
 * Then captures written by tests/capture_builder.h whose formats carry the print
 * fmt texts that kill libtraceevent (each reproduced against libtraceevent alone
 * first: `__print_symbolic(REC->nosuch, ...)`, `sizeof(`, `1/0` kill
 * tep_parse_event; `REC->x / 0`, a huge __print_hex length kill tep_print_event,
 * a `%*d` width of 2^31 hangs it), plus normal events: `ftana db` imports every
 * event with its fields, warns once per bad type; `ftana report tpoint` prints
 * every event in order (the bad ones as name=value from the bytes this file
 * wrote) and exits 0.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "decode/tep_guard.h"
#include "tests/capture_builder.h"

static char dir[64];

/* ---------------------------------------------------------------- the guard alone */

static int ran[10], order[10], nr_order;

static int hostile_step(void *ctx, size_t i)
{
	switch (i) {
	case 2: raise(SIGSEGV); break;
	case 4: raise(SIGFPE); break;
	case 6: for (volatile unsigned spin = 0;; spin++) ; /* the watchdog must end it */
	case 8: _exit(7);
	}
	ran[i]++;
	order[nr_order++] = (int)i;
	return (int)i * 10;
}

static void test_guarded_steps(void **state)
{
	int result[10];
	struct tep_guard_death deaths[10];
	char how[32];

	memset(deaths, 0, sizeof(deaths));
	assert_int_equal(tep_guard_guarded_steps(10, hostile_step, NULL, result, deaths), 0);
	for (int i = 0; i < 10; i++) {
		bool bad = i == 2 || i == 4 || i == 6 || i == 8;

		/* the parent ran each survivor exactly once, never a killer */
		assert_int_equal(ran[i], bad ? 0 : 1);
		assert_int_equal(result[i], bad ? TEP_GUARD_STEP_CRASHED : i * 10);
	}
	assert_string_equal(tep_guard_death_text(&deaths[2], how, sizeof(how)), "SIGSEGV");
	assert_string_equal(tep_guard_death_text(&deaths[4], how, sizeof(how)), "SIGFPE");
	assert_string_equal(tep_guard_death_text(&deaths[6], how, sizeof(how)), "a hang");
	assert_string_equal(tep_guard_death_text(&deaths[8], how, sizeof(how)), "exit 7");
	int expect[] = { 0, 1, 3, 5, 7, 9 };
	assert_int_equal(nr_order, 6);
	assert_memory_equal(order, expect, sizeof(expect));
}

static int survive_ok(void *ctx) { return 0; }
static int survive_refuses(void *ctx) { return -1; }
static int survive_crashes(void *ctx) { return raise(SIGBUS); }
static int survive_killed(void *ctx) { return raise(SIGTERM); }

static void test_survives(void **state)
{
	struct tep_guard_death why;
	char how[32];

	assert_int_equal(tep_guard_survives(survive_ok, NULL, &why), 0);
	assert_int_equal(tep_guard_survives(survive_refuses, NULL, &why), 1);
	assert_string_equal(tep_guard_death_text(&why, how, sizeof(how)), "exit 1");
	assert_int_equal(tep_guard_survives(survive_crashes, NULL, &why), 1);
	assert_string_equal(tep_guard_death_text(&why, how, sizeof(how)), "SIGBUS");
	/* killed from outside (Ctrl-C, kill): interrupted, no one's fault */
	assert_int_equal(tep_guard_survives(survive_killed, NULL, &why), -EINTR);
}

/* ---------------------------------------------------------------- printk_formats */

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

#define PTR_FORMAT "name: ptr\nID: 300\n" CB_COMMON("4") \
	"\tfield:unsigned long fmt;\toffset:8;\tsize:8;\tsigned:0;\n\n" \
	"print fmt: \"%s\", REC->fmt\n"

/* What libtraceevent prints for a record whose fmt field holds ADDR. */
static void print_ptr(struct tep_handle *tep, unsigned long long addr, char *out, size_t len)
{
	uint8_t data[16] = { 44, 1 }; /* common_type 300 */
	struct tep_record rec = { .data = data, .size = sizeof(data) };
	struct trace_seq s;

	memcpy(data + 8, &addr, 8);
	trace_seq_init(&s);
	tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	snprintf(out, len, "%s", s.buffer);
	trace_seq_destroy(&s);
}

static void test_printk_formats(void **state)
{
	/* each malformed kind, and kernel lines libtraceevent's own reader mishandles:
	 * strings of 0, 1 and 2 characters */
	static const char text[] =
		"0xffffffff81000000 : \"ok %d\\n\"\n"
		"0xffffffff81000010 : \"\"\n"
		"0xffffffff81000020 : \"a\"\n"
		"0xffffffff81000030 : \"ab\"\n"
		"ffffffff81000040 : \"no 0x\"\n"
		"0xffffffff81000050 : \"unterminated\n"
		"0xffffffff81000060 :\n"
		"0xffffffff81000070\n"
		": \"no address\"\n"
		"garbage line without colon\n"
		"0x11112222333344445 : \"17 digits\"\n"
		"0xffffffff81000080 : \"";
	struct tep_handle *tep = tep_alloc();
	char buf[256];

	assert_non_null(tep);
	tep_set_long_size(tep, 8);
	assert_int_equal(tep_parse_header_page(tep, (char *)header_page, strlen(header_page), 8), 0);
	assert_int_equal(tep_parse_event(tep, PTR_FORMAT, strlen(PTR_FORMAT), "test"), 0);
	assert_int_equal(tep_guard_register_printk_formats(tep, text), 7);
	print_ptr(tep, 0xffffffff81000000ull, buf, sizeof(buf));
	assert_string_equal(buf, "ok %d"); /* its "\n" dropped, as the kernel's trace does */
	print_ptr(tep, 0xffffffff81000010ull, buf, sizeof(buf));
	assert_string_equal(buf, "");
	print_ptr(tep, 0xffffffff81000020ull, buf, sizeof(buf));
	assert_string_equal(buf, "a");
	print_ptr(tep, 0xffffffff81000030ull, buf, sizeof(buf));
	assert_string_equal(buf, "ab");
	print_ptr(tep, 0xffffffff81000040ull, buf, sizeof(buf));
	assert_string_equal(buf, "no 0x");
	/* dropped lines registered nothing: the address is printed */
	print_ptr(tep, 0xffffffff81000050ull, buf, sizeof(buf));
	assert_string_equal(buf, "ffffffff81000050");
	print_ptr(tep, 0xffffffff81000080ull, buf, sizeof(buf));
	assert_string_equal(buf, "ffffffff81000080");
	tep_free(tep);
}

/* ---------------------------------------------------------------- captures, through ftana */

#define XY_FORMAT(name, id, print_fmt) \
	"name: " name "\nID: " id "\n" CB_COMMON("4") \
	"\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n" \
	"\tfield:int y;\toffset:12;\tsize:4;\tsigned:1;\n" \
	"\tfield:char s[8];\toffset:16;\tsize:8;\tsigned:0;\n\n" \
	"print fmt: " print_fmt "\n"

struct bad_type {
	const char *name;
	uint16_t id;
	const char *format;
	const char *warning; /* what ftana says, once */
};

#define NORMAL_ID 100
static const char normal_format[] = XY_FORMAT("normal", "100", "\"x=%d y=%d s=%s\", REC->x, REC->y, REC->s");

static const struct bad_type bad_types[] = {
	/* kill tep_parse_event: the event keeps its fields without its print fmt */
	{ "p_symbolic", 101, XY_FORMAT("p_symbolic", "101", "\"%s\", __print_symbolic(REC->nosuch, { 0, \"a\" })"),
	  "event test:p_symbolic: its print fmt crashes libtraceevent (SIGSEGV)" },
	{ "p_sizeof", 102, XY_FORMAT("p_sizeof", "102", "\"%d\", sizeof("),
	  "event test:p_sizeof: its print fmt crashes libtraceevent (SIGSEGV)" },
	{ "p_div", 103, XY_FORMAT("p_div", "103", "\"%d\", 1/0"),
	  "event test:p_div: its print fmt crashes libtraceevent (SIGFPE)" },
	/* kill (or hang) tep_print_event */
	{ "r_div", 104, XY_FORMAT("r_div", "104", "\"%d\", REC->x / 0"),
	  "event test:r_div: printing it crashes libtraceevent (SIGFPE); printed as its fields" },
	{ "r_hex", 105, XY_FORMAT("r_hex", "105", "\"%s\", __print_hex(REC->s, 100000000)"),
	  "event test:r_hex: printing it crashes libtraceevent (SIGSEGV); printed as its fields" },
	{ "r_hang", 106, XY_FORMAT("r_hang", "106", "\"%*d\", 2000000000, REC->x"),
	  "event test:r_hang: printing it crashes libtraceevent (a hang); printed as its fields" },
};
#define NR_BAD (sizeof(bad_types) / sizeof(bad_types[0]))
#define ROUNDS 3

static void put_xy(uint8_t *r, int32_t x)
{
	int32_t y = 7;

	memcpy(r + 8, &x, 4);
	memcpy(r + 12, &y, 4);
	memcpy(r + 16, "abc\0\0\0\0\0", 8);
}

/* ROUNDS times: a normal event (x = round), then one of each bad type (x = 10 *
 * round + its index): the second round must cost no warning and no fork. */
static int write_hostile_capture(const char *path)
{
	struct cb_capture *c = cb_open(path);

	if (!c)
		return -1;
	cb_format(c, "test", "normal", normal_format);
	for (size_t i = 0; i < NR_BAD; i++)
		cb_format(c, "test", bad_types[i].name, bad_types[i].format);
	for (int round = 0; round < ROUNDS; round++) {
		put_xy(cb_record(c, NORMAL_ID, 4242, 24), round);
		for (size_t i = 0; i < NR_BAD; i++)
			put_xy(cb_record(c, bad_types[i].id, 4242, 24), 10 * round + (int)i);
	}
	return cb_close(c);
}

/* Run `$FTANA ARGS`, stdout and stderr into buffers; returns the exit status
 * (128 + signal when killed). */
static int run_ftana(char *out, size_t outlen, char *err, size_t errlen, const char *fmt, ...)
{
	char args[1024], cmd[2048], outfile[128], errfile[128];
	va_list ap;
	int st;
	FILE *f;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(outfile, sizeof(outfile), "%s/out.txt", dir);
	snprintf(errfile, sizeof(errfile), "%s/err.txt", dir);
	snprintf(cmd, sizeof(cmd), "%s %s >%s 2>%s", getenv("FTANA"), args, outfile, errfile);
	st = system(cmd);
	f = fopen(outfile, "r");
	n = f ? fread(out, 1, outlen - 1, f) : 0;
	out[n] = '\0';
	if (f)
		fclose(f);
	f = fopen(errfile, "r");
	n = f ? fread(err, 1, errlen - 1, f) : 0;
	err[n] = '\0';
	if (f)
		fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int count(const char *text, const char *what)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void need_ftana(void)
{
	if (!getenv("FTANA")) {
		print_message("FTANA not set (run through tests/run.sh): these checks need the binary\n");
		fail();
	}
}

static void test_db(void **state)
{
	static char out[1 << 16], err[1 << 16];
	char ftz[128];

	need_ftana();
	snprintf(ftz, sizeof(ftz), "%s/db.ftz", dir);
	assert_int_equal(write_hostile_capture(ftz), 0);
	assert_int_equal(run_ftana(out, sizeof(out), err, sizeof(err), "db %s -o %s/db.db", ftz, dir), 0);
	/* one warning per type that crashed the parser, nothing else */
	for (size_t i = 0; i < NR_BAD; i++)
		assert_int_equal(count(err, bad_types[i].warning), bad_types[i].id < 104 ? 1 : 0);
	assert_int_equal(count_lines(err), 3);
	/* every event imported, the bad types with their fields */
	assert_int_equal(run_ftana(out, sizeof(out), err, sizeof(err),
				   "sql %s/db.db 'select count(*) from events' --csv", dir), 0);
	assert_int_equal(atoi(strchr(out, '\n') + 1), ROUNDS * (1 + NR_BAD));
	for (size_t i = 0; i < NR_BAD; i++) {
		assert_int_equal(run_ftana(out, sizeof(out), err, sizeof(err),
					   "sql %s/db.db \"select group_concat(x || '/' || y, ' ') from "
					   "(select x, y from %s order by ts)\" --csv", dir,
					   bad_types[i].name), 0);
		char want[64];
		snprintf(want, sizeof(want), "%zu/7 %zu/7 %zu/7", i, 10 + i, 20 + i);
		assert_non_null(strstr(out, want));
	}
}

/* tpoint prints every event in order: the normal ones by their print fmt, the bad
 * ones as name=value from the bytes written; one warning per bad type. */
static void test_tpoint(void **state)
{
	static char out[1 << 16], err[1 << 16];
	char ftz[128], want[128];
	const char *p;

	need_ftana();
	snprintf(ftz, sizeof(ftz), "%s/tpoint.ftz", dir);
	assert_int_equal(write_hostile_capture(ftz), 0);
	assert_int_equal(run_ftana(out, sizeof(out), err, sizeof(err), "report tpoint %s", ftz), 0);
	p = out;
	for (int round = 0; round < ROUNDS; round++) {
		snprintf(want, sizeof(want), ": normal: x=%d y=7 s=abc\n", round);
		p = strstr(p, want);
		assert_non_null(p);
		for (size_t i = 0; i < NR_BAD; i++) {
			snprintf(want, sizeof(want), ": %s: x=%zu y=7 s=abc\n", bad_types[i].name,
				 10 * round + i);
			p = strstr(p, want);
			if (!p)
				print_error("missing, or out of order: %s\nstdout:\n%s\nstderr:\n%s", want,
					    out, err);
			assert_non_null(p);
		}
	}
	assert_int_equal(count(out, "-4242 "), ROUNDS * (1 + NR_BAD));
	for (size_t i = 0; i < NR_BAD; i++)
		assert_int_equal(count(err, bad_types[i].warning), 1);
	assert_int_equal(count_lines(err), NR_BAD);
}

/*
 * A crash after more text than any stdio buffer holds: every line exactly once,
 * in order (text out before the crash is not printed again, none is lost).
 */
static void test_tpoint_long(void **state)
{
	static char out[1 << 17], err[1 << 16];
	enum { BEFORE = 300, AFTER = 300 };
	char ftz[128], want[128];
	struct cb_capture *c;
	const char *p;

	need_ftana();
	snprintf(ftz, sizeof(ftz), "%s/long.ftz", dir);
	c = cb_open(ftz);
	assert_non_null(c);
	cb_format(c, "test", "normal", normal_format);
	cb_format(c, "test", "r_div", bad_types[3].format);
	for (int i = 0; i < BEFORE; i++)
		put_xy(cb_record(c, NORMAL_ID, 4242, 24), i);
	put_xy(cb_record(c, bad_types[3].id, 4242, 24), 100000);
	for (int i = BEFORE; i < BEFORE + AFTER; i++)
		put_xy(cb_record(c, NORMAL_ID, 4242, 24), i);
	assert_int_equal(cb_close(c), 0);
	assert_int_equal(run_ftana(out, sizeof(out), err, sizeof(err), "report tpoint %s", ftz), 0);
	assert_int_equal(count_lines(out), BEFORE + 1 + AFTER);
	p = out;
	for (int i = 0; i < BEFORE + AFTER; i++) {
		if (i == BEFORE) {
			p = strstr(p, ": r_div: x=100000 y=7 s=abc\n");
			assert_non_null(p);
		}
		snprintf(want, sizeof(want), ": normal: x=%d y=7 s=abc\n", i);
		p = strstr(p, want);
		assert_non_null(p);
	}
	assert_int_equal(count(err, bad_types[3].warning), 1);
}

/*
 * libtraceevent reads every record's pid and flags where the format of the event
 * with the lowest ID says they are: here far outside any record. Its line header
 * then crashes too, and the events are printed by ftana alone (two warnings).
 */
static void test_header_crash(void **state)
{
	static char out[1 << 16], err[1 << 16];
	static const char low_format[] =
		"name: low\nID: 50\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:1000000000;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:1000000001;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:1000000004;\tsize:4;\tsigned:1;\n\n"
		"\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
		"print fmt: \"x=%d\", REC->x\n";
	char ftz[128], want[128];
	struct cb_capture *c;
	const char *p;

	need_ftana();
	snprintf(ftz, sizeof(ftz), "%s/header.ftz", dir);
	c = cb_open(ftz);
	assert_non_null(c);
	cb_format(c, "test", "low", low_format);
	cb_format(c, "test", "normal", normal_format);
	for (int i = 0; i < ROUNDS; i++)
		put_xy(cb_record(c, NORMAL_ID, 4242, 24), i);
	assert_int_equal(cb_close(c), 0);
	assert_int_equal(run_ftana(out, sizeof(out), err, sizeof(err), "report tpoint %s", ftz), 0);
	p = out;
	for (int i = 0; i < ROUNDS; i++) {
		/* no latency column: ftana does not read the flags libtraceevent crashed on */
		snprintf(want, sizeof(want), "<...>-4242    [000]      0.00100%d: normal: x=%d y=7 s=abc\n",
			 i + 1, i);
		p = strstr(p, want);
		if (!p)
			print_error("missing: %s\nstdout:\n%s\nstderr:\n%s", want, out, err);
		assert_non_null(p);
	}
	assert_int_equal(count(err, "event test:normal: printing it crashes libtraceevent (SIGSEGV); "
			      "printed as its fields"), 1);
	assert_int_equal(count(err, "event test:normal: printing its line header crashes "
			      "libtraceevent (SIGSEGV); printed by ftana alone"), 1);
}

static int group_setup(void **state)
{
	strcpy(dir, "/tmp/test_tep_guard.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return getenv("KEEP") ? 0 : system(cmd) ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guarded_steps),
		cmocka_unit_test(test_survives),
		cmocka_unit_test(test_printk_formats),
		cmocka_unit_test(test_db),
		cmocka_unit_test(test_tpoint),
		cmocka_unit_test(test_tpoint_long),
		cmocka_unit_test(test_header_crash),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
