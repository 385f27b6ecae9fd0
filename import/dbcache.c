// SPDX-License-Identifier: MIT
/*
 * dbcache.c - every command takes a .ftz (or trace.dat) or a .db. An input is
 * imported once into a cached database beside it (FILE.ftz.db) or, when that
 * directory is not writable, under $XDG_CACHE_HOME/ftana/. The cache is reused
 * only while its size/mtime/version match AND it carries a valid MAC under this
 * user's key over the input and its own schema (cache_trust.h): a database that
 * someone planted there is rebuilt, never used. Imports go to a temporary name
 * renamed at the end, in a child process (import_child.c), so an import that
 * crashed or was killed never leaves a database that looks complete.
 *
 * Every connection is hardened and guarded (sqlite3 authorizer): sqlguard.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/msg.h"
#include "common/out_file.h"
#include "common/text_escape.h"
#include "decode/capture_set.h"
#include "decode/decode.h"
#include "format/ftz.h"
#include "import/dbcache.h"
#include "import/derive.h"
#include "import/import_child.h"
#include "store/db.h"
#include "store/sql_files.h"
#include "store/sqlguard.h"
#include "store/trust.h"

/* Bump when the database layout changes: older caches are rebuilt. */
#define DB_VERSION "11" /* 2: profile_rounds, function_profile; 3: signed (cache_mac); 4: tgids from /proc/tgids; 5: types imported as asked (event_types.imported); 6: sched_tasks, sched_statuses; 7: traced_from_ns, complete_from_ns, traced_until_ns; 8: syscall_totals, the report views kept (views_keep); 9: capture_stop; 10: slow_calls kept; 11: syscalls stored as their pairs (import_syscalls.c) */

enum kind { KIND_FTZ, KIND_TRACEDAT, KIND_DB, KIND_OTHER };

static enum kind sniff(const char *path)
{
	char buf[16] = { 0 };
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return KIND_OTHER;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n >= 1 && ftz_sniff(buf, (size_t)n))
		return KIND_FTZ; /* a truncated header is damage, reported by the reader */
	if (n > 0 && dec_is_tracedat(buf, n))
		return KIND_TRACEDAT; /* trace-cmd's trace.dat: imported alike (decode.h) */
	if (n == 16 && !memcmp(buf, "SQLite format 3", 16))
		return KIND_DB;
	return KIND_OTHER;
}

bool dbcache_is_capture(const char *path)
{
	enum kind k = sniff(path);

	return k == KIND_FTZ || k == KIND_TRACEDAT;
}

static uint64_t mtime_ns(const struct stat *st)
{
	return (uint64_t)st->st_mtim.tv_sec * 1000000000ull + st->st_mtim.tv_nsec;
}

/* The damage warning kept in a database's meta, said (or, SAID: the import child said
 * it, only kept as said); true if it was damaged. */
static bool damage_warning(sqlite3 *db, const char *path, bool said)
{
	char *state = db_meta_text(db, "end_state");
	bool damaged = state && !strcmp(state, "damaged");

	if (damaged) {
		/* a .db given to us may say anything here: the message path escapes it */
		char *off = db_meta_text(db, "damage_offset"), *why = db_meta_text(db, "damage_reason");

		(said ? msg_warn_said_at : msg_warn_at)(path, "damaged at offset %s (%s); using the events before it",
							 off ? off : "?", why ? why : "?");
		free(off);
		free(why);
	}
	free(state);
	return damaged;
}

static bool warn_damage(sqlite3 *db, const char *path)
{
	return damage_warning(db, path, false);
}

/* Read-only, hardened, guarded: reports add TEMP objects only, nothing is written. */
static sqlite3 *open_db(const char *path, bool quiet)
{
	sqlite3 *db;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlguard_harden(db) < 0) {
		if (!quiet)
			msg_error("%s: %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return NULL;
	}
	sqlguard_set(db, GUARD_REPORT);
	sqlite3_busy_timeout(db, 5000);
	return db;
}

/* The cache's meta says it was made from a file of this size and mtime, by this layout. */
static bool stamp_matches(sqlite3 *db, const struct stat *src)
{
	char *size = db_meta_text(db, "source_size"), *mt = db_meta_text(db, "source_mtime_ns");
	char *ver = db_meta_text(db, "ftana_db_version");
	bool ok = size && mt && ver && !strcmp(ver, DB_VERSION) &&
		  strtoull(size, NULL, 10) == (uint64_t)src->st_size &&
		  strtoull(mt, NULL, 10) == mtime_ns(src);

	free(size);
	free(mt);
	free(ver);
	return ok;
}

/*
 * The files of the capture INPUTS names (capture_set.h: a ring's segments, a
 * series), its digest over all of them, and its stamp: total size, newest mtime.
 * A new segment changes all three, so it makes a new database. 0, or -1 (printed).
 */
struct input_set {
	struct cset cs;
	enum kind kind;
	uint64_t digest;
	struct stat st;
};

static int input_set_open(const char *const *inputs, size_t n, struct input_set *in)
{
	struct stat st;

	memset(in, 0, sizeof(*in));
	in->kind = sniff(inputs[0]);
	if (n == 1 && in->kind != KIND_FTZ) {
		/* a trace.dat: one file, digested whole */
		if (stat(inputs[0], &in->st) < 0 ||
		    trust_input_digest(inputs[0], INPUT_TRACEDAT, &in->digest) < 0) {
			msg_error("%s: %s", inputs[0], strerror(errno));
			return -1;
		}
		return 0;
	}
	if (cset_open(inputs, n, &in->cs) < 0)
		return -1;
	for (size_t i = 0; i < in->cs.n; i++) {
		if (stat(in->cs.paths[i], &st) < 0) {
			msg_error("%s: %s", in->cs.paths[i], strerror(errno));
			cset_free(&in->cs);
			return -1;
		}
		if (!i)
			in->st = st;
		else
			in->st.st_size += st.st_size;
		if (mtime_ns(&st) > mtime_ns(&in->st))
			in->st.st_mtim = st.st_mtim;
	}
	if ((in->cs.n == 1 && !in->cs.ring ? trust_input_digest(in->cs.paths[0], INPUT_FTZ, &in->digest)
					    : trust_set_digest(in->cs.paths, in->cs.n, &in->digest)) < 0) {
		msg_error("%s: %s", inputs[0], strerror(errno));
		cset_free(&in->cs);
		return -1;
	}
	return 0;
}

struct build {
	const char *input, *tmp, *out;
	const struct stat *src;
	uint64_t digest;
};

int (*dbcache_keep_hook)(sqlite3 *db);

/* Stamp the finished import with its source and sign it, then rename it into place. */
static int finish_build(void *arg)
{
	const struct build *b = arg;
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	char size[32], mt[32], real[PATH_MAX];
	const char *kv[][2] = { { "source", realpath(b->input, real) ? real : b->input },
				{ "source_size", size }, { "source_mtime_ns", mt },
				{ "ftana_db_version", DB_VERSION } };
	int rc = -1;

	errno = 0;
	snprintf(size, sizeof(size), "%" PRIu64, (uint64_t)b->src->st_size);
	snprintf(mt, sizeof(mt), "%" PRIu64, mtime_ns(b->src));
	if (sqlite3_open_v2(b->tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) == SQLITE_OK &&
	    sqlguard_harden(db) == 0 &&
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
	if (!rc && dbcache_keep_hook)
		rc = dbcache_keep_hook(db);
	if (!rc)
		rc = trust_db_sign(db, b->digest, DB_VERSION);
	if (sqlite3_close(db) != SQLITE_OK)
		rc = -1;
	if (!rc && rename(b->tmp, b->out) < 0)
		rc = -1;
	if (rc < 0)
		msg_error("%s: cannot write the database: %s", b->out,
			errno ? strerror(errno) : "SQL error");
	return rc;
}

/* SRC's bytes into the new file DST. 0, or -1 after an error. */
static int copy_file(const char *src, const char *dst)
{
	int in = open(src, O_RDONLY | O_NOFOLLOW), out = -1, rc = -1;
	struct stat st;

	if (in >= 0 && fstat(in, &st) == 0)
		out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	for (off_t left = in >= 0 && out >= 0 ? st.st_size : -1; left >= 0;) {
		ssize_t n = left ? copy_file_range(in, NULL, out, NULL, (size_t)left, 0) : 0;

		if (n < 0 || (n == 0 && left)) /* no copy_file_range here, or the file shrank */
			break;
		left -= n;
		if (!left) {
			rc = 0;
			break;
		}
	}
	if (rc < 0)
		msg_error_errno(errno ? errno : EIO, "%s: cannot copy it to %s", src, dst);
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0 && !rc)
		rc = msg_error_errno(errno, "%s", dst);
	return rc;
}

/*
 * Import into OUT through OUT.tmp.PID: a new database of TYPES, or with EXTEND a copy
 * of OUT (a trusted cache) with TYPES added; signed and renamed over OUT. The given
 * inputs go to the import as given: it resolves the set again (the same files).
 */
static int build(const char *const *inputs, size_t n, const struct input_set *in,
		 const char *out, bool extend, const struct import_types *types, bool *damaged)
{
	struct build b = { .input = inputs[0], .out = out, .src = &in->st, .digest = in->digest };
	struct import_job job = { .inputs = inputs, .n = n, .types = types,
				  .mode = extend ? IMPORT_EXTEND : IMPORT_NEW };
	char *tmp;
	int rc;

	*damaged = false;
	if (asprintf(&tmp, "%s.tmp.%d", out, (int)getpid()) < 0)
		return -1;
	unlink(tmp);
	b.tmp = tmp;
	errno = 0;
	rc = extend ? copy_file(out, tmp) : 0;
	if (!rc)
		rc = import_isolated_job(&job, tmp, damaged, finish_build, &b);
	else
		unlink(tmp);
	if (rc < 0 && in->st.st_size < 16 && in->kind == KIND_FTZ)
		*damaged = true; /* a .ftz cut inside its file header */
	free(tmp);
	return rc;
}

int dbcache_build_set(const char *const *inputs, size_t n, const char *out, bool *damaged)
{
	struct input_set in;
	int rc;

	*damaged = false;
	if (input_set_open(inputs, n, &in) < 0)
		return -1;
	/* every type and every derivation: a database a user keeps has all of it */
	rc = build(inputs, n, &in, out, false, NULL, damaged);
	cset_free(&in.cs);
	return rc;
}

int dbcache_build(const char *input, const char *out, bool *damaged)
{
	return dbcache_build_set(&input, 1, out, damaged);
}

/* FILE.ftz.db beside the .ftz, or $XDG_CACHE_HOME/ftana/<name>-<hash>.db. */
static char *cache_path(const char *ftz)
{
	char *dir_copy = strdup(ftz), *base_copy = strdup(ftz), *p = NULL, real[PATH_MAX];
	char cdir[PATH_MAX - 64];
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
	if (trust_cache_dir(cdir, sizeof(cdir)) < 0)
		snprintf(cdir, sizeof(cdir), "/nonexistent"); /* the build reports it */
	if (asprintf(&p, "%s/%s-%016" PRIx64 ".db", cdir, basename(base_copy), h) < 0)
		p = NULL;
out:
	free(dir_copy);
	free(base_copy);
	return p;
}

/* Checking a cache reads a few dozen rows: 10^7 VM steps are far more than enough. */
#define CHECK_BUDGET 10000

static int over_budget(void *arg)
{
	int *budget = arg;

	return --*budget < 0;
}

/*
 * A .db given as the input was not made in this run, nor signed by us: its views can
 * be anything (a recursive CTE that never ends, a join of a table with itself ten
 * times). Every statement ftana runs on it shares a budget of VM steps in proportion
 * to its size - DB_STEPS_PER_BYTE, far above what a report over its rows needs - and
 * a statement past it fails ("interrupted"), so a small file cannot hang ftana.
 */
#define DB_STEPS_PER_BYTE 100
#define DB_STR_(x) #x
#define DB_STR(x) DB_STR_(x)
#define DB_STEPS_MIN (1LL << 28)

static int given_over_budget(void *arg)
{
	int64_t *left = arg;

	return --*left < 0; /* then every later statement fails at once too */
}

static void given_db_budget(sqlite3 *db, const struct stat *st)
{
	static int64_t left; /* one input per run: one budget (in units of 1000 steps) */
	int64_t steps = st->st_size > DB_STEPS_MIN / DB_STEPS_PER_BYTE ?
			(int64_t)st->st_size * DB_STEPS_PER_BYTE : DB_STEPS_MIN;

	left = steps / 1000;
	sqlite3_progress_handler(db, 1000, given_over_budget, &left);
	msg_set_interrupted("the database given as input needs more work than its size allows "
			    "(" DB_STR(DB_STEPS_PER_BYTE) " VM steps a byte: a view that never ends?): stopped");
}

/*
 * The cache at path, open, if it is ours for this input; NULL otherwise (closed).
 * One connection checks and then serves: the file cannot be swapped in between.
 */
static sqlite3 *open_trusted(const char *path, const struct stat *src, uint64_t digest,
			     bool *suspicious)
{
	sqlite3 *db;

	int budget = CHECK_BUDGET;
	bool trusted = false;

	*suspicious = false;
	if (access(path, F_OK))
		return NULL;
	db = open_db(path, true);
	if (!db)
		return NULL;
	/* A planted meta can be a view that never ends (a recursive CTE): the
	 * check gets a budget of VM steps, far above what our few rows need. */
	sqlite3_progress_handler(db, 1000, over_budget, &budget);
	if (stamp_matches(db, src)) {
		trusted = trust_db_verify(db, digest, DB_VERSION);
		/* matches by size and mtime but was not signed by us for this input */
		*suspicious = !trusted && trust_key_persistent();
	}
	sqlite3_progress_handler(db, 0, NULL, NULL);
	if (trusted)
		return db;
	sqlite3_close(db);
	return NULL;
}

/* Several files joined: FIRST.ftz.join-HASH.db, HASH over all their names (given order). */
static char *join_cache_path(const char *const *inputs, size_t n)
{
	char *first = n > 1 ? cache_path(inputs[0]) : NULL, *p = NULL, real[PATH_MAX];
	uint64_t h = 1469598103934665603ull;

	if (n == 1)
		return cache_path(inputs[0]);
	if (!first)
		return NULL;
	for (size_t i = 0; i < n; i++)
		for (const char *s = realpath(inputs[i], real) ? real : inputs[i]; ; s++) {
			h = (h ^ (unsigned char)*s) * 1099511628211ull;
			if (!*s)
				break;
		}
	first[strlen(first) - 3] = '\0'; /* ".db" */
	if (asprintf(&p, "%s.join-%016" PRIx64 ".db", first, h) < 0)
		p = NULL;
	free(first);
	return p;
}

/* Does db lack a derivation TYPES asks for (NULL: every one) whose inputs it has? */
static bool lacks_derived(sqlite3 *db, const struct import_types *types)
{
	for (const struct derivation *dv = derivations; dv->name; dv++) {
		bool asked = !types;

		for (const char *const *n = types ? types->derive : NULL; n && *n && !asked; n++)
			asked = !strcmp(*n, dv->name);
		if (!asked || derive_present(db, "main", dv->name))
			continue;
		for (const char *const *g = dv->inputs; *g; g++) {
			sqlite3_stmt *st;
			bool has = false;

			if (sqlite3_prepare_v2(db, "SELECT 1 FROM event_types WHERE count > 0 AND "
					       "system || ':' || name GLOB ?1", -1, &st, NULL) != SQLITE_OK)
				return true;
			sqlite3_bind_text(st, 1, *g, -1, SQLITE_STATIC);
			has = sqlite3_step(st) == SQLITE_ROW;
			sqlite3_finalize(st);
			if (has)
				return true;
		}
	}
	return false;
}

/* Does db lack the rows of some type TYPES asks for (NULL: any type), or a
 * derivation it asks for? */
static bool lacks(sqlite3 *db, const struct import_types *types)
{
	sqlite3_stmt *st;
	bool missing = false;

	if (sqlite3_prepare_v2(db, "SELECT system || ':' || name FROM event_types WHERE NOT imported",
			       -1, &st, NULL) != SQLITE_OK)
		return true; /* no such column: not a database of ours after all */
	while (!missing && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);

		missing = !types;
		for (size_t i = 0; types && i < types->n && !missing && name; i++)
			missing = !fnmatch(types->specs[i], name, 0);
	}
	sqlite3_finalize(st);
	return missing || lacks_derived(db, types);
}

static sqlite3 *open_input(const char *const *inputs, size_t n, const struct import_types *types,
			   bool *damaged)
{
	const char *path = inputs[0];
	char *cache = join_cache_path(inputs, n);
	struct input_set in;
	uint64_t digest;
	const struct stat *src = &in.st;
	bool suspicious;
	sqlite3 *db = NULL;

	if (!cache) {
		msg_error("out of memory");
		return NULL;
	}
	if (input_set_open(inputs, n, &in) < 0) {
		free(cache);
		return NULL;
	}
	digest = in.digest;
	db = open_trusted(cache, src, digest, &suspicious);
	if (db && !lacks(db, types)) {
		*damaged = warn_damage(db, path);
		goto out;
	}
	if (suspicious)
		msg_error("%s: not made by this user's ftana from %s; rebuilding it",
			cache, path);
	/* ours, but without some types asked for: they are added to a copy */
	bool extend = db != NULL;

	sqlite3_close(db);
	if (build(inputs, n, &in, cache, extend, types, damaged) < 0) {
		db = NULL;
		goto out;
	}
	db = open_trusted(cache, src, digest, &suspicious);
	if (!db)
		msg_error("%s: changed by someone else while it was built", cache);
	else if (*damaged) /* the import child said it: a second open in this run says it no more */
		damage_warning(db, path, true);
out:
	cset_free(&in.cs);
	free(cache);
	return db;
}

sqlite3 *dbcache_open_set(const char *const *inputs, size_t n, const struct import_types *types,
			  bool *damaged)
{
	*damaged = false;
	for (size_t i = 0; n > 1 && i < n; i++)
		if (cset_check_regular(inputs[i]) < 0)
			return NULL;
	for (size_t i = 0; n > 1 && i < n; i++)
		if (sniff(inputs[i]) != KIND_FTZ) {
			msg_error("%s: only .ftz files of one --rotate series can be joined", inputs[i]);
			return NULL;
		}
	return n > 1 ? open_input(inputs, n, types, damaged) : dbcache_open(inputs[0], types, damaged);
}

sqlite3 *dbcache_open(const char *path, const struct import_types *types, bool *damaged)
{
	struct stat src;
	sqlite3 *db;

	*damaged = false;
	if (stat(path, &src) < 0) {
		msg_error("%s: %s", path, strerror(errno));
		return NULL;
	}
	if (cset_check_regular(path) < 0)
		return NULL;
	switch (sniff(path)) {
	case KIND_DB:
		db = open_db(path, false);
		if (db) {
			given_db_budget(db, &src);
			/* every command reads meta first: say what the file is, not "no such
			 * table: meta" without its name */
			if (!db_has_table(db, "meta")) {
				msg_error("%s: a SQLite database, but not one ftana made (no meta table)",
					  path);
				sqlite3_close(db);
				return NULL;
			}
			*damaged = warn_damage(db, path);
		}
		return db;
	case KIND_OTHER:
		msg_error("%s: not an .ftz file, trace.dat or ftana database", path);
		return NULL;
	case KIND_FTZ:
	case KIND_TRACEDAT:
		break;
	}
	return open_input(&path, 1, types, damaged);
}

sqlite3 *dbcache_open_inputs(const char *const *files, size_t n, const struct import_types *types,
			     bool *damaged)
{
	struct stat st;

	*damaged = false;
	/* a mistyped operand is named as itself, not as a file of the wrong kind */
	for (size_t i = 0; i < n; i++)
		if (stat(files[i], &st) < 0) {
			msg_error("%s: %s", files[i], strerror(errno));
			return NULL;
		}
	return dbcache_open_set(files, n, types, damaged);
}


/* A summary's finish: the source keys `ftana info` shows (not signed: never reused). */
static int finish_summary(void *arg)
{
	const struct build *b = arg;
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	char size[32], real[PATH_MAX];
	int rc = -1;

	snprintf(size, sizeof(size), "%" PRIu64, (uint64_t)b->src->st_size);
	if (sqlite3_open_v2(b->tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) == SQLITE_OK &&
	    sqlguard_harden(db) == 0 &&
	    sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta VALUES ('source', ?), ('source_size', ?)",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, realpath(b->input, real) ? real : b->input, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, size, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	}
	sqlite3_finalize(st);
	if (sqlite3_close(db) != SQLITE_OK || rc)
		rc = msg_error("%s: cannot write the summary: %s", b->tmp, sqlite3_errstr(rc));
	return rc;
}

sqlite3 *dbcache_summary(const char *const *files, size_t n, bool *damaged)
{
	struct input_set in;
	char *cache, tmp[PATH_MAX];
	sqlite3 *db = NULL;
	bool suspicious;

	*damaged = false;
	for (size_t i = 0; i < n; i++)
		if (cset_check_regular(files[i]) < 0) /* (says a missing file's errno too) */
			return NULL;
	if (n == 1 && sniff(files[0]) != KIND_FTZ && sniff(files[0]) != KIND_TRACEDAT)
		return dbcache_open(files[0], &import_types_none, damaged); /* a .db, or refused */
	for (size_t i = 0; n > 1 && i < n; i++)
		if (sniff(files[i]) != KIND_FTZ)
			return dbcache_open_set(files, n, &import_types_none, damaged); /* says why */
	cache = join_cache_path(files, n);
	if (!cache || input_set_open(files, n, &in) < 0) {
		free(cache);
		return NULL;
	}
	/* a database made earlier holds all of it */
	db = open_trusted(cache, &in.st, in.digest, &suspicious);
	free(cache);
	if (db) {
		*damaged = warn_damage(db, files[0]);
		cset_free(&in.cs);
		return db;
	}
	/* else the capture is read for it, into a database of a few tables that goes away,
	 * built by name in a directory of our own (a name in a shared $TMPDIR could be
	 * planted: its rows would be shown as the capture's) */
	char *dir = out_private_dir("ftana-info");
	struct build b = { .input = files[0], .src = &in.st, .tmp = tmp };
	struct import_job job = { .inputs = files, .n = n, .mode = IMPORT_SUMMARY };

	if (!dir) {
		msg_error_errno(errno, "cannot make a temp directory for the summary");
		cset_free(&in.cs);
		return NULL;
	}
	out_private_dir_pending(dir);
	snprintf(tmp, sizeof(tmp), "%s/info.db", dir);
	if (import_isolated_job(&job, tmp, damaged, finish_summary, &b) == 0) {
		db = open_db(tmp, false);
		unlink(tmp); /* held open: gone when closed */
	} else if (in.st.st_size < 16 && in.kind == KIND_FTZ) {
		*damaged = true; /* a .ftz cut inside its file header */
	}
	out_private_dir_done(dir);
	free(dir);
	cset_free(&in.cs);
	return db;
}
