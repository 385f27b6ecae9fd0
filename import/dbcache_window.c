// SPDX-License-Identifier: MIT
/*
 * dbcache_window.c - a streamed derivation over a report's time and CPU window, into
 * TEMP (issue 23: `report syscount --since` on a capture of 10 M getpid calls first
 * imported and paired 20 M rows: 17 s; the rows once there, still 3-4 s a question).
 *
 * The capture is decoded again, in a child as every import (import_child.c), and the
 * derivation made there over the window alone (import.h IMPORT_WINDOW) into a
 * temporary database; its few rows (per syscall and thread) are copied into TEMP
 * tables of the same names on the report's connection, where they hide the whole
 * capture's. Nothing is cached: the pass costs one decode of the capture's syscall
 * events (a second per 20 M), less than reading the rows of a window would.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/msg.h"
#include "common/out_file.h"
#include "import/dbcache.h"
#include "import/import_child.h"
#include "store/db.h"
#include "store/sqlguard.h"

/* SRC's table NAME into a TEMP table of that name on db (made anew). 0, or -1 after an error. */
static int copy_table(sqlite3 *src, sqlite3 *db, const char *name)
{
	sqlite3_stmt *rd = NULL, *wr = NULL;
	sqlite3_str *create = sqlite3_str_new(db), *insert = sqlite3_str_new(db);
	char *sel = sqlite3_mprintf("SELECT * FROM \"%w\"", name), *create_sql = NULL, *insert_sql = NULL;
	sqlite3 *failed = src; /* whose error a failure is */
	int rc = -1, step;

	if (!sel || sqlite3_prepare_v2(src, sel, -1, &rd, NULL) != SQLITE_OK)
		goto out;
	int cols = sqlite3_column_count(rd);

	sqlite3_str_appendf(create, "DROP TABLE IF EXISTS temp.\"%w\"; CREATE TEMP TABLE \"%w\" (", name, name);
	sqlite3_str_appendf(insert, "INSERT INTO temp.\"%w\" VALUES (", name);
	for (int i = 0; i < cols; i++) {
		sqlite3_str_appendf(create, "%s\"%w\"", i ? ", " : "", sqlite3_column_name(rd, i));
		sqlite3_str_appendall(insert, i ? ", ?" : "?");
	}
	sqlite3_str_appendall(create, ")");
	sqlite3_str_appendall(insert, ")");
	create_sql = sqlite3_str_finish(create);
	insert_sql = sqlite3_str_finish(insert);
	create = insert = NULL;
	failed = db;
	if (!create_sql || !insert_sql || db_exec(db, create_sql) ||
	    sqlite3_prepare_v2(db, insert_sql, -1, &wr, NULL) != SQLITE_OK)
		goto out;
	while ((step = sqlite3_step(rd)) == SQLITE_ROW) {
		for (int i = 0; i < cols; i++)
			sqlite3_bind_value(wr, i + 1, sqlite3_column_value(rd, i));
		if (sqlite3_step(wr) != SQLITE_DONE)
			goto out;
		sqlite3_reset(wr);
	}
	failed = src;
	rc = step == SQLITE_DONE ? 0 : -1;
out:
	if (rc)
		msg_error("%s: cannot copy the window's rows: %s", name, sqlite3_errmsg(failed));
	sqlite3_free(sqlite3_str_finish(create));
	sqlite3_free(sqlite3_str_finish(insert));
	sqlite3_free(sel);
	sqlite3_free(create_sql);
	sqlite3_free(insert_sql);
	sqlite3_finalize(rd);
	sqlite3_finalize(wr);
	return rc;
}

/* Every table of the database at PATH into TEMP on db. 0, or -1 after an error. */
static int copy_tables(const char *path, sqlite3 *db)
{
	sqlite3 *src = NULL;
	sqlite3_stmt *names = NULL;
	int rc = -1;

	if (sqlite3_open_v2(path, &src, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK ||
	    sqlguard_harden(src) < 0 ||
	    sqlite3_prepare_v2(src, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
			       -1, &names, NULL) != SQLITE_OK) {
		msg_error("%s: %s", path, sqlite3_errmsg(src));
	} else {
		rc = 0;
		while (!rc && sqlite3_step(names) == SQLITE_ROW)
			rc = copy_table(src, db, (const char *)sqlite3_column_text(names, 0));
	}
	sqlite3_finalize(names);
	sqlite3_close(src);
	return rc;
}

static int no_finish(void *arg)
{
	(void)arg;
	return 0;
}

int dbcache_window(sqlite3 *db, const char *const *files, size_t n, const char *const *derive,
		   const struct import_window *w)
{
	const struct import_types types = { .derive = derive, .window = w };
	const struct import_job job = { .inputs = files, .n = n, .mode = IMPORT_WINDOW, .types = &types };
	char *dir, *tmp = NULL;
	bool damaged;
	int rc = -1;

	for (size_t i = 0; i < n; i++)
		if (!dbcache_is_capture(files[i]))
			return 0; /* a .db given: its rows are all there is */
	/* built by name in a directory of our own: a name in a shared $TMPDIR could be
	 * planted, and its tables would be copied as ours; none there: the rows instead */
	if (!(dir = out_private_dir("ftana-window")))
		return 0;
	out_private_dir_pending(dir); /* (the import child removes what it made in it) */
	if (asprintf(&tmp, "%s/window.db", dir) < 0)
		tmp = NULL, msg_error("out of memory");
	else if (import_isolated_job(&job, tmp, &damaged, no_finish, NULL) == 0)
		rc = copy_tables(tmp, db) ? -1 : 1;
	/* (a failed import said why; the damage was said by the report's own import) */
	if (tmp)
		unlink(tmp);
	out_private_dir_done(dir);
	free(tmp);
	free(dir);
	return rc;
}
