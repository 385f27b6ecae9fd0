/* SPDX-License-Identifier: MIT */
/*
 * report_func_fixture.h - hand-made databases for the function report tests:
 * an in-memory SQLite with the tables `ftana db` makes (analyze/ftana.h), filled
 * row by row by each test, and one-value queries to check the results.
 * Included by tests/test_report_func*.c and test_report_kprobe*.c only.
 */
#ifndef REPORT_FUNC_FIXTURE_H
#define REPORT_FUNC_FIXTURE_H

#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "reports/report.h"

static __attribute__((unused)) void fx_exec(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static __attribute__((unused)) void fx_exec(sqlite3 *db, const char *fmt, ...)
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

/*
 * An empty database with the fixed tables the function reports read, as
 * schema/tables.sql defines them (meta, tasks, symbols with its index); tests
 * add the typed event tables, lost_events and stacks they need.
 * (test_report_iolat.c shares this fixture.)
 */
static __attribute__((unused)) sqlite3 *fx_open(void)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	fx_exec(db, "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID");
	fx_exec(db, "CREATE TABLE tasks (pid INTEGER PRIMARY KEY, tgid INTEGER, comm TEXT)");
	fx_exec(db, "CREATE TABLE symbols (addr INTEGER NOT NULL, name TEXT NOT NULL, type TEXT, module TEXT)");
	fx_exec(db, "CREATE INDEX symbols_addr ON symbols (addr)");
	return db;
}

static __attribute__((unused)) void fx_close(sqlite3 *db)
{
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* The one value of a query; fails the test if there is no row. */
static __attribute__((unused)) sqlite3_stmt *fx_one(sqlite3 *db, const char *fmt, va_list ap)
{
	sqlite3_stmt *st;
	char *sql = sqlite3_vmprintf(fmt, ap);

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) != SQLITE_ROW)
		fail_msg("%s: no row", sql);
	sqlite3_free(sql);
	return st;
}

static __attribute__((unused)) long long fx_int(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static __attribute__((unused)) long long fx_int(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sqlite3_stmt *st = fx_one(db, fmt, ap);
	va_end(ap);
	long long v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Text of the one value; valid until the next fx_text call. */
static __attribute__((unused)) const char *fx_text(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static __attribute__((unused)) const char *fx_text(sqlite3 *db, const char *fmt, ...)
{
	static char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	sqlite3_stmt *st = fx_one(db, fmt, ap);
	va_end(ap);
	const unsigned char *t = sqlite3_column_text(st, 0);
	snprintf(buf, sizeof(buf), "%s", t ? (const char *)t : "(null)");
	sqlite3_finalize(st);
	return buf;
}

/* Redirect fd to a temporary file; fx_capture_end() gives back what was written. */
struct fx_capture {
	FILE *tmp;
	int fd, saved;
};

static __attribute__((unused)) void fx_capture_begin(struct fx_capture *c, int fd)
{
	c->tmp = tmpfile();
	c->fd = fd;
	assert_non_null(c->tmp);
	fflush(stdout);
	fflush(stderr);
	c->saved = dup(fd);
	dup2(fileno(c->tmp), fd);
}

/* The text written since fx_capture_begin (malloc'd, NUL-terminated). */
static __attribute__((unused)) char *fx_capture_end(struct fx_capture *c)
{
	fflush(stdout);
	fflush(stderr);
	dup2(c->saved, c->fd);
	close(c->saved);
	long len = lseek(fileno(c->tmp), 0, SEEK_END);
	char *text = calloc(1, len + 1);

	assert_non_null(text);
	assert_int_equal(pread(fileno(c->tmp), text, len, 0), len);
	fclose(c->tmp);
	return text;
}

/* The capture file the database came from, for reports that re-decode it (tpoint). */
static const char *fx_capture_file;

/* Run `ftana report NAME ARGV...` (argv[0] = NAME, no FILE) on db through the report
 * front end, stdout captured into *out and, when err is not NULL, stderr into *err.
 * Returns the exit status. */
static __attribute__((unused)) int fx_run_io(const char *name, sqlite3 *db, char **out, char **err,
					      int argc, char **argv)
{
	const struct report_def *def = report_find(name);
	struct fx_capture o, e;

	assert_non_null(def);
	fx_capture_begin(&o, STDOUT_FILENO);
	if (err)
		fx_capture_begin(&e, STDERR_FILENO);
	int rc = front_run_db(def, db, fx_capture_file, argc, argv);
	if (err)
		*err = fx_capture_end(&e);
	*out = fx_capture_end(&o);
	return rc;
}

static __attribute__((unused)) int fx_run(const char *name, sqlite3 *db, char **out, int argc,
					   char **argv)
{
	return fx_run_io(name, db, out, NULL, argc, argv);
}

/* How many lines of text contain needle. */
static __attribute__((unused)) int fx_count_lines(const char *text, const char *needle)
{
	int n = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *end = strchr(l, '\n');
		const char *hit = strstr(l, needle);
		if (hit && (!end || hit < end))
			n++;
	}
	return n;
}

#endif
