// SPDX-License-Identifier: MIT
/*
 * import_plan.c - one typed table per event type: its name, its columns (from the
 * event's format file) and a column plan that lets the per-event loop bind values
 * straight from the record bytes. Table shape: see schema/tables.sql.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/import_int.h"

/* Tables the importer creates itself: an event may not take these names. */
static const char *const reserved_tables[] = {
	"meta", "event_types", "tasks", "cpu_stats", "cpu_stats_delta", "lost_events",
	"symbols", "stacks", "events", "profile_rounds", "function_profile", NULL,
};
/* Fixed columns of every typed table: a format field of the same name gets "field_". */
static const char *const fixed_cols[] = { "id", "ts", "cpu", "pid", "stack_id", NULL };

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcasecmp(*list, s))
			return true;
	return false;
}

static char *join(const char *a, const char *b)
{
	char *s;

	return asprintf(&s, "%s_%s", a, b) < 0 ? NULL : s;
}

/* Name the tables of all known events: the event name, or <system>_<event> when
 * another system has an event of that name (or the name is one of ours). */
static int name_tables(struct importer *im, struct tep_event **evs, int n)
{
	for (int i = 0; i < n; i++) {
		bool shared = in_list(reserved_tables, evs[i]->name);

		for (int j = 0; j < n && !shared; j++)
			shared = j != i && !strcmp(evs[i]->name, evs[j]->name);
		im->tables[i].event = evs[i];
		im->tables[i].name = shared ? join(evs[i]->system, evs[i]->name)
					    : strdup(evs[i]->name);
		if (!im->tables[i].name)
			return -ENOMEM;
	}
	return 0;
}

static struct col plan_field(const struct tep_format_field *f)
{
	struct col c = { .offset = f->offset, .size = f->size,
			 .is_signed = f->flags & TEP_FIELD_IS_SIGNED,
			 .relative = f->flags & TEP_FIELD_IS_RELATIVE };
	bool is_char = f->flags & TEP_FIELD_IS_STRING;

	if (f->flags & TEP_FIELD_IS_DYNAMIC)
		c.kind = is_char ? COL_TEXT_DYN : COL_BLOB_DYN;
	else if (f->flags & TEP_FIELD_IS_ARRAY)
		c.kind = is_char ? COL_TEXT : COL_BLOB;
	else if (f->size == 0 && is_char) /* ftrace's `char buf[]` */
		c.kind = COL_TEXT;
	else if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)
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
	size_t n = strlen(name);

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

/* comm / X_comm text fields paired with pid / X_pid integer fields of the same
 * event; a plain `comm` without a `pid` field is the current task's (block_rq_issue),
 * paired with common_pid (pid_col -1). */
static int plan_pairs(struct etable *t, struct tep_format_field **fields, int n)
{
	for (int i = 0; i < n; i++) {
		size_t pre;
		int pid_col = -1;

		if (t->cols[i].kind != COL_TEXT || !is_comm_name(fields[i]->name, &pre))
			continue;
		for (int j = 0; j < n && pid_col < 0; j++) {
			const char *p = fields[j]->name;

			if (t->cols[j].kind == COL_INT && !strncmp(p, fields[i]->name, pre) &&
			    !strcmp(p + pre, "pid"))
				pid_col = j;
		}
		if ((pid_col >= 0 || pre == 0) && add_pair(t, pid_col, i) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int plan_table(struct etable *t)
{
	struct tep_format_field **fields = tep_event_fields(t->event);
	struct tep_format_field *pid = tep_find_common_field(t->event, "common_pid");
	int n = 0, rc;

	t->pid_offset = pid ? pid->offset : -1;
	t->pid_size = pid ? pid->size : 0;
	while (fields && fields[n])
		n++;
	t->cols = calloc(n + 1, sizeof(*t->cols));
	if (!t->cols) {
		free(fields);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++)
		t->cols[i] = plan_field(fields[i]);
	t->nr_cols = n;
	rc = plan_pairs(t, fields, n);
	free(fields);
	return rc;
}

int plan_tables(struct importer *im)
{
	struct tep_event **evs = tep_list_events(im->tep, TEP_EVENT_SORT_ID);
	int n = tep_get_events_count(im->tep);

	im->by_id = calloc(65536, sizeof(*im->by_id));
	im->tables = calloc(n + 1, sizeof(*im->tables));
	if (!im->by_id || !im->tables || (n && !evs))
		return -ENOMEM;
	im->nr_tables = n;
	if (name_tables(im, evs, n) < 0)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		if (plan_table(&im->tables[i]) < 0)
			return -ENOMEM;
		if (evs[i]->id >= 0 && evs[i]->id < 65536)
			im->by_id[evs[i]->id] = &im->tables[i];
	}
	return 0;
}

static int append(char **buf, size_t *len, const char *a, const char *b, const char *c)
{
	char *s;
	int n = asprintf(&s, "%s%s%s%s", *buf ? *buf : "", a, b ? b : "", c ? c : "");

	if (n < 0)
		return -ENOMEM;
	free(*buf);
	*buf = s;
	*len = n;
	return 0;
}

/* CREATE TABLE and the INSERT statement, on the first event of the type. */
int plan_create(struct importer *im, struct etable *t)
{
	struct tep_format_field **fields = tep_event_fields(t->event);
	char *create = NULL, *insert = NULL;
	size_t clen, ilen;
	int rc = -ENOMEM;

	if (append(&create, &clen, "CREATE TABLE \"", t->name,
		   "\" (\n\tid INTEGER PRIMARY KEY,\n\tts INTEGER NOT NULL,\n\tcpu INTEGER NOT NULL,"
		   "\n\tpid INTEGER,\n\tstack_id INTEGER") ||
	    append(&insert, &ilen, "INSERT INTO \"", t->name, "\" VALUES (?,?,?,?,?"))
		goto out;
	for (int i = 0; i < t->nr_cols && fields && fields[i]; i++) {
		const char *pre = in_list(fixed_cols, fields[i]->name) ? ",\n\t\"field_" : ",\n\t\"";

		if (append(&create, &clen, pre, fields[i]->name, "\" ") ||
		    append(&create, &clen, sql_type(t->cols[i].kind), NULL, NULL) ||
		    append(&insert, &ilen, ",?", NULL, NULL))
			goto out;
	}
	if (append(&create, &clen, "\n)", NULL, NULL) || append(&insert, &ilen, ")", NULL, NULL))
		goto out;
	rc = im_exec(im, create);
	if (!rc)
		rc = im_prepare(im, insert, &t->insert);
	t->created = !rc;
out:
	free(fields);
	free(create);
	free(insert);
	return rc;
}

static int64_t read_int(struct importer *im, const uint8_t *p, int size, bool is_signed)
{
	if (!im->native)
		return (int64_t)tep_read_number(im->tep, p, size); /* sign: see below */
	switch (size) {
	case 1: return is_signed ? (int64_t)*(const int8_t *)p : (int64_t)*p;
	case 2: { uint16_t v; memcpy(&v, p, 2); return is_signed ? (int64_t)(int16_t)v : (int64_t)v; }
	case 4: { uint32_t v; memcpy(&v, p, 4); return is_signed ? (int64_t)(int32_t)v : (int64_t)v; }
	default: { int64_t v; memcpy(&v, p, 8); return v; }
	}
}

static int64_t read_signed(struct importer *im, const uint8_t *p, int size, bool is_signed)
{
	int64_t v = read_int(im, p, size, is_signed);

	if (!im->native && is_signed && size < 8) /* sign-extend the swapped value */
		v = (int64_t)((uint64_t)v << (64 - 8 * size)) >> (64 - 8 * size);
	return v;
}

/* Bind one dynamic (__data_loc / __rel_loc) field; out-of-record locations bind NULL. */
static int bind_dyn(struct importer *im, sqlite3_stmt *st, int idx, const struct col *c,
		    const uint8_t *data, int size)
{
	uint32_t loc, off, len;

	if (c->size != 4) /* a location is always a u32 */
		return sqlite3_bind_null(st, idx);
	loc = (uint32_t)read_int(im, data + c->offset, 4, false);
	off = loc & 0xffff;
	len = loc >> 16;

	if (c->relative)
		off += c->offset + c->size;
	if ((uint64_t)off + len > (uint64_t)size)
		return sqlite3_bind_null(st, idx);
	if (c->kind == COL_BLOB_DYN)
		return sqlite3_bind_blob(st, idx, data + off, len, SQLITE_STATIC);
	return sqlite3_bind_text(st, idx, (const char *)data + off,
				 strnlen((const char *)data + off, len), SQLITE_STATIC);
}

int plan_insert(struct importer *im, struct etable *t, uint64_t id, unsigned long long ts,
		int cpu, const uint8_t *data, int size, int64_t stack_id)
{
	sqlite3_stmt *st = t->insert;
	int idx = 6;

	sqlite3_bind_int64(st, 1, (int64_t)id);
	sqlite3_bind_int64(st, 2, (int64_t)ts);
	sqlite3_bind_int(st, 3, cpu);
	if (t->pid_offset >= 0 && t->pid_offset + t->pid_size <= size)
		sqlite3_bind_int64(st, 4, read_signed(im, data + t->pid_offset, t->pid_size, true));
	else
		sqlite3_bind_null(st, 4);
	if (stack_id >= 0)
		sqlite3_bind_int64(st, 5, stack_id);
	else
		sqlite3_bind_null(st, 5);
	for (int i = 0; i < t->nr_cols; i++, idx++) {
		const struct col *c = &t->cols[i];
		const uint8_t *p = data + c->offset;
		int len = c->size;

		if (c->offset + c->size > size) { /* record shorter than its format */
			sqlite3_bind_null(st, idx);
			continue;
		}
		if (!len && c->kind != COL_INT) /* char buf[]: runs to the end of the record */
			len = size - c->offset;
		switch (c->kind) {
		case COL_INT:
			sqlite3_bind_int64(st, idx, read_signed(im, p, c->size, c->is_signed));
			break;
		case COL_TEXT:
			sqlite3_bind_text(st, idx, (const char *)p, strnlen((const char *)p, len),
					  SQLITE_STATIC);
			break;
		case COL_BLOB:
			sqlite3_bind_blob(st, idx, p, len, SQLITE_STATIC);
			break;
		default:
			bind_dyn(im, st, idx, c, data, size);
			break;
		}
	}
	for (int i = 0; i < t->nr_pairs; i++) {
		const struct col *cc = &t->cols[t->pairs[i].comm_col];
		struct col common = { .offset = t->pid_offset, .size = t->pid_size };
		const struct col *pc = t->pairs[i].pid_col < 0 ? &common : &t->cols[t->pairs[i].pid_col];

		if (pc->offset >= 0 && cc->offset + cc->size <= size && pc->offset + pc->size <= size)
			comms_note(im, (int)read_signed(im, data + pc->offset, pc->size, true),
				   (const char *)data + cc->offset, cc->size);
	}
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_reset(st);
		return im_sql_error(im, t->name);
	}
	sqlite3_reset(st);
	t->count++;
	return 0;
}

/* events: one UNION ALL branch per typed table that has rows. */
int plan_events_view(struct importer *im)
{
	char *sql = NULL;
	size_t len;
	int n = 0, rc;

	if (append(&sql, &len, "DROP VIEW IF EXISTS events; CREATE VIEW events AS ", NULL, NULL))
		return -ENOMEM;
	for (int i = 0; i < im->nr_tables; i++) {
		struct etable *t = &im->tables[i];

		if (!t->created)
			continue;
		if ((n++ && append(&sql, &len, "\nUNION ALL ", NULL, NULL)) ||
		    append(&sql, &len, "SELECT id, ts, cpu, pid, '", t->name, "' AS type FROM \"") ||
		    append(&sql, &len, t->name, "\"", NULL))
			goto nomem;
	}
	if (!n && append(&sql, &len, "SELECT NULL AS id, NULL AS ts, NULL AS cpu, NULL AS pid,"
			 " NULL AS type WHERE 0", NULL, NULL))
		goto nomem;
	rc = im_exec(im, sql);
	free(sql);
	return rc;
nomem:
	free(sql);
	return -ENOMEM;
}

void plan_free(struct importer *im)
{
	for (int i = 0; i < im->nr_tables; i++) {
		struct etable *t = &im->tables[i];

		sqlite3_finalize(t->insert);
		free(t->name);
		free(t->cols);
		free(t->pairs);
	}
	free(im->tables);
	free(im->by_id);
}
