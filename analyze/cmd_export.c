// SPDX-License-Identifier: MIT
/*
 * cmd_export.c - `ftana export FILE -o OUT.json`: the capture as a timeline for
 * Perfetto's UI and chrome://tracing (the document is export/perfetto.c's). The
 * slice options are the reports' own (reports/report_slice.c), with the same
 * meaning and messages under this command's prefix.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/diag.h"
#include "analyze/ftana.h"
#include "export/export.h"
#include "analyze/out_file.h"
#include "export/perfetto.h"
#include "reports/report_front.h"
#include "reports/report_util.h"

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
	"  -o OUT.json        the file to write (required)\n"
	"  --since T          only what starts at or after T: seconds from the first event, or\n"
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

/* The slice functions report through a report_def: this one gives them our prefix. */
static const struct report_def export_def = { .name = "export", .prefix = "ftana export" };

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

static int parse_id(struct report_ctx *ctx, const char *opt, const char *arg, int64_t *out)
{
	char *end;
	long long v = strtoll(arg, &end, 10);

	if (end == arg || *end || v < 0 || v > INT32_MAX)
		return report_error(ctx, "bad %s '%s' (a process or thread id)", opt, arg);
	*out = v;
	return 0;
}

/* Options into ctx (the slice) and *out. 0, or -1 after a one-line error. */
static int parse_args(struct report_ctx *ctx, int argc, char **argv, const char **out)
{
	struct report_slice *s = &ctx->slice;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:p:L:n:h", long_options, NULL)) != -1) {
		int rc = 0;

		switch (c) {
		case 'o':
			if (*out)
				return report_error(ctx, "-o given twice");
			*out = optarg;
			break;
		case OPT_SINCE: s->since_arg = optarg; rc = slice_check_time(ctx, "--since", optarg); break;
		case OPT_UNTIL: s->until_arg = optarg; rc = slice_check_time(ctx, "--until", optarg); break;
		case 'p': rc = parse_id(ctx, "-p", optarg, &s->pid); break;
		case 'L': rc = parse_id(ctx, "-L", optarg, &s->tid); break;
		case 'n': rc = slice_parse_comm(ctx, optarg); break;
		case OPT_CPU: rc = slice_parse_cpus(ctx, optarg); break;
		case OPT_INCLUDE_FTREC: s->include_ftrec = true; break;
		case ':':
			return report_error(ctx, "%s needs a value (see 'ftana export --help')",
					    argv[optind - 1]);
		default:
			return report_error(ctx, "unknown option '%s' (see 'ftana export --help')",
					    argv[optind - 1]);
		}
		if (rc)
			return -1;
	}
	if (optind >= argc)
		return report_error(ctx, "no FILE given (usage: ftana export FILE -o OUT.json)");
	ctx->file = argv[optind++];
	if (optind < argc)
		return report_error(ctx, "unexpected argument '%s' (one FILE only)", argv[optind]);
	if (!*out)
		return report_error(ctx, "no -o OUT.json given (usage: ftana export FILE -o OUT.json)");
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct report_ctx ctx = { .def = &export_def, .fmt = OUT_TEXT, .slice = { .pid = -1, .tid = -1 } };
	struct perfetto_counts counts;
	const char *out = NULL;
	bool damaged = false;
	struct out_file o;
	int rc = FTANA_EXIT_ERROR;

	if (ftana_wants_help(argc, argv))
		return ftana_usage(usage_text, true);
	if (parse_args(&ctx, argc, argv, &out) < 0)
		goto done;
	ctx.db = ftana_open(ctx.file, &damaged);
	if (!ctx.db) {
		rc = damaged ? FTANA_EXIT_DAMAGED : FTANA_EXIT_ERROR;
		goto done;
	}
	report_sql_views(ctx.db); /* `calls`, `io`: TEMP, as `ftana sql` sees them */
	if (slice_resolve(&ctx) < 0 || out_open(&o, out, ctx.file) < 0)
		goto done;
	if (perfetto_write(ctx.db, ctx.file, &ctx.slice, o.f, &counts) < 0) {
		out_abort(&o);
		goto done;
	}
	if (out_commit(&o) < 0)
		goto done;
	printf("%s: %llu CPU slices, %llu calls, %llu I/Os, %llu markers, %llu loss counters\n", out,
	       (unsigned long long)counts.cpu_slices, (unsigned long long)counts.call_slices,
	       (unsigned long long)counts.io_slices, (unsigned long long)counts.markers,
	       (unsigned long long)counts.lost_counters);
	rc = damaged ? FTANA_EXIT_DAMAGED : FTANA_EXIT_OK;
done:
	if (ctx.db)
		sqlite3_close(ctx.db);
	slice_free(&ctx.slice);
	return rc;
}
