// SPDX-License-Identifier: MIT
/*
 * import_plan.c - one typed table per event type: its columns (from the event's
 * format file) and a column plan that lets the per-event loop bind values straight
 * from the record bytes. Table shape: see schema/tables.sql; names: import_names.c.
 *
 * Everything here comes from the file: names reach SQL only quoted ("%w", and
 * '%q' for the events view's type literal), and a field's offset and size are
 * checked against each record in 64-bit arithmetic before a byte is read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import_int.h"
#include "common/msg.h"

static bool int_size(uint32_t size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

static struct col plan_field(const struct tep_format_field *f)
{
	struct col c = { .offset = (uint32_t)f->offset, .size = (uint32_t)f->size,
			 .is_signed = f->flags & TEP_FIELD_IS_SIGNED,
			 .relative = f->flags & TEP_FIELD_IS_RELATIVE };
	bool is_char = f->flags & TEP_FIELD_IS_STRING;

	if (f->flags & TEP_FIELD_IS_DYNAMIC)
		c.kind = is_char ? COL_TEXT_DYN : COL_BLOB_DYN;
	else if (f->flags & TEP_FIELD_IS_ARRAY)
		c.kind = is_char ? COL_TEXT : COL_BLOB;
	else if (c.size == 0 && is_char) /* ftrace's `char buf[]` */
		c.kind = COL_TEXT;
	else if (int_size(c.size))
		c.kind = COL_INT;
	else
		c.kind = COL_BLOB;
	return c;
}

static const char *sql_type(enum col_kind k)
{
	return k == COL_INT ? "INTEGER" : (k == COL_TEXT || k == COL_TEXT_DYN) ? "TEXT" : "BLOB";
}

static bool is_comm_name(const char *name, size_t *prefix)
{
	size_t n = name ? strlen(name) : 0;

	if (n < 4 || strcmp(name + n - 4, "comm") || (n > 4 && name[n - 5] != '_'))
		return false;
	*prefix = n - 4;
	return true;
}

static int add_pair(struct etable *t, int pid_col, int comm_col)
{
	struct comm_pair *np = realloc(t->pairs, (t->nr_pairs + 1) * sizeof(*np));

	if (!np)
		return -ENOMEM;
	t->pairs = np;
	t->pairs[t->nr_pairs++] = (struct comm_pair){ pid_col, comm_col };
	return 0;
}

/* Kernel events have one or two comm fields (prev_comm, next_comm): the pid search
 * is quadratic in the fields, so of a hostile format's thousands of comm fields
 * only the first few are looked at. */
#define MAX_COMM_FIELDS 16

/* comm / X_comm text fields paired with pid / X_pid integer fields of the same
 * event; a plain `comm` without a `pid` field is the current task's (block_rq_issue),
 * paired with common_pid (pid_col -1). */
static int plan_pairs(struct etable *t, struct tep_format_field **fields, int n)
{
	int comm_fields = 0;

	for (int i = 0; i < n && comm_fields < MAX_COMM_FIELDS; i++) {
		size_t pre;
		int pid_col = -1;

		if (t->cols[i].kind != COL_TEXT || !is_comm_name(fields[i]->name, &pre))
			continue;
		comm_fields++;
		for (int j = 0; j < n && pid_col < 0; j++) {
			const char *p = fields[j]->name;

			if (t->cols[j].kind == COL_INT && p && !strncmp(p, fields[i]->name, pre) &&
			    !strcmp(p + pre, "pid"))
				pid_col = j;
		}
		if ((pid_col >= 0 || pre == 0) && add_pair(t, pid_col, i) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* SQLite refuses a table of more than SQLITE_LIMIT_COLUMN columns: fields past
 * that (a hostile format) are left out, with a warning, not the whole import. */
static int max_fields(struct importer *im)
{
	return sqlite3_limit(im->db, SQLITE_LIMIT_COLUMN, -1) - 5 /* fixed columns */;
}

static int plan_table(struct importer *im, struct etable *t)
{
	struct tep_format_field **fields = tep_event_fields(t->event);
	struct tep_format_field *pid = tep_find_common_field(t->event, "common_pid");
	int n = 0, rc;

	if (pid) {
		t->pid = plan_field(pid);
		if (t->pid.kind != COL_INT) /* e.g. a 3-byte common_pid: no pid, not 8 bytes read */
			t->pid.kind = COL_BLOB;
	} else {
		t->pid.kind = COL_BLOB;
	}
	while (fields && fields[n])
		n++;
	if (n > max_fields(im)) {
		msg_warn_at(im->path, "event %s:%s has %d fields; only the first %d"
			" are imported", t->event->system, t->event->name, n,
			max_fields(im));
		n = max_fields(im);
	}
	t->cols = calloc(n + 1, sizeof(*t->cols));
	if (!t->cols) {
		free(fields);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++)
		t->cols[i] = plan_field(fields[i]);
	t->nr_cols = n;
	rc = names_columns(t, fields, n);
	if (!rc)
		rc = plan_pairs(t, fields, n);
	free(fields);
	return rc;
}

/* Two formats of one ID (a hostile or broken file): the first in (ID, system, name)
 * order keeps it; the others get no table, no rows, no event_types row. */
static void mark_duplicate_ids(struct importer *im)
{
	int dups = 0;

	for (int i = 1; i < im->nr_tables; i++)
		if (im->tables[i].event->id == im->tables[i - 1].event->id) {
			im->tables[i].duplicate_id = true;
			dups++;
		}
	if (dups)
		msg_warn_at(im->path, "%d event formats reuse the ID of another;"
			" they are ignored", dups);
}

int plan_tables(struct importer *im)
{
	struct tep_event **all = tep_list_events(im->tep, TEP_EVENT_SORT_ID);
	int n = tep_get_events_count(im->tep);
	/* a copy: names_tables sorts it, and the list is libtraceevent's */
	struct tep_event **evs = malloc((n + 1) * sizeof(*evs));

	im->by_id = calloc(65536, sizeof(*im->by_id));
	im->tables = calloc(n + 1, sizeof(*im->tables));
	if (!evs || !im->by_id || !im->tables || (n && !all)) {
		free(evs);
		return -ENOMEM;
	}
	if (n)
		memcpy(evs, all, n * sizeof(*evs));
	im->nr_tables = n;
	if (names_tables(im, evs, n) < 0) {
		free(evs);
		return -ENOMEM;
	}
	free(evs);
	mark_duplicate_ids(im);
	for (int i = 0; i < n; i++) {
		struct etable *t = &im->tables[i];

		if (plan_table(im, t) < 0)
			return -ENOMEM;
		if (!t->duplicate_id && t->event->id >= 0 && t->event->id < 65536)
			im->by_id[t->event->id] = t;
	}
	return 0;
}

/* An SQL text built with sqlite3_str (identifiers "%w", values '%q'): NULL when out of memory. */
static char *str_done(sqlite3_str *s)
{
	if (sqlite3_str_errcode(s) != SQLITE_OK) {
		sqlite3_free(sqlite3_str_finish(s));
		return NULL;
	}
	return sqlite3_str_finish(s);
}

/* CREATE TABLE and the INSERT statement, on the first event of the type. */
int plan_create(struct importer *im, struct etable *t)
{
	sqlite3_str *create = sqlite3_str_new(im->db), *insert = sqlite3_str_new(im->db);
	char *create_sql, *insert_sql;
	int rc = -ENOMEM;

	sqlite3_str_appendf(create, "CREATE TABLE \"%w\" (\n\tid INTEGER PRIMARY KEY,\n"
			    "\tts INTEGER NOT NULL,\n\tcpu INTEGER NOT NULL,\n\tpid INTEGER,\n"
			    "\tstack_id INTEGER", t->name);
	sqlite3_str_appendf(insert, "INSERT INTO \"%w\" VALUES (?,?,?,?,?", t->name);
	for (int i = 0; i < t->nr_cols; i++) {
		sqlite3_str_appendf(create, ",\n\t\"%w\" %s", t->col_names[i],
				    sql_type(t->cols[i].kind));
		sqlite3_str_appendall(insert, ",?");
	}
	sqlite3_str_appendall(create, "\n)");
	sqlite3_str_appendall(insert, ")");
	create_sql = str_done(create);
	insert_sql = str_done(insert);
	if (create_sql && insert_sql) {
		rc = im_exec(im, create_sql);
		if (!rc)
			rc = im_prepare(im, insert_sql, &t->insert);
	}

	sqlite3_free(create_sql);
	sqlite3_free(insert_sql);
	return rc;
}

/* The SIZE-byte integer at p (SIZE is 1, 2, 4 or 8: COL_INT only has those). */
static int64_t read_int(struct importer *im, const uint8_t *p, uint32_t size, bool is_signed)
{
	if (!im->native) {
		int64_t v = (int64_t)tep_read_number(im->tep, p, (int)size);

		if (is_signed && size < 8) /* sign-extend the swapped value */
			v = (int64_t)((uint64_t)v << (64 - 8 * size)) >> (64 - 8 * size);
		return v;
	}
	switch (size) {
	case 1: return is_signed ? (int64_t)*(const int8_t *)p : (int64_t)*p;
	case 2: { uint16_t v; memcpy(&v, p, 2); return is_signed ? (int64_t)(int16_t)v : (int64_t)v; }
	case 4: { uint32_t v; memcpy(&v, p, 4); return is_signed ? (int64_t)(int32_t)v : (int64_t)v; }
	case 8: { int64_t v; memcpy(&v, p, 8); return v; }
	default: return 0;
	}
}

/* The bytes of field C in a record of SIZE bytes, or NULL when the format puts the
 * field (partly) outside the record: a short record, or a hostile offset/size. */
static const uint8_t *field_at(const struct col *c, const uint8_t *data, int size)
{
	return (uint64_t)c->offset + c->size <= (uint64_t)size ? data + c->offset : NULL;
}

/* Bytes of a fixed text/blob field: its size, or the rest of the record for a
 * `char buf[]` (size 0). Only for a field field_at accepted. */
static uint32_t field_len(const struct col *c, int size)
{
	return c->size ? c->size : (uint32_t)size - c->offset;
}

/* Bind one dynamic (__data_loc / __rel_loc) field; out-of-record locations bind NULL. */
static int bind_dyn(struct importer *im, sqlite3_stmt *st, int idx, const struct col *c,
		    const uint8_t *data, int size)
{
	uint32_t loc, len;
	uint64_t off;

	if (c->size != 4) /* a location is always a u32 */
		return sqlite3_bind_null(st, idx);
	loc = (uint32_t)read_int(im, data + c->offset, 4, false);
	off = loc & 0xffff;
	len = loc >> 16;
	if (c->relative)
		off += (uint64_t)c->offset + c->size;
	if (off + len > (uint64_t)size)
		return sqlite3_bind_null(st, idx);
	if (c->kind == COL_BLOB_DYN)
		return sqlite3_bind_blob(st, idx, data + off, (int)len, SQLITE_STATIC);
	return sqlite3_bind_text(st, idx, (const char *)data + off,
				 (int)strnlen((const char *)data + off, len), SQLITE_STATIC);
}

static void bind_col(struct importer *im, sqlite3_stmt *st, int idx, const struct col *c,
		     const uint8_t *data, int size)
{
	const uint8_t *p = field_at(c, data, size);
	uint32_t len;

	if (!p) {
		sqlite3_bind_null(st, idx);
		return;
	}
	len = field_len(c, size);
	switch (c->kind) {
	case COL_INT:
		sqlite3_bind_int64(st, idx, read_int(im, p, c->size, c->is_signed));
		break;
	case COL_TEXT:
		sqlite3_bind_text(st, idx, (const char *)p, (int)strnlen((const char *)p, len),
				  SQLITE_STATIC);
		break;
	case COL_BLOB:
		sqlite3_bind_blob(st, idx, p, (int)len, SQLITE_STATIC);
		break;
	default:
		bind_dyn(im, st, idx, c, data, size);
		break;
	}
}

bool plan_col_int(struct importer *im, const struct col *c, const uint8_t *data, int size, int64_t *v)
{
	const uint8_t *p = c->kind == COL_INT ? field_at(c, data, size) : NULL;

	if (p)
		*v = read_int(im, p, c->size, c->is_signed);
	return p != NULL;
}

void plan_comms(struct importer *im, const struct etable *t, const uint8_t *data, int size)
{
	for (int i = 0; i < t->nr_pairs; i++) {
		const struct col *cc = &t->cols[t->pairs[i].comm_col];
		const struct col *pc = t->pairs[i].pid_col < 0 ? &t->pid
							       : &t->cols[t->pairs[i].pid_col];
		const uint8_t *comm = field_at(cc, data, size), *pid = field_at(pc, data, size);

		if (pc->kind == COL_INT && comm && pid)
			comms_note(im, (int)read_int(im, pid, pc->size, true), (const char *)comm,
				   (int)field_len(cc, size));
	}
}

int plan_insert(struct importer *im, struct etable *t, uint64_t id, unsigned long long ts,
		int cpu, const uint8_t *data, int size, int64_t stack_id)
{
	sqlite3_stmt *st = t->insert;

	sqlite3_bind_int64(st, 1, (int64_t)id);
	sqlite3_bind_int64(st, 2, (int64_t)ts);
	sqlite3_bind_int(st, 3, cpu);
	if (t->pid.kind == COL_INT)
		bind_col(im, st, 4, &t->pid, data, size);
	else
		sqlite3_bind_null(st, 4);
	if (stack_id >= 0)
		sqlite3_bind_int64(st, 5, stack_id);
	else
		sqlite3_bind_null(st, 5);
	for (int i = 0; i < t->nr_cols; i++)
		bind_col(im, st, 6 + i, &t->cols[i], data, size);
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_reset(st);
		return im_sql_error(im, t->name);
	}
	sqlite3_reset(st);
	t->count++;
	return 0;
}

/* Branches of one UNION ALL chain: SQLite refuses a compound SELECT of more than
 * SQLITE_LIMIT_COMPOUND_SELECT (500) terms, and a full-system trace may have more
 * event types. Past this many, the view is a UNION ALL of subqueries, each a chain
 * of at most this many branches. */
#define VIEW_CHAIN 400

/* events: one UNION ALL branch per typed table that has rows. */
int plan_events_view(struct importer *im)
{
	sqlite3_str *sql = sqlite3_str_new(im->db);
	char *text;
	int n = 0, nr_created = 0, rc;
	bool nested;

	for (int i = 0; i < im->nr_tables; i++)
		nr_created += im->tables[i].created;
	nested = nr_created > VIEW_CHAIN;
	sqlite3_str_appendall(sql, "DROP VIEW IF EXISTS events; CREATE VIEW events AS ");
	if (nested)
		sqlite3_str_appendall(sql, "SELECT * FROM (");
	for (int i = 0; i < im->nr_tables; i++) {
		struct etable *t = &im->tables[i];

		if (!t->created)
			continue;
		if (nested && n && n % VIEW_CHAIN == 0)
			sqlite3_str_appendall(sql, ")\nUNION ALL SELECT * FROM (");
		else if (n)
			sqlite3_str_appendall(sql, "\nUNION ALL ");
		sqlite3_str_appendf(sql, "SELECT id, ts, cpu, pid, '%q' AS type FROM \"%w\"",
				    t->name, t->name);
		n++;
	}
	if (!n)
		sqlite3_str_appendall(sql, "SELECT NULL AS id, NULL AS ts, NULL AS cpu,"
				      " NULL AS pid, NULL AS type WHERE 0");
	if (nested)
		sqlite3_str_appendall(sql, ")");
	text = str_done(sql);
	if (!text)
		return -ENOMEM;
	rc = im_exec(im, text);
	sqlite3_free(text);
	return rc;
}

void plan_free(struct importer *im)
{
	for (int i = 0; i < im->nr_tables; i++) {
		struct etable *t = &im->tables[i];

		sqlite3_finalize(t->insert);
		free(t->name);
		free(t->cols);
		for (int c = 0; t->col_names && c < t->nr_cols; c++)
			free(t->col_names[c]);
		free(t->col_names);
		free(t->pairs);
	}
	free(im->tables);
	free(im->by_id);
}
