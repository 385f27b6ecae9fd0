// SPDX-License-Identifier: MIT
/*
 * cmd_sql_shell.c - `ftana sql FILE` without SQL on a terminal: an interactive,
 * read-only shell (issue 22), in the manner of sqlite3's: statements end with ';'
 * (a statement may span lines), dot commands for what SQL cannot say, readline's line
 * editing and this session's history. Every statement goes through the same guarded
 * path as `ftana sql FILE 'SQL'` (cmd_sql.c's run: refused writes, the step budget of
 * a .db made elsewhere); an error is printed and the shell goes on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "analyze/commands.h"
#include "common/cmd.h"
#include "common/msg.h"
#include "common/text_escape.h"

static const char help_text[] =
	"Statements end with ';' and may span lines. Read-only: nothing can be written.\n"
	".tables          the tables and views (docs/SQL.md documents each)\n"
	".schema NAME     how NAME is defined\n"
	".mode MODE       table (aligned text, the default), csv or json\n"
	".help            this text\n"
	".quit            leave (or Ctrl-D)\n";

/* The objects' names, each once, several to a line. A name can be in both schemas, as
 * the same view or as a TEMP stand-in table and the kept view of no rows in main
 * (reports/views_keep.c): SQL reads the TEMP one, and it is one name to type. */
static void list_tables(sqlite3 *db)
{
	sqlite3_stmt *st;
	int col = 0;

	if (sqlite3_prepare_v2(db, "SELECT DISTINCT name FROM (SELECT name, type FROM main.sqlite_master "
			       "UNION ALL SELECT name, type FROM sqlite_temp_master) WHERE type IN ('table', "
			       "'view') AND name NOT LIKE 'sqlite_%' ORDER BY name", -1, &st, NULL) != SQLITE_OK) {
		msg_error("%s", sqlite3_errmsg(db));
		return;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		char *name = text_escaped((const char *)sqlite3_column_text(st, 0));
		int len = name ? (int)strlen(name) : 0, width = len < 24 ? 24 : len;

		if (col && col + 2 + width > 78) {
			putchar('\n');
			col = 0;
		}
		col += printf("%s%-*s", col ? "  " : "", width, name ? name : "");
		free(name);
	}
	if (col)
		putchar('\n');
	sqlite3_finalize(st);
}

static void show_schema(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	bool any = false;

	/* the one SQL reads: TEMP first (ftana's own views come before those kept in main) */
	if (sqlite3_prepare_v2(db, "SELECT sql FROM (SELECT 0 AS o, name, sql FROM sqlite_temp_master "
			       "UNION ALL SELECT 1, name, sql FROM main.sqlite_master) WHERE name = ?1 AND "
			       "sql IS NOT NULL ORDER BY o LIMIT 1", -1, &st, NULL) != SQLITE_OK) {
		msg_error("%s", sqlite3_errmsg(db));
		return;
	}
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *raw = (const char *)sqlite3_column_text(st, 0);
		char *sql = text_escape_n(raw, strlen(raw), TEXT_KEEP_LINES);

		printf("%s;\n", sql ? sql : "");
		free(sql);
		any = true;
	}
	sqlite3_finalize(st);
	if (!any)
		msg_error(".schema: no table or view named '%s' (.tables lists them)", name);
}

/* A dot command; false: leave the shell. */
static bool dot_command(sqlite3 *db, char *line, enum out_format *fmt)
{
	char *save = NULL, *cmd = strtok_r(line, " \t", &save), *arg = strtok_r(NULL, " \t", &save);

	if (!strcmp(cmd, ".quit") || !strcmp(cmd, ".exit"))
		return false;
	if (!strcmp(cmd, ".help"))
		fputs(help_text, stdout);
	else if (!strcmp(cmd, ".tables"))
		list_tables(db);
	else if (!strcmp(cmd, ".schema") && arg)
		show_schema(db, arg);
	else if (!strcmp(cmd, ".mode") && arg && (!strcmp(arg, "table") || !strcmp(arg, "csv") ||
						  !strcmp(arg, "json")))
		*fmt = !strcmp(arg, "csv") ? OUT_CSV : !strcmp(arg, "json") ? OUT_JSON : OUT_TEXT;
	else
		msg_error("unknown command '%s' (.help lists them)", line);
	return true;
}

int sql_shell(sqlite3 *db, const char *file, enum out_format fmt)
{
	char *pending = NULL;
	size_t len = 0;

	printf("ftana %s SQL on %s (read-only). '.help' for help; end statements with ';'.\n",
	       CMD_VERSION, file);
	for (;;) {
		char *line = readline(pending ? "   ...> " : "ftana> ");

		if (!line)
			break; /* Ctrl-D */
		if (!pending && line[0] == '.') {
			add_history(line);
			bool go_on = dot_command(db, line, &fmt);

			free(line);
			if (!go_on)
				break;
			fflush(stdout);
			continue;
		}
		size_t n = strlen(line);
		char *grown = realloc(pending, len + n + 2);

		if (!grown) {
			free(line);
			break;
		}
		pending = grown;
		memcpy(pending + len, line, n);
		len += n;
		pending[len++] = '\n';
		pending[len] = '\0';
		free(line);
		if (!sqlite3_complete(pending))
			continue;
		pending[len - 1] = '\0';
		add_history(pending);
		sql_run(db, pending, fmt); /* an error was said; the shell goes on */
		fflush(stdout);
		free(pending);
		pending = NULL;
		len = 0;
	}
	free(pending);
	putchar('\n');
	return 0;
}
