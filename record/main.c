/* SPDX-License-Identifier: MIT */
/* main.c - ftrec: record ftrace ring buffers into .ftz files. Dispatches to one file per subcommand. */
#include <stdio.h>
#include <string.h>

#include "record/record.h"

/*
 * One line per subcommand: X(name, usage). A preset adds ONE line here; its
 * cmd_<name>(argc, argv) lives in record/preset_<name>.c and is declared by this list.
 */
#define FTREC_COMMANDS(X)                                                                  \
	X(record, "record -e SYS:EVENT[,...] [-f FILTER] [-s] [-p PID] [-d SECS] -o FILE [-- CMD]") \
	X(funccount,  "funccount [-d SECS] [-p PID] -o FILE PATTERN... [-- CMD]  count kernel function calls") \
	X(funcslower, "funcslower [-d SECS] [-p PID] -o FILE FUNC USECS [-- CMD]  calls of FUNC slower than USECS") \
	X(funcgraph,  "funcgraph [-m DEPTH] [-d SECS] [-p PID] -o FILE FUNC [-- CMD]  call graph below FUNC") \
	X(kprobe,     "kprobe [-s] [-d SECS] -o FILE 'p:[NAME] FUNC [ARGS]'|'r:...' [FILTER]  a dynamic probe") \
	X(iolat,      "iolat [-D MAJ,MIN] [-i TYPEGLOB] [-p PID] [-s] [-d SECS] [-o FILE] [-- CMD]  block I/O latency") \
	X(tpoint,     "tpoint [-s] [-p PID] [-d SECS] [-o FILE] SYSTEM:EVENT [FILTER] [-- CMD]  one tracepoint") \
	X(reset,  "reset                     remove what a killed ftrec left in tracefs")

#define DECLARE(name, usage) int cmd_##name(int argc, char **argv);
FTREC_COMMANDS(DECLARE)

static const struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
} subcommands[] = {
#define ENTRY(name, usage) { #name, cmd_##name, usage },
	FTREC_COMMANDS(ENTRY)
};

static void usage(FILE *out)
{
	fprintf(out, "usage: ftrec COMMAND ...   (ftrec COMMAND --help for its options)\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(out, "  ftrec %s\n", subcommands[i].usage);
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
