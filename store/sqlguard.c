// SPDX-License-Identifier: MIT
/*
 * sqlguard.c - hardening and authorizers for ftana's SQLite connections (why:
 * sqlguard.h). The authorizer runs while a statement is prepared, so a refused
 * statement never runs; sqlite3_stmt_readonly() then catches what the authorizer
 * is not asked about (VACUUM compiles to no authorizer call, but is not read-only).
 */
#include <stdlib.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "store/sqlguard.h"

struct guard {
	enum sql_guard mode;
	char why[160]; /* the first refusal since the last prepare */
};

static struct guard guards[] = {
	[GUARD_REPORT] = { .mode = GUARD_REPORT },
	[GUARD_USER] = { .mode = GUARD_USER },
};

/* FTANA_SQL_PROFILE=1: each statement's run time on stderr, for `make bench` work. */
static int profile_line(unsigned type, void *arg, void *stmt, void *ns)
{
	char *sql = sqlite3_expanded_sql(stmt);

	(void)type;
	(void)arg;
	fprintf(stderr, "sql %8.3f ms  %.200s\n", *(sqlite3_int64 *)ns / 1e6, sql ? sql : "?");
	sqlite3_free(sql);
	return 0;
}

int sqlguard_harden(sqlite3 *db)
{
	int rc = 0;
	const char *profile = getenv("FTANA_SQL_PROFILE");

	if (profile && *profile == '1')
		sqlite3_trace_v2(db, SQLITE_TRACE_PROFILE, profile_line, NULL);

	rc |= sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	rc |= sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	rc |= sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
	/* Nothing of ftana attaches; VACUUM INTO attaches its output, so it fails too. */
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	/* The same as DBCONFIG_TRUSTED_SCHEMA, as a PRAGMA: also where the option is absent. */
	rc |= sqlite3_exec(db, "PRAGMA trusted_schema=OFF", NULL, NULL, NULL);
	return rc ? -1 : 0;
}

/* PRAGMAs that only describe: their argument, if any, names a table or index. */
static const char *const describing_pragmas[] = {
	"table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
	"foreign_key_list", "database_list", "function_list", "pragma_list", "collation_list",
	"module_list", "compile_options", "quick_check", "integrity_check",
};
/* PRAGMAs that read a setting without an argument, and would set it with one. */
static const char *const status_pragmas[] = {
	"user_version", "schema_version", "application_id", "page_count", "page_size",
	"freelist_count", "encoding", "data_version",
};

static bool in_list(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; name && i < n; i++)
		if (!strcasecmp(name, list[i]))
			return true;
	return false;
}

static bool pragma_reads(const char *name, const char *arg)
{
	return in_list(name, describing_pragmas, sizeof(describing_pragmas) / sizeof(*describing_pragmas)) ||
	       (!arg && in_list(name, status_pragmas, sizeof(status_pragmas) / sizeof(*status_pragmas)));
}

static bool is_temp(const char *schema)
{
	return schema && !strcmp(schema, "temp");
}

/* Would the report guard let this through? Our own report SQL fills TEMP objects only. */
static bool report_allows(int code, const char *a, const char *b, const char *schema)
{
	switch (code) {
	case SQLITE_ATTACH: case SQLITE_DETACH:
	case SQLITE_CREATE_VTABLE: case SQLITE_DROP_VTABLE:
		return false;
	case SQLITE_PRAGMA:
		return pragma_reads(a, b);
	case SQLITE_ALTER_TABLE: /* a is the schema here */
		return is_temp(a);
	case SQLITE_CREATE_TEMP_INDEX: case SQLITE_CREATE_TEMP_TABLE:
	case SQLITE_CREATE_TEMP_TRIGGER: case SQLITE_CREATE_TEMP_VIEW:
	case SQLITE_DROP_TEMP_INDEX: case SQLITE_DROP_TEMP_TABLE:
	case SQLITE_DROP_TEMP_TRIGGER: case SQLITE_DROP_TEMP_VIEW:
		return true;
	case SQLITE_CREATE_INDEX: case SQLITE_CREATE_TABLE: case SQLITE_CREATE_TRIGGER:
	case SQLITE_CREATE_VIEW: case SQLITE_DROP_INDEX: case SQLITE_DROP_TABLE:
	case SQLITE_DROP_TRIGGER: case SQLITE_DROP_VIEW: case SQLITE_INSERT:
	case SQLITE_UPDATE: case SQLITE_DELETE: case SQLITE_REINDEX: case SQLITE_ANALYZE:
		return is_temp(schema);
	case SQLITE_FUNCTION:
		return !b || strcasecmp(b, "load_extension");
	default: /* SELECT, READ, TRANSACTION, SAVEPOINT, RECURSIVE */
		return true;
	}
}

static bool is_schema_table(const char *table)
{
	return table && (!strcmp(table, "sqlite_master") || !strcmp(table, "sqlite_temp_master"));
}

static bool user_allows(int code, const char *a, const char *b)
{
	switch (code) {
	case SQLITE_SELECT: case SQLITE_READ: case SQLITE_RECURSIVE:
		return true;
	case SQLITE_FUNCTION:
		return !b || strcasecmp(b, "load_extension");
	case SQLITE_PRAGMA:
		return pragma_reads(a, b);
	default:
		return false;
	}
}

static const char *action_name(int code)
{
	switch (code) {
	case SQLITE_ATTACH: return "attaches";
	case SQLITE_DETACH: return "detaches";
	case SQLITE_PRAGMA: return "sets or runs PRAGMA";
	case SQLITE_INSERT: return "inserts into";
	case SQLITE_UPDATE: return "updates";
	case SQLITE_DELETE: return "deletes from";
	case SQLITE_FUNCTION: return "calls";
	case SQLITE_TRANSACTION: case SQLITE_SAVEPOINT: return "opens a transaction";
	default: return "changes the schema:";
	}
}

static int authorize(void *ctx, int code, const char *a, const char *b, const char *schema,
		     const char *trigger_or_view)
{
	struct guard *g = ctx;
	bool ok = g->mode == GUARD_USER ? user_allows(code, a, b) : report_allows(code, a, b, schema);

	(void)trigger_or_view;
	if (ok)
		return SQLITE_OK;
	/* Preparing a table-valued PRAGMA function (pragma_table_info('t')) asks to
	 * update sqlite_master's columns when SQLite connects its virtual table.
	 * IGNORE leaves every such column unchanged; a real UPDATE of the schema
	 * table is still refused, as not read-only (and DEFENSIVE forbids it). */
	if (code == SQLITE_UPDATE && is_schema_table(a))
		return SQLITE_IGNORE;
	if (!g->why[0]) {
		const char *what = code == SQLITE_FUNCTION ? b : a;

		if (code == SQLITE_TRANSACTION || code == SQLITE_SAVEPOINT)
			what = schema = NULL;
		snprintf(g->why, sizeof(g->why), "%s%s%s%s%s", action_name(code),
			 schema || what ? " " : "", schema ? schema : "", schema ? "." : "",
			 what ? what : "");
	}
	return SQLITE_DENY;
}

void sqlguard_set(sqlite3 *db, enum sql_guard mode)
{
	guards[mode].why[0] = '\0';
	sqlite3_set_authorizer(db, authorize, &guards[mode]);
}

/* The statement's first keyword, upper case ("VACUUM"), past blanks, empty statements and comments. */
static void leading_keyword(const char *sql, char *out, size_t len)
{
	size_t n = 0;

	for (;;) {
		while (isspace((unsigned char)*sql) || *sql == ';')
			sql++;
		if (sql[0] == '-' && sql[1] == '-') {
			sql += strcspn(sql, "\n");
		} else if (sql[0] == '/' && sql[1] == '*') {
			const char *end = strstr(sql + 2, "*/");

			sql = end ? end + 2 : sql + strlen(sql);
		} else {
			break;
		}
	}
	while (n + 1 < len && (isalpha((unsigned char)sql[n]) || sql[n] == '_')) {
		out[n] = toupper((unsigned char)sql[n]);
		n++;
	}
	out[n] = '\0';
}

int sqlguard_prepare_user(sqlite3 *db, const char *sql, sqlite3_stmt **st,
			   const char **tail, char *why, size_t whylen)
{
	struct guard *g = &guards[GUARD_USER];
	char lead[16];
	int rc;

	*st = NULL;
	g->why[0] = '\0';
	leading_keyword(sql, lead, sizeof(lead));
	rc = sqlite3_prepare_v2(db, sql, -1, st, tail);
	if (rc != SQLITE_OK && !g->why[0])
		return -1;
	if (rc != SQLITE_OK) {
		snprintf(why, whylen, "%s: %s", lead, g->why);
		return -2;
	}
	/* Read-only by SQLite's own account, and none of the statements that change
	 * the connection although sqlite3_stmt_readonly() calls them read-only. */
	if (*st && (!sqlite3_stmt_readonly(*st) || !strcmp(lead, "VACUUM") ||
		    !strcmp(lead, "ATTACH") || !strcmp(lead, "DETACH"))) {
		snprintf(why, whylen, "%s", lead);
		sqlite3_finalize(*st);
		*st = NULL;
		return -2;
	}
	return 0;
}
