/* SPDX-License-Identifier: MIT */
/*
 * cmd_report.c - `ftana report NAME FILE [OPTIONS]`: open FILE as a database and run
 * one canned report. Each report is analyze/report_<name>.c (+ schema/reports/<name>.sql)
 * and ONE line in REPORTS below.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/ftana.h"
#include "reports/report_util.h"

/* X(name, options): name is the report and the suffix of its function report_<name>. */
#define REPORTS(X) \
	X(iolat,  "[-Q] [-s] [-t] [-D MAJ,MIN] [-p PID] [-n COMMREGEX] [--summary] [--hist] [--by disk|type|comm] [--csv|--json]") \
	X(tpoint, "[--event EVENT]   (FILE must be the .ftz)") \
	X(stacks, "[--event EVENT] [--folded]") \
	X(funccount,  "[-i SECS] [-t TOP] [-p PID]") \
	X(funcslower, "[-t] [-P]") \
	X(funcgraph,  "[-p PID] [-C CPU] [--tree | --folded]") \
	X(kprobe,     "[--probe NAME]")

#define REPORT_DECLARE(name, opts) int report_##name(sqlite3 *db, int argc, char **argv);
#define REPORT_ENTRY(name, opts) { #name, opts, report_##name },

REPORTS(REPORT_DECLARE)

static const struct report reports[] = { REPORTS(REPORT_ENTRY) };
#define NR_REPORTS (sizeof(reports) / sizeof(reports[0]))

static void list_reports(FILE *out)
{
	fprintf(out, "usage: ftana report NAME FILE [OPTIONS]   (FILE: a .ftz, or a .db from 'ftana db')\n"
		     "reports:\n");
	for (size_t i = 0; i < NR_REPORTS; i++)
		fprintf(out, "  %-10s FILE %s\n", reports[i].name, reports[i].usage);
}

int cmd_report(int argc, char **argv)
{
	const struct report *r = NULL;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		list_reports(argc < 2 ? stderr : stdout);
		return argc < 2 ? FTANA_EXIT_ERROR : FTANA_EXIT_OK;
	}
	for (size_t i = 0; i < NR_REPORTS; i++)
		if (!strcmp(argv[1], reports[i].name))
			r = &reports[i];
	if (!r) {
		fprintf(stderr, "ftana report: unknown report '%s' (try 'ftana report --help')\n",
			argv[1]);
		return FTANA_EXIT_ERROR;
	}
	if (argc >= 3 && (!strcmp(argv[2], "-h") || !strcmp(argv[2], "--help"))) {
		printf("usage: ftana report %s FILE %s\n", r->name, r->usage);
		return FTANA_EXIT_OK;
	}
	if (argc < 3 || argv[2][0] == '-') {
		fprintf(stderr, "ftana report %s: FILE must follow the report name "
			"(usage: ftana report %s FILE %s)\n", r->name, r->name, r->usage);
		return FTANA_EXIT_ERROR;
	}

	bool damaged = false;
	sqlite3 *db = ftana_open(argv[2], &damaged);

	if (!db)
		return damaged ? FTANA_EXIT_DAMAGED : FTANA_EXIT_ERROR;
	report_set_file(argv[2]);

	/* The report sees its name and its options: argv[0] = NAME, FILE removed. */
	char **rargv = calloc(argc, sizeof(*rargv));
	if (!rargv) {
		sqlite3_close(db);
		return FTANA_EXIT_ERROR;
	}
	rargv[0] = argv[1];
	for (int i = 3; i < argc; i++)
		rargv[i - 2] = argv[i];
	fflush(stdout);
	int rc = r->run(db, argc - 2, rargv);

	free(rargv);
	sqlite3_close(db);
	if (fflush(stdout) != 0 && rc == FTANA_EXIT_OK) {
		fprintf(stderr, "ftana report %s: write error on standard output\n", r->name);
		rc = FTANA_EXIT_ERROR;
	}
	return rc == FTANA_EXIT_OK && damaged ? FTANA_EXIT_DAMAGED : rc;
}
