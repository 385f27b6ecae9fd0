/* SPDX-License-Identifier: MIT */
/*
 * test_report_kprobe.c - kprobe report on hand-made probe tables as `ftana db`
 * makes them from kprobe formats: an entry probe with a string argument, a
 * return probe with $retval, --probe selection and stacks; every fetch type printed
 * as the kernel's print format for it says (trace_probe.c's "0x%x", "%Lu", "%d",
 * "\"%s\"", "%pS", "'%c'"; expected texts worked out by hand from C's printf);
 * the slice (each hit by its own ts, cpu, pid); the JSON rows and probe_hits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "common/cmd.h"
#include "reports/args.h"
#include "tests/report_func_fixture.h"

static sqlite3 *probe_db(void)
{
	sqlite3 *db = fx_open();

	fx_exec(db, "INSERT INTO symbols VALUES (4096, 'do_sys_openat2', 't', NULL), (8192, 'ksys_read', 'T', NULL), "
		"(12288, '__x64_sys_read', 'T', NULL)");
	fx_exec(db, "INSERT INTO tasks VALUES (42, 42, 'workload')");
	fx_exec(db, "CREATE TABLE stacks (stack_id INTEGER NOT NULL, depth INTEGER NOT NULL, addr INTEGER NOT NULL, symbol TEXT, PRIMARY KEY (stack_id, depth)) WITHOUT ROWID");
	fx_exec(db, "INSERT INTO stacks VALUES (1, 0, 4096, 'do_sys_openat2'), (1, 1, 12300, '__x64_sys_openat+0x54')");
	fx_exec(db, "CREATE TABLE myopen(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, __probe_ip, path TEXT)");
	fx_exec(db, "INSERT INTO myopen VALUES (1, 1500000000, 1, 42, 1, 4096, '/etc/hostname')");
	fx_exec(db, "CREATE TABLE ksys_read(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
		"__probe_func, __probe_ret_ip, arg1)");
	fx_exec(db, "INSERT INTO ksys_read VALUES (2, 1600000000, 0, 42, NULL, 8192, 12298, 12345)");
	return db;
}

static void test_both_probes(void **state)
{
	sqlite3 *db = probe_db();
	char *out;
	char *argv[] = { "kprobe", NULL };

	assert_int_equal(fx_run("kprobe", db, &out, 1, argv), 0);
	/* the kernel's trace line for each hit, stacks below */
	assert_int_equal(fx_count_lines(out, "workload-42 [001] 1.500000: myopen: (do_sys_openat2+0x0) "
					"path=\"/etc/hostname\""), 1);
	assert_int_equal(fx_count_lines(out, "workload-42 [000] 1.600000: ksys_read: "
					"(__x64_sys_read+0xa <- ksys_read) arg1=12345"), 1);
	assert_int_equal(fx_count_lines(out, " => __x64_sys_openat+0x54"), 1);
	free(out);
	fx_close(db);
}

static void test_select_probe(void **state)
{
	sqlite3 *db = probe_db();
	char *out;
	char *one[] = { "kprobe", "--probe", "ksys_read", NULL };
	char *none[] = { "kprobe", "--probe", "nosuch", NULL };

	assert_int_equal(fx_run("kprobe", db, &out, 3, one), 0);
	assert_int_equal(fx_count_lines(out, "myopen"), 0);
	assert_int_equal(fx_count_lines(out, "arg1=12345"), 1);
	free(out);
	assert_int_equal(fx_run("kprobe", db, &out, 3, none), CMD_EXIT_ERROR);
	free(out);
	fx_close(db);
}

/*
 * One hit of an entry probe with one argument of each fetch type. The values are
 * stored as `ftana db` stores fields: a u64 as its signed 64-bit pattern, a signed
 * field sign-extended; s32_wide is a signed field stored unsigned (the printer cuts
 * every value to its field's size first, so both forms print the same).
 */
static sqlite3 *typed_db(void)
{
	sqlite3 *db = fx_open();
	static const char *const fields[][3] = {
		/* name, type, size:signed */
		{ "x8", "u8", "1;\tsigned:0" }, { "x16", "u16", "2;\tsigned:0" },
		{ "x32", "u32", "4;\tsigned:0" }, { "x64", "u64", "8;\tsigned:0" },
		{ "u64", "u64", "8;\tsigned:0" }, { "s32", "s32", "4;\tsigned:1" },
		{ "s32_wide", "s32", "4;\tsigned:1" }, { "s8", "s8", "1;\tsigned:1" },
		{ "u8", "u8", "1;\tsigned:0" }, { "path", "__data_loc char[]", "4;\tsigned:1" },
		{ "sym", "u64", "8;\tsigned:0" }, { "ch", "u8", "1;\tsigned:0" },
		{ "flt", "u32", "4;\tsigned:0" }, { "arr", "u32[2]", "8;\tsigned:0" },
	};
	char *format = sqlite3_mprintf("name: probe\nID: 2000\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
		"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n");

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		format = sqlite3_mprintf("%z\tfield:%s %s;\toffset:%d;\tsize:%s;\n", format,
					 fields[i][1], fields[i][0], (int)(16 + 8 * i), fields[i][2]);
	fx_exec(db, "INSERT INTO symbols VALUES (4096, 'do_sys_openat2', 't', NULL), (8192, 'ksys_read', 'T', NULL)");
	fx_exec(db, "INSERT INTO tasks VALUES (42, 42, 'workload')");
	fx_exec(db, "CREATE TABLE event_types(type_id, system, name, table_name, format, print_fmt, count)");
	/* print_fmt as the format file has it: C-string escapes (\") kept */
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO event_types VALUES (2000, 'kprobes', 'typed', "
					    "'typed', ?1, ?2, 1)", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, format, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, "(%lx) x8=0x%x x16=0x%x x32=0x%x x64=0x%Lx u64=%Lu s32=%d s32_wide=%d s8=%d "
			  "u8=%u path=\\\"%s\\\" sym=%pS ch='%c' flt=0x%x arr={0x%x,0x%x}", -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_free(format);
	fx_exec(db, "CREATE TABLE typed(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, __probe_ip, "
		"x8, x16, x32, x64, u64, s32, s32_wide, s8, u8, path, sym, ch, flt, arr)");
	fx_exec(db, "INSERT INTO typed VALUES (1, 1000, 0, 42, NULL, 4096, 255, 4660, 3735928559, -1, -2, "
		"-5, 4294967291, -1, 200, '/etc/passwd', 8195, 65, NULL, '{0x1,0x2}')");
	return db;
}

static void test_declared_types(void **state)
{
	sqlite3 *db = typed_db();
	char *out;
	char *argv[] = { "kprobe", NULL };

	assert_int_equal(fx_run("kprobe", db, &out, 1, argv), 0);
	/* x: hex with the kernel's 0x; u64 -1 - 1 unsigned; s32 stored either way -5;
	 * string quoted; symbol func+0xoff; char; a faulted fetch; an array as stored */
	const char *want = "workload-42 [000] 0.000001: typed: (do_sys_openat2+0x0) x8=0xff x16=0x1234 "
		"x32=0xdeadbeef x64=0xffffffffffffffff u64=18446744073709551614 s32=-5 s32_wide=-5 "
		"s8=-1 u8=200 path=\"/etc/passwd\" sym=ksys_read+0x3 ch='A' flt=(fault) arr=\"{0x1,0x2}\"";
	if (fx_count_lines(out, want) != 1)
		fail_msg("not in the output:\n%s\noutput:\n%s", want, out);
	free(out);
	/* the same text in the view `ftana sql` sees */
	assert_string_equal(fx_text(db, "SELECT args FROM probe_hits WHERE id = 1"),
			    strstr(want, "x8="));
	fx_close(db);
}

/*
 * Print formats the kernel would not make (a capture is untrusted input): a "%" at the
 * end of a spec, a conversion it never uses, a spec list shorter than the arguments.
 * Such an argument prints as stored; the others still by their spec.
 */
static void test_hostile_formats(void **state)
{
	static const char *const fmts[] = {
		"(%lx) a=% b=%q c=0x%x", "(%lx) a=0x%x", "no head at all", "(%lx) a=%n%n b=%s c=%",
	};
	static const char *const want[] = {
		"a=1 b=2 c=0x3", "a=1 b=2 c=3", "a=1 b=2 c=3", "a=1 b=2 c=3",
	};

	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		sqlite3 *db = fx_open();
		sqlite3_stmt *st;

		fx_exec(db, "CREATE TABLE event_types(type_id, system, name, table_name, format, print_fmt, count)");
		assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO event_types VALUES (1, 'kprobes', 'h', 'h', "
						    "'\tfield:u32 a;\toffset:16;\tsize:4;\tsigned:0;\n"
						    "\tfield:u32 b;\toffset:20;\tsize:4;\tsigned:0;\n"
						    "\tfield:u32 c;\toffset:24;\tsize:4;\tsigned:0;\n', ?1, 1)",
						    -1, &st, NULL), SQLITE_OK);
		sqlite3_bind_text(st, 1, fmts[i], -1, SQLITE_STATIC);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_finalize(st);
		fx_exec(db, "CREATE TABLE h(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, __probe_ip, a, b, c)");
		fx_exec(db, "INSERT INTO h VALUES (1, 1, 0, 1, NULL, 0, 1, 2, 3)");
		char *out, *argv[] = { "kprobe", NULL };
		assert_int_equal(fx_run("kprobe", db, &out, 1, argv), 0);
		free(out);
		const char *got = fx_text(db, "SELECT args FROM probe_hits");
		if (strcmp(got, want[i]))
			fail_msg("print fmt '%s': args '%s', want '%s'", fmts[i], got, want[i]);
		fx_close(db);
	}
}

/* Hits at 1, 2 and 3 s on CPUs 0/1 by pids 42 (process 42), 43 (its thread), 50,
 * 60 (ftrec's thread). */
static void test_slice_and_json(void **state)
{
	sqlite3 *db = probe_db();
	char *out;

	fx_exec(db, "INSERT INTO meta VALUES ('first_ts', '0'), ('ftrec_tids', '60')");
	fx_exec(db, "INSERT INTO tasks VALUES (43, 42, 'worker'), (50, 50, 'other'), (60, 60, 'ftrec')");
	fx_exec(db, "DELETE FROM myopen");
	fx_exec(db, "DELETE FROM ksys_read");
	fx_exec(db, "INSERT INTO myopen VALUES (1, 1000000000, 0, 42, NULL, 4096, 'a'), "
		"(3, 2000000000, 1, 43, NULL, 4096, 'b'), (5, 3000000000, 1, 60, NULL, 4096, 'c')");
	fx_exec(db, "INSERT INTO ksys_read VALUES (2, 1500000000, 0, 50, NULL, 8192, 12298, 7), "
		"(4, 2500000000, 1, 42, NULL, 8192, 12298, 8)");

	struct { char *argv[6]; int argc; const char *hits; } cases[] = {
		{ { "kprobe", "--json" }, 2, "abc78" },
		{ { "kprobe", "--json", "--include-ftrec" }, 3, "" },
		{ { "kprobe", "--json", "--since", "1.5", "--until", "2.5" }, 6, "" },
		{ { "kprobe", "--json", "-p", "42" }, 4, "" },
		{ { "kprobe", "--json", "--cpu", "1" }, 4, "" },
		{ { "kprobe", "--json", "-L", "42", "--probe", "ksys_read" }, 6, "" },
	};
	/* which hits each run shows, by path or return value */
	const char *want[] = { "\"a\" 7 \"b\" 8", "\"a\" 7 \"b\" 8 \"c\"", "7 \"b\"", "\"a\" \"b\" 8", "\"b\" 8",
			       "8" };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(fx_run("kprobe", db, &out, cases[i].argc, cases[i].argv), 0);
		char got[128] = "";
		/* each row's args value: path=\"x\" or arg1=N */
		for (const char *p = out; (p = strstr(p, "\"args\":\"")); p += 8) {
			const char *v = strchr(p + 8, '=') + 1;
			size_t n = strcspn(v, ",}") - 1; /* up to the closing quote of args */
			char one[32];

			snprintf(one, sizeof(one), "%.*s", (int)n, v);
			/* JSON escapes the quotes: \"a\" -> "a" */
			char clean[32], *c = clean;
			for (const char *q = one; *q; q++)
				if (*q != '\\')
					*c++ = *q;
			*c = 0;
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", *got ? " " : "", clean);
		}
		if (strcmp(got, want[i]))
			fail_msg("case %zu: hits '%s', want '%s' in:\n%s", i, got, want[i], out);
		free(out);
	}
	/* the JSON row: every column under its snake_case key */
	char *json[] = { "kprobe", "--json", "--probe", "ksys_read", "-p", "50", NULL };
	assert_int_equal(fx_run("kprobe", db, &out, 6, json), 0);
	assert_non_null(strstr(out, "{\"ts_s\":1.5,\"cpu\":0,\"pid\":50,\"comm\":\"other\",\"probe\":\"ksys_read\","
				    "\"func\":\"__x64_sys_read+0xa <- ksys_read\",\"args\":\"arg1=7\",\"stack\":null}"));
	free(out);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM probe_hits"), 5);
	fx_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_both_probes),
		cmocka_unit_test(test_select_probe),
		cmocka_unit_test(test_declared_types),
		cmocka_unit_test(test_hostile_formats),
		cmocka_unit_test(test_slice_and_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
