/* SPDX-License-Identifier: MIT */
/*
 * registry.c - the table of reports: every report_<name>_def the build finds in
 * reports/report_*.c (Makefile writes report_list.h), so adding a report edits no
 * shared file; and the views they offer `ftana sql` (report.h, struct report_views).
 */
#include <string.h>

#include "reports/report.h"

#define REPORT(name) extern const struct report_def report_##name##_def;
#include "report_list.h"
#undef REPORT

#define REPORT(name) &report_##name##_def,
static const struct report_def *const reports[] = {
#include "report_list.h"
};
#undef REPORT
#define NR_REPORTS (sizeof(reports) / sizeof(reports[0]))

const struct report_def *report_find(const char *name)
{
	for (size_t i = 0; i < NR_REPORTS; i++)
		if (!strcmp(name, reports[i]->name))
			return reports[i];
	return NULL;
}

void report_list(FILE *out)
{
	fprintf(out, "usage: ftana report NAME [OPTIONS] FILE...   (FILE: a .ftz, a trace.dat, or a "
		     ".db from 'ftana db';\n"
		     "       several FILEs: the files of one ftrec --rotate series, as one capture)\n"
		     "       ftana report NAME --help   (that report's options; the common ones: "
		     "--since/--until/-p/-L/-n/--cpu, --csv/--json, ...)\n"
		     "reports:\n");
	for (size_t i = 0; i < NR_REPORTS; i++)
		fprintf(out, "  %-12s %s\n", reports[i]->name, reports[i]->summary);
}

/* Each family once, in the order of the first report that reads it; with STOP, up to
 * the first that fails. 0, or -1 when one failed. */
static int build(sqlite3 *db, bool kept_only, bool stop)
{
	int rc = 0;

	for (size_t i = 0; i < NR_REPORTS; i++) {
		const struct report_views *v = reports[i]->views;
		bool seen = !v || (kept_only && v->per_run);

		for (size_t j = 0; j < i && !seen; j++)
			seen = reports[j]->views == v;
		if (!seen && v->build(db) < 0) {
			rc = -1;
			if (stop)
				break;
		}
	}
	return rc;
}

void report_views_build(sqlite3 *db, bool kept_only)
{
	build(db, kept_only, false);
}

int report_views_all(sqlite3 *db)
{
	return build(db, false, true);
}
