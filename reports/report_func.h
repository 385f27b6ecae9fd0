/* SPDX-License-Identifier: MIT */
/*
 * report_func.h - what the function reports (funccount, funcslower, funcgraph,
 * kprobe) share: option values passed to their SQL, symbol names, table checks.
 */
#ifndef REPORT_FUNC_H
#define REPORT_FUNC_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Create temp.report_args and the symbol-name view (schema/reports/func_symbols.sql). */
int rf_setup(sqlite3 *db);

/* Set option KEY for the report's SQL (temp.report_args). */
int rf_arg(sqlite3 *db, const char *key, int64_t value);

/* Does a table (or view) NAME exist in the database? */
bool rf_has_table(sqlite3 *db, const char *name);

/* meta.value of KEY as an integer; false if absent or not a number. */
bool rf_meta_int(sqlite3 *db, const char *key, int64_t *value);

/* Prepare SQL, print its rows as a table (ftana_print_rows), finalize. */
int rf_print(sqlite3 *db, const char *sql, FILE *out);

/* Print "ftana report NAME: MESSAGE (this capture has no TABLE table)" and fail. */
int rf_missing(const char *report, const char *table, const char *hint);

/*
 * Views for `ftana sql` (report_sql_views): func_counts and friends for a funccount
 * capture (schema/reports/funccount.sql or funccount_rounds.sql), probe_hits for
 * kprobe probes (report_kprobe.c), stack_folded when the capture has stacks. A capture
 * without the tables gets no views and no error; 0 or -1.
 */
int funccount_views(sqlite3 *db);
int kprobe_views(sqlite3 *db);
int stacks_views(sqlite3 *db);

/* Build temp.call_rows from funcgraph_entry/exit (reports/funcgraph_calls.c). */
int funcgraph_build_calls(sqlite3 *db);
/* The `calls` view of the whole capture (call_rows, names): for reports and `ftana sql`. */
int funcgraph_views(sqlite3 *db);
/* The `slow_calls` view of a capture with funcgraph_exit (report_funcslower.c). */
int funcslower_views(sqlite3 *db);

#endif
