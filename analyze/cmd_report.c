/* SPDX-License-Identifier: MIT */
/*
 * cmd_report.c - `ftana report NAME [OPTIONS] FILE...`: run one canned report. Each report
 * is reports/report_<name>.c (its struct report_def: options, help, body) plus its SQL
 * in schema/reports/; the build lists every report_NAME_def it finds in reports/ in
 * report_list.h (Makefile), so adding a report edits no shared file. Options, help, errors, the slice
 * and the output document are the front end's (reports/report_front.c), the same
 * for every report.
 */
#include <string.h>

#include "analyze/ftana.h"
#include "reports/report_front.h"

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

int cmd_report(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		report_list(argc < 2 ? stderr : stdout);
		return argc < 2 ? FTANA_EXIT_ERROR : FTANA_EXIT_OK;
	}
	const struct report_def *def = report_find(argv[1]);

	if (!def) {
		fprintf(stderr, "ftana report: unknown report '%s' (try 'ftana report --help')\n",
			argv[1]);
		return FTANA_EXIT_ERROR;
	}
	return report_front_run(def, argc - 1, argv + 1);
}
