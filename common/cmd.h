/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - how ftrec and ftana run a command: each program describes its commands
 * once, as a table of struct cmd, and cmd_main dispatches argv[1] to one (git's
 * builtin table). It owns what every command shares: --help/--version at the top,
 * an unknown command refused in one line, and the message prefix "PROGRAM COMMAND"
 * (common/msg.h) set before the command runs.
 *
 * Status convention: helpers return 0 or -1 (after msg_error), or a documented
 * negative errno; a command's run() alone returns an exit status (enum cmd_exit).
 */
#ifndef COMMON_CMD_H
#define COMMON_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The version of both programs (`ftrec --version`, `ftana --version`, what exports name). */
#define CMD_VERSION "0.1"

/* Exit statuses of both programs. */
enum cmd_exit {
	CMD_EXIT_OK      = 0,
	CMD_EXIT_ERROR   = 1, /* bad usage, unreadable input, setup or write error */
	CMD_EXIT_DAMAGED = 3, /* ftana: the input is damaged; results cover what came before */
};

struct cmd {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the name; returns an enum cmd_exit */
	const char *args;                  /* the synopsis after the name ("FILE [-o OUT.db]") */
	const char *summary;               /* one line for the program's --help */
};

struct cmd_program {
	const char *name;    /* "ftana" */
	const char *version;
	const struct cmd *cmds;
	size_t nr_cmds;
	/* The program's --help: what it is, then its commands (cmd_list), then more. */
	void (*usage)(const struct cmd_program *p, FILE *out);
};

/* Dispatch argv[1] to its command (see above). Returns the exit status. */
int cmd_main(const struct cmd_program *p, int argc, char **argv);

/* "  NAME ARGS   SUMMARY" for each command, NAME ARGS padded to WIDTH. */
void cmd_list(const struct cmd_program *p, FILE *out, int width);

/* A command's usage TEXT: on stdout for --help (returns CMD_EXIT_OK), on stderr
 * after a usage error (returns CMD_EXIT_ERROR). */
int cmd_usage(const char *text, bool asked);

/* Is --help or -h among argv[1..] (before a "--")? */
bool cmd_wants_help(int argc, char **argv);

#endif
