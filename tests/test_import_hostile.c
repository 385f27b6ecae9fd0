// SPDX-License-Identifier: MIT
/*
 * test_import_hostile.c - the importer against captures made to hurt it: names
 * that are SQL, names SQLite or we keep for ourselves, names differing only in
 * case, very long names and odd bytes; field layouts pointing outside the record
 * (offsets near 2^31 and 2^32, sizes of 2^31, a 3-byte common_pid, dynamic
 * locations past the end). The captures are written by tests/capture_builder.h
 * from bytes this file chooses, so the expected values are known without our
 * decoder. Every import must succeed, write nothing but its database, give each
 * event type its table, and store valid fields exactly and invalid ones as NULL.
 * Under ASan+UBSan, a read outside a record fails the test.
 */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "import/import.h"
#include "import/import_int.h"
#include "tests/capture_builder.h"

static char dir[64], cwd_before[4096];

static int group_setup(void **state)
{
	strcpy(dir, "/tmp/test_import_hostile.XXXXXX");
	if (!mkdtemp(dir) || !getcwd(cwd_before, sizeof(cwd_before)))
		return -1;
	/* A relative ATTACH path would land here: the test checks the directory stays clean. */
	return chdir(dir);
}

static int group_teardown(void **state)
{
	char cmd[128];

	if (chdir(cwd_before))
		return -1;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- helpers */

/* The whole of PATH (NULL if unreadable); *len its size. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	    (buf = malloc(n)) && fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	*len = buf ? (size_t)n : 0;
	fclose(f);
	return buf;
}

static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;

	va_start(ap, f);
	assert_true(vasprintf(&s, f, ap) >= 0);
	va_end(ap);
	return s;
}

/* A format text: name, ID, the common fields (common_pid of PID_SIZE) and FIELDS. */
static char *event_format(const char *name, int id, const char *pid_size, const char *fields)
{
	return fmt("name: %s\nID: %d\nformat:\n"
		   "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		   "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		   "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		   "\tfield:int common_pid;\toffset:4;\tsize:%s;\tsigned:1;\n\n%s\n"
		   "print fmt: \"x\"\n", name, id, pid_size, fields);
}

static void add_event(struct cb_capture *c, const char *sys, const char *name, int id,
		      const char *pid_size, const char *fields)
{
	char *text = event_format(name, id, pid_size, fields);

	cb_format(c, sys, name, text);
	free(text);
}

/* Import SRC into NAME.db in the test directory; the database or NULL (the error on stderr). */
static sqlite3 *import(const char *src, const char *name, int *rc)
{
	struct import_result res;
	char *out = fmt("%s/%s.db", dir, name);
	sqlite3 *db = NULL;

	unlink(out);
	*rc = import_ftz(src, out, false, &res);
	if (*rc == 0)
		assert_int_equal(sqlite3_open_v2(out, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	free(out);
	return db;
}

static long long query_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long long v = -12345;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -99999 : sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

#define IS_NULL -99999

/* The one value of SQL as text ("" for none / NULL). */
static char *query_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	char *v = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v ? v : strdup("");
}

static void assert_query_text(sqlite3 *db, const char *sql, const char *want)
{
	char *got = query_text(db, sql);

	if (strcmp(got, want))
		fail_msg("%s: got '%s', want '%s'", sql, got, want);
	free(got);
}

/* Every event type has a table of its own, holding its events; names distinct
 * case-insensitively; the events view counts them all. */
#define TYPES "(SELECT * FROM event_types WHERE NOT (system = 'ftrace' AND name = 'kernel_stack'))"

/* (ftrace:kernel_stack events are stacks, not rows of a table of their own.) */
static void assert_every_type_has_its_table(sqlite3 *db, long long nr_types, long long nr_events)
{
	sqlite3_stmt *st;

	assert_int_equal(query_int(db, "SELECT count(*) FROM " TYPES), nr_types);
	assert_int_equal(query_int(db, "SELECT count(*) FROM " TYPES " WHERE table_name IS NULL"), 0);
	assert_int_equal(query_int(db, "SELECT count(DISTINCT lower(table_name)) FROM " TYPES),
			 nr_types);
	assert_int_equal(query_int(db, "SELECT count(*) FROM " TYPES " e WHERE NOT EXISTS "
				   "(SELECT 1 FROM sqlite_master m WHERE m.type = 'table' "
				   "AND m.name = e.table_name)"), 0);
	assert_int_equal(query_int(db, "SELECT count(*) FROM events"), nr_events);
	/* events.type is a quoted literal in the view: each must be its table's name */
	assert_int_equal(query_int(db, "SELECT count(*) FROM events e JOIN " TYPES " t "
				   "ON e.type = t.table_name"), nr_events);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT table_name, count FROM " TYPES, -1,
					    &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		char *sql = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", sqlite3_column_text(st, 0));

		assert_int_equal(query_int(db, sql), sqlite3_column_int64(st, 1));
		assert_true(sqlite3_column_int64(st, 1) > 0);
		sqlite3_free(sql);
	}
	sqlite3_finalize(st);
	assert_int_equal(query_int(db, "SELECT count(*) FROM pragma_database_list"), 1);
}

/* The test directory holds exactly the files named (NULL-terminated). */
static void assert_dir_holds(const char *const *names)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0, want = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		bool known = false;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		for (const char *const *n = names; *n; n++)
			known |= !strcmp(*n, e->d_name);
		if (!known)
			fail_msg("unexpected file %s/%s", dir, e->d_name);
		found++;
	}
	closedir(d);
	for (const char *const *n = names; *n; n++)
		want++;
	assert_int_equal(found, want);
}

/* ---------------------------------------------------------------- names */

#define ATTACK "x\"; ATTACH DATABASE 'pwn.db' AS p; --"
#define LONG_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define LONG300 LONG_A LONG_A LONG_A /* 300 bytes */

static const struct { const char *sys, *name; } hostile_events[] = {
	{ ATTACK, "dup" },            /* the system reaches SQL when the name is shared */
	{ "plain", "dup" },
	{ "", "dup" },                /* empty system */
	{ "\x01\x1b[31m\xff sp ace'q", "dup" },
	{ "y'); DROP TABLE meta; --", "sqlite_master" },
	{ "sqlite_x", "sqlite_seq" }, /* sqlite_ even joined with its system */
	{ "s1", "META" },
	{ "s1", "Events" },
	{ "s1", "symbols_addr" },     /* our index */
	{ "s1", "io_rq" },            /* a report's TEMP view */
	{ "s1", "lost_events_cpu" },
	{ "s2", "foo" },
	{ "s3", "FOO" },              /* differs only in case */
	{ "a", "b_c" },               /* joined, these two make the same name: a_b_c */
	{ "a_b", "c" },
	{ "z", "b_c" },
	{ "z", "c" },
	{ "s1", LONG300 },
	{ "s1", LONG300 "b" },        /* same first 300 bytes */
	{ LONG_A "01234567890123456789", "dup" }, /* a long system (a .ftz's are < 128 bytes) */
	{ "s1", "fields" },
};
#define NR_HOSTILE (int)(sizeof(hostile_events) / sizeof(hostile_events[0]))

static const char fields_fields[] =
	"\tfield:int ID;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int Id;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:int field_id;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:int STACK_ID;\toffset:20;\tsize:4;\tsigned:1;\n"
	"\tfield:int rowid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int sqlite_x;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int " LONG300 ";\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:int " LONG300 "b;\toffset:36;\tsize:4;\tsigned:1;\n"
	"\tfield:int value;\toffset:40;\tsize:4;\tsigned:1;\n";

static void write_names_capture(const char *path)
{
	struct cb_capture *c = cb_open(path);

	assert_non_null(c);
	for (int i = 0; i < NR_HOSTILE; i++)
		add_event(c, hostile_events[i].sys, hostile_events[i].name, 100 + i, "4",
			  !strcmp(hostile_events[i].name, "fields") ? fields_fields
				  : "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n");
	for (int i = 0; i < NR_HOSTILE; i++) {
		bool wide = !strcmp(hostile_events[i].name, "fields");
		uint8_t *r = cb_record(c, 100 + i, 1000 + i, wide ? 44 : 12);

		if (wide) {
			for (int32_t f = 0; f < 9; f++) {
				int32_t v = 500 + f;

				memcpy(r + 8 + 4 * f, &v, 4);
			}
		} else {
			int32_t v = 7000 + i;

			memcpy(r + 8, &v, 4);
		}
	}
	assert_int_equal(cb_close(c), 0);
}

static char *table_of(sqlite3 *db, const char *sys, const char *name)
{
	char *sql = sqlite3_mprintf("SELECT table_name FROM event_types WHERE system = %Q AND name = %Q",
				    sys, name);
	char *t = query_text(db, sql);

	sqlite3_free(sql);
	return t;
}

static void assert_table_of(sqlite3 *db, const char *sys, const char *name, const char *want)
{
	char *t = table_of(db, sys, name);

	if (strcmp(t, want))
		fail_msg("%s:%s got table '%s', want '%s'", sys, name, t, want);
	free(t);
}

static void test_hostile_names(void **state)
{
	char *src = fmt("%s/names.ftz", dir);
	const char *const files[] = { "names.ftz", "names.db", NULL };
	struct stat st;
	int rc;
	bool pwn_before = stat("/tmp/pwn.db", &st) == 0;

	write_names_capture(src);
	sqlite3 *db = import(src, "names", &rc);

	if (rc)
		fail_msg("import failed (the error is on stderr)");
	assert_dir_holds(files);
	assert_int_equal(stat("/tmp/pwn.db", &st) == 0, pwn_before);
	assert_every_type_has_its_table(db, NR_HOSTILE, NR_HOSTILE);
	assert_true(query_int(db, "SELECT count(*) FROM meta") > 5);

	/* the names the rule in schema/tables.sql gives */
	assert_table_of(db, ATTACK, "dup", ATTACK "_dup");
	assert_table_of(db, "plain", "dup", "plain_dup");
	assert_table_of(db, "", "dup", "_dup");
	assert_table_of(db, "\x01\x1b[31m\xff sp ace'q", "dup", "__[31m_ sp ace'q_dup");
	assert_table_of(db, "y'); DROP TABLE meta; --", "sqlite_master",
			"y'); DROP TABLE meta; --_sqlite_master");
	assert_table_of(db, "sqlite_x", "sqlite_seq", "ev_sqlite_x_sqlite_seq");
	assert_table_of(db, "s1", "META", "s1_META");
	assert_table_of(db, "s1", "Events", "s1_Events");
	assert_table_of(db, "s1", "symbols_addr", "s1_symbols_addr");
	assert_table_of(db, "s1", "io_rq", "s1_io_rq");
	assert_table_of(db, "s1", "lost_events_cpu", "s1_lost_events_cpu");
	assert_table_of(db, "s2", "foo", "s2_foo");
	assert_table_of(db, "s3", "FOO", "s3_FOO");
	assert_table_of(db, "a", "b_c", "a_b_c");   /* lower ID first */
	assert_table_of(db, "a_b", "c", "a_b_c_2");
	assert_table_of(db, "s1", "fields", "fields");
	/* long names: 100 bytes kept, then _ and 8 hex digits, distinct */
	char *l1 = table_of(db, "s1", LONG300), *l2 = table_of(db, "s1", LONG300 "b");
	char *l3 = table_of(db, LONG_A "01234567890123456789", "dup");

	assert_int_equal(strlen(l1), 109);
	assert_int_equal(strlen(l3), 109);
	assert_int_equal(strncmp(l1, LONG300, 100), 0);
	assert_string_not_equal(l1, l2);
	free(l1);
	free(l2);
	free(l3);

	/* each table holds its one event with the value written */
	for (int i = 0; i < NR_HOSTILE; i++) {
		char *t = table_of(db, hostile_events[i].sys, hostile_events[i].name);
		char *sql = sqlite3_mprintf("SELECT value FROM \"%w\"", t);

		if (strcmp(hostile_events[i].name, "fields"))
			assert_int_equal(query_int(db, sql), 7000 + i);
		sqlite3_free(sql);
		sql = sqlite3_mprintf("SELECT pid FROM \"%w\"", t);
		assert_int_equal(query_int(db, sql), 1000 + i);
		sqlite3_free(sql);
		free(t);
	}
	/* columns: fixed ones first, then fields renamed by the rule */
	assert_query_text(db, "SELECT group_concat(name, ',') FROM pragma_table_info('fields') "
			  "WHERE cid NOT IN (11, 12)",
			  "id,ts,cpu,pid,stack_id,field_ID,field_Id_2,field_id_3,field_STACK_ID,"
			  "rowid,sqlite_x,value");
	assert_int_equal(query_int(db, "SELECT count(DISTINCT name) FROM pragma_table_info('fields') "
				   "WHERE cid IN (11, 12) AND length(name) = 109 "
				   "AND substr(name, 1, 101) = '" LONG_A "_'"), 2);
	assert_int_equal(query_int(db, "SELECT field_ID FROM fields"), 500);
	assert_int_equal(query_int(db, "SELECT field_Id_2 FROM fields"), 501);
	assert_int_equal(query_int(db, "SELECT field_id_3 FROM fields"), 502);
	assert_int_equal(query_int(db, "SELECT field_STACK_ID FROM fields"), 503);
	assert_int_equal(query_int(db, "SELECT rowid FROM fields"), 504);
	assert_int_equal(query_int(db, "SELECT sqlite_x FROM fields"), 505);
	assert_int_equal(query_int(db, "SELECT value FROM fields"), 508);
	assert_int_equal(query_int(db, "SELECT id FROM fields"),
			 query_int(db, "SELECT id FROM events WHERE type = 'fields'"));
	sqlite3_close(db);
	free(src);
}

/* ---------------------------------------------------------------- layouts */

static const char layout_fields[] =
	"\tfield:int ok;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int big;\toffset:2147483640;\tsize:4;\tsigned:1;\n"
	"\tfield:int wrap;\toffset:4294967000;\tsize:4;\tsigned:1;\n"
	"\tfield:char huge[8];\toffset:12;\tsize:2147483648;\tsigned:0;\n"
	"\tfield:int odd;\toffset:12;\tsize:3;\tsigned:0;\n"
	"\tfield:__data_loc char[] s;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 late;\toffset:20;\tsize:8;\tsigned:0;\n"
	"\tfield:__rel_loc char[] r;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc u8[] b;\toffset:2147483646;\tsize:4;\tsigned:0;\n";

static void put32(uint8_t *r, int off, uint32_t v)
{
	memcpy(r + off, &v, 4);
}

static void write_layout_capture(const char *path)
{
	struct cb_capture *c = cb_open(path);
	const uint64_t late = 0x1122334455667788ull;
	uint8_t *r;

	assert_non_null(c);
	add_event(c, "h", "lay", 200, "4", layout_fields);
	/* a 3-byte common_pid, its comm paired with it: no pid, no task */
	add_event(c, "h", "pid3", 201, "3", "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n");
	/* a pid field outside the record paired with a comm: no task either */
	add_event(c, "h", "pidwrap", 202, "4",
		  "\tfield:int pid;\toffset:4294967000;\tsize:4;\tsigned:1;\n"
		  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n");
	add_event(c, "h", "hugepid", 203, "2147483648", "\tfield:int v;\toffset:8;\tsize:4;\tsigned:1;\n");
	/* kernel_stack's caller[] before the record start (as unsigned: far after it) */
	add_event(c, "ftrace", "kernel_stack", 204, "4",
		  "\tfield:int size;\toffset:2147483647;\tsize:4;\tsigned:1;\n"
		  "\tfield:unsigned long caller[8];\toffset:4294967000;\tsize:64;\tsigned:0;\n");

	/* lay 1: everything valid that can be */
	r = cb_record(c, 200, 4242, 40);
	put32(r, 8, (uint32_t)-5);
	r[12] = 0x11, r[13] = 0x22, r[14] = 0x33, r[15] = 0x44;
	put32(r, 16, 4u << 16 | 32);     /* s: 4 bytes at 32 */
	memcpy(r + 20, &late, 8);
	put32(r, 28, 4u << 16 | 4);      /* r: 4 bytes at 32 + 4 */
	memcpy(r + 32, "abc\0xyz\0", 8);
	r = cb_record(c, 204, 4242, 24); /* its stack */
	/* lay 2: 24 bytes, so late and r are past its end; s too long */
	r = cb_record(c, 200, 4243, 24);
	put32(r, 8, 7);
	put32(r, 16, 100u << 16 | 16);
	/* lay 3: locations at the far end of 16 bits */
	r = cb_record(c, 200, 4244, 40);
	put32(r, 16, 0xffffffffu);
	put32(r, 28, 0xffffffffu);
	/* pid3: common_pid bytes 4..6 = 12345, byte 7 the start of garbage */
	r = cb_record(c, 201, 0x7f003039, 24);
	memcpy(r + 8, "three", 6);
	r = cb_record(c, 202, 777, 24);
	memcpy(r + 8, "evil", 5);
	r = cb_record(c, 203, 888, 12);
	put32(r, 8, 42);
	assert_int_equal(cb_close(c), 0);
}

static void test_hostile_layouts(void **state)
{
	char *src = fmt("%s/layout.ftz", dir);
	int rc;

	write_layout_capture(src);
	sqlite3 *db = import(src, "layout", &rc);

	if (rc)
		fail_msg("import failed (the error is on stderr)");
	assert_every_type_has_its_table(db, 4, 6); /* kernel_stack has no table */
	/* lay 1 */
	assert_int_equal(query_int(db, "SELECT ok FROM lay WHERE pid = 4242"), -5);
	assert_int_equal(query_int(db, "SELECT big FROM lay WHERE pid = 4242"), IS_NULL);
	assert_int_equal(query_int(db, "SELECT wrap FROM lay WHERE pid = 4242"), IS_NULL);
	assert_int_equal(query_int(db, "SELECT huge FROM lay WHERE pid = 4242"), IS_NULL);
	assert_query_text(db, "SELECT hex(odd) || typeof(odd) FROM lay WHERE pid = 4242", "112233blob");
	assert_query_text(db, "SELECT s FROM lay WHERE pid = 4242", "abc");
	assert_int_equal(query_int(db, "SELECT late FROM lay WHERE pid = 4242"), (long long)0x1122334455667788ll);
	assert_query_text(db, "SELECT r FROM lay WHERE pid = 4242", "xyz");
	assert_int_equal(query_int(db, "SELECT b FROM lay WHERE pid = 4242"), IS_NULL);
	assert_int_equal(query_int(db, "SELECT stack_id IS NOT NULL FROM lay WHERE pid = 4242"), 1);
	assert_int_equal(query_int(db, "SELECT count(*) FROM stacks"), 0); /* no address read */
	/* lay 2 */
	assert_int_equal(query_int(db, "SELECT ok FROM lay WHERE pid = 4243"), 7);
	assert_int_equal(query_int(db, "SELECT s FROM lay WHERE pid = 4243"), IS_NULL);
	assert_int_equal(query_int(db, "SELECT late FROM lay WHERE pid = 4243"), IS_NULL);
	assert_int_equal(query_int(db, "SELECT r FROM lay WHERE pid = 4243"), IS_NULL);
	/* lay 3 */
	assert_int_equal(query_int(db, "SELECT s FROM lay WHERE pid = 4244"), IS_NULL);
	assert_int_equal(query_int(db, "SELECT r FROM lay WHERE pid = 4244"), IS_NULL);
	/* pids that are no integers, or outside the record */
	assert_int_equal(query_int(db, "SELECT pid FROM pid3"), IS_NULL);
	assert_query_text(db, "SELECT comm FROM pid3", "three");
	assert_int_equal(query_int(db, "SELECT pid FROM hugepid"), IS_NULL);
	assert_int_equal(query_int(db, "SELECT v FROM hugepid"), 42);
	assert_int_equal(query_int(db, "SELECT pid FROM pidwrap"), 777);
	assert_int_equal(query_int(db, "SELECT field_pid FROM pidwrap"), IS_NULL);
	assert_int_equal(query_int(db, "SELECT count(*) FROM tasks WHERE comm IN ('three', 'evil')"), 0);
	sqlite3_close(db);
	free(src);
}

/* ---------------------------------------------------------------- lost-events counts */

/* The kernel stores a page's lost-events count as an unsigned long: 8 bytes on a
 * 64-bit kernel. 5,000,000,007 must arrive whole (libtraceevent's int cut it to
 * 705,032,711); a flag without a stored count, and a count above INT64_MAX, are
 * losses of unknown size (NULL); every event is still imported. */
static void test_lost_counts_64bit(void **state)
{
	char *src = fmt("%s/lost.ftz", dir);
	struct cb_capture *c = cb_open(src);
	int rc;

	assert_non_null(c);
	add_event(c, "test", "ev", 100, "4", "\tfield:int v;\toffset:8;\tsize:4;\tsigned:1;\n");
	put32(cb_record(c, 100, 1, 12), 8, 1);
	cb_lose(c, 5000000007LL);
	put32(cb_record(c, 100, 1, 12), 8, 2);
	put32(cb_record(c, 100, 1, 12), 8, 3);
	cb_lose(c, -1);
	put32(cb_record(c, 100, 1, 12), 8, 4);
	cb_lose(c, 3);
	put32(cb_record(c, 100, 1, 12), 8, 5);
	cb_lose(c, 0x7fffffffffffffffLL);
	put32(cb_record(c, 100, 1, 12), 8, 6);
	assert_int_equal(cb_close(c), 0);

	sqlite3 *db = import(src, "lost", &rc);

	if (rc)
		fail_msg("import failed (the error is on stderr)");
	assert_int_equal(query_int(db, "SELECT count(*) FROM ev"), 6);
	assert_int_equal(query_int(db, "SELECT count(*) FROM lost_events"), 4);
	/* each loss is reported at the first event after it */
	assert_int_equal(query_int(db, "SELECT count FROM lost_events WHERE ts = (SELECT ts FROM ev WHERE v = 2)"),
			 5000000007LL);
	assert_int_equal(query_int(db, "SELECT count(*) FROM lost_events WHERE count IS NULL AND "
			 "ts = (SELECT ts FROM ev WHERE v = 4)"), 1);
	assert_int_equal(query_int(db, "SELECT count FROM lost_events WHERE ts = (SELECT ts FROM ev WHERE v = 5)"), 3);
	assert_int_equal(query_int(db, "SELECT count FROM lost_events WHERE ts = (SELECT ts FROM ev WHERE v = 6)"),
			 0x7fffffffffffffffLL);
	sqlite3_close(db);
	free(src);
}

/* ---------------------------------------------------------------- many types, many fields */

/* More event types than one compound SELECT may have (500), more fields than a
 * table may have columns (2000), and two formats sharing one ID. */
static void test_many_types_and_fields(void **state)
{
	char *src = fmt("%s/many.ftz", dir);
	struct cb_capture *c = cb_open(src);
	size_t cap = 2100 * 64, len = 0;
	char *wide = malloc(cap);
	int rc;

	assert_non_null(c);
	for (int i = 0; i < 520; i++) {
		char name[32];

		snprintf(name, sizeof(name), "t%d", i);
		add_event(c, "many", name, 1000 + i, "4", "\tfield:int v;\toffset:8;\tsize:4;\tsigned:1;\n");
	}
	for (int f = 0; f < 2100; f++)
		len += snprintf(wide + len, cap - len, "\tfield:char f%d;\toffset:8;\tsize:1;\tsigned:0;\n", f);
	add_event(c, "many", "wide", 3000, "4", wide);
	add_event(c, "x", "same_id", 3001, "4", "\tfield:int v;\toffset:8;\tsize:4;\tsigned:1;\n");
	add_event(c, "w", "same_id", 3001, "4", "\tfield:short v;\toffset:8;\tsize:2;\tsigned:1;\n");
	for (int i = 0; i < 520; i++)
		put32(cb_record(c, 1000 + i, i, 12), 8, i);
	cb_record(c, 3000, 1, 12)[8] = 9;
	put32(cb_record(c, 3001, 2, 12), 8, 0x12345);
	assert_int_equal(cb_close(c), 0);
	free(wide);

	sqlite3 *db = import(src, "many", &rc);

	if (rc)
		fail_msg("import failed (the error is on stderr)");
	assert_every_type_has_its_table(db, 522, 522);
	assert_int_equal(query_int(db, "SELECT sum(v) FROM events e JOIN t519 USING (id)"), 519);
	assert_int_equal(query_int(db, "SELECT count(*) FROM pragma_table_info('wide')"), 2000);
	assert_int_equal(query_int(db, "SELECT f0 FROM wide"), 9);
	/* the ID's first format in (ID, system, name) order: w:same_id, a 2-byte v */
	assert_query_text(db, "SELECT system FROM event_types WHERE type_id = 3001", "w");
	assert_int_equal(query_int(db, "SELECT v FROM w_same_id"), 0x2345);
	sqlite3_close(db);
	free(src);
}

/* 2000 formats of one name in one system: s_same, then s_same_2 ... s_same_2000
 * (each count resumed, not restarted: no quadratic naming); and an event of 1000
 * comm fields without pids, of which only the plain `comm` pairs with common_pid. */
static void test_many_same_names(void **state)
{
	char *src = fmt("%s/same.ftz", dir);
	struct cb_capture *c = cb_open(src);
	size_t cap = 1001 * 64, len = 0;
	char *comms = malloc(cap);
	int rc;

	assert_non_null(c);
	for (int i = 0; i < 2000; i++) {
		/* the directories differ (a .ftz keeps one file per path), the names do not */
		char *text = event_format("same", 5000 + i, "4",
					  "\tfield:int v;\toffset:8;\tsize:4;\tsigned:1;\n");
		char *subdir = fmt("same%d", i);

		cb_format(c, "s", subdir, text);
		free(text);
		free(subdir);
	}
	len += snprintf(comms, cap, "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n");
	for (int f = 0; f < 1000; f++)
		len += snprintf(comms + len, cap - len,
				"\tfield:char c%d_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n", f);
	add_event(c, "s", "comms", 9000, "4", comms);
	free(comms);
	for (int i = 0; i < 2000; i++)
		put32(cb_record(c, 5000 + i, i, 12), 8, i);
	memcpy(cb_record(c, 9000, 31337, 24) + 8, "many", 5);
	assert_int_equal(cb_close(c), 0);

	sqlite3 *db = import(src, "same", &rc);

	if (rc)
		fail_msg("import failed (the error is on stderr)");
	assert_every_type_has_its_table(db, 2001, 2001);
	assert_query_text(db, "SELECT table_name FROM event_types WHERE type_id = 5000", "s_same");
	assert_query_text(db, "SELECT table_name FROM event_types WHERE type_id = 5001", "s_same_2");
	assert_query_text(db, "SELECT table_name FROM event_types WHERE type_id = 6999", "s_same_2000");
	assert_int_equal(query_int(db, "SELECT v FROM s_same_2000"), 1999);
	assert_query_text(db, "SELECT comm FROM tasks WHERE pid = 31337", "many");
	sqlite3_close(db);
	free(src);
}

/* ---------------------------------------------------------------- trace.dat */

#define TRACEDAT "tests/data/tracedat/labsisop-4.13-i686-funcgraph-v6.dat"

static void patch(uint8_t *data, size_t len, const char *from, size_t n, const char *to)
{
	uint8_t *at = memmem(data, len, from, n);

	assert_non_null(at);
	memcpy(at, to, n); /* same length: the file's sizes stay right */
}

/* A real trace.dat (libtracecmd's path, not ours) with its one event system "irq"
 * renamed to '";' and its event irq_handler_entry to Symbols_Addr (our index,
 * in another case; padded with blanks the format parser skips): the table is
 * <system>_<event>, quoted, and holds the 7 irq_handler_entry events that
 * `trace-cmd report` prints for the original file, irq=4 name=ttyS0 each. */
static void test_tracedat_names(void **state)
{
	char *src = fmt("%s/names.dat", dir);
	size_t len;
	char *data;
	FILE *f;
	int rc;

	assert_int_equal(chdir(cwd_before), 0);
	data = slurp(TRACEDAT, &len);
	assert_int_equal(chdir(dir), 0);
	assert_non_null(data);
	patch((uint8_t *)data, len, "fmt\n\x01\x00\x00\x00irq\x00", 12, "fmt\n\x01\x00\x00\x00\";'\x00");
	patch((uint8_t *)data, len, "name: irq_handler_entry\n", 24, "name: Symbols_Addr     \n");
	f = fopen(src, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	free(data);

	sqlite3 *db = import(src, "tracedat", &rc);

	if (rc)
		fail_msg("import failed (the error is on stderr)");
	assert_query_text(db, "SELECT table_name FROM event_types WHERE name = 'Symbols_Addr'",
			  "\";'_Symbols_Addr");
	assert_int_equal(query_int(db, "SELECT count(*) FROM \"\"\";'_Symbols_Addr\""), 7);
	assert_int_equal(query_int(db, "SELECT count(*) FROM \"\"\";'_Symbols_Addr\" "
				   "WHERE irq = 4 AND name = 'ttyS0'"), 7);
	assert_int_equal(query_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'symbols_addr' "
				   "AND type = 'index'"), 1);
	sqlite3_close(db);
	free(src);
}

/* ---------------------------------------------------------------- reserved names */

/* Every table, view or index our code creates by a literal name (C or SQL) is
 * reserved, so an event named like it cannot collide: a new one added to a report
 * without being reserved fails here. Run from the repository root. */
static void test_reserved_names_cover_sources(void **state)
{
	const char *const patterns[] = { "analyze/*.c", "decode/*.c", "import/*.c", "reports/*.c",
				       "schema/*.sql", "schema/reports/*.sql" };
	regex_t re;
	int checked = 0;

	assert_int_equal(chdir(cwd_before), 0);
	assert_int_equal(regcomp(&re, "CREATE +(TEMP +|TEMPORARY +)?(TABLE|VIEW|INDEX|TRIGGER) +"
				 "(IF NOT EXISTS +)?([A-Za-z_][A-Za-z0-9_.]*)[ \n]+(AS|ON|\\()",
				 REG_EXTENDED | REG_ICASE), 0);
	for (size_t p = 0; p < sizeof(patterns) / sizeof(patterns[0]); p++) {
		glob_t g;

		assert_int_equal(glob(patterns[p], 0, NULL, &g), 0);
		for (size_t i = 0; i < g.gl_pathc; i++) {
			FILE *f = fopen(g.gl_pathv[i], "r");
			char *text = NULL, *at;
			size_t n = 0;
			regmatch_t m[6];

			assert_non_null(f);
			assert_true(getdelim(&text, &n, '\0', f) >= 0);
			fclose(f);
			for (at = text; !regexec(&re, at, 6, m, 0); at += m[0].rm_eo) {
				char name[128];
				int len = (int)(m[4].rm_eo - m[4].rm_so);
				const char *dot;

				snprintf(name, sizeof(name), "%.*s", len, at + m[4].rm_so);
				dot = strrchr(name, '.');
				if (!import_name_reserved(dot ? dot + 1 : name))
					fail_msg("%s creates '%s', which import_names.c does not reserve",
						 g.gl_pathv[i], name);
				checked++;
			}
			free(text);
		}
		globfree(&g);
	}
	regfree(&re);
	assert_true(checked > 40);
	assert_true(import_name_reserved("SQLITE_anything"));
	assert_true(import_name_reserved("Events"));
	assert_false(import_name_reserved("sched_switch"));
	assert_false(import_name_reserved("block_rq_issue"));
	assert_int_equal(chdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_hostile_layouts),
		cmocka_unit_test(test_many_types_and_fields),
		cmocka_unit_test(test_lost_counts_64bit),
		cmocka_unit_test(test_many_same_names),
		cmocka_unit_test(test_tracedat_names),
		cmocka_unit_test(test_reserved_names_cover_sources),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
