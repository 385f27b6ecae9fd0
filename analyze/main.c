/* SPDX-License-Identifier: MIT */
/* main.c - ftana: analyse .ftz captures offline. One file per command (cmd_<name>.c). */
#include <sqlite3.h>
#include <stdio.h>

#include "analyze/commands.h"
#include "common/cmd.h"
#include "common/out_file.h"
#include "decode/capture_set.h"
#include "import/dbcache.h"
#include "reports/report.h"

static const struct cmd commands[] = {
	{ "db", cmd_db, "FILE [-o OUT.db]", "build the SQLite database" },
	{ "info", cmd_info, "FILE", "host, kernel, clock, events, losses" },
	{ "sql", cmd_sql, "FILE 'SELECT ...' [--csv|--json]", "run read-only SQL" },
	{ "report", cmd_report, "NAME [OPTIONS] FILE", "canned reports (ftana report --help)" },
	{ "export", cmd_export, "FILE -o OUT.json", "timeline for Perfetto / chrome://tracing" },
	{ "convert", cmd_convert, "FILE.ftz -o OUT.dat", "trace-cmd trace.dat (trace-cmd, KernelShark)" },
	{ "diff", cmd_diff, "BEFORE AFTER REPORT [OPTIONS]", "one report on two captures, row by row" },
};

static void usage(const struct cmd_program *p, FILE *out)
{
	fprintf(out, "usage: ftana COMMAND [ARGS...]\n"
		     "analyse ftrec captures (.ftz) and trace-cmd trace.dat files offline\n"
		     "Commands:\n");
	cmd_list(p, out, 38);
	fprintf(out, "FILE is a .ftz from ftrec, a trace-cmd trace.dat, or a .db made by 'ftana db'.\n"
		     "'ftana COMMAND --help' describes each command; every report's options:\n"
		     "'ftana report NAME --help'. docs/SQL.md documents the database.\n"
		     "Exit status: 0 ok, 1 error, 3 the input is damaged (results cover what came before).\n");
}

static const struct cmd_program ftana = {
	"ftana", CMD_VERSION, commands, sizeof(commands) / sizeof(commands[0]), usage,
};

int main(int argc, char **argv)
{
	/* One thread, and no memory statistics: SQLite then skips a mutex on every
	 * allocation, ~10% of a bulk import (bench/decode.sh). Before any other call. */
	sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	/* the databases ftana builds hold the report views too (reports/views_keep.c) */
	dbcache_keep_hook = views_keep;
	/* -o never onto a file an input set reads (common/out_file.h) */
	out_set_member_check(cset_ring_segment_name);
	return cmd_main(&ftana, argc, argv);
}
