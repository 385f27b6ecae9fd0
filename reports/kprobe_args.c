/* SPDX-License-Identifier: MIT */
/*
 * kprobe_args.c - the probe_hits view (kprobe_views, report_func.h): one row per hit
 * of any dynamic probe, its arguments printed as the kernel prints their declared
 * fetch types. The kernel builds a probe's print format from those types
 * (kernel/trace/trace_probe.c: x8..x64 "0x%x"/"0x%Lx", u* "%u"/"%Lu", s* "%d"/"%Ld",
 * string "\"%s\"", symbol "%pS", char "'%c'"), so the capture's print_fmt says how
 * each argument prints: its " NAME=SPEC" pieces after the "(%lx...)" head, one per
 * argument column, in order. The value is cut to the field's size and signedness
 * from the format (the database keeps a u64 as its signed bit pattern). A spec this
 * code does not know (arrays "{...}", anything new) prints the stored value as it is,
 * and so does a capture without print formats (a hand-made database).
 */
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "reports/args.h"
#include "reports/views.h"
#include "store/db.h"

/* "func+0xoff" of address expression A, as %pS; NAME_SQL without the offset. */
#define SYM_SQL "coalesce((SELECT s.name || printf('+0x%%x', (%s) - s.addr) FROM symbols s " \
	"WHERE s.addr = (SELECT max(m.addr) FROM symbols m WHERE m.addr <= (%s)) " \
	"ORDER BY s.rowid LIMIT 1), printf('0x%%x', %s))"
#define NAME_SQL "coalesce((SELECT s.name FROM symbols s " \
	"WHERE s.addr = (SELECT max(m.addr) FROM symbols m WHERE m.addr <= (%s)) " \
	"ORDER BY s.rowid LIMIT 1), printf('0x%%x', %s))"

/* Field NAME's size and signedness in a format text ("\tfield:u64 ret;\toffset:24;\tsize:8;\tsigned:0;"). */
static bool field_type(const char *format, const char *name, int *size, bool *is_signed)
{
	size_t n = strlen(name);

	for (const char *l = format; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *f = strstr(l, "field:"), *semi, *end = strchr(l, '\n');
		int sz, sg;

		if (!f || (end && f > end) || !(semi = strchr(f, ';')) || (end && semi > end))
			continue;
		if ((size_t)(semi - f) <= n || memcmp(semi - n, name, n) || semi[-(long)n - 1] != ' ')
			continue;
		const char *s = strstr(semi, "size:"), *g = strstr(semi, "signed:");
		if (!s || !g || (end && (s > end || g > end)) || sscanf(s, "size:%d", &sz) != 1 ||
		    sscanf(g, "signed:%d", &sg) != 1 || sz <= 0)
			return false;
		*size = sz;
		*is_signed = sg != 0;
		return true;
	}
	return false;
}

/* The format file's C-string escapes \" and \\ in place (a string's spec is \"%s\"). */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++)
		*o++ = s[0] == '\\' && (s[1] == '"' || s[1] == '\\') ? *++s : *s;
	*o = '\0';
}

/* The specs of NARGS arguments in PRINT_FMT: a malloc'd array of malloc'd strings, or NULL. */
static char **arg_specs(const char *print_fmt, int nargs)
{
	const char *p = print_fmt ? strchr(print_fmt, ')') : NULL;
	char **specs = calloc(nargs ? nargs : 1, sizeof(*specs));
	int i = 0;

	if (!p || !specs)
		goto bad;
	for (p++; i < nargs; i++) {
		const char *eq, *end;

		if (*p != ' ' || !(eq = strchr(p, '=')))
			goto bad;
		end = strchr(eq, ' ');
		if (!end)
			end = eq + strlen(eq);
		if (!(specs[i] = strndup(eq + 1, end - eq - 1)))
			goto bad;
		unescape(specs[i]);
		p = end;
	}
	if (*p == '\0')
		return specs;
bad:
	for (int j = 0; specs && j < nargs; j++)
		free(specs[j]);
	free(specs);
	return NULL;
}

/* SQL printing column expression C by SPEC, or NULL when SPEC is not one the kernel makes. */
static char *spec_sql(const char *c, const char *spec, int size, bool is_signed)
{
	const char *pct = strchr(spec, '%');
	char *u, *s, *expr = NULL, *out;

	if (!pct || strchr(pct + 1, '%') || strchr(spec, '{'))
		return NULL;
	const char *q = pct + 1;
	q += strspn(q, "hlLqjzt");
	char conv = *q;

	if (!(conv && strchr("xXudics", conv)) && !(conv == 'p' && (q[1] == 'S' || q[1] == 's')))
		return NULL; /* not a form the kernel makes ("%" at the end included) */
	q++;
	bool sym = conv == 'p' && (*q == 'S' || *q == 's');
	bool offset = sym && *q == 'S';

	if (sym)
		q++;
	if (size < 8) { /* the field's own bits; signed ones sign-extended */
		unsigned long long mask = (1ULL << (8 * size)) - 1, sign = 1ULL << (8 * size - 1);
		u = sqlite3_mprintf("((%s) & %llu)", c, mask);
		/* SQLite has no XOR: minus twice the sign bit */
		s = is_signed || conv == 'd' || conv == 'i' ?
		    sqlite3_mprintf("(((%s) & %llu) - (((%s) & %llu) << 1))", c, mask, c, sign) :
		    sqlite3_mprintf("%s", u);
	} else {
		u = sqlite3_mprintf("(%s)", c);
		s = sqlite3_mprintf("(%s)", c);
	}
	if (sym)
		expr = offset ? sqlite3_mprintf(SYM_SQL, c, c, c) : sqlite3_mprintf(NAME_SQL, c, c);
	else if (conv == 'x' || conv == 'X')
		expr = sqlite3_mprintf("printf('%%%c', %s)", conv, u);
	else if (conv == 'u')
		expr = sqlite3_mprintf("printf('%%u', %s)", u);
	else if (conv == 'd' || conv == 'i')
		expr = sqlite3_mprintf("printf('%%d', %s)", s);
	else if (conv == 'c')
		expr = sqlite3_mprintf("char((%s) & 255)", c);
	else if (conv == 's')
		expr = sqlite3_mprintf("CAST(%s AS TEXT)", c);
	sqlite3_free(u);
	sqlite3_free(s);
	if (!expr)
		return NULL;
	char *prefix = strndup(spec, pct - spec);
	/* a fetch that faulted is NULL: the kernel prints "(fault)" */
	out = prefix ? sqlite3_mprintf("CASE WHEN %s IS NULL THEN '(fault)' ELSE %Q || %s || %Q END",
				       c, prefix, expr, q) : NULL;
	free(prefix);
	sqlite3_free(expr);
	return out;
}

/* The stored value as it is: text quoted, a faulted fetch "(fault)". */
static char *raw_sql(const char *c)
{
	return sqlite3_mprintf("CASE WHEN %s IS NULL THEN '(fault)' WHEN typeof(%s) = 'text' "
			       "THEN '\"' || %s || '\"' ELSE CAST(%s AS TEXT) END", c, c, c, c);
}

/* The args expression of probe table TABLE: "name=value ..." as SQL, or NULL. */
static char *args_sql(sqlite3 *db, const char *table, const char *print_fmt, const char *format)
{
	sqlite3_stmt *st;
	char *cols[256];
	int n = 0;

	if (sqlite3_prepare_v2(db, "SELECT col FROM kprobe_columns WHERE tbl = ?", -1, &st, NULL))
		return NULL;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while (n < 256 && sqlite3_step(st) == SQLITE_ROW)
		cols[n++] = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);

	char **specs = arg_specs(print_fmt, n);
	char *sql = sqlite3_mprintf("%s", n ? "" : "''");

	for (int i = 0; i < n && sql; i++) {
		char *ref = sqlite3_mprintf("e.\"%w\"", cols[i]);
		int size = 8;
		bool is_signed = false;
		char *value = NULL;

		if (specs && format && field_type(format, cols[i], &size, &is_signed) && size <= 8 &&
		    (size & (size - 1)) == 0)
			value = spec_sql(ref, specs[i], size, is_signed);
		if (!value)
			value = raw_sql(ref);
		char *label = sqlite3_mprintf("%s=", cols[i]);
		char *more = label ? sqlite3_mprintf("%s%s%Q || %s", sql, i ? " || ' ' || " : "",
						     label, value) : NULL;
		sqlite3_free(label);
		sqlite3_free(sql);
		sql = more;
		sqlite3_free(value);
		sqlite3_free(ref);
	}
	for (int i = 0; i < n; i++) {
		sqlite3_free(cols[i]);
		if (specs)
			free(specs[i]);
	}
	free(specs);
	return sql;
}

/* print_fmt and format of TABLE's event type (NULL, NULL without event_types). */
static void type_texts(sqlite3 *db, const char *table, char **print_fmt, char **format)
{
	sqlite3_stmt *st;

	*print_fmt = *format = NULL;
	if (!db_has_table(db, "event_types") ||
	    sqlite3_prepare_v2(db, "SELECT print_fmt, format FROM event_types WHERE table_name = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*print_fmt = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
		*format = sqlite3_mprintf("%s", sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
}

/* One probe table's part of probe_hits. */
static char *probe_select(sqlite3 *db, const char *table, bool is_return)
{
	char *print_fmt, *format, *func, *args, *sql = NULL;

	type_texts(db, table, &print_fmt, &format);
	args = args_sql(db, table, print_fmt, format);
	func = is_return ? sqlite3_mprintf(SYM_SQL " || ' <- ' || " NAME_SQL,
					   "e.__probe_ret_ip", "e.__probe_ret_ip", "e.__probe_ret_ip",
					   "e.__probe_func", "e.__probe_func")
			 : sqlite3_mprintf(SYM_SQL, "e.__probe_ip", "e.__probe_ip", "e.__probe_ip");
	if (args && func)
		sql = sqlite3_mprintf("SELECT e.id AS id, e.ts AS ts, e.cpu AS cpu, e.pid AS pid, "
				      "%Q AS probe, %s AS func, %s AS args, e.stack_id AS stack_id "
				      "FROM \"%w\" e", table, func, args, table);
	sqlite3_free(print_fmt);
	sqlite3_free(format);
	sqlite3_free(args);
	sqlite3_free(func);
	return sql;
}

int kprobe_views(sqlite3 *db)
{
	sqlite3_stmt *st;
	char *view = NULL;
	int rc = -1;

	if (db_exec_file(db, "schema/reports/kprobe.sql") ||
	    sqlite3_prepare_v2(db, "SELECT name, is_return FROM kprobe_tables", -1, &st, NULL))
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		char *one = probe_select(db, (const char *)sqlite3_column_text(st, 0),
					 sqlite3_column_int(st, 1));
		char *more = one ? sqlite3_mprintf("%s%s%s", view ? view : "",
						   view ? " UNION ALL " : "", one) : NULL;

		sqlite3_free(one);
		sqlite3_free(view);
		if (!(view = more))
			goto out;
	}
	rc = 0;
	if (view) { /* else the empty stand-in of kprobe.sql stays */
		char *sql = sqlite3_mprintf("DROP VIEW IF EXISTS temp.probe_hits; "
					    "CREATE TEMP VIEW probe_hits AS %s", view);
		rc = sql && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
		if (rc)
			msg_error("probe_hits: %s", sqlite3_errmsg(db));
		sqlite3_free(sql);
	}
out:
	sqlite3_finalize(st);
	sqlite3_free(view);
	return rc;
}

const struct report_views views_probe_hits = { "probe_hits", kprobe_views, false };
