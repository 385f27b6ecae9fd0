/* SPDX-License-Identifier: MIT */
/*
 * csv_table.h - CSV text into an SQLite table.
 */
#ifndef STORE_CSV_TABLE_H
#define STORE_CSV_TABLE_H

#include <sqlite3.h>
#include <stddef.h>

/*
 * The CSV document csv[0..len) (its first line the header) into a new table NAME of
 * db, one column per header field with NUMERIC affinity (numbers compare as numbers),
 * empty fields NULL; *cols the header's names (free with csv_table_free_cols), *ncols
 * their count. WHAT names the document in errors. 0, or -1 after msg_error.
 */
int csv_table_load(sqlite3 *db, const char *name, const char *csv, size_t len, const char *what,
		   char ***cols, int *ncols);
void csv_table_free_cols(char **cols, int n);

#endif
