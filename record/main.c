/* SPDX-License-Identifier: MIT */
/* main.c - ftrec: record ftrace ring buffers into .ftz files. Dispatches to one file per subcommand. */
#include <stdio.h>
#include <string.h>

#include "record/record.h"

/*
 * One line per recording subcommand, in the order `ftrec --help` and the man page
 * (tools/mkman.sh) list them. A preset adds ONE line here; its cmd_<name>(argc,
 * argv) and record_cmd_<name> (options, positionals and help: record.h) live in
 * record/preset_<name>.c.
 */
#define FTREC_COMMANDS(X) X(record) X(iolat) X(tpoint) X(funccount) X(funcslower) X(funcgraph) X(kprobe) X(triage)

#define DECLARE(name)                           \
	int cmd_##name(int argc, char **argv); \
	extern const struct record_cmd record_cmd_##name;
FTREC_COMMANDS(DECLARE)

static const struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const struct record_cmd *desc; /* NULL: the command prints its own help (reset) */
} subcommands[] = {
#define ENTRY(name) { #name, cmd_##name, &record_cmd_##name },
	FTREC_COMMANDS(ENTRY)
	{ "reset", cmd_reset, NULL },
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
