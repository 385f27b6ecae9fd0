// SPDX-License-Identifier: MIT
/*
 * cmd_sql.c - `ftana sql FILE... 'SELECT ...' [--csv|--json]`: run the statements
 * in order and print the rows of each one that returns columns. The last operand
 * is the SQL; the ones before it are one capture (several: one --rotate series).
 *
 * The session is read-only (sqlguard.h, GUARD_USER): a statement that would write
 * anything -- the database, a TEMP object, a file through VACUUM INTO or ATTACH,
 * a PRAGMA setting -- is refused before any statement runs, with one line and
 * exit status 1. The report views (`io`, ...) are there to read: they are made by
 * our own SQL before the user's statements are guarded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/commands.h"
#include "common/cmd.h"
#include "common/msg.h"
#include "common/text_escape.h"
#include "import/dbcache.h"
#include "reports/lost.h"
#include "reports/report.h"
#include "store/sqlguard.h"

static const char usage_text[] =
	"usage: ftana sql FILE... 'SELECT ...' [--csv|--json]\n"
	"       ftana sql FILE... -f QUERY.sql     (-f -: the SQL from stdin)\n"
	"       ftana sql FILE                     (a shell on a terminal; else stdin's SQL)\n"
	"Run read-only SQL on the capture's database: SELECT, WITH, PRAGMA table_info and the\n"
	"like; anything that writes or attaches is refused. Statements run in order; the rows\n"
	"of each are printed as a text table, CSV or a JSON array. The SQL is the last\n"
	"argument, or the file -f names; several FILEs are the files of one ftrec --rotate\n"
	"series, as one capture. Without SQL on a terminal: an interactive shell (statements\n"
	"end with ';'; .tables, .schema NAME, .mode table|csv|json, .help, .quit).\n"
	"Besides the tables (meta, event_types, tasks, cpu_stats, lost_events, symbols, stacks,\n"
	"one table per event type, the events view), the reports' views are there: io (block\n"
	"I/O pairs), calls (function_graph calls), slow_calls, func_counts, probe_hits, ... when\n"
	"the capture has their events. docs/SQL.md documents every table, view and column.\n"
	"  --csv   CSV (RFC 4180)     --json  a JSON array of objects (one per statement)\n";

/* Prepare every statement before running any: a refused one stops them all. */
static int prepare_all(sqlite3 *db, const char *sql, sqlite3_stmt ***out, size_t *nr)
{
	const char *tail = sql;
	sqlite3_stmt **list = NULL;
	size_t n = 0;

	while (tail && *tail) {
		sqlite3_stmt *st = NULL, **grown;
		char why[200];
		int rc = sqlguard_prepare_user(db, tail, &st, &tail, why, sizeof(why));

		/* the messages may quote names from the file: msg_error escapes them */
		if (rc == -2)
			msg_error("refused: statement writes or attaches (%s)", why);
		else if (rc < 0)
			msg_error("%s", sqlite3_errmsg(db));
		if (rc < 0)
			goto fail;
		if (!st)
			continue; /* whitespace or a comment */
		grown = realloc(list, (n + 1) * sizeof(*list));
		if (!grown) {
			sqlite3_finalize(st);
			msg_error("out of memory");
			goto fail;
		}
		list = grown;
		list[n++] = st;
	}
	*out = list;
	*nr = n;
	return 0;
fail:
	while (n)
		sqlite3_finalize(list[--n]);
	free(list);
	return -1;
}

int sql_run(sqlite3 *db, const char *sql, enum out_format fmt)
{
	sqlite3_stmt **list;
	size_t n;
	int rc = 0;

	if (prepare_all(db, sql, &list, &n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!rc) {
			rc = sqlite3_column_count(list[i]) ? print_rows(list[i], fmt, stdout)
							   : (sqlite3_step(list[i]) == SQLITE_DONE ? 0 : -1);
			if (rc < 0)
				msg_error("%s", sqlite3_errmsg(db));
		}
		sqlite3_finalize(list[i]);
	}
	free(list);
	return rc;
}

/* The SQL of -f PATH ("-": stdin), at most SQL_FILE_MAX bytes; malloc'd, or NULL after
 * an error naming it. */
#define SQL_FILE_MAX (64u << 20)
static char *read_sql(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *text = NULL;
	size_t len = 0, cap = 0;
	bool failed = false;

	if (!f) {
		msg_error("-f %s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *grown = cap < SQL_FILE_MAX ? realloc(text, cap = cap ? 2 * cap : 65536) : NULL;

			if (!grown) { /* not the first 64 MiB run as if they were all */
				msg_error("-f %s: %s", path, cap >= SQL_FILE_MAX ? "over 64 MiB of SQL" : "out of memory");
				failed = true;
				break;
			}
			text = grown;
		}
		size_t got = fread(text + len, 1, cap - len - 1, f);

		len += got;
		if (!got)
			break;
	}
	if (!failed && cap && len + 1 <= cap && !ferror(f)) {
		text[len] = '\0';
	} else {
		if (ferror(f))
			msg_error("-f %s: %s", path, strerror(errno));
		free(text);
		text = NULL;
	}
	if (f != stdin)
		fclose(f);
	return text;
}

int cmd_sql(int argc, char **argv)
{
	/* operands: FILE... then the SQL text (the last one), unless -f or the shell */
	const char **operands = calloc((size_t)argc, sizeof(*operands));
	const char *sql_file = NULL;
	char *sql = NULL;
	size_t n = 0, nfiles;
	enum out_format fmt = OUT_TEXT;
	bool damaged = false, shell = false;
	sqlite3 *db;
	int rc;

	if (cmd_wants_help(argc, argv))
		return free(operands), cmd_usage(usage_text, true);
	if (!operands) {
		msg_error("out of memory");
		return CMD_EXIT_ERROR;
	}
	for (int i = 1; i < argc; i++) {
		enum out_format f = !strcmp(argv[i], "--csv") ? OUT_CSV :
				    !strcmp(argv[i], "--json") ? OUT_JSON : OUT_TEXT;

		if (f != OUT_TEXT && fmt != OUT_TEXT && f != fmt) {
			msg_error("--csv and --json exclude each other: give one");
			return free(operands), CMD_EXIT_ERROR;
		} else if (f != OUT_TEXT) {
			fmt = f;
		} else if (!strcmp(argv[i], "-f")) {
			if (i + 1 >= argc || sql_file) {
				msg_error(i + 1 >= argc ? "-f needs a file of SQL ('-': stdin)" : "-f is given twice");
				return free(operands), CMD_EXIT_ERROR;
			}
			sql_file = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1] && !n) {
			msg_error("unknown option '%s' (see 'ftana sql --help')", argv[i]);
			return free(operands), CMD_EXIT_ERROR;
		} else {
			operands[n++] = argv[i];
		}
	}
	if (!n)
		return free(operands), cmd_usage(usage_text, false);
	/* one FILE and no SQL: a shell on a terminal, else the SQL on stdin */
	if (!sql_file && n == 1) {
		shell = isatty(STDIN_FILENO);
		sql_file = shell ? NULL : "-";
	}
	nfiles = sql_file || shell ? n : n - 1;
	/* `ftana sql FILE 'SELECT' extra`: the SQL text taken for a file says so */
	for (size_t i = 0; i < nfiles; i++)
		if (access(operands[i], F_OK) < 0) {
			msg_error("%s: %s (FILE... come first, the SQL text is the last "
				    "argument)", operands[i], strerror(errno));
			return free(operands), CMD_EXIT_ERROR;
		}
	if (sql_file && !(sql = read_sql(sql_file)))
		return free(operands), CMD_EXIT_ERROR;
	db = dbcache_open_inputs(operands, nfiles, NULL, &damaged);
	if (!db) {
		free(sql);
		free(operands);
		return damaged ? CMD_EXIT_DAMAGED : CMD_EXIT_ERROR;
	}
	/* `io` and the other report views, TEMP (reports/report.h) */
	if (report_views_all(db) < 0) {
		sqlite3_close(db);
		free(sql);
		free(operands);
		return CMD_EXIT_ERROR;
	}
	sqlguard_set(db, GUARD_USER);
	if (shell)
		rc = sql_shell(db, operands[0], fmt);
	else
		rc = sql_run(db, sql ? sql : operands[n - 1], fmt);
	sqlite3_close(db);
	free(sql);
	free(operands);
	if (rc < 0)
		return CMD_EXIT_ERROR;
	return damaged ? CMD_EXIT_DAMAGED : CMD_EXIT_OK;
}
