/* SPDX-License-Identifier: MIT */
/*
 * test_report_snoop.c - the triage reports' SQL on hand-made rows whose answer is known
 * by construction (reports/snoop.c, schema/reports/{syscount,opensnoop,execsnoop,
 * killsnoop,bitesize}.sql): syscall entries paired with their exits per thread (a loss
 * between them, a call that never returns, an exit without its entry, threads
 * interleaved), syscall names from event_types even when the table was renamed or the
 * name is hostile, an event table renamed after its system, errno names; open flags decoded on x86_64 and left hex on aarch64;
 * open paths from the probe hit of the same thread inside the call (threads interleaved,
 * a hit without a call, a call without its exit, openat2, a hostile path in CSV and JSON);
 * exec parents, exit codes and ends; signal results and names per architecture; I/O
 * size buckets (-D one disk); iolatency's intervals per disk; each report's CSV through the front end.
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
#include "reports/snoop.h"
#include "tests/report_func_fixture.h"

static int next_id;
static int next_type = 1000;

/* fx_exec with SQLite's own conversions (%Q, %w): names here hold quotes on purpose. */
static void sql_exec(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;
	char *err = NULL;

	va_start(ap, fmt);
	char *sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err);
	sqlite3_free(sql);
}

static sqlite3 *snoop_db(const char *machine)
{
	sqlite3 *db = fx_open();

	next_id = 0;
	fx_exec(db, "CREATE TABLE event_types (type_id INTEGER PRIMARY KEY, system TEXT NOT NULL, "
		"name TEXT NOT NULL, table_name TEXT, format TEXT, print_fmt TEXT, count INTEGER NOT NULL)");
	fx_exec(db, "CREATE TABLE lost_events (cpu INTEGER NOT NULL, ts INTEGER, count INTEGER)");
	sql_exec(db, "INSERT INTO meta VALUES ('uname_machine', %Q)", machine);
	return db;
}

/* A syscall event table named TABLE for syscalls:NAME (enter: ARGS columns; exit: ret). */
static void sys_table(sqlite3 *db, const char *name, const char *table, const char *args)
{
	sql_exec(db, "CREATE TABLE \"%w\" (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, __syscall_nr%s%s)",
		table, *args ? ", " : "", args);
	sql_exec(db, "INSERT INTO event_types VALUES (%d, 'syscalls', %Q, %Q, '', '', 0)", next_type++,
		name, table);
}

static int ev(sqlite3 *db, const char *table, long long ts, int tid, const char *values)
{
	int id = ++next_id;

	sql_exec(db, "INSERT INTO \"%w\" VALUES (%d, %lld, 0, %d, NULL%s%s)", table, id, ts, tid,
		*values ? ", " : "", values);
	return id;
}

/* A syscall event: its __syscall_nr (0 here: nothing reads it), then VALUES. */
static int sys_ev(sqlite3 *db, const char *table, long long ts, int tid, const char *values)
{
	char v[256];

	snprintf(v, sizeof(v), "0%s%s", *values ? ", " : "", values);
	return ev(db, table, ts, tid, v);
}

static void sys_db_tables(sqlite3 *db)
{
	sys_table(db, "sys_enter_getppid", "sys_enter_getppid", "");
	sys_table(db, "sys_exit_getppid", "sys_exit_getppid", "ret");
	/* a table the importer renamed (another system has an event of that name) */
	sys_table(db, "sys_enter_read", "syscalls_sys_enter_read", "fd, buf, count");
	sys_table(db, "sys_exit_read", "syscalls_sys_exit_read", "ret");
	sys_table(db, "sys_enter_exit_group", "sys_enter_exit_group", "error_code");
	sys_table(db, "sys_enter_openat", "sys_enter_openat", "dfd, filename, flags, mode");
	sys_table(db, "sys_exit_openat", "sys_exit_openat", "ret");
	/* a hostile name: quotes in both the event's name and its table's */
	sys_table(db, "sys_enter_a'b\"c", "t'x\"", "");
	sys_table(db, "sys_exit_a'b\"c", "t'y\"", "ret");
	fx_exec(db, "INSERT INTO tasks VALUES (10, 10, 'ten'), (11, 10, 'ten'), (12, 12, 'twelve')");
}

static void test_syscall_pairing(void **state)
{
	(void)state;
	sqlite3 *db = snoop_db("x86_64");

	sys_db_tables(db);
	int a = sys_ev(db, "sys_enter_getppid", 100, 10, "");
	int b = sys_ev(db, "syscalls_sys_enter_read", 110, 11, "3, 0, 4096");  /* interleaved thread */
	sys_ev(db, "sys_exit_getppid", 150, 10, "9");
	int c = sys_ev(db, "sys_enter_getppid", 200, 10, "");
	sys_ev(db, "syscalls_sys_exit_read", 260, 11, "-11");                    /* EAGAIN */
	sys_ev(db, "sys_exit_getppid", 300, 10, "9");
	int d = sys_ev(db, "syscalls_sys_enter_read", 400, 11, "3, 0, 1");
	fx_exec(db, "INSERT INTO lost_events VALUES (1, 450, 7)");            /* between d and its exit */
	sys_ev(db, "syscalls_sys_exit_read", 500, 11, "1");
	sys_ev(db, "sys_exit_openat", 510, 12, "4");                              /* no entry: left out */
	int e = sys_ev(db, "sys_enter_exit_group", 600, 12, "3");                 /* never returns */
	int f = sys_ev(db, "t'x\"", 700, 12, "");
	sys_ev(db, "t'y\"", 705, 12, "-4095");
	int g = sys_ev(db, "sys_enter_getppid", 800, 12, "");
	sys_ev(db, "syscalls_sys_exit_read", 900, 12, "0");                       /* another syscall's exit */

	assert_int_equal(snoop_views(db), 0);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM syscall_calls"), 7);
	assert_int_equal(fx_int(db, "SELECT dur_ns FROM syscall_calls WHERE id = %d", a), 50);
	assert_int_equal(fx_int(db, "SELECT dur_ns FROM syscall_calls WHERE id = %d", c), 100);
	assert_string_equal(fx_text(db, "SELECT syscall || ' ' || pid || ' ' || tid || ' ' || error "
			    "FROM syscall_calls WHERE id = %d", b), "read 10 11 EAGAIN");
	assert_int_equal(fx_int(db, "SELECT exit_id IS NULL FROM syscall_calls WHERE id = %d", d), 1);
	assert_int_equal(fx_int(db, "SELECT exit_id IS NULL FROM syscall_calls WHERE id = %d", e), 1);
	assert_string_equal(fx_text(db, "SELECT syscall || ' ' || error FROM syscall_calls WHERE id = %d", f),
			    "a'b\"c errno 4095");
	assert_int_equal(fx_int(db, "SELECT exit_id IS NULL FROM syscall_calls WHERE id = %d", g), 1);

	char *out, *err;
	char *by_syscall[] = { "syscount", "--csv" };
	assert_int_equal(fx_run_io("syscount", db, &out, &err, 2, by_syscall), 0);
	assert_int_equal(fx_count_lines(err, "warning: the capture lost 7 events"), 1);
	free(err);
	assert_non_null(strstr(out, "getppid,3,0,0.00015,0.075,1\n"));
	assert_non_null(strstr(out, "read,2,1,0.00015,0.15,1\n"));
	assert_non_null(strstr(out, "exit_group,1,0,,,1\n"));
	free(out);
	char *by_process[] = { "syscount", "--by", "process", "-x", "--csv" };
	assert_int_equal(fx_run_io("syscount", db, &out, &err, 5, by_process), 0);
	free(err);
	assert_string_equal(out, "pid,comm,calls,errors,total_ms,avg_us,unpaired\n"
			    "10,ten,1,1,0.00015,0.15,0\n12,twelve,1,1,5.0e-06,0.005,0\n");
	free(out);
	char *one_thread[] = { "syscount", "-L", "11", "--csv" };
	assert_int_equal(fx_run_io("syscount", db, &out, &err, 4, one_thread), 0);
	free(err);
	assert_string_equal(out, "syscall,calls,errors,total_ms,avg_us,unpaired\nread,2,1,0.00015,0.15,1\n");
	free(out);
	fx_close(db);
}

static void test_open_flags(void **state)
{
	(void)state;
	for (int arch = 0; arch < 2; arch++) {
		sqlite3 *db = snoop_db(arch ? "aarch64" : "x86_64");

		sys_db_tables(db);
		/* AT_FDCWD in an 8-byte slot, its upper half zero; flags with an unnamed bit 1 << 30 */
		sys_ev(db, "sys_enter_openat", 100, 10, "4294967196, 140000, 1074332225, 420");
		sys_ev(db, "sys_exit_openat", 110, 10, "-2");
		sys_ev(db, "sys_enter_openat", 200, 10, "7, 'a\"b', 0, 0");
		sys_ev(db, "sys_exit_openat", 210, 10, "5");
		assert_int_equal(snoop_views(db), 0);
		/* 1074332225 = 1 << 30 | O_CLOEXEC | O_DIRECTORY | O_TRUNC | O_CREAT | O_WRONLY */
		assert_string_equal(fx_text(db, "SELECT flags FROM opens WHERE ts = 100"),
				    arch ? "0x40090241" : "O_WRONLY|O_CREAT|O_TRUNC|O_DIRECTORY|O_CLOEXEC|0x40000000");
		assert_string_equal(fx_text(db, "SELECT dirfd || ' ' || error || ' ' || filename_addr FROM opens WHERE ts = 100"),
				    "AT_FDCWD ENOENT 0x222e0");
		assert_string_equal(fx_text(db, "SELECT dirfd || ' ' || fd || ' ' || path FROM opens WHERE ts = 200"),
				    "7 5 a\"b");
		fx_close(db);
	}
}

/* The kprobe of `ftrec triage --syscalls`, as ftana imports it (system ftrec_<pid>). */
static void open_path_table(sqlite3 *db)
{
	fx_exec(db, "CREATE TABLE ftrec_open_path (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
		"__probe_ip, path)");
	sql_exec(db, "INSERT INTO event_types VALUES (%d, 'ftrec_4242', 'ftrec_open_path', "
		"'ftrec_open_path', '', '', 0)", next_type++);
}

static int probe_hit(sqlite3 *db, long long ts, int tid, const char *path)
{
	char v[256];

	sqlite3_snprintf(sizeof(v), v, "1234, %Q", path);
	return ev(db, "ftrec_open_path", ts, tid, v);
}

/*
 * The open's path from the probe hit of its own thread between its entry and exit:
 * two threads interleaved (each hit lands after the other thread's entry), a hit
 * without a syscall, a call without a hit, a call without its exit, a hostile path.
 */
static void test_open_probe_paths(void **state)
{
	(void)state;
	static const char hostile[] = "/q\"u,o\nte\\x\tend";
	sqlite3 *db = snoop_db("x86_64");

	sys_db_tables(db);
	open_path_table(db);
	int a = sys_ev(db, "sys_enter_openat", 100, 10, "4294967196, 4096, 0, 0");
	int b = sys_ev(db, "sys_enter_openat", 105, 11, "4294967196, 8192, 0, 0");
	probe_hit(db, 106, 11, "/bee");
	probe_hit(db, 107, 10, "/a");
	sys_ev(db, "sys_exit_openat", 110, 10, "3");
	sys_ev(db, "sys_exit_openat", 112, 11, "-2");
	probe_hit(db, 120, 12, "/orphan");                 /* no syscall of its thread around it */
	int c = sys_ev(db, "sys_enter_openat", 130, 10, "4294967196, 4096, 0, 0");
	probe_hit(db, 131, 10, hostile);
	sys_ev(db, "sys_exit_openat", 140, 10, "4");
	int d = sys_ev(db, "sys_enter_openat", 150, 12, "4294967196, 4096, 0, 0"); /* no hit */
	sys_ev(db, "sys_exit_openat", 160, 12, "5");
	int e = sys_ev(db, "sys_enter_openat", 170, 10, "4294967196, 4096, 0, 0"); /* no exit */
	probe_hit(db, 171, 10, "/lost");
	sys_table(db, "sys_enter_openat2", "sys_enter_openat2", "dfd, filename, how, usize");
	sys_table(db, "sys_exit_openat2", "sys_exit_openat2", "ret");
	int f = sys_ev(db, "sys_enter_openat2", 180, 12, "7, 12288, 5555, 24");
	probe_hit(db, 181, 12, "/two");
	sys_ev(db, "sys_exit_openat2", 182, 12, "6");
	/* the kernel could not read the name (its page not resident): no path, not "(fault)" */
	int g = sys_ev(db, "sys_enter_openat", 190, 12, "4294967196, 4096, 0, 0");
	probe_hit(db, 191, 12, "(fault)");
	sys_ev(db, "sys_exit_openat", 192, 12, "8");

	assert_int_equal(snoop_views(db), 0);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM opens"), 7);
	assert_int_equal(fx_int(db, "SELECT path IS NULL AND fd = 8 FROM opens WHERE id = %d", g), 1);
	/* openat2: its flags are in the struct it points to, not in the event */
	assert_string_equal(fx_text(db, "SELECT syscall || ' ' || dirfd || ' ' || path || ' ' || fd || ' ' || "
			    "(flags IS NULL) FROM opens WHERE id = %d", f), "openat2 7 /two 6 1");
	assert_string_equal(fx_text(db, "SELECT path || ' ' || fd FROM opens WHERE id = %d", a), "/a 3");
	assert_string_equal(fx_text(db, "SELECT path || ' ' || error || ' ' || filename_addr FROM opens "
			    "WHERE id = %d", b), "/bee ENOENT 0x2000");
	assert_string_equal(fx_text(db, "SELECT path FROM opens WHERE id = %d", c), hostile);
	assert_int_equal(fx_int(db, "SELECT path IS NULL AND fd = 5 FROM opens WHERE id = %d", d), 1);
	assert_int_equal(fx_int(db, "SELECT path IS NULL AND exit_id IS NULL FROM opens WHERE id = %d", e), 1);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM opens WHERE path = '/orphan' OR path = '/lost'"), 0);

	char *out, *err;
	char *csv[] = { "opensnoop", "--csv" };
	assert_int_equal(fx_run_io("opensnoop", db, &out, &err, 2, csv), 0);
	assert_int_equal(fx_count_lines(err, "warning: 3 opens without a path"), 1);
	free(err);
	assert_non_null(strstr(out, ",10,10,ten,openat,AT_FDCWD,/a,0x1000,O_RDONLY,3,,"));
	assert_non_null(strstr(out, ",10,11,ten,openat,AT_FDCWD,/bee,0x2000,O_RDONLY,,ENOENT,"));
	/* RFC 4180: the field quoted, its quote doubled, the newline kept inside */
	assert_non_null(strstr(out, ",\"/q\"\"u,o\nte\\x\tend\",0x1000,O_RDONLY,4,,"));
	assert_null(strstr(out, "orphan"));
	free(out);
	char *json[] = { "opensnoop", "--json" };
	assert_int_equal(fx_run_io("opensnoop", db, &out, &err, 2, json), 0);
	free(err);
	assert_non_null(strstr(out, "\"/q\\\"u,o\\nte\\\\x\\tend\""));
	free(out);
	/* thread 11 alone: every open has its path, so no warning */
	char *one[] = { "opensnoop", "-L", "11", "--csv" };
	assert_int_equal(fx_run_io("opensnoop", db, &out, &err, 4, one), 0);
	assert_int_equal(fx_count_lines(err, "without a path"), 0);
	assert_int_equal(fx_count_lines(out, "/bee"), 1);
	free(err);
	free(out);
	fx_close(db);
}

static void exec_tables(sqlite3 *db)
{
	fx_exec(db, "CREATE TABLE sched_process_exec (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
		"filename, field_pid, old_pid)");
	fx_exec(db, "CREATE TABLE sched_process_fork (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
		"parent_comm, parent_pid, child_comm, child_pid)");
	fx_exec(db, "CREATE TABLE sched_process_exit (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
		"comm, field_pid, prio, group_dead)");
}

static void test_execs(void **state)
{
	(void)state;
	sqlite3 *db = snoop_db("x86_64");

	sys_db_tables(db);
	exec_tables(db);
	fx_exec(db, "INSERT INTO tasks VALUES (19, 19, 'sh'), (21, 19, 'sh'), (30, 30, 'x'), (31, 30, 'x')");
	/* 21 (a thread of 19) forks 30, which execs twice, then its thread 31 exits it with 3 */
	ev(db, "sched_process_fork", 100, 21, "'sh', 21, 'sh', 30");
	ev(db, "sched_process_exec", 200, 30, "'/usr/bin/a-very-long-program-name', 30, 30");
	ev(db, "sched_process_exec", 300, 30, "'/bin/b', 30, 30");
	sys_ev(db, "sys_enter_exit_group", 350, 31, "259");
	ev(db, "sched_process_exit", 360, 31, "'b', 31, 120, 0");
	ev(db, "sched_process_exit", 400, 30, "'b', 30, 120, 1");
	/* 40: forked before the capture, still running at its end */
	ev(db, "sched_process_exec", 500, 40, "'rel/c', 40, 40");
	assert_int_equal(snoop_views(db), 0);
	assert_string_equal(fx_text(db, "SELECT ppid || ' ' || comm || ' ' || end_reason || ' ' || dur_ns "
			    "|| ' ' || coalesce(exit_code, 'null') FROM execs WHERE ts = 200"),
			    "19 a-very-long-pro exec 100 null");
	assert_string_equal(fx_text(db, "SELECT ppid || ' ' || comm || ' ' || end_reason || ' ' || dur_ns "
			    "|| ' ' || exit_code FROM execs WHERE ts = 300"), "19 b exit 100 3");
	assert_string_equal(fx_text(db, "SELECT coalesce(ppid, 'null') || ' ' || comm || ' ' || "
			    "coalesce(end_reason, 'null') || ' ' || coalesce(dur_ns, 'null') FROM execs "
			    "WHERE ts = 500"), "null c null null");
	char *out;
	char *csv[] = { "execsnoop", "--csv", "-p", "30" };
	assert_int_equal(fx_run("execsnoop", db, &out, 4, csv), 0);
	assert_int_equal(fx_count_lines(out, ","), 3); /* the header, the 2 execs of 30 */
	assert_non_null(strstr(out, "\n3.0e-07,30,19,b,/bin/b,3,0.0001,exit,\n")); /* no args probe */
	free(out);
	fx_close(db);
}

/* The probe table of each exec's arguments (record/preset_triage.c), as the importer
 * makes it: pI the pointer argv[I], aI its string. */
static void exec_args_table(sqlite3 *db, const char *table)
{
	char cols[1024] = "";

	for (int i = 0; i < 16; i++)
		snprintf(cols + strlen(cols), sizeof(cols) - strlen(cols), ", p%d, a%d", i, i);
	sql_exec(db, "CREATE TABLE \"%w\" (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, __probe_ip%s)",
		 table, cols);
	sql_exec(db, "INSERT INTO event_types VALUES (%d, 'ftrec_4242', %Q, %Q, '', '', 0)", next_type++,
		 table, table);
}

/* A hit with ARGC arguments; past them the NULL pointer, then what lies beyond argv in
 * user memory (the environment): the probe reads 16 whatever argc is. */
static int exec_hit(sqlite3 *db, const char *table, long long ts, int tid, int argc, const char *const *argv)
{
	sqlite3_str *v = sqlite3_str_new(db);

	sqlite3_str_appendf(v, "1234");
	for (int i = 0; i < 16; i++)
		if (i < argc)
			sqlite3_str_appendf(v, ", %d, %Q", 0x7ffd0000 + i, argv[i]);
		else if (i == argc)
			sqlite3_str_appendf(v, ", 0, ''");
		else
			sqlite3_str_appendf(v, ", %d, 'SECRET=%d'", 0x7ffe0000 + i, i);
	char *values = sqlite3_str_finish(v);
	int id = ev(db, table, ts, tid, values);

	sqlite3_free(values);
	return id;
}

/*
 * execsnoop's args (issue 24): the last hit of the exec'ing thread before its exec and
 * after its fork or previous exec; each argument quoted as a shell takes it back; 16
 * at most, 256 characters each, cuts marked; nothing past argv's NULL shown.
 */
static void test_exec_args(void **state)
{
	(void)state;
	sqlite3 *db = snoop_db("x86_64");
	char long_arg[301], want_long[300];

	memset(long_arg, 'x', 300);
	long_arg[300] = '\0';
	snprintf(want_long, sizeof(want_long), "$'%.256s'[...]", long_arg);
	exec_tables(db);
	exec_args_table(db, "ftrec_exec_args");
	exec_args_table(db, "ftrec_execat_args");
	static const char *const tried[] = { "/usr/local/bin/prog", "old" };
	static const char *const argv[] = { "prog", "b c", "", "it's", "tab\there", "\xff\xfe",
					    "back\\slash", "x=1,y@2%-", "\x1b[2J" };
	static const char *const many[] = { "0", "1", "2", "3", "4", "5", "6", "7", "8", "9",
					    "10", "11", "12", "13", "14", "15", "16" };
	const char *longv[] = { "l", long_arg };

	exec_hit(db, "ftrec_exec_args", 100, 30, 2, tried);   /* a failed attempt */
	exec_hit(db, "ftrec_exec_args", 110, 30, 9, argv);
	int a = ev(db, "sched_process_exec", 120, 30, "'/usr/bin/prog', 30, 30");
	exec_hit(db, "ftrec_execat_args", 130, 30, 17, many);  /* the new image execs again */
	int b = ev(db, "sched_process_exec", 140, 30, "'/bin/many', 30, 30");
	int c = ev(db, "sched_process_exec", 150, 30, "'/bin/nohit', 30, 30"); /* hit dropped */
	exec_hit(db, "ftrec_exec_args", 160, 40, 1, tried);    /* an older thread 40 ... */
	ev(db, "sched_process_fork", 170, 30, "'x', 30, 'x', 40"); /* ... then a new one */
	int d = ev(db, "sched_process_exec", 180, 40, "'/bin/d', 40, 40");
	exec_hit(db, "ftrec_exec_args", 190, 41, 0, NULL);     /* execve(path, {NULL}) */
	int e = ev(db, "sched_process_exec", 200, 41, "'/bin/e', 41, 41");
	exec_hit(db, "ftrec_exec_args", 210, 42, 2, longv);
	int f = ev(db, "sched_process_exec", 220, 42, "'/bin/f', 42, 42");
	assert_int_equal(snoop_views(db), 0);
	assert_string_equal(fx_text(db, "SELECT args FROM execs WHERE id = %d", a),
			    "prog 'b c' '' $'it\\'s' $'tab\there' $'\xff\xfe' 'back\\slash' x=1,y@2%- $'\x1b[2J'");
	assert_string_equal(fx_text(db, "SELECT args FROM execs WHERE id = %d", b),
			    "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 [...]");
	assert_int_equal(fx_int(db, "SELECT args IS NULL FROM execs WHERE id = %d", c), 1);
	assert_int_equal(fx_int(db, "SELECT args IS NULL FROM execs WHERE id = %d", d), 1);
	assert_string_equal(fx_text(db, "SELECT '<' || args || '>' FROM execs WHERE id = %d", e), "<>");
	char *want_f = sqlite3_mprintf("l %s", want_long);

	assert_string_equal(fx_text(db, "SELECT args FROM execs WHERE id = %d", f), want_f);
	sqlite3_free(want_f);
	assert_int_equal(fx_int(db, "SELECT count(*) FROM execs WHERE args GLOB '*SECRET*' OR args GLOB '*old*'"), 0);

	/* text: the escape byte and the bytes that are not UTF-8 as bash's \xHH, inside $'...' */
	char *out;
	char *text[] = { "execsnoop", "-p", "30" };
	assert_int_equal(fx_run("execsnoop", db, &out, 3, text), 0);
	assert_non_null(strstr(out, "$'\\xff\\xfe' 'back\\slash' x=1,y@2%- $'\\x1b[2J'\n"));
	free(out);
	fx_close(db);
}

static void signal_table(sqlite3 *db)
{
	fx_exec(db, "CREATE TABLE signal_generate (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, sig, "
		"errno, code, comm, field_pid, \"group\", result)");
}

/* Two systems with a signal_generate: the importer names the tables after their systems;
 * the views read signal's (schema/tables.sql's NAMES rule). */
static void test_renamed_input(void **state)
{
	(void)state;
	sqlite3 *db = snoop_db("x86_64");

	fx_exec(db, "CREATE TABLE signal_signal_generate (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
		"sig, errno, code, comm, field_pid, \"group\", result)");
	fx_exec(db, "CREATE TABLE other_signal_generate (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, x)");
	fx_exec(db, "INSERT INTO event_types VALUES (1, 'signal', 'signal_generate', 'signal_signal_generate', '', '', 1), "
		"(2, 'other', 'signal_generate', 'other_signal_generate', '', '', 1)");
	ev(db, "signal_signal_generate", 100, 5, "15, 0, 0, 'victim', 6, 1, 0");
	ev(db, "other_signal_generate", 110, 5, "1");
	assert_int_equal(snoop_views(db), 0);
	assert_string_equal(fx_text(db, "SELECT group_concat(signal || ' ' || target_pid) FROM kills"), "SIGTERM 6");
	fx_close(db);
}

static void test_kills(void **state)
{
	(void)state;
	for (int arch = 0; arch < 2; arch++) {
		sqlite3 *db = snoop_db(arch ? "mips64" : "aarch64");

		signal_table(db);
		fx_exec(db, "INSERT INTO tasks VALUES (5, 5, 'killer'), (6, 6, 'victim')");
		ev(db, "signal_generate", 100, 5, "15, 0, 0, 'victim', 6, 1, 0");
		ev(db, "signal_generate", 110, 5, "28, 0, 0, 'victim', 6, 1, 1");
		ev(db, "signal_generate", 120, 5, "34, 0, -1, 'victim', 6, 1, 2");
		ev(db, "signal_generate", 130, 5, "10, 0, -6, 'victim', 6, 0, 3");
		ev(db, "signal_generate", 140, 6, "17, 0, 1, 'killer', 5, 1, 4");
		ev(db, "signal_generate", 150, 6, "9, 0, 128, 'killer', 5, 1, 9");
		assert_int_equal(snoop_views(db), 0);
		assert_string_equal(fx_text(db, "SELECT group_concat(coalesce(signal, '-') || ':' || result, ' ') "
				    "FROM (SELECT * FROM kills ORDER BY id)"),
				    arch ? "-:delivered -:ignored -:already_pending -:overflow_fail -:lose_info -:result_9" :
				    "SIGTERM:delivered SIGWINCH:ignored SIGRT2:already_pending SIGUSR1:overflow_fail "
				    "SIGCHLD:lose_info SIGKILL:result_9");
		char *out;
		char *csv[] = { "killsnoop", "--csv" };
		assert_int_equal(fx_run("killsnoop", db, &out, 2, csv), 0);
		assert_int_equal(fx_count_lines(out, ",victim,"), 4); /* sent by a task; not the kernel's */
		free(out);
		char *all[] = { "killsnoop", "--csv", "--all", "--target", "5" };
		assert_int_equal(fx_run("killsnoop", db, &out, 5, all), 0);
		assert_int_equal(fx_count_lines(out, ",killer,"), 2);
		assert_int_equal(fx_count_lines(out, ","), 3);
		free(out);
		fx_close(db);
	}
}

static void test_bitesize(void **state)
{
	(void)state;
	sqlite3 *db = snoop_db("x86_64");

	fx_exec(db, "CREATE TABLE block_rq_issue (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, dev, "
		"sector, nr_sector, bytes, ioprio, rwbs, comm, cmd)");
	fx_exec(db, "INSERT INTO tasks VALUES (7, 7, 'dd')");
	/* 1 KiB - 1 -> bucket 0..1, 64 KiB twice -> 64..127, 4 KiB -> 4..7, a flush (0) left out */
	const int sizes[] = { 1023, 65536, 65536, 4096, 0 };
	for (size_t i = 0; i < 5; i++) {
		char v[128];
		snprintf(v, sizeof(v), "%d, 0, %d, %d, 0, 'R', 'dd', ''", 8 << 20, sizes[i] / 512, sizes[i]);
		ev(db, "block_rq_issue", 100 + (long long)i, 7, v);
	}
	char *out;
	char *csv[] = { "bitesize", "--csv" };
	assert_int_equal(fx_run("bitesize", db, &out, 2, csv), 0);
	assert_string_equal(out, "pid,comm,low_kb,high_kb,count,bytes\n"
			    "7,dd,0,1,1,1023\n7,dd,2,3,0,0\n7,dd,4,7,1,4096\n7,dd,8,15,0,0\n"
			    "7,dd,16,31,0,0\n7,dd,32,63,0,0\n7,dd,64,127,2,131072\n");
	free(out);
	/* -D: another disk's request is not counted */
	ev(db, "block_rq_issue", 200, 7, "8388624, 0, 8, 4096, 0, 'R', 'dd', ''");
	char *one_disk[] = { "bitesize", "--csv", "-D", "8,0" };
	assert_int_equal(fx_run("bitesize", db, &out, 4, one_disk), 0);
	assert_non_null(strstr(out, "\n7,dd,4,7,1,4096\n"));
	free(out);
	char *other_disk[] = { "bitesize", "--csv", "-D", "8,16" };
	assert_int_equal(fx_run("bitesize", db, &out, 4, other_disk), 0);
	assert_string_equal(out, "pid,comm,low_kb,high_kb,count,bytes\n"
			    "7,dd,0,1,0,0\n7,dd,2,3,0,0\n7,dd,4,7,1,4096\n");
	free(out);
	fx_close(db);
}

/*
 * bitesize counts a request for the task that submitted it: a queued request is
 * inserted by its submitter (thread 9 of process 8, "reader") and issued later by a
 * kworker (40), as on a disk with an I/O scheduler. --issuer counts it for the kworker
 * (bcc's view); -p follows whichever is counted. A request whose completion was not
 * recorded (still in flight at the stop) stays the issuer's: nothing pairs it.
 */
static void test_bitesize_submitter(void **state)
{
	(void)state;
	sqlite3 *db = snoop_db("x86_64");
	static const char cols[] = "(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, dev, sector, "
				   "nr_sector, bytes, ioprio, rwbs, comm, cmd)";

	sql_exec(db, "CREATE TABLE block_rq_insert %s", cols);
	sql_exec(db, "CREATE TABLE block_rq_issue %s", cols);
	fx_exec(db, "CREATE TABLE block_rq_complete (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, "
		"dev, sector, nr_sector, error, ioprio, rwbs, cmd)");
	fx_exec(db, "INSERT INTO tasks VALUES (9, 8, 'reader'), (40, 40, 'kworker/0:1H')");
	/* 64 KiB at sector 2048: inserted by 9, issued by 40, completed */
	ev(db, "block_rq_insert", 100, 9, "8388608, 2048, 128, 65536, 0, 'R', 'reader', ''");
	ev(db, "block_rq_issue", 200, 40, "8388608, 2048, 128, 65536, 0, 'R', 'kworker/0:1H', ''");
	ev(db, "block_rq_complete", 300, 0, "8388608, 2048, 128, 0, 0, 'R', ''");
	/* 4 KiB at sector 4096: inserted by 9, issued by 40, never completed */
	ev(db, "block_rq_insert", 400, 9, "8388608, 4096, 8, 4096, 0, 'R', 'reader', ''");
	ev(db, "block_rq_issue", 500, 40, "8388608, 4096, 8, 4096, 0, 'R', 'kworker/0:1H', ''");

	char *out;
	char *csv[] = { "bitesize", "--csv" };
	assert_int_equal(fx_run("bitesize", db, &out, 2, csv), 0);
	assert_int_equal(fx_count_lines(out, "8,reader,64,127,1,65536"), 1);
	assert_int_equal(fx_count_lines(out, "40,kworker/0:1H,4,7,1,4096"), 1);
	assert_int_equal(fx_count_lines(out, "40,kworker/0:1H,64,127"), 0);
	free(out);
	char *issuer[] = { "bitesize", "--csv", "--issuer" };
	assert_int_equal(fx_run("bitesize", db, &out, 3, issuer), 0);
	assert_int_equal(fx_count_lines(out, "40,kworker/0:1H,64,127,1,65536"), 1);
	assert_int_equal(fx_count_lines(out, "reader"), 0);
	free(out);
	char *by_pid[] = { "bitesize", "--csv", "-p", "8" };
	assert_int_equal(fx_run("bitesize", db, &out, 4, by_pid), 0);
	assert_string_equal(out, "pid,comm,low_kb,high_kb,count,bytes\n8,reader,0,1,0,0\n"
			    "8,reader,2,3,0,0\n8,reader,4,7,0,0\n8,reader,8,15,0,0\n"
			    "8,reader,16,31,0,0\n8,reader,32,63,0,0\n8,reader,64,127,1,65536\n");
	free(out);
	char *issuer_pid[] = { "bitesize", "--csv", "--issuer", "-p", "8" };
	assert_int_equal(fx_run("bitesize", db, &out, 5, issuer_pid), 0);
	assert_string_equal(out, "pid,comm,low_kb,high_kb,count,bytes\n");
	free(out);
	/* the io_sizes view has both tasks */
	assert_string_equal(fx_text(db, "SELECT group_concat(tid || '/' || pid || '/' || comm || ' by ' || "
				    "issue_tid || '/' || issue_comm, ', ') FROM (SELECT * FROM io_sizes ORDER BY id)"),
			    "9/8/reader by 40/kworker/0:1H, 40/40/kworker/0:1H by 40/kworker/0:1H");
	fx_close(db);
}

/* iolatency: iolat's -i intervals, once per disk, in one table. */
static void test_iolatency(void **state)
{
	(void)state;
	sqlite3 *db = snoop_db("x86_64");
	const long long MS = 1000000, S = 1000 * MS;
	const int A = 8 << 20, B = 253 << 20;
	/* (disk, sector, issue ts, latency) */
	const struct { int dev; int sector; long long ts, lat; } io[] = {
		{ A, 100, 0, MS / 2 }, { A, 200, 3 * S / 2, 3 * MS }, { B, 100, S / 5, 10 * MS },
	};

	fx_exec(db, "INSERT INTO meta VALUES ('first_ts', '0'), ('last_ts', '%lld')", 2 * S);
	fx_exec(db, "CREATE TABLE block_rq_issue (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, dev, "
		"sector, nr_sector, bytes, ioprio, rwbs, comm, cmd)");
	fx_exec(db, "CREATE TABLE block_rq_complete (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, dev, "
		"sector, nr_sector, error, ioprio, rwbs, cmd)");
	fx_exec(db, "INSERT INTO tasks VALUES (7, 7, 'dd')");
	for (size_t i = 0; i < 3; i++) {
		char v[128];
		snprintf(v, sizeof(v), "%d, %d, 8, 4096, 0, 'R', 'dd', ''", io[i].dev, io[i].sector);
		ev(db, "block_rq_issue", io[i].ts, 7, v);
		snprintf(v, sizeof(v), "%d, %d, 8, 0, 0, 'R', ''", io[i].dev, io[i].sector);
		ev(db, "block_rq_complete", io[i].ts + io[i].lat, 0, v);
	}
	char *out;
	char *csv[] = { "iolatency", "--csv", "--interval", "1" };
	assert_int_equal(fx_run("iolatency", db, &out, 4, csv), 0);
	assert_string_equal(out, "start_s,end_s,disk,low_ms,high_ms,count\n"
			    "0.0,1.0,\"253,0\",0,1,0\n0.0,1.0,\"253,0\",1,2,0\n0.0,1.0,\"253,0\",2,4,0\n"
			    "0.0,1.0,\"253,0\",4,8,0\n0.0,1.0,\"253,0\",8,16,1\n"
			    "0.0,1.0,\"8,0\",0,1,1\n"
			    "1.0,2.0,\"253,0\",0,1,0\n"
			    "1.0,2.0,\"8,0\",0,1,0\n1.0,2.0,\"8,0\",1,2,0\n1.0,2.0,\"8,0\",2,4,1\n");
	/* (the window is [first, last event): no interval for the last event's instant) */
	free(out);
	fx_close(db);
}

/* A capture without the events: a one-line error naming what to record. */
static void test_missing(void **state)
{
	(void)state;
	sqlite3 *db = snoop_db("x86_64");
	char *out, *err;
	char *args[] = { "execsnoop" };

	assert_int_equal(fx_run_io("execsnoop", db, &out, &err, 1, args), CMD_EXIT_ERROR);
	assert_string_equal(err, "ftana report execsnoop: this capture did not record "
			    "sched:sched_process_exec (record with 'ftrec triage')\n");
	free(out);
	free(err);
	args[0] = "syscount";
	assert_int_equal(fx_run_io("syscount", db, &out, &err, 1, args), CMD_EXIT_ERROR);
	assert_int_equal(fx_count_lines(err, "ftrec triage --syscalls"), 1);
	free(out);
	free(err);
	fx_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syscall_pairing),
		cmocka_unit_test(test_open_flags),
		cmocka_unit_test(test_open_probe_paths),
		cmocka_unit_test(test_execs),
		cmocka_unit_test(test_exec_args),
		cmocka_unit_test(test_kills),
		cmocka_unit_test(test_renamed_input),
		cmocka_unit_test(test_bitesize),
		cmocka_unit_test(test_bitesize_submitter),
		cmocka_unit_test(test_iolatency),
		cmocka_unit_test(test_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
