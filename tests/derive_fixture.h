/* SPDX-License-Identifier: MIT */
/*
 * derive_fixture.h - for the tests of import/derive_io.c and derive_syscalls.c against
 * their oracles (the SQL views the C replaced, in tests/oracle/): the oracle's text,
 * read from the source tree (the tests run there), two queries' rows compared value by
 * value and type by type, and a seeded generator for the randomized streams. Include
 * after cmocka.h and tests/report_func_fixture.h.
 */
#ifndef DERIVE_FIXTURE_H
#define DERIVE_FIXTURE_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text of PATH (relative to the source tree), kept for the process. */
static __attribute__((unused)) const char *dfx_oracle(const char *path)
{
	static struct { const char *path; char *text; } cache[4];

	for (size_t i = 0; i < sizeof(cache) / sizeof(cache[0]); i++) {
		if (cache[i].path && !strcmp(cache[i].path, path))
			return cache[i].text;
		if (cache[i].path)
			continue;
		FILE *f = fopen(path, "r");
		char *text = NULL;
		size_t len = 0, got;
		char buf[4096];

		if (!f)
			fail_msg("%s: run the tests from the source tree", path);
		while ((got = fread(buf, 1, sizeof(buf), f)) > 0) {
			char *more = realloc(text, len + got + 1);

			assert_non_null(more);
			text = more;
			memcpy(text + len, buf, got);
			len += got;
		}
		fclose(f);
		assert_non_null(text);
		text[len] = '\0';
		cache[i].path = path;
		cache[i].text = text;
		return text;
	}
	fail_msg("dfx_oracle: too many files");
	return NULL;
}

/* Run the oracle file PATH on db (its TEMP views take the documented names). */
static __attribute__((unused)) void dfx_load_oracle(sqlite3 *db, const char *path)
{
	char *err = NULL;

	if (sqlite3_exec(db, dfx_oracle(path), NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", path, err);
}

static void dfx_print_value(sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL: fprintf(stderr, " NULL"); break;
	case SQLITE_INTEGER: fprintf(stderr, " %lld", (long long)sqlite3_column_int64(st, i)); break;
	case SQLITE_FLOAT: fprintf(stderr, " %.17g(real)", sqlite3_column_double(st, i)); break;
	case SQLITE_TEXT: fprintf(stderr, " '%s'", (const char *)sqlite3_column_text(st, i)); break;
	default: fprintf(stderr, " blob(%d)", sqlite3_column_bytes(st, i)); break;
	}
}

static void dfx_print_row(const char *label, sqlite3_stmt *st)
{
	fprintf(stderr, "  %s:", label);
	for (int i = 0; i < sqlite3_column_count(st); i++)
		dfx_print_value(st, i);
	fprintf(stderr, "\n");
}

/* Column i of a and b: the same type and value (texts and blobs byte for byte)? */
static bool dfx_same_value(sqlite3_stmt *a, sqlite3_stmt *b, int i)
{
	int type = sqlite3_column_type(a, i);

	if (type != sqlite3_column_type(b, i))
		return false;
	switch (type) {
	case SQLITE_NULL:
		return true;
	case SQLITE_INTEGER:
		return sqlite3_column_int64(a, i) == sqlite3_column_int64(b, i);
	case SQLITE_FLOAT: {
		double x = sqlite3_column_double(a, i), y = sqlite3_column_double(b, i);

		return !memcmp(&x, &y, sizeof(x));
	}
	default: {
		const void *x = type == SQLITE_TEXT ? (const void *)sqlite3_column_text(a, i) : sqlite3_column_blob(a, i);
		const void *y = type == SQLITE_TEXT ? (const void *)sqlite3_column_text(b, i) : sqlite3_column_blob(b, i);
		int n = sqlite3_column_bytes(a, i);

		return n == sqlite3_column_bytes(b, i) && (!n || !memcmp(x, y, (size_t)n));
	}
	}
}

/*
 * MINE and ORACLE (SQL on db) give the same rows in the same order, the same columns
 * with the same names. Fails the test with the first difference (and how many rows
 * differ). Returns the number of rows.
 */
static __attribute__((unused)) long long dfx_same_rows(sqlite3 *db, const char *what, const char *mine,
						     const char *oracle)
{
	sqlite3_stmt *a, *b;
	long long rows = 0, bad = 0;

	if (sqlite3_prepare_v2(db, mine, -1, &a, NULL) != SQLITE_OK)
		fail_msg("%s: %s", mine, sqlite3_errmsg(db));
	if (sqlite3_prepare_v2(db, oracle, -1, &b, NULL) != SQLITE_OK)
		fail_msg("%s: %s", oracle, sqlite3_errmsg(db));
	assert_int_equal(sqlite3_column_count(a), sqlite3_column_count(b));
	for (int i = 0; i < sqlite3_column_count(a); i++)
		assert_string_equal(sqlite3_column_name(a, i), sqlite3_column_name(b, i));
	for (;;) {
		int sa = sqlite3_step(a), sb = sqlite3_step(b);

		if (sa != SQLITE_ROW && sa != SQLITE_DONE)
			fail_msg("%s: %s", mine, sqlite3_errmsg(db));
		if (sb != SQLITE_ROW && sb != SQLITE_DONE)
			fail_msg("%s: %s", oracle, sqlite3_errmsg(db));
		if (sa != SQLITE_ROW || sb != SQLITE_ROW) {
			if (sa != sb) {
				fprintf(stderr, "%s: %s has more rows after %lld\n", what,
					sa == SQLITE_ROW ? "the derived table" : "the oracle", rows);
				dfx_print_row(sa == SQLITE_ROW ? "derived" : "oracle", sa == SQLITE_ROW ? a : b);
				bad++;
			}
			break;
		}
		rows++;
		bool same = true;

		for (int i = 0; same && i < sqlite3_column_count(a); i++)
			same = dfx_same_value(a, b, i);
		if (!same && bad++ < 4) {
			fprintf(stderr, "%s: row %lld differs\n", what, rows);
			dfx_print_row("derived", a);
			dfx_print_row("oracle ", b);
		}
	}
	sqlite3_finalize(a);
	sqlite3_finalize(b);
	if (bad)
		fail_msg("%s: the derived rows and the oracle's differ (%lld rows)", what, bad);
	return rows;
}

/* A seeded generator (splitmix64): a failing stream is replayed by its seed. */
struct dfx_rng {
	uint64_t s;
};

static __attribute__((unused)) uint64_t dfx_next(struct dfx_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 0 .. n-1 */
static __attribute__((unused)) int dfx_pick(struct dfx_rng *r, int n)
{
	return (int)(dfx_next(r) % (uint64_t)n);
}

#endif
