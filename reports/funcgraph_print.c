/* SPDX-License-Identifier: MIT */
/*
 * funcgraph_print.c - the kernel's function_graph line layout (see funcgraph_print.h).
 * Widths and strings follow kernel/trace/trace_functions_graph.c (print_graph_cpu,
 * print_graph_proc, print_graph_abs_time, print_graph_duration,
 * trace_print_graph_duration, verif_pid, __print_graph_headers_flags) so that text
 * tools written for the kernel's output read ours.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "reports/funcgraph_print.h"
#include "common/text_escape.h"

/* The kernel's TRACE_GRAPH_PROCINFO_LENGTH: COMM-PID centred in 14 columns. */
#define PROCINFO_LENGTH 14

static void print_cpu(FILE *out, const struct fg_style *st, int cpu)
{
	fprintf(out, " %*d) ", st->cpu_width, cpu);
}

/* The comm cut to 7 characters as the kernel cuts it; escaped (it is the capture's). */
static void print_proc(FILE *out, const char *comm, int64_t pid)
{
	char name[8], pid_str[24];
	int len, spaces = 0;

	snprintf(name, sizeof(name), "%s", comm ? comm : "<...>");
	snprintf(pid_str, sizeof(pid_str), "%" PRId64, pid);
	len = (int)(strlen(name) + strlen(pid_str) + 1);
	if (len < PROCINFO_LENGTH)
		spaces = PROCINFO_LENGTH - len;
	fprintf(out, "%*s", spaces / 2, "");
	text_fputs(out, name);
	fprintf(out, "-%s%*s", pid_str, spaces - spaces / 2, "");
}

void fg_prologue(FILE *out, const struct fg_style *st, int64_t ts_ns, const char *wall,
		 int cpu, const char *comm, int64_t pid)
{
	if (st->abstime) {
		if (wall)
			fprintf(out, "%s |  ", wall);
		else
			fprintf(out, "%5" PRId64 ".%06" PRId64 " |  ", ts_ns / 1000000000,
				ts_ns % 1000000000 / 1000);
	}
	print_cpu(out, st, cpu);
	if (st->proc) {
		print_proc(out, comm, pid);
		fputs(" | ", out);
	}
}

char fg_mark(int64_t dur_ns)
{
	static const struct { int64_t ns; char mark; } marks[] = {
		{ 1000000000, '$' }, { 100000000, '@' }, { 10000000, '*' },
		{ 1000000, '#' }, { 100000, '!' }, { 10000, '+' },
	};

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (dur_ns > marks[i].ns)
			return marks[i].mark;
	return ' ';
}

void fg_duration(FILE *out, const struct fg_style *st, int64_t dur_ns)
{
	char usecs[24];
	int len;

	if (!st->duration)
		return;
	if (dur_ns < 0) {
		fputs("              |  ", out);
		return;
	}
	/* microseconds, then at most 7 digits in all with the nanoseconds, padded to 8 */
	len = snprintf(usecs, sizeof(usecs), "%" PRId64, dur_ns / 1000);
	fprintf(out, "%c %s", fg_mark(dur_ns), usecs);
	if (len < 7) {
		char nsecs[8];
		int keep = 8 - len - 1 < 3 ? 8 - len - 1 : 3;

		snprintf(nsecs, sizeof(nsecs), "%03" PRId64, dur_ns % 1000);
		nsecs[keep] = 0;
		fprintf(out, ".%s", nsecs);
		len += keep + 1;
	}
	fputs(" us ", out);
	fprintf(out, "%*s|  ", len < 8 ? 8 - len : 0, "");
}

void fg_header(FILE *out, const struct fg_style *st)
{
	fputs("# tracer: function_graph\n#\n#", out);
	if (st->abstime)
		fputs("     TIME       ", out);
	fputs(" CPU", out);
	if (st->proc)
		fputs("  TASK/PID       ", out);
	if (st->duration)
		fputs("  DURATION   ", out);
	fputs("               FUNCTION CALLS\n#", out);
	if (st->abstime)
		fputs("      |         ", out);
	fputs(" |  ", out);
	if (st->proc)
		fputs("   |    |        ", out);
	if (st->duration)
		fputs("   |   |      ", out);
	fputs("               |   |   |   |\n", out);
}

int fg_switch(FILE *out, struct fg_switches *sw, const struct fg_style *st, int cpu,
	      int64_t pid, const char *comm)
{
	if (cpu < 0)
		return 0;
	if (cpu >= sw->nr) {
		int nr = cpu + 1 > 2 * sw->nr ? cpu + 1 : 2 * sw->nr;
		struct fg_last *c = realloc(sw->cpu, nr * sizeof(*c));

		if (!c)
			return -1;
		memset(c + sw->nr, 0, (nr - sw->nr) * sizeof(*c));
		sw->cpu = c;
		sw->nr = nr;
	}
	struct fg_last *last = &sw->cpu[cpu];

	if (last->seen && last->pid != pid) {
		fputs(" ------------------------------------------\n", out);
		print_cpu(out, st, cpu);
		print_proc(out, last->comm, last->pid);
		fputs(" => ", out);
		print_proc(out, comm, pid);
		fputs("\n ------------------------------------------\n\n", out);
	}
	last->seen = true;
	last->pid = pid;
	snprintf(last->comm, sizeof(last->comm), "%s", comm ? comm : "<...>");
	return 0;
}

void fg_switches_free(struct fg_switches *sw)
{
	free(sw->cpu);
	sw->cpu = NULL;
	sw->nr = 0;
}

bool fg_indent(FILE *out, int64_t depth)
{
	if (depth <= FG_MAX_INDENT) {
		fprintf(out, "%*s", depth > 0 ? 2 * (int)depth : 0, "");
		return false;
	}
	fprintf(out, "%*s[depth %lld] ", 2 * FG_MAX_INDENT, "", (long long)depth);
	return true;
}

void fg_indent_done(bool deep)
{
	if (deep)
		msg_warn("calls deeper than %d levels (the kernel nests 50): indented as %d, "
			 "their depth printed", FG_MAX_INDENT, FG_MAX_INDENT);
}
