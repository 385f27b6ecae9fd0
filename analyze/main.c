/* main.c - ftana: analyse .ftz captures offline. Dispatches to one file per subcommand. */
#include <stdio.h>
#include <string.h>

#include "analyze/diag.h"
#include "analyze/ftana.h"
#include "export/export.h"

static const struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
} subcommands[] = {
	{ "db",     cmd_db,     "db FILE [-o OUT.db]                   build the SQLite database" },
	{ "info",   cmd_info,   "info FILE                             host, kernel, clock, events, losses" },
	{ "sql",    cmd_sql,    "sql FILE 'SELECT ...' [--csv|--json]  run read-only SQL" },
	{ "report", cmd_report, "report NAME [OPTIONS] FILE            canned reports (ftana report --help)" },
	{ "export", cmd_export, "export FILE -o OUT.json               timeline for Perfetto / chrome://tracing" },
	{ "convert", cmd_convert, "convert FILE.ftz -o OUT.dat           trace-cmd trace.dat (trace-cmd, KernelShark)" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: ftana COMMAND [ARGS...]\n"
		     "analyse ftrec captures (.ftz) and trace-cmd trace.dat files offline\n"
		     "Commands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(out, "  %s\n", subcommands[i].usage);
	fprintf(out, "FILE is a .ftz from ftrec, a trace-cmd trace.dat, or a .db made by 'ftana db'.\n"
		     "'ftana COMMAND --help' describes each command; every report's options:\n"
		     "'ftana report NAME --help'. docs/SQL.md documents the database.\n"
		     "Exit status: 0 ok, 1 error, 3 the input is damaged (results cover what came before).\n");
}

int main(int argc, char **argv)
{
	/* One thread, and no memory statistics: SQLite then skips a mutex on every
	 * allocation, ~10% of a bulk import (bench/decode.sh). Before any other call. */
	sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? FTANA_EXIT_ERROR : FTANA_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("ftana %s\n", FTANA_VERSION);
		return FTANA_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(argv[1], subcommands[i].name)) {
			static char prefix[32];

			/* every message of the command says which it is: "ftana db: ..." */
			snprintf(prefix, sizeof(prefix), "ftana %s", subcommands[i].name);
			diag_set_prefix(prefix);
			return subcommands[i].run(argc - 1, argv + 1);
		}
	fprintf(stderr, "ftana: unknown command '%s' (try 'ftana --help')\n", argv[1]);
	return FTANA_EXIT_ERROR;
}
