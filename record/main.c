/* SPDX-License-Identifier: MIT */
/* main.c - ftrec: record ftrace ring buffers into .ftz files. Dispatches to one file per subcommand. */
#include <stdio.h>

#include "common/cmd.h"
#include "record/record.h"

/*
 * One line per recording subcommand, in the order `ftrec --help` and the man page
 * (tools/mkman.sh) list them. A preset adds ONE line here; its cmd_<name>(argc,
 * argv) and record_cmd_<name> (options, positionals, help, and the summary
 * `ftrec --help` shows: record.h) live in record/preset_<name>.c.
 */
#define FTREC_COMMANDS(X) X(record) X(iolat) X(tpoint) X(funccount) X(funcslower) X(funcgraph) X(kprobe) X(triage)

#define DECLARE(name)                           \
	int cmd_##name(int argc, char **argv); \
	extern const struct record_cmd record_cmd_##name;
FTREC_COMMANDS(DECLARE)

/* common/cmd.h's table; a recording command's summary is its record_cmd's (set in main). */
static struct cmd commands[] = {
#define ENTRY(name) { #name, cmd_##name, NULL, NULL },
	FTREC_COMMANDS(ENTRY)
	{ "reset", cmd_reset, NULL, "remove what a killed ftrec left in tracefs" },
};

static const struct record_cmd *const described[] = {
#define DESCRIBED(name) &record_cmd_##name,
	FTREC_COMMANDS(DESCRIBED)
};

static void usage(const struct cmd_program *p, FILE *out)
{
	fprintf(out, "usage: ftrec COMMAND [OPTIONS] [ARGS...]\n"
		"ftrec records the kernel's ftrace ring buffers, raw, into .ftz files for ftana.\n"
		"'ftrec COMMAND --help' lists every option of COMMAND.\n"
		"Commands:\n");
	cmd_list(p, out, 12);
	fprintf(out, "Other options:\n"
		"  -h, --help  this list      --version  the version\n");
}

static const struct cmd_program ftrec = {
	"ftrec", CMD_VERSION, commands, sizeof(commands) / sizeof(commands[0]), usage,
};

int main(int argc, char **argv)
{
	for (size_t i = 0; i < sizeof(described) / sizeof(described[0]); i++)
		commands[i].summary = described[i]->summary;
	return cmd_main(&ftrec, argc, argv);
}
