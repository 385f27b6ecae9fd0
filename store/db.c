/* SPDX-License-Identifier: MIT */
/* db.c - the SQLite helpers shared by every layer above store/ (db.h). */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "store/db.h"
#include "store/sql_files.h"

sqlite3_stmt *db_prepare(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		msg_error("%s", sqlite3_errmsg(db));
		return NULL;
	}
	return st;
}

int db_step_error(sqlite3 *db)
{
	return msg_error("%s", sqlite3_errmsg(db));
}

int db_exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		msg_error("%s", err ? err : sqlite3_errmsg(db));
		sqlite3_free(err);
		return -1;
	}
	return 0;
}

int db_exec_file(sqlite3 *db, const char *path)
{
	const char *sql = sql_file_text(path);
	char *err = NULL;

	if (!sql)
		return msg_error("%s: no such SQL file built in", path);
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		msg_error("%s: %s", path, err ? err : sqlite3_errmsg(db));
		sqlite3_free(err);
		return -1;
	}
	return 0;
}

int db_each_row(sqlite3 *db, const char *sql, int64_t param, db_row_fn fn, void *arg)
{
	sqlite3_stmt *st = db_prepare(db, sql);
	int step = SQLITE_DONE, rc = 0;

	if (!st)
		return -1;
	if (sqlite3_bind_parameter_count(st))
		sqlite3_bind_int64(st, 1, param);
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
		rc = fn(st, arg);
	if (!rc && step != SQLITE_DONE)
		rc = db_step_error(db);
	sqlite3_finalize(st);
	return rc ? -1 : 0;
}

/*
 * Is NAME in main (and, with temp, in TEMP)? What views_keep wrote into a database
 * ftana built (meta kept_views: the report views, and the stand-ins and names they
 * read) does not count: the reports ask whether the capture has a table, and make
 * their own TEMP objects over it (which come first) as for any database.
 */
static bool has_object(sqlite3 *db, const char *name, bool temp)
{
	static const char *const sql[2][2] = {
		{ "SELECT 1 FROM main.sqlite_master WHERE name = ?1 AND instr(char(10) || coalesce("
		  "(SELECT value FROM main.meta WHERE key = 'kept_views'), '') || char(10), "
		  "char(10) || ?1 || char(10)) = 0",
		  "SELECT 1 FROM main.sqlite_master WHERE name = ?1" },
		{ "SELECT 1 FROM main.sqlite_master WHERE name = ?1 AND instr(char(10) || coalesce("
		  "(SELECT value FROM main.meta WHERE key = 'kept_views'), '') || char(10), "
		  "char(10) || ?1 || char(10)) = 0 UNION ALL SELECT 1 FROM sqlite_temp_master WHERE name = ?1",
		  "SELECT 1 FROM main.sqlite_master WHERE name = ?1 UNION ALL "
		  "SELECT 1 FROM sqlite_temp_master WHERE name = ?1" },
	};
	sqlite3_stmt *st;
	bool found;

	/* the second form: a database without meta (not made by ftana) */
	if (sqlite3_prepare_v2(db, sql[temp][0], -1, &st, NULL) != SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql[temp][1], -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

bool db_is_view(sqlite3 *db, const char *schema, const char *name)
{
	char *sql = sqlite3_mprintf("SELECT 1 FROM \"%w\".sqlite_master WHERE type = 'view' AND name = ?1",
				    schema);
	sqlite3_stmt *st = NULL;
	bool view = false;

	if (sql && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		view = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return view;
}

bool db_has_table(sqlite3 *db, const char *name)
{
	return has_object(db, name, true);
}

bool db_has_capture_table(sqlite3 *db, const char *name)
{
	return has_object(db, name, false);
}

int db_stand_in(sqlite3 *db, const char *name, const char *columns)
{
	if (db_has_table(db, name))
		return 0;
	char *sql = sqlite3_mprintf("CREATE TEMP TABLE \"%w\"(%s)", name, columns);
	int rc = sql ? db_exec(db, sql) : msg_error("out of memory");

	sqlite3_free(sql);
	return rc;
}

char *db_meta_text(sqlite3 *db, const char *key)
{
	sqlite3_stmt *st;
	char *v = NULL;

	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

bool db_meta_int(sqlite3 *db, const char *key, int64_t *value)
{
	char *text = db_meta_text(db, key), *end;
	bool found = false;

	if (text && *text) {
		long long v = strtoll(text, &end, 0);

		if (*end == '\0') {
			*value = v;
			found = true;
		}
	}
	free(text);
	return found;
}

bool db_event_recorded(sqlite3 *db, const char *system, const char *event)
{
	sqlite3_stmt *st;
	bool found;

	if (!db_has_table(db, "event_types") ||
	    sqlite3_prepare_v2(db, "SELECT 1 FROM event_types WHERE system = ?1 AND name = ?2",
			       -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, system, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, event, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

char *db_event_table(sqlite3 *db, const char *spec)
{
	const char *colon = strchr(spec, ':');
	const char *name = colon ? colon + 1 : spec;
	char *table = NULL;
	int found = 0;

	if (!db_has_table(db, "event_types")) {
		if (db_has_table(db, name))
			return strdup(name);
	} else {
		sqlite3_stmt *st = db_prepare(db,
			"SELECT table_name FROM event_types WHERE table_name IS NOT NULL "
			"AND name = ?1 AND (?2 IS NULL OR system = ?2)");
		if (!st)
			return NULL;
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (colon)
			sqlite3_bind_text(st, 2, spec, (int)(colon - spec), SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW && ++found == 1)
			table = strdup((const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
		if (found == 1)
			return table;
		free(table);
	}
	if (found > 1)
		msg_error("several systems have an event '%s': give SYSTEM:%s", name, name);
	else
		msg_error("this capture has no '%s' events (see 'ftana info FILE')", spec);
	return NULL;
}

static void regexp_free(void *p)
{
	regfree(p);
	free(p);
}

/* SQLite calls regexp(PATTERN, STRING) for `STRING REGEXP PATTERN`. */
static void regexp_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *pattern = (const char *)sqlite3_value_text(argv[0]);
	const char *text = (const char *)sqlite3_value_text(argv[1]);
	regex_t *re = sqlite3_get_auxdata(ctx, 0);
	bool compiled = false;

	if (!pattern || !text)
		return; /* NULL */
	if (!re) {
		re = malloc(sizeof(*re));
		if (!re || regcomp(re, pattern, REG_EXTENDED | REG_NOSUB)) {
			free(re);
			sqlite3_result_error(ctx, "bad regular expression", -1);
			return;
		}
		compiled = true;
	}
	sqlite3_result_int(ctx, regexec(re, text, 0, NULL, 0) == 0);
	/* Kept for the next rows of the statement; SQLite may free it at once. */
	if (compiled)
		sqlite3_set_auxdata(ctx, 0, re, regexp_free);
}

int db_add_regexp(sqlite3 *db)
{
	return sqlite3_create_function(db, "regexp", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
				       NULL, regexp_func, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

int db_too_many_tasks(void)
{
	return msg_error("tasks: more than %zu rows, more threads than a kernel has ids", DB_TASKS_MAX);
}
