// SPDX-License-Identifier: MIT
/* cmd_convert.c - `ftana convert FILE.ftz -o OUT.dat`: the capture as trace-cmd's
 * trace.dat (the work is export/tracedat_write.c). */
#include <string.h>

#include "common/cmd.h"
#include "common/msg.h"
#include "export/export.h"

static const char usage_text[] =
	"usage: ftana convert FILE.ftz -o OUT.dat\n"
	"Write the capture as a trace-cmd trace.dat (version 6) that trace-cmd report and\n"
	"KernelShark open: the recorded sub-buffers unchanged, with the capture's own\n"
	"header_page, header_event, event formats, kallsyms, printk formats and cmdlines,\n"
	"its trace clock, kernel name and the kernel's per-CPU counters (report --stat).\n"
	"OUT.dat appears only when complete (written beside it, then renamed); it may not\n"
	"be FILE. A damaged FILE is converted up to the damage, with exit status 3.\n"
	"  -o OUT.dat   the trace.dat to write (required; - for standard output)\n";

int cmd_convert(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;

	if (cmd_wants_help(argc, argv))
		return cmd_usage(usage_text, true);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o")) {
			if (i + 1 >= argc || out) {
				msg_error("%s", out ? "-o given twice" : "-o needs a file name");
				return CMD_EXIT_ERROR;
			}
			out = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			msg_error("unknown option '%s' (see 'ftana convert --help')", argv[i]);
			return CMD_EXIT_ERROR;
		} else if (in) {
			msg_error("unexpected argument '%s' (one FILE only)", argv[i]);
			return CMD_EXIT_ERROR;
		} else {
			in = argv[i];
		}
	}
	if (!in || !out) {
		msg_error("no %s given (usage: ftana convert FILE.ftz -o OUT.dat)",
			    in ? "-o OUT.dat" : "FILE");
		return CMD_EXIT_ERROR;
	}
	bool damaged;

	if (tracedat_convert(in, out, &damaged) < 0)
		return damaged ? CMD_EXIT_DAMAGED : CMD_EXIT_ERROR;
	return damaged ? CMD_EXIT_DAMAGED : CMD_EXIT_OK;
}
