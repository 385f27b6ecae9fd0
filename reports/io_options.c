// SPDX-License-Identifier: MIT
/* io_options.c - the options iolat and iolatency share (io_options.h). */
#include <stdio.h>
#include <stdlib.h>

#include "common/msg.h"
#include "common/text_escape.h"
#include "reports/io_options.h"
#include "reports/report.h"

int io_option_type(const char *arg, const char **glob)
{
	char *end;

	if (!*arg)
		return msg_error("bad -i '' (a glob of the kernel's rwbs letters, e.g. '*R*')");
	strtod(arg, &end);
	if (!*end) /* no rwbs holds a digit: the interval this letter once was */
		return msg_error("bad -i '%s': -i is the I/O type, a glob of the kernel's rwbs letters "
				 "as in perf-tools (e.g. '*R*'); intervals: --interval SECS", arg);
	*glob = arg;
	return 0;
}

int io_option_interval(const char *arg, int64_t *step_ns)
{
	double secs;

	if (front_number("--interval", arg, 0, &secs))
		return -1;
	if (secs < 0.001 || secs > 1e8)
		return msg_error("bad --interval '%s' (seconds from 0.001 to 100000000)", arg);
	*step_ns = (int64_t)(secs * 1e9 + 0.5);
	return 0;
}

/* The distinct values of io's column COL ("disk" or "rwbs"), comma-separated, in buf. */
static void io_values(sqlite3 *db, const char *col, char *buf, size_t size)
{
	char *sql = sqlite3_mprintf("SELECT DISTINCT %s FROM io WHERE %s IS NOT NULL ORDER BY 1 LIMIT 20", col, col);
	sqlite3_stmt *st = NULL;
	size_t len = 0;

	buf[0] = '\0';
	if (sql && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK)
		while (sqlite3_step(st) == SQLITE_ROW && len + 1 < size) {
			char *v = text_escaped((const char *)sqlite3_column_text(st, 0));
			int n = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", v ? v : "?");

			free(v);
			len = n < 0 || (size_t)n >= size - len ? size - 1 : len + (size_t)n;
		}
	sqlite3_finalize(st);
	sqlite3_free(sql);
}

void io_options_note_unmatched(sqlite3 *db, int64_t dev, const char *type)
{
	sqlite3_stmt *st;
	char have[256];

	if (sqlite3_prepare_v2(db, "SELECT EXISTS (SELECT 1 FROM io WHERE dev = ?1), "
			       "EXISTS (SELECT 1 FROM io WHERE rwbs GLOB ?2)", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, dev);
	if (type)
		sqlite3_bind_text(st, 2, type, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		if (dev >= 0 && !sqlite3_column_int(st, 0)) {
			io_values(db, "disk", have, sizeof(have));
			msg_warn("-D %lld,%lld: no I/O to that disk in this capture (disks: %s)",
				 (long long)(dev >> 20), (long long)(dev & 1048575), *have ? have : "none");
		}
		if (type && !sqlite3_column_int(st, 1)) {
			char *t = text_escaped(type);

			io_values(db, "rwbs", have, sizeof(have));
			msg_warn("-i '%s': no I/O of a type it matches in this capture (types: %s)",
				 t ? t : "?", *have ? have : "none");
			free(t);
		}
	}
	sqlite3_finalize(st);
}
