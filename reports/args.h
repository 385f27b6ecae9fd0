/* SPDX-License-Identifier: MIT */
/*
 * args.h - a report's options as its SQL sees them (temp.report_args), with the
 * names of kernel addresses the function reports share
 * (schema/reports/func_symbols.sql).
 */
#ifndef REPORTS_ARGS_H
#define REPORTS_ARGS_H

#include <sqlite3.h>
#include <stdint.h>

/* Create temp.report_args and the symbol-name view. 0, or -1 after an error. */
int args_setup(sqlite3 *db);

/* Set option KEY for the report's SQL (temp.report_args). 0, or -1 after an error. */
int args_set(sqlite3 *db, const char *key, int64_t value);
/* The same with a text value; NULL: KEY is not set (its SQL default). */
int args_set_text(sqlite3 *db, const char *key, const char *text);

#endif
