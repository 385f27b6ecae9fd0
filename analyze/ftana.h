/* SPDX-License-Identifier: MIT */
/*
 * ftana.h - what ftana's subcommands share: opening a capture as a database,
 * printing query results, and the subcommand / report tables.
 *
 * Database conventions (schema/tables.sql documents them in full):
 *   - one typed table per event type, named after the event (`block_rq_issue`;
 *     `<system>_<event>` if another event has the name in any case, or it is one of
 *     ours or sqlite_*; made safe and unique by import/import_names.c), columns
 *     id INTEGER PRIMARY KEY (global, time-ordered across CPUs), ts (ns, trace clock),
 *     cpu, pid, stack_id (NULL unless recorded with -s), then one column per
 *     non-common format field, named as in the format file (field_<name> for a
 *     fixed column's name); names come from the file: SQL quotes them ("%w");
 *   - `events` is a view (id, ts, cpu, pid, type) over all typed tables;
 *   - meta(key, value), event_types, tasks(pid, tgid, comm), cpu_stats, lost_events,
 *     symbols(addr, name, module), stacks(stack_id, depth, addr, symbol).
 */
#ifndef FTANA_H
#define FTANA_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>

#include "analyze/sqlguard.h" /* ftana_db_harden: every connection, the importer's too */

#define FTANA_VERSION "0.1"

/* Exit statuses shared by all subcommands. */
enum ftana_exit {
	FTANA_EXIT_OK      = 0,
	FTANA_EXIT_ERROR   = 1, /* bad usage, unreadable or non-.ftz input, SQL error */
	FTANA_EXIT_DAMAGED = 3, /* input was damaged: results cover everything before the damage */
};

enum out_format { OUT_TEXT, OUT_CSV, OUT_JSON };

/*
 * Open PATH for reading: a .db is opened as is; a .ftz is imported into a cached
 * database (beside it, or under $XDG_CACHE_HOME/ftana when that directory is not
 * writable), reused while newer than the .ftz. *damaged is set when the .ftz was
 * damaged (a warning with the offset has been printed once).
 * Returns NULL after printing a one-line error (*damaged is then set when the
 * .ftz is damaged before anything could be imported: exit FTANA_EXIT_DAMAGED).
 */
sqlite3 *ftana_open(const char *path, bool *damaged);

/* Run the embedded schema file PATH ("schema/reports/iolat.sql") on db. */
int ftana_exec_sql_file(sqlite3 *db, const char *path);

/* Print every row of stmt as an aligned table, CSV or JSON array of objects.
 * Control characters are escaped in every format (print.c says how). */
int ftana_print_rows(sqlite3_stmt *stmt, enum out_format fmt, FILE *out);
/* The same; PRINT_NO_HEADER leaves out the header line of the table and of CSV. */
#define PRINT_NO_HEADER 1u
int ftana_print_rows_flags(sqlite3_stmt *stmt, enum out_format fmt, FILE *out, unsigned flags);
/* s as a JSON string (null for NULL), valid for any bytes (print.c). */
void ftana_json_string(FILE *out, const char *s);
/* Strings from a file printed elsewhere go through analyze/text_escape.h. */

/* A subcommand's usage text: for --help on stdout (returns FTANA_EXIT_OK), for a usage
 * error on stderr (returns FTANA_EXIT_ERROR). The text lives in the subcommand's file. */
int ftana_usage(const char *text, bool asked);
/* Is --help or -h among argv[1..] (before a "--")? */
bool ftana_wants_help(int argc, char **argv);

/* Subcommands: one file each (analyze/cmd_<name>.c), dispatched from main.c. */
int cmd_db(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_sql(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* Canned reports: reports/report_<name>.c, listed in analyze/cmd_report.c. */
struct report_def;
const struct report_def *report_find(const char *name);
void report_list(FILE *out);

#endif /* FTANA_H */
