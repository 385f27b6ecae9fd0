/* SPDX-License-Identifier: MIT */
/*
 * print.h - query results as an aligned text table, CSV (RFC 4180) or a JSON array
 * of objects: `ftana sql`, `ftana info` and every report's tables. Control
 * characters are escaped in every format (print.c says how).
 */
#ifndef STORE_PRINT_H
#define STORE_PRINT_H

#include <sqlite3.h>
#include <stdio.h>

enum out_format { OUT_TEXT, OUT_CSV, OUT_JSON };

/* Print every row of stmt. 0, or -1 (an SQL error: sqlite3_errmsg says which). */
int print_rows(sqlite3_stmt *stmt, enum out_format fmt, FILE *out);
/* The same; PRINT_NO_HEADER leaves out the header line of the table and of CSV. */
#define PRINT_NO_HEADER 1u
/* PRINT_UNITS (text only): a column of numbers with a fraction prints each with the
 * decimals of its unit, taken from the column's name (print.c unit_decimals; no known
 * unit: as many as its values show, at most 6), so the decimal points align. CSV and
 * JSON always give what the query returned. */
#define PRINT_UNITS 2u
int print_rows_flags(sqlite3_stmt *stmt, enum out_format fmt, FILE *out, unsigned flags);
/* The decimals PRINT_UNITS gives a column named NAME; -1: no unit known. */
int print_unit_decimals(const char *name);
/* print_rows_flags for a table whose column names do not all say their unit (ftana
 * diff's before and after are in the unit of the value compared): DECIMALS[i] >= 0
 * gives column i's decimals (every number of it, integers too, with PRINT_UNITS); < 0
 * (or DECIMALS NULL): the column's name decides. */
int print_rows_decimals(sqlite3_stmt *stmt, enum out_format fmt, FILE *out, unsigned flags,
			const int *decimals);
/* s as a JSON string (null for NULL), valid for any bytes. */
void print_json_string(FILE *out, const char *s);

#endif
