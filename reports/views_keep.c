/* SPDX-License-Identifier: MIT */
/*
 * views_keep.c - views_keep (report.h): the report views written into the database
 * ftana builds, as main views (issue 22: `sqlite3 FILE.ftz.db 'select * from io'`
 * said "no such table": the views were TEMP, so sqlite3, Python, DB Browser or
 * DuckDB saw less than `ftana sql`).
 *
 * Every family is built as for `ftana sql` (TEMP), then each TEMP view is made again
 * in main from its own text (SQLite keeps a TEMP view's text without the word TEMP,
 * so run again it makes a main view). What stands on the database alone stays: each
 * kept view is checked on a second connection that has none of ftana's TEMP tables
 * and SQL functions, and one
 * that does not prepare there (a stand-in for a table the capture lacks, the slice,
 * REGEXP) is dropped, until the rest all prepare. The constant tables of names some
 * of them read (errno_names, signal_names) are copied beside them, and the empty
 * stand-ins for events the capture never had become views of no rows. meta's `kept_views` lists them, so
 * that the next import of more types (a lazy cache grows) makes them again from its
 * new tables. ftana's own runs still build their TEMP views, which come first.
 */
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "reports/report.h"
#include "store/db.h"

#define KEPT_KEY "kept_views"

struct kept {
	char **names;     /* the lookup tables, then the views */
	size_t n, first_view;
};

static void kept_free(struct kept *k)
{
	for (size_t i = 0; i < k->n; i++)
		sqlite3_free(k->names[i]);
	free(k->names);
	*k = (struct kept){ 0 };
}

/* The constant tables some views read (schema/reports/snoop_names.sql's TEMP tables of
 * names for numbers), kept as copies beside them. */
static const char *const lookup_tables[] = { "signal_names", "errno_names" };

/* The views and tables the last import kept (meta kept_views: names, one per line),
 * dropped: the import that ran since may have made some of what they stood for. */
static int drop_previous(sqlite3 *db)
{
	char *list = db_meta_text(db, KEPT_KEY); /* read whole first: a DROP waits for no SELECT */
	int rc = 0;

	for (char *save = NULL, *name = list ? strtok_r(list, "\n", &save) : NULL; name && !rc;
	     name = strtok_r(NULL, "\n", &save)) {
		char *sql = sqlite3_mprintf("DROP %s IF EXISTS main.\"%w\"", db_is_view(db, "main", name) ? "VIEW" : "TABLE",
					    name);

		rc = sql ? db_exec(db, sql) : msg_error("out of memory");
		sqlite3_free(sql);
	}
	free(list);
	return rc;
}

static int kept_add(struct kept *k, const char *name)
{
	char **more = realloc(k->names, (k->n + 1) * sizeof(*more));

	if (more)
		k->names = more;
	if (!more || !(more[k->n] = sqlite3_mprintf("%s", name)))
		return msg_error("out of memory");
	k->n++;
	return 0;
}

/* TEMP table NAME copied into main (a name main holds is left as it is): kept. */
static int copy_table(sqlite3 *db, struct kept *k, const char *name)
{
	char *sql = sqlite3_mprintf("CREATE TABLE main.\"%w\" AS SELECT * FROM temp.\"%w\"", name, name);
	int rc = sql ? sqlite3_exec(db, sql, NULL, NULL, NULL) : SQLITE_NOMEM;

	sqlite3_free(sql);
	return rc == SQLITE_OK ? kept_add(k, name) : 0;
}

/*
 * An empty stand-in as a view of no rows with its columns: not a table, so that what
 * lists the capture's tables (kprobe_tables, stacks) does not take it for one.
 */
static int copy_stand_in(sqlite3 *db, struct kept *k, const char *name)
{
	sqlite3_str *sql = sqlite3_str_new(db);
	sqlite3_stmt *st;
	char *text;
	int n = 0, rc;

	if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1, 'temp') ORDER BY cid", -1, &st,
			       NULL) != SQLITE_OK) {
		sqlite3_free(sqlite3_str_finish(sql));
		return db_step_error(db);
	}
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_str_appendf(sql, "CREATE VIEW main.\"%w\" AS SELECT ", name);
	while (sqlite3_step(st) == SQLITE_ROW)
		sqlite3_str_appendf(sql, "%sNULL AS \"%w\"", n++ ? ", " : "",
				    (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_str_appendall(sql, " WHERE 0");
	text = sqlite3_str_finish(sql);
	if (!text)
		return msg_error("out of memory");
	rc = n && sqlite3_exec(db, text, NULL, NULL, NULL) == SQLITE_OK ? kept_add(k, name) : 0;
	sqlite3_free(text);
	return rc;
}

/*
 * The TEMP tables kept views may read: the lookup tables, and the empty stand-ins the
 * view builders make for an event the capture never had (db_stand_in: an event table's
 * first columns; no event_types row with events names it), as views of no rows. Not one
 * for a type the capture has and this import left out: a later import makes its table.
 */
static int copy_temp_tables(sqlite3 *db, struct kept *k)
{
	static const char *const stand_ins =
		"SELECT t.name FROM sqlite_temp_master t WHERE t.type = 'table' "
		"AND (SELECT group_concat(name, ',') FROM (SELECT name FROM pragma_table_info(t.name, 'temp') "
		"     ORDER BY cid LIMIT 5)) = 'id,ts,cpu,pid,stack_id' "
		"AND t.name NOT IN (SELECT name FROM main.sqlite_master) "
		"AND NOT EXISTS (SELECT 1 FROM main.event_types e WHERE e.count > 0 "
		"                AND (e.name = t.name OR e.table_name = t.name))";
	sqlite3_stmt *st;
	int step, rc = 0;

	for (size_t i = 0; i < sizeof(lookup_tables) / sizeof(*lookup_tables); i++)
		if (copy_table(db, k, lookup_tables[i]))
			return -1;
	if (sqlite3_prepare_v2(db, stand_ins, -1, &st, NULL) != SQLITE_OK)
		return 0; /* no event_types: a database of no capture */
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		char *name = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(st, 0));
		char *empty = name ? sqlite3_mprintf("SELECT 1 FROM temp.\"%w\" LIMIT 1", name) : NULL;
		sqlite3_stmt *rows = NULL;

		if (!empty || sqlite3_prepare_v2(db, empty, -1, &rows, NULL) != SQLITE_OK)
			rc = msg_error("out of memory");
		else if (sqlite3_step(rows) == SQLITE_DONE)
			rc = copy_stand_in(db, k, name);
		sqlite3_finalize(rows);
		sqlite3_free(empty);
		sqlite3_free(name);
	}
	sqlite3_finalize(st);
	return rc;
}

/* Each TEMP view made again in main (a name main already holds is left as it is). */
static int copy_temp_views(sqlite3 *db, struct kept *k)
{
	sqlite3_stmt *st;
	int step;

	if (sqlite3_prepare_v2(db, "SELECT name, sql FROM sqlite_temp_master WHERE type = 'view' "
			       "AND sql LIKE 'CREATE VIEW %' ORDER BY rowid", -1, &st, NULL) != SQLITE_OK)
		return db_step_error(db);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *sql = (const char *)sqlite3_column_text(st, 1);

		if (!name || !sql || sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
			continue;
		if (kept_add(k, name)) {
			sqlite3_finalize(st);
			return -1;
		}
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : db_step_error(db);
}

/* Drop the kept views that do not prepare on plain (repeated until all do). */
static int drop_unusable(sqlite3 *db, sqlite3 *plain, struct kept *k)
{
	for (bool dropped = true; dropped;) {
		dropped = false;
		for (size_t i = k->first_view; i < k->n;) {
			char *sql = sqlite3_mprintf("SELECT * FROM main.\"%w\"", k->names[i]);
			sqlite3_stmt *st = NULL;
			bool ok = sql && sqlite3_prepare_v2(plain, sql, -1, &st, NULL) == SQLITE_OK;

			sqlite3_finalize(st);
			sqlite3_free(sql);
			if (ok) {
				i++;
				continue;
			}
			sql = sqlite3_mprintf("DROP VIEW main.\"%w\"", k->names[i]);
			if (!sql || db_exec(db, sql)) {
				sqlite3_free(sql);
				return -1;
			}
			sqlite3_free(sql);
			sqlite3_free(k->names[i]);
			k->names[i] = k->names[--k->n];
			dropped = true;
		}
	}
	return 0;
}

static int note_kept(sqlite3 *db, const struct kept *k)
{
	size_t len = 1;

	for (size_t i = 0; i < k->n; i++)
		len += strlen(k->names[i]) + 1;
	char *list = calloc(1, len);
	sqlite3_stmt *st = NULL;
	int rc;

	if (!list)
		return msg_error("out of memory");
	for (size_t i = 0; i < k->n; i++)
		strcat(strcat(list, k->names[i]), "\n");
	rc = sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO main.meta VALUES ('" KEPT_KEY "', ?1)", -1, &st,
				NULL) == SQLITE_OK &&
	     sqlite3_bind_text(st, 1, list, -1, SQLITE_STATIC) == SQLITE_OK && sqlite3_step(st) == SQLITE_DONE ?
	     0 : db_step_error(db);
	sqlite3_finalize(st);
	free(list);
	return rc;
}

int views_keep(sqlite3 *db)
{
	const char *path = sqlite3_db_filename(db, "main");
	struct kept k = { 0 };
	sqlite3 *plain = NULL;
	int rc;

	if (!path || !*path || drop_previous(db))
		return -1;
	report_views_build(db, true);
	rc = copy_temp_tables(db, &k);
	k.first_view = k.n;
	if (!rc)
		rc = copy_temp_views(db, &k);
	if (!rc && sqlite3_open_v2(path, &plain, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK)
		rc = msg_error("%s: %s", path, plain ? sqlite3_errmsg(plain) : "out of memory");
	if (!rc)
		rc = drop_unusable(db, plain, &k);
	sqlite3_close(plain);
	if (!rc)
		rc = note_kept(db, &k);
	kept_free(&k);
	return rc;
}
