/* SPDX-License-Identifier: MIT */
/*
 * sqlguard.h - what every SQLite connection of ftana gets, and what SQL it may run.
 *
 * A database may come from someone else (a planted cache, a .db passed in, names
 * from a hostile capture), so every connection is hardened and guarded:
 *   - ftana_db_harden: SQLITE_DBCONFIG_DEFENSIVE (no writable_schema, no shadow
 *     table writes), trusted_schema OFF (views and triggers of the file cannot
 *     call functions not marked innocuous), no ATTACH at all (limit 0: that also
 *     stops VACUUM INTO, which attaches its output), no extension loading;
 *   - ftana_db_guard: an authorizer. GUARD_REPORT (every reading connection,
 *     reports and `ftana info`): our own SQL may create and fill TEMP objects, but
 *     nothing may write the main database, attach, or set a PRAGMA.
 *     GUARD_USER (`ftana sql`): pure reads only -- SELECT, functions, and
 *     PRAGMAs that only describe the schema. No TEMP objects either: a WITH clause
 *     does what a temp view would, and a statement that cannot create anything
 *     needs no reasoning about what it created.
 */
#ifndef SQLGUARD_H
#define SQLGUARD_H

#include <sqlite3.h>
#include <stddef.h>

enum sql_guard { GUARD_REPORT, GUARD_USER };

/* Harden a freshly opened connection (any connection: the importer's too). 0 or -1. */
int sqlguard_harden(sqlite3 *db);

/* Install (or switch) the authorizer of db. */
void sqlguard_set(sqlite3 *db, enum sql_guard mode);

/*
 * Prepare the first statement of sql for `ftana sql` (db guarded GUARD_USER).
 * Returns 0 (*st NULL for whitespace or a comment), -1 on an SQL error (message in
 * sqlite3_errmsg), or -2 when the statement writes or attaches: why[] then names
 * what ("VACUUM", "ATTACH", "INSERT into main.t", "PRAGMA writable_schema", ...).
 */
int sqlguard_prepare_user(sqlite3 *db, const char *sql, sqlite3_stmt **st,
			   const char **tail, char *why, size_t whylen);

#endif
