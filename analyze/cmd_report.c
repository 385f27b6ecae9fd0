/* SPDX-License-Identifier: MIT */
/*
 * cmd_report.c - `ftana report NAME [OPTIONS] FILE`: run one canned report. Each report
 * is reports/report_<name>.c (its struct report_def: options, help, body) plus its SQL
 * in schema/reports/, and ONE line in REPORTS below. Options, help, errors, the slice
 * and the output document are the front end's (reports/report_front.c), the same
 * for every report.
 */
#include <string.h>

#include "analyze/ftana.h"
#include "reports/report_front.h"

#define REPORTS(X) X(iolat) X(tpoint) X(stacks) X(funccount) X(funcslower) X(funcgraph) X(kprobe)

#define REPORT_DECLARE(name) extern const struct report_def report_##name##_def;
#define REPORT_ENTRY(name) &report_##name##_def,

REPORTS(REPORT_DECLARE)

static const struct report_def *const reports[] = { REPORTS(REPORT_ENTRY) };
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
	fprintf(out, "usage: ftana report NAME [OPTIONS] FILE   (FILE: a .ftz, a trace.dat, or a "
		     ".db from 'ftana db')\n"
		     "       ftana report NAME --help   (that report's options; the common ones: "
		     "--since/--until/-p/-L/-n/--cpu, --csv/--json, ...)\n"
		     "reports:\n");
	for (size_t i = 0; i < NR_REPORTS; i++)
		fprintf(out, "  %-10s %s\n", reports[i]->name, reports[i]->summary);
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
