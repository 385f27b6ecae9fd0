/* SPDX-License-Identifier: MIT */
/*
 * db.h - the SQLite helpers every layer above store/ uses, once. Errors are
 * reported through common/msg.h (one line, the command's prefix) and returned as
 * -1 (NULL for a statement); the "has" and "meta" lookups answer false quietly,
 * since a missing table or key is a normal state of a hand-made .db.
 */
#ifndef STORE_DB_H
#define STORE_DB_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

/* Prepare SQL on db; NULL after msg_error (SQLite's message). */
sqlite3_stmt *db_prepare(sqlite3 *db, const char *sql);
/* Run statements that return no rows. 0, or -1 after msg_error. */
int db_exec(sqlite3 *db, const char *sql);
/* Run the embedded SQL file PATH ("schema/reports/iolat.sql"; store/sql_files.h). 0 or -1. */
int db_exec_file(sqlite3 *db, const char *path);
/* After a step that was not SQLITE_ROW/DONE: msg_error, -1. */
int db_step_error(sqlite3 *db);

/*
 * Run SQL (?1 bound to PARAM when it has a parameter) and call FN for each row
 * until FN returns non-zero. 0, or -1 after an error message (FN's own or ours).
 */
typedef int (*db_row_fn)(sqlite3_stmt *row, void *arg);
int db_each_row(sqlite3 *db, const char *sql, int64_t param, db_row_fn fn, void *arg);

/* Is there a table or view NAME, in main or temp? (Not one views_keep wrote: db.c.) */
bool db_has_table(sqlite3 *db, const char *name);
/* Is SCHEMA.NAME a view (else a table, or nothing)? */
bool db_is_view(sqlite3 *db, const char *schema, const char *name);
/* Is NAME one of the capture's own tables (main), not a TEMP stand-in? */
bool db_has_capture_table(sqlite3 *db, const char *name);
/* If there is no table NAME, create an empty TEMP table NAME(COLUMNS) so views over it
 * work (they see no rows). 0 or -1. */
int db_stand_in(sqlite3 *db, const char *name, const char *columns);

/* meta's value for KEY: malloc'd text, or NULL (no meta, no key, NULL value). */
char *db_meta_text(sqlite3 *db, const char *key);
/* meta's value for KEY as a whole integer (decimal, 0x hex); false when absent or not one. */
bool db_meta_int(sqlite3 *db, const char *key, int64_t *value);

/* Did the recording enable SYSTEM:EVENT (its format is in event_types), whether or not
 * any such event happened? False for a database without event_types. */
bool db_event_recorded(sqlite3 *db, const char *system, const char *event);
/*
 * The table holding events EVENT or SYSTEM:EVENT (event_types.table_name; the name
 * itself in a database without event_types): malloc'd, or NULL after a one-line
 * error (no such events, or a name two systems share).
 */
char *db_event_table(sqlite3 *db, const char *spec);

/* `X REGEXP Y` (POSIX extended, case-sensitive) on db. 0 or -1. */
int db_add_regexp(sqlite3 *db);

/*
 * A kernel has at most PID_MAX_LIMIT (2^22) thread ids, so a table with a row per
 * thread (tasks) holds at most this many: more is a database made to cost memory (a
 * view that never ends, read into memory, held half a gigabyte before the VM-step
 * budget stopped it). Readers stop there with db_too_many_tasks's error (-1).
 */
#define DB_TASKS_MAX ((size_t)1 << 22)
int db_too_many_tasks(void);

#endif
