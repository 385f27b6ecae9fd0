/* SPDX-License-Identifier: MIT */
/* main.c - ftrec: record ftrace ring buffers into .ftz files. Dispatches to one file per subcommand. */
#include <stdio.h>
#include <string.h>

#include "record/record.h"

/*
 * One line per subcommand: X(name, description). A preset adds ONE line here;
 * its cmd_<name>(argc, argv) and record_cmd_<name> (options, positionals and
 * help, record.h) live in record/preset_<name>.c. `ftrec --help` lists them
 * in this order, and so does the man page (tools/mkman.sh).
 */
#define FTREC_COMMANDS(X)                                    \
	X(record, &record_cmd_record)                        \
	X(iolat, &record_cmd_iolat)                          \
	X(tpoint, &record_cmd_tpoint)                        \
	X(funccount, &record_cmd_funccount)                  \
	X(funcslower, &record_cmd_funcslower)                \
	X(funcgraph, &record_cmd_funcgraph)                  \
	X(kprobe, &record_cmd_kprobe)                        \
	X(reset, NULL)

#define DECLARE(name, desc) int cmd_##name(int argc, char **argv);
FTREC_COMMANDS(DECLARE)

static const struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const struct record_cmd *desc; /* NULL: the command prints its own help (reset) */
} subcommands[] = {
#define ENTRY(name, desc) { #name, cmd_##name, desc },
	FTREC_COMMANDS(ENTRY)
};

static void usage(FILE *out)
{
	fprintf(out, "usage: ftrec COMMAND [OPTIONS] [ARGS...]\n"
		"ftrec records the kernel's ftrace ring buffers, raw, into .ftz files for ftana.\n"
		"'ftrec COMMAND --help' lists every option of COMMAND.\n"
		"Commands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(out, "  %-12s%s\n", subcommands[i].name, subcommands[i].desc ?
			subcommands[i].desc->summary : "remove what a killed ftrec left in tracefs");
	fprintf(out, "Other options:\n"
		"  -h, --help  this list      --version  the version\n");
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? FTREC_EXIT_ERROR : FTREC_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("ftrec %s\n", FTREC_VERSION);
		return FTREC_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "ftrec: unknown command '%s' (try 'ftrec --help')\n", argv[1]);
	return FTREC_EXIT_ERROR;
}
