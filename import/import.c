// SPDX-License-Identifier: MIT
/*
 * import.c - decode a .ftz (decode.h) into SQLite: one bulk transaction, one
 * prepared INSERT per event table, indexes and views at the end.
 *
 * Stacks: a kernel_stack event follows the event it belongs to on the same CPU,
 * so each CPU's last event waits (a copy of its bytes) until the next event of
 * that CPU shows whether a stack follows. Its id was taken when it was decoded,
 * so ids stay in global time order although rows are written a little late.
 * Recordings without the kernel_stack format skip the wait.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/msg.h"
#include "format/ftz.h"
#include "import/derive.h"
#include "import/import_int.h"
#include "store/sql_files.h"
#include "store/sqlguard.h"

int im_error(struct importer *im, int rc, const char *fmt, ...)
{
	va_list ap;

	if (im->progress_on) /* the progress line ends first, as it would at the end */
		pass_progress(im, true);
	va_start(ap, fmt);
	msg_verror(fmt, ap);
	va_end(ap);
	im->said = true;
	return rc;
}

int im_sql_error(struct importer *im, const char *what)
{
	return im_error(im, -EIO, "%s: %s", what, sqlite3_errmsg(im->db));
}

int im_sql_error_kept(struct importer *im, const char *what)
{
	char *text;

	if (asprintf(&text, "%s: %s", what, sqlite3_errmsg(im->db)) >= 0) {
		free(im->unsaid);
		im->unsaid = text;
	}
	return -EIO;
}

int im_step_done(struct importer *im, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : im_sql_error(im, what);
}

int im_exec(struct importer *im, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(im->db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	im_error(im, -EIO, "sqlite: %s", msg ? msg : "error");
	sqlite3_free(msg);
	return -EIO;
}

int im_prepare(struct importer *im, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v3(im->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) == SQLITE_OK)
		return 0;
	return im_sql_error(im, "prepare");
}

int im_exec_file(struct importer *im, const char *path)
{
	const char *sql = sql_file_text(path);

	if (!sql)
		return im_error(im, -ENOENT, "%s: not built in", path);
	return im_exec(im, sql);
}

static int open_db(struct importer *im, const char *path)
{
	if (sqlite3_open_v2(path, &im->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, NULL))
		return im_error(im, -EIO, "%s: %s", path, sqlite3_errmsg(im->db));
	sqlguard_harden(im->db); /* defensive, trusted_schema off: sqlguard.h */
	/* A half-built database is thrown away (the caller renames only a finished
	 * one), so durability during the import buys nothing.  Defensive mode
	 * refuses journal_mode=OFF (silently); an in-memory journal costs as little. */
	return im_exec(im, "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF;"
		       " PRAGMA cache_size=-16384; PRAGMA locking_mode=EXCLUSIVE;"
		       " PRAGMA temp_store=MEMORY;");
}

/* Does SYSTEM:NAME match one of the request's globs (none: every type)? */
static bool asked(const struct import_types *types, const struct tep_event *ev)
{
	char name[512];

	if (!types)
		return true;
	snprintf(name, sizeof(name), "%s:%s", ev->system ? ev->system : "", ev->name ? ev->name : "");
	for (size_t i = 0; i < types->n; i++)
		if (!fnmatch(types->specs[i], name, 0))
			return true;
	return false;
}

/* The types already in the database (a later pass): their tables exist, their rows
 * are there. 0, or an error said. */
static int load_imported(struct importer *im, uint64_t *imported)
{
	sqlite3_stmt *st;
	int rc = im_prepare(im, "SELECT type_id, imported, table_name FROM event_types", &st);

	while (!rc && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int id = sqlite3_column_int(st, 0);
		struct etable *t = id >= 0 && id < 65536 ? im->by_id[id] : NULL;

		rc = 0;
		if (!t || !sqlite3_column_int(st, 1))
			continue;
		DEC_TYPE_SET(imported, id);
		t->created = sqlite3_column_type(st, 2) != SQLITE_NULL;
	}
	if (rc == SQLITE_DONE)
		rc = 0;
	else if (rc > 0)
		rc = im_sql_error(im, "event_types");
	sqlite3_finalize(st);
	return rc;
}

/*
 * The pass's type maps: counted (every type with a table but kernel_stack), want
 * (asked for and not imported yet), deliver (want; in the base pass also every
 * type with a comm, for tasks). 0, or an error said.
 */
static int plan_pass(struct importer *im, const struct import_types *types)
{
	uint64_t *maps = calloc(4 * DEC_TYPE_WORDS, sizeof(*maps)), *imported;

	struct tep_event *ks = tep_find_event_by_name(im->tep, "ftrace", "kernel_stack");
	int rc = 0;

	if (!maps)
		return im_error(im, -ENOMEM, "%s: out of memory", im->path);
	im->want = maps;
	im->deliver = maps + DEC_TYPE_WORDS;
	im->counted = maps + 2 * DEC_TYPE_WORDS;
	imported = im->imported = maps + 3 * DEC_TYPE_WORDS;
	if (!im->base && !im->window)
		rc = load_imported(im, imported);
	for (int i = 0; !rc && i < im->nr_tables; i++) {
		struct etable *t = &im->tables[i];
		int id = t->event->id;

		if (t->duplicate_id || id < 0 || id >= 65536 || t->event == ks)
			continue;
		DEC_TYPE_SET(im->counted, id);
		if (asked(types, t->event) && !DEC_TYPE_HAS(imported, id)) {
			DEC_TYPE_SET(im->want, id);
			DEC_TYPE_SET(im->deliver, id);
			DEC_TYPE_SET(imported, id); /* once this pass is done */
		}
		if (im->base && !im->summary && t->nr_pairs)
			DEC_TYPE_SET(im->deliver, id);
	}
	if (!rc)
		rc = sysstore_plan(im);
	return rc ? rc : stream_plan(im, types);
}

/* Asked for, or made whenever it can be (derive.h)? */
static bool derive_wanted(const struct derivation *dv, const struct import_types *types)
{
	for (const char *const *n = types && dv->on_request ? types->derive : NULL; n && *n; n++)
		if (!strcmp(*n, dv->name))
			return true;
	return !dv->on_request || !types; /* every type asked: every derivation too */
}

/* Each derivation whose inputs the capture has and the database now holds, made once. */
static int derive_ready(struct importer *im, const struct import_types *types)
{
	const uint64_t *counts = dec_type_counts(im->dec);

	for (const struct derivation *dv = derivations; dv->name; dv++) {
		bool any = false, all = true;

		if (!dv->derive || !derive_wanted(dv, types) || derive_present(im->db, "main", dv->name))
			continue; /* (a streamed one is made by the pass) */
		for (int i = 0; i < im->nr_tables && all; i++) {
			const struct tep_event *ev = im->tables[i].event;
			int id = ev->id;
			char name[512];

			if (id < 0 || id >= 65536 || !counts[id] || !DEC_TYPE_HAS(im->counted, id))
				continue;
			snprintf(name, sizeof(name), "%s:%s", ev->system ? ev->system : "",
				 ev->name ? ev->name : "");
			for (const char *const *g = dv->inputs; *g; g++)
				if (!fnmatch(*g, name, 0)) {
					any = true;
					all = DEC_TYPE_HAS(im->imported, id);
					break;
				}
		}
		if (any && all && dv->derive(im->db, "main") < 0) {
			im->said = true;
			return -EIO;
		}
	}
	return 0;
}

static int damage(struct importer *im, struct import_result *res)
{
	res->damaged = dec_damage(im->dec, &res->damage_offset, NULL);
	if (res->damaged) {
		const char *why = "";

		dec_damage(im->dec, NULL, &why);
		snprintf(res->damage_reason, sizeof(res->damage_reason), "%s", why);
	}
	return 0;
}

static int run(struct importer *im, const char *db, bool show, const struct import_types *types,
	       struct import_result *res)
{
	uint64_t first = 0, last = 0;
	int rc;

	if ((rc = open_db(im, db)) || (im->base && (rc = im_exec_file(im, "schema/tables.sql"))) ||
	    (rc = im_exec(im, "BEGIN")) || (rc = plan_tables(im)) || (rc = plan_pass(im, types)))
		return rc;
	if (!im->window && /* (which writes neither) */
	    ((rc = im_prepare(im, "INSERT INTO lost_events VALUES (?,?,?)", &im->lost_insert)) ||
	     (rc = im_prepare(im, "INSERT INTO stacks VALUES (?,?,?,?)", &im->stack_insert))))
		return rc;
	bool walk = im->base || im->stream;

	for (size_t w = 0; w < DEC_TYPE_WORDS && !walk; w++)
		walk = im->want[w] != 0;
	if (walk) { /* a later pass for a derivation from tables alone reads no event */
		if ((rc = queue_start(im)))
			return rc;
		rc = pass_events(im, show);
		int qrc = queue_finish(im);

		if (rc || (rc = qrc) || (rc = stream_write(im)) || (rc = sysstore_finish(im)))
			return rc;
	}
	res->events = dec_span(im->dec, &first, &last);
	res->stacks = im->stacks_attached;
	damage(im, res);
	if (im->base &&
	    ((rc = meta_write(im, res, first, last)) || (rc = profile_import(im)) ||
	     (rc = meta_event_types(im)) || (!im->summary && (rc = meta_tasks(im)))))
		return rc;
	if (im->window) /* the derivation alone: nothing else is the database's */
		return im_exec(im, "COMMIT");
	if (!im->base && (rc = meta_imported(im)))
		return rc;
	if ((rc = plan_events_view(im)) || (rc = stop_view(im)) || (im->base && (rc = im_exec_file(im, "schema/indexes.sql"))))
		return rc;
	if (!im->summary && (rc = derive_ready(im, types)))
		return rc;
	return im_exec(im, "COMMIT");
}

const struct import_types import_types_none = { .specs = NULL, .n = 0 };

int import_ftz(const char *ftz, const char *db, bool progress_on, struct import_result *res)
{
	return import_capture(&ftz, 1, db, IMPORT_NEW, NULL, progress_on, res);
}

/* One pass (rows_only: syscalls as rows, never as their pairs). *retry: the syscall
 * store gave up, its types are still to import (import_syscalls.c). */
static int capture_pass(const char *const *inputs, size_t n, const char *db, enum import_mode mode,
			const struct import_types *types, bool progress_on, struct import_result *res,
			bool rows_only, bool *retry)
{
	const char *ftz = inputs[0];
	struct importer im = { .path = ftz, .base = mode != IMPORT_EXTEND && mode != IMPORT_WINDOW,
			       .summary = mode == IMPORT_SUMMARY, .window = mode == IMPORT_WINDOW,
			       .rows_only = rows_only };
	const uint16_t one = 1;
	int rc;

	memset(res, 0, sizeof(*res));
	im.dec = dec_open_set(inputs, n);
	if (!im.dec)
		return errno == EBADMSG ? -2 : -1;
	im.tep = dec_tep(im.dec);
	im.native = (*(const uint8_t *)&one == 1) == !tep_is_file_bigendian(im.tep);
	/* info names the --trigger event's last time before the stop: its rows only, and
	 * for an io --stop-if the block requests' (capture_stop: the request's issuer) */
	char trigger[256], kind[8];
	const char *trigger_specs[] = { trigger, "block:block_rq_issue", "block:block_rq_complete" };
	struct import_types trigger_type = { .specs = trigger_specs };

	if (im.summary) {
		const char *end = dec_end_text(im.dec), *info = dec_info_text(im.dec);

		if (ftz_kv_get(end, strlen(end), "trigger_event", trigger, sizeof(trigger)) > 0 ||
		    ftz_kv_get(info, strlen(info), "trigger_event", trigger, sizeof(trigger)) > 0)
			trigger_type.n = ftz_kv_get(info, strlen(info), "stop_kind", kind, sizeof(kind)) > 0 &&
					 !strcmp(kind, "io") ? 3 : 1;
		types = &trigger_type;
	}
	rc = run(&im, db, progress_on, types, res);
	if (rc && !im.said) { /* an error without a message of its own */
		if (im.unsaid)
			msg_error("%s", im.unsaid);
		else if (rc != -EIO)
			msg_error("%s: %s", ftz, strerror(-rc));
	}
	free(im.unsaid);
	free(im.want);
	*retry = !rc && im.sys_retry;
	stream_free(&im);
	sysstore_free(&im);
	sqlite3_finalize(im.lost_insert);
	sqlite3_finalize(im.stack_insert);
	plan_free(&im);
	stacks_free(&im);
	comms_free(&im);
	if (sqlite3_close(im.db) != SQLITE_OK && !rc) {
		msg_error("%s: cannot close", db);
		rc = -EIO;
	}
	dec_close(im.dec);
	return rc ? -1 : 0;
}

int import_capture(const char *const *inputs, size_t n, const char *db, enum import_mode mode,
		   const struct import_types *types, bool progress_on, struct import_result *res)
{
	bool retry = false;
	int rc = capture_pass(inputs, n, db, mode, types, progress_on, res, false, &retry);

	if (!rc && retry) /* the same types, the syscalls as rows this time */
		rc = capture_pass(inputs, n, db, IMPORT_EXTEND, types, progress_on, res, true, &retry);
	return rc;
}
