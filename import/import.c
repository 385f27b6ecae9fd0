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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/msg.h"
#include "import/import_int.h"
#include "store/sql_files.h"
#include "store/sqlguard.h"

struct pending {
	struct etable *t;       /* NULL: nothing waiting */
	uint64_t id;
	unsigned long long ts;
	int size;
	int64_t stack_id;
	uint8_t *data;
	int cap;
};

static void progress(struct importer *im, bool last);

int im_error(struct importer *im, int rc, const char *fmt, ...)
{
	va_list ap;

	if (im->progress_on) /* the progress line ends first, as it would at the end */
		progress(im, true);
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

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* last: the line's final state, with its newline; once (progress_on is then off). */
static void progress(struct importer *im, bool last)
{
	const struct dec_stats *s = dec_stats(im->dec);
	double dt = now_s() - im->progress_t0;

	/* a progress line on a terminal, redrawn in place: not a message */
	fprintf(stderr, "\r%s: pages %llu/%llu, %llu events, %.0f events/s%s", msg_prefix(),
		(unsigned long long)dec_pages_done(im->dec), (unsigned long long)s->nr_pages,
		(unsigned long long)im->ids, dt > 0 ? im->ids / dt : 0.0, last ? "\n" : "");
	if (last)
		im->progress_on = false;
}

static int flush(struct importer *im, struct pending *p, int cpu)
{
	int rc;

	if (!p->t)
		return 0;
	rc = plan_insert(im, p->t, p->id, p->ts, cpu, p->data, p->size, p->stack_id);
	p->t = NULL;
	return rc;
}

static int hold(struct pending *p, struct etable *t, uint64_t id, const struct dec_event *ev)
{
	if (ev->record->size > p->cap) {
		uint8_t *n = realloc(p->data, ev->record->size);

		if (!n)
			return -ENOMEM;
		p->data = n;
		p->cap = ev->record->size;
	}
	memcpy(p->data, ev->record->data, ev->record->size);
	p->t = t;
	p->id = id;
	p->ts = ev->ts;
	p->size = ev->record->size;
	p->stack_id = -1;
	return 0;
}

static int note_loss(struct importer *im, const struct dec_event *ev)
{
	sqlite3_stmt *st = im->lost_insert;
	int rc;

	sqlite3_bind_int(st, 1, ev->cpu);
	sqlite3_bind_int64(st, 2, (int64_t)ev->ts);
	if (ev->missed > 0)
		sqlite3_bind_int64(st, 3, ev->missed);
	else
		sqlite3_bind_null(st, 3);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : im_sql_error(im, "lost_events");
}

/* The event loop: every event of the file into its table. */
static int import_events(struct importer *im, struct import_result *res, bool show,
			 uint64_t *first_ts, uint64_t *last_ts)
{
	unsigned nr_cpus = dec_stats(im->dec)->nr_cpus;
	struct pending *pend = calloc(nr_cpus + 1, sizeof(*pend));
	struct tep_event *ks = tep_find_event_by_name(im->tep, "ftrace", "kernel_stack");
	struct dec_event ev;
	double shown = now_s();
	int rc = pend ? 0 : -ENOMEM;

	im->progress_t0 = shown;
	im->progress_on = show;
	while (!rc && dec_next(im->dec, &ev) > 0) {
		struct etable *t = im->by_id[ev.type_id & 0xffff];
		struct pending *p = &pend[ev.cpu];

		if (!im->ids)
			*first_ts = ev.ts;
		*last_ts = ev.ts;
		if (ev.missed) {
			/* events were lost just before: a stack here may be a lost event's */
			if ((rc = note_loss(im, &ev)) || (rc = flush(im, p, ev.cpu)))
				break;
		}
		/* ks was looked up once: a pointer compare, not two strcmp per event */
		if (ks && ev.event == ks) {
			if (p->t && p->stack_id < 0) {
				p->stack_id = stacks_intern(im, ev.event, ev.record->data,
							    ev.record->size);
				res->stacks++;
				rc = flush(im, p, ev.cpu);
			} else {
				im->orphan_stacks++;
			}
			continue;
		}
		if (!t) {
			im->unknown_events++; /* no format for this type in the file */
			continue;
		}
		if (!t->created && (rc = plan_create(im, t)))
			break;
		if (ks) {
			rc = flush(im, p, ev.cpu);
			if (!rc)
				rc = hold(p, t, ++im->ids, &ev);
		} else {
			rc = plan_insert(im, t, ++im->ids, ev.ts, ev.cpu, ev.record->data,
					 ev.record->size, -1);
		}
		if (im->progress_on && !(im->ids & 0xffff) && now_s() - shown > 0.25) {
			shown = now_s();
			progress(im, false);
		}
	}
	for (unsigned c = 0; !rc && pend && c < nr_cpus; c++)
		rc = flush(im, &pend[c], c);
	for (unsigned c = 0; pend && c < nr_cpus; c++)
		free(pend[c].data);
	free(pend);
	res->events = im->ids;
	if (im->progress_on)
		progress(im, true);
	return rc;
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

static int run(struct importer *im, const char *db, bool show, struct import_result *res)
{
	uint64_t first = 0, last = 0;
	int rc;

	if ((rc = open_db(im, db)) || (rc = im_exec_file(im, "schema/tables.sql")) ||
	    (rc = im_exec(im, "BEGIN")) || (rc = plan_tables(im)))
		return rc;
	if ((rc = im_prepare(im, "INSERT INTO lost_events VALUES (?,?,?)", &im->lost_insert)) ||
	    (rc = im_prepare(im, "INSERT INTO stacks VALUES (?,?,?,?)", &im->stack_insert)))
		return rc;
	rc = import_events(im, res, show, &first, &last);
	if (rc)
		return rc;
	res->damaged = dec_damage(im->dec, &res->damage_offset, NULL);
	if (res->damaged) {
		const char *why = "";

		dec_damage(im->dec, NULL, &why);
		snprintf(res->damage_reason, sizeof(res->damage_reason), "%s", why);
	}
	if ((rc = meta_write(im, res, first, last)) || (rc = profile_import(im)) ||
	    (rc = meta_event_types(im)) ||
	    (rc = meta_tasks(im)) || (rc = plan_events_view(im)) ||
	    (rc = im_exec_file(im, "schema/indexes.sql")))
		return rc;
	return im_exec(im, "COMMIT");
}

int import_ftz(const char *ftz, const char *db, bool progress_on, struct import_result *res)
{
	return import_ftz_set(&ftz, 1, db, progress_on, res);
}

int import_ftz_set(const char *const *inputs, size_t n, const char *db, bool progress_on,
		   struct import_result *res)
{
	const char *ftz = inputs[0];
	struct importer im = { .path = ftz };
	const uint16_t one = 1;
	int rc;

	memset(res, 0, sizeof(*res));
	im.dec = dec_open_set(inputs, n);
	if (!im.dec)
		return errno == EBADMSG ? -2 : -1;
	im.tep = dec_tep(im.dec);
	im.native = (*(const uint8_t *)&one == 1) == !tep_is_file_bigendian(im.tep);
	rc = run(&im, db, progress_on, res);
	if (rc && !im.said) { /* an error without a message of its own */
		if (im.unsaid)
			msg_error("%s", im.unsaid);
		else if (rc != -EIO)
			msg_error("%s: %s", ftz, strerror(-rc));
	}
	free(im.unsaid);
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
