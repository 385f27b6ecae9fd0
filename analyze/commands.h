/* SPDX-License-Identifier: MIT */
/*
 * commands.h - ftana's commands, one file each (analyze/cmd_<name>.c), in the table
 * of analyze/main.c. Everything they share lives below them: common/ (messages,
 * escaping, output files, the command table), store/ (the database), import/ (a
 * capture as a database), reports/, export/ (docs/ARCHITECTURE.md).
 */
#ifndef ANALYZE_COMMANDS_H
#define ANALYZE_COMMANDS_H

#include <sqlite3.h>

#include "store/print.h"

int cmd_db(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_sql(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_diff(int argc, char **argv);

/* cmd_sql.c: run SQL's statements on db, guarded, printing rows in fmt: 0, or -1 after
 * the error. cmd_sql_shell.c: the interactive shell on db (FILE its name for the
 * greeting): statements and dot commands from the terminal until .quit or EOF. */
int sql_run(sqlite3 *db, const char *sql, enum out_format fmt);
int sql_shell(sqlite3 *db, const char *file, enum out_format fmt);

#endif
