/* SPDX-License-Identifier: MIT */
/*
 * commands.h - ftana's commands, one file each (analyze/cmd_<name>.c), in the table
 * of analyze/main.c. Everything they share lives below them: common/ (messages,
 * escaping, output files, the command table), store/ (the database), import/ (a
 * capture as a database), reports/, export/ (docs/ARCHITECTURE.md).
 */
#ifndef ANALYZE_COMMANDS_H
#define ANALYZE_COMMANDS_H

int cmd_db(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_sql(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_diff(int argc, char **argv);

#endif
