// SPDX-License-Identifier: MIT
/*
 * import_profile.c - the function profiler's tables (ftrec funccount --profile)
 * into profile_rounds and function_profile (schema/tables.sql).
 *
 * Each SNAPSHOT named trace_stat/functionN is the kernel's text table for CPU N
 * (kernel/trace/ftrace.c, function_stat_headers / function_stat_show):
 *
 *   "  Function                               Hit    Time            Avg             s^2\n"
 *   "  --------                               ---    ----            ---             ---\n"
 *   "  __do_sys_getppid                       1000    338.826 us      0.338 us        0.012 us\n"
 *
 * Without the function_graph tracer in the kernel only Function and Hit are
 * printed. Lines whose second word is not a number (the headers) are skipped.
 * Names are cut to 30 characters by the kernel: schema/profile_names.sql restores
 * them from the recording's kallsyms where that is unambiguous.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import_int.h"
#include "format/ftz.h"

struct profile_ctx {
	struct importer *im;
	sqlite3_stmt *round, *row;
};

/* "  name  hits [time us ...]": 1 and the fields, or 0 for a header / odd line. */
static int parse_line(const char *line, size_t len, char *name, size_t name_size,
		      uint64_t *hits, int64_t *time_ns)
{
	char buf[512], unit[8];
	double us;
	int n;

	if (len >= sizeof(buf) || name_size < 256)
		return 0;
	memcpy(buf, line, len);
	buf[len] = '\0';
	n = sscanf(buf, "%255s %" SCNu64 " %lf %7s", name, hits, &us, unit);
	if (n < 2)
		return 0;
	*time_ns = n == 4 && !strcmp(unit, "us") ? (int64_t)(us * 1000.0 + 0.5) : -1;
	return 1;
}

static int add_table(struct profile_ctx *c, const struct ftz_snapshot *snap, unsigned cpu)
{
	const char *text = (const char *)snap->data, *end = text + snap->len;
	int rc = 0;

	for (const char *l = text; !rc && l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		size_t len = (size_t)((nl ? nl : end) - l);
		char name[256];
		uint64_t hits;
		int64_t time_ns;

		if (parse_line(l, len, name, sizeof(name), &hits, &time_ns)) {
			sqlite3_bind_int64(c->row, 1, snap->time.round);
			sqlite3_bind_int(c->row, 2, (int)cpu);
			sqlite3_bind_text(c->row, 3, name, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(c->row, 4, (int64_t)hits);
			if (time_ns < 0)
				sqlite3_bind_null(c->row, 5);
			else
				sqlite3_bind_int64(c->row, 5, time_ns);
			rc = im_step_done(c->im, c->row, "function_profile");
		}
		l += len + 1;
	}
	return rc;
}

static int add_snapshot(void *ctx, const struct ftz_snapshot *snap)
{
	struct profile_ctx *c = ctx;
	unsigned cpu;
	int end = 0;

	if (sscanf(snap->name, "trace_stat/function%u%n", &cpu, &end) != 1 || snap->name[end])
		return 0; /* another kind of snapshot: not ours */
	/* Every CPU's table of a round carries the round's times: the first one inserts it. */
	sqlite3_bind_int64(c->round, 1, snap->time.round);
	sqlite3_bind_int64(c->round, 2, (int64_t)snap->time.mono_ns);
	sqlite3_bind_int64(c->round, 3, (int64_t)snap->time.wall_ns);
	if (im_step_done(c->im, c->round, "profile_rounds"))
		return -EIO;
	return add_table(c, snap, cpu);
}

int profile_import(struct importer *im)
{
	struct profile_ctx c = { .im = im };
	int rc;

	if ((rc = im_prepare(im, "INSERT OR IGNORE INTO profile_rounds VALUES (?,?,?)", &c.round)) ||
	    (rc = im_prepare(im, "INSERT INTO function_profile VALUES (?,?,?,?,?)"
			     " ON CONFLICT DO UPDATE SET hits = hits + excluded.hits,"
			     " time_ns = time_ns + excluded.time_ns", &c.row)))
		goto out;
	rc = dec_for_each_snapshot(im->dec, add_snapshot, &c);
	if (rc == -EIO && !im->said && !im->unsaid) /* the file's, not an insert's */
		im_error(im, rc, "cannot read the SNAPSHOT sections again (file changed?)");
	if (!rc)
		rc = im_exec_file(im, "schema/profile_names.sql");
out:
	sqlite3_finalize(c.round);
	sqlite3_finalize(c.row);
	return rc;
}
