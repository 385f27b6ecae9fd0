/* SPDX-License-Identifier: MIT */
/*
 * cmd_report.c - `ftana report NAME [OPTIONS] FILE...`: run one canned report. Each
 * report is reports/report_<name>.c (its struct report_def) plus its SQL in
 * schema/reports/; options, help, the slice and the output document are the
 * front end's (reports/report.h), the same for every report.
 */
#include <string.h>

#include "analyze/commands.h"
#include "common/cmd.h"
#include "common/msg.h"
#include "reports/report.h"

int cmd_report(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		report_list(argc < 2 ? stderr : stdout);
		return argc < 2 ? CMD_EXIT_ERROR : CMD_EXIT_OK;
	}
	const struct report_def *def = report_find(argv[1]);

	if (!def)
		return msg_error("unknown report '%s' (try 'ftana report --help')", argv[1]),
		       CMD_EXIT_ERROR;
	return front_run(def, argc - 1, argv + 1);
}
