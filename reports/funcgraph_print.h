/* SPDX-License-Identifier: MIT */
/*
 * funcgraph_print.h - the kernel's function_graph line layout, shared by the
 * funcgraph report's graph views and funcslower --graph (kernel/trace/
 * trace_functions_graph.c prints it; perf-tools funcgraph and funcslower show it):
 *
 *   [ TIME |  ] CPU) [ TASK-PID  | ] [MARK DURATION |  ]INDENT FUNCTION
 *
 * with the options funcgraph-abstime (-t), funcgraph-proc (-P), funcgraph-duration
 * (off with -D), the "# CPU  DURATION  FUNCTION CALLS" header (-H), and the
 * context-switch marker the kernel prints when a CPU's task changes.
 */
#ifndef FUNCGRAPH_PRINT_H
#define FUNCGRAPH_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct fg_style {
	bool abstime;   /* -t: the event's time first */
	bool proc;      /* -P: COMM-PID of the task */
	bool duration;  /* the duration column (-D turns it off) */
	int cpu_width;  /* digits of the highest CPU number, as the kernel pads */
};

/* The start of a line: time (TIME is "SSSSS.uuuuuu" from ts_ns, or WALL when not
 * NULL), CPU, task. comm NULL: "<...>" as the kernel prints an unknown task. */
void fg_prologue(FILE *out, const struct fg_style *st, int64_t ts_ns, const char *wall,
		 int cpu, const char *comm, int64_t pid);

/* The duration column: the kernel's overhead mark ('+' above 10 us ... '$' above 1 s),
 * the microseconds, " |  ". dur_ns < 0: the column filled with spaces (an entry). */
void fg_duration(FILE *out, const struct fg_style *st, int64_t dur_ns);

/* The kernel's overhead mark for a duration (trace_find_mark: strictly above). */
char fg_mark(int64_t dur_ns);

/* "# tracer: function_graph" and the two column header lines of the kernel's trace file. */
void fg_header(FILE *out, const struct fg_style *st);

/* The task each CPU showed last, for the context-switch markers. */
struct fg_switches {
	struct fg_last { int64_t pid; char comm[17]; bool seen; } *cpu;
	int nr;
};

/*
 * Before a line of task (pid, comm) on cpu: when the CPU's previous line was another
 * task's, the kernel's marker
 *    ------------------------------------------
 *    1)  prev-12   =>  next-34
 *    ------------------------------------------
 * and a blank line. Returns 0, or -1 out of memory.
 */
int fg_switch(FILE *out, struct fg_switches *sw, const struct fg_style *st, int cpu,
	      int64_t pid, const char *comm);
void fg_switches_free(struct fg_switches *sw);

/*
 * The indentation of a call at DEPTH: 2 spaces a level, as the kernel prints, up to
 * FG_MAX_INDENT levels (the kernel's function_graph nests at most 50: a deeper depth
 * field is a hostile or corrupt one); deeper, the indentation stops there and the
 * line says "[depth N] ". A depth below 0 is not indented. Returns true when the
 * depth was cut (the caller says so once).
 */
#define FG_MAX_INDENT 128
#define FG_STR_(x) #x
#define FG_STR(x) FG_STR_(x)
#define FG_MAX_INDENT_TEXT FG_STR(FG_MAX_INDENT) /* for SQL text */
bool fg_indent(FILE *out, int64_t depth);
/* After the lines: the one warning when some depth was cut (DEEP). */
void fg_indent_done(bool deep);

#endif
