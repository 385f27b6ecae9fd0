/* SPDX-License-Identifier: MIT */
/*
 * report_util.h - what the reports share (iolat, tpoint, stacks; the function reports use the warning):
 * the input file name, the lost-events warning every report prints first, empty
 * stand-ins for event tables a capture lacks, and a REGEXP function for SQL.
 */
#ifndef REPORT_UTIL_H
#define REPORT_UTIL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The FILE argument of `ftana report NAME FILE` (set by cmd_report.c). */
void report_set_file(const char *path);
const char *report_file(void);

/*
 * Say, before anything else, whether the capture lost events between the first and
 * last timestamps RANGE_SQL returns (one row: min ts, max ts), and how many.
 * Written to out; reports printing CSV/JSON pass stderr so their output stays parsable.
 */
int ru_warn_lost_in(sqlite3 *db, const char *range_sql, int64_t since, int64_t until, FILE *out);

/*
 * If the capture has no table NAME, create an empty TEMP table NAME(COLUMNS) so views
 * over it work (the view then sees no rows). Returns 0 or -1 after an error message.
 */
int ru_stand_in(sqlite3 *db, const char *name, const char *columns);

/*
 * The table holding events EVENT or SYSTEM:EVENT (event_types.table_name; the name
 * itself in a database without event_types). malloc'd, or NULL after a one-line error
 * "ftana report NAME: ..." (no such events, or a name two systems share).
 */
char *ru_event_table(sqlite3 *db, const char *report, const char *spec);

/*
 * Define the views reports offer for your own SQL (`ftana sql`): `io` and friends
 * (schema/reports/iolat.sql) when the capture has block_rq_issue/complete. TEMP only;
 * a capture without the tables gets no views and no error.
 */
void report_sql_views(sqlite3 *db);

/* iolat's views: stand-ins for optional tables, REGEXP, iolat.sql (report_iolat.c). */
int iolat_views(sqlite3 *db);

/* Register `X REGEXP Y` (POSIX extended, case-sensitive) on db. */
int ru_add_regexp(sqlite3 *db);

/*
 * Did the recording enable SYSTEM:EVENT (its format is in the capture, listed in
 * event_types), whether or not any such event happened? False for a database
 * without event_types.
 */
bool ru_event_recorded(sqlite3 *db, const char *system, const char *event);

/* Run one statement that returns no rows; prints "ftana report NAME: error" on failure. */
int ru_exec(sqlite3 *db, const char *report, const char *sql);

/*
 * Run sql (with ?1 bound to param when it has a parameter) and call fn for each row
 * until fn returns non-zero. Returns 0, or -1 after an error message.
 */
typedef int (*ru_row_fn)(sqlite3_stmt *row, void *ctx);
int ru_each_row(sqlite3 *db, const char *report, const char *sql, int64_t param,
		ru_row_fn fn, void *ctx);

/* Prepare sql; on failure print "ftana report NAME: error" and return NULL. */
sqlite3_stmt *ru_prepare(sqlite3 *db, const char *report, const char *sql);

#endif
