// SPDX-License-Identifier: MIT
/*
 * cmd_export.c - `ftana export FILE -o OUT.json`: the capture as a timeline for
 * Perfetto's UI and chrome://tracing (the document is export/perfetto.c's). The
 * slice options are the reports' own (reports/report_slice.c), with the same
 * meaning and messages under this command's prefix.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cmd.h"
#include "common/msg.h"
#include "common/out_file.h"
#include "export/export.h"
#include "export/perfetto.h"
#include "import/dbcache.h"
#include "reports/report.h"

static const char usage_text[] =
	"usage: ftana export FILE -o OUT.json [--since T] [--until T] [-p PID] [-L TID]\n"
	"                    [-n REGEX] [--cpu LIST] [--include-ftrec]\n"
	"Write the capture as a timeline in the Trace Event Format (JSON), which Perfetto's UI\n"
	"(ui.perfetto.dev: Open trace file) and chrome://tracing open:\n"
	"  - one track per CPU with the task running on it (when sched:sched_switch is recorded),\n"
	"    under the process \"CPUs\";\n"
	"  - function_graph calls as nested slices on their thread (the `calls` view);\n"
	"  - block I/O requests as async slices per device, each with its queue (insert ->\n"
	"    issue) and service (issue -> complete) phases (the `io` view of report iolat);\n"
	"  - ftrace print events (trace_marker) as instants on their thread;\n"
	"  - lost events as a cumulative counter per CPU;\n"
	"  - process and thread names from the capture's tasks.\n"
	"OUT.json appears only when complete (written beside it, then renamed); it may not be\n"
	"FILE. ftrec's own threads are left out unless --include-ftrec.\n"
	"  -o OUT.json        the file to write (required; - for standard output)\n"
	"  --since T          only what starts at or after T: trace-clock seconds as reports\n"
	"                     print them, +SECS from the first event, or\n"
	"                     UTC wall-clock time HH:MM:SS[.frac] or ISO 8601\n"
	"  --until T          only what starts before T\n"
	"  -p, --pid PID      only the process PID (every thread of it)\n"
	"  -L, --tid TID      only the thread TID\n"
	"  -n, --comm REGEX   only tasks whose command name matches REGEX (POSIX extended)\n"
	"  --cpu LIST         only these CPUs: 0,2-3\n"
	"  --include-ftrec    keep ftrec's own threads\n"
	"A slice, a call, an I/O or a marker is taken by where it starts (its time, CPU, task);\n"
	"lost-event counters by the window only. Exit status: 0 ok, 1 error, 3 the capture is\n"
	"damaged (the timeline covers what came before the damage).\n";

enum { OPT_SINCE = 0x100, OPT_UNTIL, OPT_CPU, OPT_INCLUDE_FTREC };

static const struct option long_options[] = {
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 'L' },
	{ "comm", required_argument, NULL, 'n' },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "include-ftrec", no_argument, NULL, OPT_INCLUDE_FTREC },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* Options into the slice, FILE and OUT. 0, or -1 after a one-line error. */
static int parse_args(struct slice *s, int argc, char **argv, const char **file, const char **out)
{
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:p:L:n:h", long_options, NULL)) != -1) {
		int rc = 0;

		switch (c) {
		case 'o':
			if (*out)
				return msg_error("-o given twice");
			*out = optarg;
			break;
		case OPT_SINCE: s->since_arg = optarg; rc = slice_check_time("--since", optarg); break;
		case OPT_UNTIL: s->until_arg = optarg; rc = slice_check_time("--until", optarg); break;
		case 'p': rc = slice_parse_id("-p", optarg, &s->pid); break;
		case 'L': rc = slice_parse_id("-L", optarg, &s->tid); break;
		case 'n': rc = slice_parse_comm(s, optarg); break;
		case OPT_CPU: rc = slice_parse_cpus(s, optarg); break;
		case OPT_INCLUDE_FTREC: s->include_ftrec = true; break;
		case ':':
			return msg_error("%s needs a value (see 'ftana export --help')",
					    argv[optind - 1]);
		default:
			return msg_error("unknown option '%s' (see 'ftana export --help')",
					    argv[optind - 1]);
		}
		if (rc)
			return -1;
	}
	if (optind >= argc)
		return msg_error("no FILE given (usage: ftana export FILE -o OUT.json)");
	*file = argv[optind++];
	if (optind < argc)
		return msg_error("unexpected argument '%s' (one FILE only)", argv[optind]);
	if (!*out)
		return msg_error("no -o OUT.json given (usage: ftana export FILE -o OUT.json)");
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct slice slice;
	struct perfetto_counts counts;
	const char *file = NULL, *out = NULL;
	bool damaged = false;
	struct out_file o;
	sqlite3 *db = NULL;
	int rc = CMD_EXIT_ERROR;

	if (cmd_wants_help(argc, argv))
		return cmd_usage(usage_text, true);
	slice_init(&slice);
	slice.ragged = true; /* a timeline shows what each CPU kept, ragged start included */
	if (parse_args(&slice, argc, argv, &file, &out) < 0)
		goto done;
	db = dbcache_open(file, NULL, &damaged);
	if (!db) {
		rc = damaged ? CMD_EXIT_DAMAGED : CMD_EXIT_ERROR;
		goto done;
	}
	if (report_views_all(db) < 0) /* `calls`, `io`: TEMP, as `ftana sql` sees them */
		goto done;
	bool to_stdout = out_is_stdout(out); /* made whole, then copied (out_file.h) */
	if (slice_resolve(&slice, db) < 0 || out_open(&o, out, file) < 0)
		goto done;
	if (perfetto_write(db, file, &slice, o.f, &counts) < 0) {
		out_abort(&o);
		goto done;
	}
	if (!counts.cpu_slices && !counts.call_slices && !counts.io_slices && !counts.markers) {
		out_abort(&o);
		slice_note_unmatched(&slice, db);
		msg_error("%s: nothing to draw%s: no scheduler switches, function_graph calls, "
			  "block I/O or trace_marker writes (the timeline would be empty; `ftana "
			  "report tpoint` lists any capture)", file, slice_active(&slice) ? " in the slice" : "");
		goto done;
	}
	if (out_commit(&o) < 0)
		goto done;
	slice_note_unmatched(&slice, db);
	fprintf(to_stdout ? stderr : stdout,
		"%s: %llu CPU slices, %llu calls, %llu I/Os, %llu markers, %llu loss counters\n",
		to_stdout ? "(stdout)" : out,
		(unsigned long long)counts.cpu_slices, (unsigned long long)counts.call_slices,
		(unsigned long long)counts.io_slices, (unsigned long long)counts.markers,
		(unsigned long long)counts.lost_counters);
	rc = damaged ? CMD_EXIT_DAMAGED : CMD_EXIT_OK;
done:
	if (db)
		sqlite3_close(db);
	slice_free(&slice);
	return rc;
}
