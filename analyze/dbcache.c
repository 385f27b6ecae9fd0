// SPDX-License-Identifier: MIT
/*
 * dbcache.c - every command takes a .ftz or a .db. A .ftz is imported once into
 * a cached database beside it (FILE.ftz.db) or, when that directory is not
 * writable, under $XDG_CACHE_HOME/ftana/; the cache is reused while it matches the
 * .ftz's size and mtime. Imports go to a temporary name renamed at the end, so an
 * import that was killed never leaves a database that looks complete.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/dbcache.h"
#include "analyze/decode.h"
#include "analyze/import.h"
#include "analyze/sql_files.h"

/* Bump when the database layout changes: older caches are rebuilt. */
#define DB_VERSION "2" /* 2: profile_rounds, function_profile */

enum kind { KIND_FTZ, KIND_DB, KIND_OTHER };

static enum kind sniff(const char *path)
{
	static const char ftz_magic[8] = "\x89" "FTZ\r\n\x1a\n";
	char buf[16] = { 0 };
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return KIND_OTHER;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n >= 1 && !memcmp(buf, ftz_magic, n < 8 ? n : 8))
		return KIND_FTZ; /* a truncated header is damage, reported by the reader */
	if (n > 0 && dec_is_tracedat(buf, n))
		return KIND_FTZ; /* trace-cmd's trace.dat: imported alike (decode.h) */
	if (n == 16 && !memcmp(buf, "SQLite format 3", 16))
		return KIND_DB;
	return KIND_OTHER;
}

static char *meta_get(sqlite3 *db, const char *key)
{
	sqlite3_stmt *st;
	char *v = NULL;

	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL))
		return NULL;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

static uint64_t mtime_ns(const struct stat *st)
{
	return (uint64_t)st->st_mtim.tv_sec * 1000000000ull + st->st_mtim.tv_nsec;
}

/* Print the damage warning kept in a database's meta; true if it was damaged. */
static bool warn_damage(sqlite3 *db, const char *path)
{
	char *state = meta_get(db, "end_state");
	bool damaged = state && !strcmp(state, "damaged");

	if (damaged) {
		char *off = meta_get(db, "damage_offset"), *why = meta_get(db, "damage_reason");

		fprintf(stderr, "ftana: %s: warning: damaged at offset %s (%s); using the events before it\n",
			path, off ? off : "?", why ? why : "?");
		free(off);
		free(why);
	}
	free(state);
	return damaged;
}

/* Does the database at db_path belong to this very .ftz (size, mtime, layout)? */
static bool cache_fresh(const char *db_path, const struct stat *src)
{
	sqlite3 *db;
	bool ok = false;

	if (access(db_path, R_OK))
		return false;
	if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
		char *size = meta_get(db, "source_size"), *mt = meta_get(db, "source_mtime_ns");
		char *ver = meta_get(db, "ftana_db_version");

		ok = size && mt && ver && !strcmp(ver, DB_VERSION) &&
		     strtoull(size, NULL, 10) == (uint64_t)src->st_size &&
		     strtoull(mt, NULL, 10) == mtime_ns(src);
		free(size);
		free(mt);
		free(ver);
	}
	sqlite3_close(db);
	return ok;
}

static int stamp(const char *db_path, const char *ftz, const struct stat *src)
{
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	char size[32], mt[32], real[PATH_MAX];
	const char *kv[][2] = { { "source", realpath(ftz, real) ? real : ftz },
				{ "source_size", size }, { "source_mtime_ns", mt },
				{ "ftana_db_version", DB_VERSION } };
	int rc = -1;

	snprintf(size, sizeof(size), "%" PRIu64, (uint64_t)src->st_size);
	snprintf(mt, sizeof(mt), "%" PRIu64, mtime_ns(src));
	if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta VALUES (?, ?)", -1, &st, NULL) == SQLITE_OK) {
		rc = 0;
		for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]) && !rc; i++) {
			sqlite3_bind_text(st, 1, kv[i][0], -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 2, kv[i][1], -1, SQLITE_STATIC);
			rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
			sqlite3_reset(st);
		}
	}
	sqlite3_finalize(st);
	if (sqlite3_close(db) != SQLITE_OK)
		rc = -1;
	return rc;
}

/* Ctrl-C during an import: remove the temporary database, then die of the signal. */
static const char *volatile building;

static void drop_tmp(int sig)
{
	if (building)
		unlink(building);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void guard(const char *tmp)
{
	building = tmp;
	signal(SIGINT, tmp ? drop_tmp : SIG_DFL);
	signal(SIGTERM, tmp ? drop_tmp : SIG_DFL);
	signal(SIGHUP, tmp ? drop_tmp : SIG_DFL);
}

int dbcache_build(const char *ftz, const char *out, bool *damaged)
{
	struct import_result res;
	struct stat src;
	char err[512], *tmp;
	int rc;

	*damaged = false;
	if (stat(ftz, &src) < 0) {
		fprintf(stderr, "ftana: %s: %s\n", ftz, strerror(errno));
		return -1;
	}
	if (asprintf(&tmp, "%s.tmp.%d", out, (int)getpid()) < 0)
		return -1;
	unlink(tmp);
	guard(tmp);
	rc = import_ftz(ftz, tmp, isatty(STDERR_FILENO), &res, err, sizeof(err));
	if (rc < 0) {
		*damaged = rc == -2 || (src.st_size < 16 && sniff(ftz) == KIND_FTZ);
		fprintf(stderr, "ftana: %s\n", err);
		rc = -1;
	}
	else if (stamp(tmp, ftz, &src) < 0 || rename(tmp, out) < 0) {
		fprintf(stderr, "ftana: %s: cannot write the database: %s\n", out, strerror(errno));
		rc = -1;
	}
	if (rc < 0)
		unlink(tmp);
	guard(NULL);
	free(tmp);
	if (rc == 0 && res.damaged) {
		*damaged = true;
		fprintf(stderr, "ftana: %s: warning: damaged at offset %" PRIu64 " (%s); using the events before it\n",
			ftz, res.damage_offset, res.damage_reason);
	}
	return rc;
}

/* FILE.ftz.db beside the .ftz, or $XDG_CACHE_HOME/ftana/<name>-<hash>.db. */
static char *cache_path(const char *ftz)
{
	char *dir_copy = strdup(ftz), *base_copy = strdup(ftz), *p = NULL, real[PATH_MAX];
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char cdir[PATH_MAX];
	uint64_t h = 1469598103934665603ull;

	if (!dir_copy || !base_copy)
		goto out;
	if (!access(dirname(dir_copy), W_OK)) {
		if (asprintf(&p, "%s.db", ftz) < 0)
			p = NULL;
		goto out;
	}
	for (const char *s = realpath(ftz, real) ? real : ftz; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	if (xdg && *xdg)
		snprintf(cdir, sizeof(cdir), "%s/ftana", xdg);
	else
		snprintf(cdir, sizeof(cdir), "%s/.cache/ftana", home ? home : "/tmp");
	for (char *s = cdir + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(cdir, 0755);
			*s = '/';
		}
	mkdir(cdir, 0755);
	if (asprintf(&p, "%s/%s-%016" PRIx64 ".db", cdir, basename(base_copy), h) < 0)
		p = NULL;
out:
	free(dir_copy);
	free(base_copy);
	return p;
}

static sqlite3 *open_db(const char *path)
{
	sqlite3 *db;

	/* Read-only: reports add TEMP objects only, nothing is written. */
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		fprintf(stderr, "ftana: %s: %s\n", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 5000);
	return db;
}

sqlite3 *ftana_open(const char *path, bool *damaged)
{
	struct stat src;
	sqlite3 *db;
	char *cache;

	*damaged = false;
	if (stat(path, &src) < 0) {
		fprintf(stderr, "ftana: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	switch (sniff(path)) {
	case KIND_DB:
		db = open_db(path);
		if (db)
			*damaged = warn_damage(db, path);
		return db;
	case KIND_OTHER:
		fprintf(stderr, "ftana: %s: not an .ftz file, trace.dat or ftana database\n", path);
		return NULL;
	case KIND_FTZ:
		break;
	}
	cache = cache_path(path);
	if (!cache) {
		fprintf(stderr, "ftana: out of memory\n");
		return NULL;
	}
	if (cache_fresh(cache, &src)) {
		db = open_db(cache);
		if (db)
			*damaged = warn_damage(db, path);
	} else {
		db = dbcache_build(path, cache, damaged) < 0 ? NULL : open_db(cache);
	}
	free(cache);
	return db;
}

int ftana_exec_sql_file(sqlite3 *db, const char *path)
{
	const char *sql = sql_file_text(path);
	char *msg = NULL;

	if (!sql) {
		fprintf(stderr, "ftana: %s: no such SQL file built in\n", path);
		return -1;
	}
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "ftana: %s: %s\n", path, msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}
