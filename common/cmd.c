/* SPDX-License-Identifier: MIT */
/* cmd.c - dispatching a program's commands (cmd.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/cmd.h"
#include "common/msg.h"

void cmd_list(const struct cmd_program *p, FILE *out, int width)
{
	for (size_t i = 0; i < p->nr_cmds; i++) {
		const struct cmd *c = &p->cmds[i];
		char head[128];

		snprintf(head, sizeof(head), "%s%s%s", c->name, c->args ? " " : "",
			 c->args ? c->args : "");
		fprintf(out, "  %-*s%s\n", width, head, c->summary);
	}
}

static int cmd_dispatch(const struct cmd_program *p, int argc, char **argv);

/*
 * Every command: what it wrote on stdout must have arrived (a full device, a closed
 * stdout), or the exit says so, whatever the command thought (git's run_builtin).
 */
int cmd_main(const struct cmd_program *p, int argc, char **argv)
{
	int rc = cmd_dispatch(p, argc, argv);

	errno = 0;
	/* (a command that failed has said why: a report says a write error itself) */
	if ((fflush(stdout) != 0 || ferror(stdout)) && rc == CMD_EXIT_OK) {
		msg_error("write error on standard output%s%s", errno ? ": " : "",
			  errno ? strerror(errno) : "");
		rc = CMD_EXIT_ERROR;
	}
	return rc;
}

static int cmd_dispatch(const struct cmd_program *p, int argc, char **argv)
{
	msg_set_program(p->name);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		p->usage(p, argc < 2 ? stderr : stdout);
		return argc < 2 ? CMD_EXIT_ERROR : CMD_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("%s %s\n", p->name, p->version);
		return CMD_EXIT_OK;
	}
	for (size_t i = 0; i < p->nr_cmds; i++)
		if (!strcmp(argv[1], p->cmds[i].name)) {
			char prefix[64];

			/* every message of the command says which it is: "ftana db: ..." */
			snprintf(prefix, sizeof(prefix), "%s %s", p->name, p->cmds[i].name);
			msg_set_prefix(prefix);
			return p->cmds[i].run(argc - 1, argv + 1);
		}
	msg_error("unknown command '%s' (try '%s --help')", argv[1], p->name);
	return CMD_EXIT_ERROR;
}

int cmd_usage(const char *text, bool asked)
{
	fputs(text, asked ? stdout : stderr);
	return asked ? CMD_EXIT_OK : CMD_EXIT_ERROR;
}

bool cmd_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}
