/* SPDX-License-Identifier: MIT */
/*
 * cli.c - the command line of every recording subcommand: the table of common
 * options, the one parser (getopt_long) and the --help printer, both driven by
 * the command's struct record_cmd; and `ftrec record`.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cmd.h"
#include "common/msg.h"
#include "record/record.h"

void record_opts_init(struct record_opts *o, const char *preset, int argc, char **argv)
{
	memset(o, 0, sizeof(*o));
	o->tracing_thresh = -1;
	o->preset = preset;
	o->argc = argc;
	o->argv = argv;
}

void record_opts_free(struct record_opts *o)
{
	for (size_t i = 0; i < o->nr_events; i++) {
		free(o->events[i].system);
		free(o->events[i].event);
		free(o->events[i].filter);
	}
	free(o->events);
	strlist_free(&o->ftrace_filter);
	strlist_free(&o->ftrace_notrace);
	strlist_free(&o->graph_function);
	strlist_free(&o->trace_options);
	strlist_free(&o->kprobe_events);
	strlist_free(&o->kprobe_optional);
	free(o->trigger_system);
	free(o->trigger_event);
	free(o->trigger_filter);
	o->trigger = o->trigger_system = o->trigger_event = o->trigger_filter = NULL;
	free(o->stop_syscall);
	free(o->stop_event);
	free(o->stop_trigger);
	o->stop_if = o->stop_syscall = o->stop_event = o->stop_trigger = NULL;
	o->events = NULL;
	o->nr_events = 0;
}

int record_add_event(struct record_opts *o, const char *spec, const char *filter)
{
	char *copy = strdup(spec), *save = NULL;
	int ret = copy ? 0 : msg_error("out of memory");
	for (char *one = copy ? strtok_r(copy, ",", &save) : NULL; one; one = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(one, ':');
		if (!colon || colon == one || !colon[1] || strchr(one, '/')) {
			ret = msg_error("%s%s: expected SYSTEM:EVENT (globs allowed, e.g. 'block:*')",
					strcmp(o->preset, "record") ? "" : "-e ", one);
			break;
		}
		struct record_event *ev = realloc(o->events, (o->nr_events + 1) * sizeof(*ev));
		if (!ev) {
			ret = msg_error("out of memory");
			break;
		}
		o->events = ev;
		ev = &o->events[o->nr_events++];
		ev->system = strndup(one, (size_t)(colon - one));
		ev->event = strdup(colon + 1);
		ev->filter = filter ? strdup(filter) : NULL;
	}
	free(copy);
	return ret;
}


/*
 * The options every recording subcommand takes (-e/-f only `ftrec record`,
 * -- COMMAND those with takes_command). A command's own option with the same
 * short name wins (funcgraph's -C is perf-tools' on-CPU flag): the common one
 * keeps its long name, so every common option has one.
 */
static const struct record_option common_options[] = {
	{ RECORD_OPT_EVENT, 'e', "event", "SYS:EVENT[,...]",
	  "events to record; globs allowed ('block:*', 'sched:sched_s*'); may repeat" },
	{ RECORD_OPT_FILTER, 'f', "filter", "FILTER",
	  "ftrace filter for the events of the preceding -e ('nr_sector > 8')" },
	{ RECORD_OPT_STACK, 's', "stack", NULL,
	  "a kernel stack trace with each event (ftana report stacks)" },
	{ RECORD_OPT_PID, 'p', "pid", "PID",
	  "only the process PID: every thread it has when recording starts "
	  "(set_event_pid, and set_ftrace_pid for function tracers)" },
	{ RECORD_OPT_TID, 'L', "tid", "TID", "only the thread TID" },
	{ RECORD_OPT_STOP_COMM, 'n', "comm", "COMM",
	  "with --stop-if: only tasks named COMM (exactly, 15 bytes at most: the kernel's "
	  "comm) count; what is recorded is not limited by it" },
	{ RECORD_OPT_FOLLOW, 0, "follow", NULL,
	  "with -p: also the threads and child processes PID creates while "
	  "recording (the kernel's event-fork and function-fork options)" },
	{ RECORD_OPT_DURATION, 'd', "duration", "SECONDS",
	  "stop after SECONDS (fractions allowed)" },
	{ RECORD_OPT_BUFFER, 'b', "buffer-kb", "KB", "ring buffer size per CPU (default: the kernel's)" },
	{ RECORD_OPT_CLOCK, 'C', "clock", "CLOCK",
	  "trace clock (default: mono if the kernel has it, else global)" },
	{ RECORD_OPT_MAX_SIZE, 0, "max-size", "MB", "stop when the output file reaches MB" },
	{ RECORD_OPT_OUTPUT, 'o', "output", "FILE", NULL /* help made from output_default */ },
	{ RECORD_OPT_QUIET, 'q', "quiet", NULL, "no progress line (the summary is always printed)" },
	{ RECORD_OPT_KERNEL_RING, 0, "kernel-ring", NULL,
	  "flight recorder: the kernel's ring buffer (-b KB per CPU) in overwrite mode keeps "
	  "the newest events and nothing is read while recording (near-zero CPU); at the stop "
	  "the whole buffer of every CPU goes into the file" },
	{ RECORD_OPT_TRIGGER, 0, "trigger", "'SYS:EVENT[ if FILTER]'",
	  "stop when this event fires (with FILTER: a matching one): a kernel traceoff trigger "
	  "in the instance stops tracing at the event, which is recorded and is the last of "
	  "its type; ftrec notices within 0.1 s. kill -USR1 stops a recording the same way" },
	{ RECORD_OPT_STOP_IF, 0, "stop-if", "'COND'",
	  "stop when a latency goes bad, measured by the kernel (hist triggers and a synthetic "
	  "event in the instance; the kernel needs both): 'runq > DUR' a task waited longer than "
	  "DUR from its wakeup to running, 'io > DUR' a block request from issue to completion, "
	  "'syscall NAME > DUR' one thread in syscall NAME (DUR: a number with ns, us, ms or s). "
	  "With -p/-L/-n only those tasks count (runq, syscall). Stops as --trigger does; "
	  "ftana info names the task, "
	  "the latency and when" },
	{ RECORD_OPT_POST, 0, "post", "SECONDS",
	  "with --trigger or --stop-if (not --kernel-ring): go on recording SECONDS after it; tracing is "
	  "switched back on when ftrec notices the trigger, so up to 0.1 s after the "
	  "event is not recorded" },
	{ RECORD_OPT_RING, 0, "ring", "SIZE",
	  "disk flight recorder: keep only the newest SIZE (K, M, G; plain: MB) of compressed "
	  "data. -o NAME.ftz holds the metadata (kallsyms, formats) once; the pages go to "
	  "segments NAME.ring-NNNNNN.ftz of SIZE/8 (at least 128K), the oldest deleted once "
	  "the complete ones exceed SIZE: the disk holds at most SIZE + one segment + NAME.ftz. "
	  "ftana reads NAME.ftz as one capture and reports what the ring trimmed; segments "
	  "of an earlier ring of that name are removed. Not with "
	  "--kernel-ring (which bounds memory itself) nor --max-size" },
	{ RECORD_OPT_ROTATE, 0, "rotate", "SIZE|SECS",
	  "a numbered series of complete captures NAME-0001.ftz, NAME-0002.ftz, ... from "
	  "-o NAME.ftz, the next one started when a file holds SIZE of pages (a number with "
	  "K, M or G; each file also repeats the metadata, kallsyms and formats) or has "
	  "recorded SECS (a plain number, or with s, m or h), checked every 0.1 s; each file "
	  "is readable alone (an earlier series of that name is removed first), "
	  "`ftana db NAME-0001.ftz NAME-0002.ftz ...` joins them" },
	{ RECORD_OPT_HELP, 'h', "help", NULL, "print this help and exit (nothing is recorded)" },
	{ 0 },
};

static size_t count_options(const struct record_option *t)
{
	size_t n = 0;
	while (t && t[n].key)
		n++;
	return n;
}

static bool is_common(const struct record_option *opt)
{
	return opt >= common_options && opt < common_options + count_options(common_options);
}

static bool common_applies(const struct record_cmd *cmd, const struct record_option *opt)
{
	return cmd->takes_events || (opt->key != RECORD_OPT_EVENT && opt->key != RECORD_OPT_FILTER);
}

/* The command's own option with this short name, if any. */
static const struct record_option *own_short(const struct record_cmd *cmd, char c)
{
	for (const struct record_option *x = cmd->options; c && x && x->key; x++)
		if (x->short_name == c)
			return x;
	return NULL;
}

/* The short name OPT answers to in CMD: 0 when it has none or an own option took it. */
static char short_name(const struct record_cmd *cmd, const struct record_option *opt)
{
	return is_common(opt) && own_short(cmd, opt->short_name) ? 0 : opt->short_name;
}

/* Every option CMD takes, its own first: a NULL-terminated array of pointers. */
static const struct record_option **all_options(const struct record_cmd *cmd)
{
	size_t n = count_options(cmd->options), m = count_options(common_options), k = 0;
	const struct record_option **all = calloc(n + m + 1, sizeof(*all));
	if (!all)
		return NULL;
	for (size_t i = 0; i < n; i++)
		all[k++] = &cmd->options[i];
	for (size_t i = 0; i < m; i++)
		if (common_applies(cmd, &common_options[i]))
			all[k++] = &common_options[i];
	return all;
}

/* --------------------------------------------------------------------- help */

#define HELP_COLUMN 26 /* "  -d, --duration SECONDS" and two blanks */

/* CMD's positionals as its usage line shows them: "SYSTEM:EVENT [FILTER]", "PATTERN...". */
static void positionals_synopsis(const struct record_cmd *cmd, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (const struct record_positional *p = cmd->positionals; p && p->name && len < size; p++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s%s%s%s", len ? " " : "",
					p->flags & RECORD_POS_OPTIONAL ? "[" : "", p->name,
					p->flags & RECORD_POS_REPEAT ? "..." : "",
					p->flags & RECORD_POS_OPTIONAL ? "]" : "");
}

#define HELP_WIDTH 79

/*
 * TEXT word-wrapped to HELP_WIDTH, its lines starting at column INDENT; '\n' in
 * TEXT starts a new line. *COL is where the cursor is (moved to INDENT first).
 */
static void wrap(FILE *out, int indent, int *col, const char *text)
{
	if (*col > indent) {
		fputc('\n', out);
		*col = 0;
	}
	fprintf(out, "%*s", indent - *col, "");
	*col = indent;
	bool line_start = true;
	for (const char *t = text; *t;) {
		if (*t == '\n') {
			fprintf(out, "\n%*s", indent, "");
			*col = indent;
			line_start = true;
			t++;
			continue;
		}
		size_t spaces = strspn(t, " "), len = strcspn(t + spaces, " \n");
		if (!line_start && *col + (int)(spaces + len) > HELP_WIDTH) {
			fprintf(out, "\n%*s", indent, "");
			*col = indent;
			t += spaces;
			spaces = 0;
		}
		if (line_start) {
			t += spaces; /* no leading blanks on a line */
			spaces = 0;
		}
		*col += fprintf(out, "%.*s", (int)(spaces + len), t);
		t += spaces + len;
		line_start = false;
	}
	fputc('\n', out);
	*col = 0;
}

/* One row: "  LEFT", its help from HELP_COLUMN (on the next line when LEFT is longer). */
static void help_row(FILE *out, const char *left, const char *help)
{
	int col = fprintf(out, "  %s", left);
	if (col >= HELP_COLUMN) {
		fputc('\n', out);
		col = 0;
	}
	wrap(out, HELP_COLUMN, &col, help ? help : "");
}

/* A paragraph from column 0. */
static void paragraph(FILE *out, const char *text)
{
	int col = 0;
	wrap(out, 0, &col, text);
}

static void option_row(FILE *out, const struct record_cmd *cmd, const struct record_option *opt)
{
	char left[96], help[256];
	char s = short_name(cmd, opt);
	const char *text = opt->help;

	snprintf(left, sizeof(left), "%s%c%s%s%s%s%s", s ? "-" : "    ", s ? s : ' ',
		 s && opt->long_name ? ", " : "", opt->long_name ? "--" : "",
		 opt->long_name ? opt->long_name : "", opt->arg ? " " : "", opt->arg ? opt->arg : "");
	if (!s) /* "    --follow", not "     --follow" */
		memmove(left + 4, left + 5, strlen(left + 5) + 1);
	if (opt->key == RECORD_OPT_OUTPUT) {
		if (cmd->output_default)
			snprintf(help, sizeof(help), "the output file (default %s in the current "
				 "directory); an existing file is replaced", cmd->output_default);
		else
			snprintf(help, sizeof(help), "the output file (required); an existing file is replaced");
		text = help;
	} else if (opt->key == RECORD_OPT_PID && cmd->takes_command) {
		snprintf(help, sizeof(help), "%s; '-p cmd': the COMMAND and its children", opt->help);
		text = help;
	}
	help_row(out, left, text);
}

void record_print_help(const struct record_cmd *cmd, FILE *out)
{
	const struct record_option **all = all_options(cmd);

	fprintf(out, "usage: ftrec %s%s [OPTIONS]%s", cmd->name,
		cmd->takes_events ? " -e SYS:EVENT[,...]" : "", cmd->output_default ? "" : " -o FILE");
	char synopsis[256];
	positionals_synopsis(cmd, synopsis, sizeof(synopsis));
	fprintf(out, "%s%s", *synopsis ? " " : "", synopsis);
	fprintf(out, "%s\n", cmd->takes_command ? " [-- COMMAND [ARGS...]]" : "");
	fprintf(out, "%s\n", cmd->summary);
	if (cmd->about)
		paragraph(out, cmd->about);
	if ((cmd->positionals && cmd->positionals->name) || cmd->takes_command) {
		fprintf(out, "Arguments:\n");
		for (const struct record_positional *p = cmd->positionals; p && p->name; p++)
			help_row(out, p->name, p->help);
		if (cmd->takes_command)
			help_row(out, "-- COMMAND [ARGS...]",
				 "run COMMAND, record while it runs, stop when it exits");
	}
	if (cmd->options && cmd->options->key) {
		fprintf(out, "Options:\n");
		for (const struct record_option *x = cmd->options; x->key; x++)
			option_row(out, cmd, x);
	}
	fprintf(out, "Common options:\n");
	for (size_t i = 0; all && all[i]; i++)
		if (is_common(all[i]))
			option_row(out, cmd, all[i]);
	char text[512];
	snprintf(text, sizeof(text), "Short options bundle and take attached arguments: -sd5 is "
		 "-s -d 5. Recording stops at Ctrl-C, SIGTERM, SIGUSR1, the duration, --max-size, the --trigger%s. Exit "
		 "0 when the recording is complete%s, 1 on errors (one line on stderr; tracefs "
		 "is left as it was found).", cmd->takes_command ? " or COMMAND's exit" : "",
		 cmd->takes_command ? " (also when COMMAND failed: its status is in the summary)" : "");
	paragraph(out, text);
	if (cmd->footer)
		fprintf(out, "%s", cmd->footer);
	free(all);
}

/* ------------------------------------------------------------------- parser */

/* A number in [min, max], the whole argument, finite. */
static int parse_number(const char *opt, const char *s, double min, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max)
		return msg_error("%s: expected a number from %.10g to %.10g, got '%s'", opt, min, max, s);
	*out = v;
	return 0;
}

/* A plain decimal number, as a duration would be typed: "5", "0.5". */
static bool looks_like_number(const char *s)
{
	char *end;
	errno = 0;
	(void)strtod(s, &end);
	return end != s && !*end && !errno && strspn(s, "0123456789.") == strlen(s);
}

#define MAX_DURATION (366.0 * 24 * 3600)

/*
 * "4M", "512K", "1.5G", or a plain number of PLAIN_UNIT bytes (0: a plain number is
 * not a size). 1 with *bytes set; 0 when S is not a size; -1 after an error.
 */
static int parse_size(const char *opt, const char *s, double plain_unit, uint64_t min,
		      uint64_t *bytes)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end), unit = plain_unit;
	if (errno || end == s || !isfinite(v) || v <= 0 || strchr(s, 'x') || strchr(s, 'X'))
		return msg_error("%s: expected a size such as 4M, got '%s'", opt, s);
	if (*end && !end[1] && strchr("kKmMgG", *end))
		unit = *end == 'k' || *end == 'K' ? 1024.0 : *end == 'm' || *end == 'M' ? 1048576.0
										       : 1073741824.0;
	else if (*end || !plain_unit)
		return 0;
	double b = v * unit;
	if (b < (double)min || b > 1099511627776.0)
		return msg_error("%s: '%s' is out of range (%llu bytes to 1T)", opt, s,
				 (unsigned long long)min);
	*bytes = (uint64_t)b;
	return 1;
}

/* --rotate: a size with K/M/G, else seconds (plain, or with s/m/h). */
static int parse_rotate(struct record_opts *o, const char *opt, const char *s)
{
	int rc = parse_size(opt, s, 0, 64 << 10, &o->rotate_size);
	if (rc)
		return rc < 0 ? -1 : 0;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	double unit = !*end || !strcmp(end, "s") ? 1 : !strcmp(end, "m") ? 60 : !strcmp(end, "h") ? 3600 : 0;
	if (errno || end == s || !unit || !isfinite(v) || v * unit < 0.5 || v * unit > MAX_DURATION)
		return msg_error("%s: expected a size (64K or more, with K, M or G) or "
				 "seconds (0.5 or more; s, m or h), got '%s'", opt, s);
	o->rotate_secs = v * unit;
	return 0;
}

struct parse_state {
	size_t last_e_first, last_e_end; /* the events of the last -e, for -f */
	bool have_e, duration_given, pid_given;
};

static int set_filter(struct record_opts *o, struct parse_state *ps, const char *filter)
{
	if (!ps->have_e)
		return msg_error("-f '%s' must follow the -e it filters", filter);
	for (size_t i = ps->last_e_first; i < ps->last_e_end; i++) {
		if (o->events[i].filter)
			return msg_error("-f given twice for -e %s:%s", o->events[i].system,
					 o->events[i].event);
		o->events[i].filter = strdup(filter);
	}
	return 0;
}

static int common_option(struct record_opts *o, const struct record_cmd *cmd,
			 struct parse_state *ps, int key, const char *name, const char *arg)
{
	double v;

	switch (key) {
	case RECORD_OPT_EVENT:
		ps->last_e_first = o->nr_events;
		if (record_add_event(o, arg, NULL) < 0)
			return -1;
		ps->last_e_end = o->nr_events;
		ps->have_e = true;
		return 0;
	case RECORD_OPT_FILTER:
		return set_filter(o, ps, arg);
	case RECORD_OPT_STACK:
		o->stacktrace = true;
		return 0;
	case RECORD_OPT_PID:
	case RECORD_OPT_TID:
		if (ps->pid_given)
			return msg_error("one -p or -L only (-p is the whole process, -L one thread)");
		ps->pid_given = true;
		if (key == RECORD_OPT_PID && !strcmp(arg, "cmd")) {
			if (!cmd->takes_command)
				return msg_error("%s cmd: this command runs no COMMAND", name);
			o->pid = RECORD_PID_COMMAND;
			return 0;
		}
		return tasks_parse(name, arg, key == RECORD_OPT_PID,
				   key == RECORD_OPT_PID ? &o->pid : &o->tid);
	case RECORD_OPT_FOLLOW:
		o->follow = true;
		return 0;
	case RECORD_OPT_DURATION:
		if (parse_number(name, arg, 0.001, MAX_DURATION, &o->duration) < 0)
			return -1;
		ps->duration_given = true;
		return 0;
	case RECORD_OPT_BUFFER:
		if (parse_number(name, arg, 1, 1 << 30, &v) < 0)
			return -1;
		if (v != (unsigned long)v)
			return msg_error("%s: expected a whole number of KB, got '%s'", name, arg);
		o->buffer_kb = (unsigned long)v;
		return 0;
	case RECORD_OPT_MAX_SIZE:
		if (parse_number(name, arg, 0.001, 1 << 30, &v) < 0)
			return -1;
		o->max_size = (uint64_t)(v * 1024 * 1024);
		return 0;
	case RECORD_OPT_CLOCK:
		o->clock = arg;
		return 0;
	case RECORD_OPT_OUTPUT:
		if (!*arg)
			return msg_error("%s: empty file name", name);
		o->output = arg;
		return 0;
	case RECORD_OPT_QUIET:
		o->quiet = true;
		return 0;
	case RECORD_OPT_KERNEL_RING:
		o->kernel_ring = true;
		return 0;
	case RECORD_OPT_TRIGGER:
		return trigger_parse(o, arg);
	case RECORD_OPT_STOP_IF:
		return stopif_parse(o, arg);
	case RECORD_OPT_STOP_COMM:
		if (!*arg || strlen(arg) > 15 || strpbrk(arg, "\"\\\n"))
			return msg_error("%s '%s': expected a task name of 1 to 15 bytes, no quote, "
					 "backslash or newline", name, arg);
		o->stop_comm = arg;
		return 0;
	case RECORD_OPT_POST:
		return parse_number(name, arg, 0.001, MAX_DURATION, &o->post);
	case RECORD_OPT_RING:
		return parse_size(name, arg, 1048576.0, 1 << 20, &o->ring_size) < 0 ? -1 : 0;
	case RECORD_OPT_ROTATE:
		return parse_rotate(o, name, arg);
	}
	return msg_error("internal error: option %s has no handler", name);
}

/* getopt_long's tables for CMD: short options in OPTSTRING, long ones' val = 1000 + index in ALL. */
#define LONG_VAL 1000
static struct option *getopt_tables(const struct record_cmd *cmd,
				    const struct record_option **all, char *optstring, size_t size)
{
	size_t n = 0, k = 0, len;
	while (all[n])
		n++;
	struct option *longopts = calloc(n + 1, sizeof(*longopts));
	if (!longopts)
		return NULL;
	/* "+": stop at the first positional (the parser steps over it and goes on), so
	 * "--" is seen where it is; ":": a missing argument is told from an unknown option. */
	len = (size_t)snprintf(optstring, size, "+:");
	for (size_t i = 0; i < n; i++) {
		char s = short_name(cmd, all[i]);
		if (s && len + 3 < size)
			len += (size_t)snprintf(optstring + len, size - len, "%c%s", s, all[i]->arg ? ":" : "");
		if (all[i]->long_name)
			longopts[k++] = (struct option){ all[i]->long_name,
							 all[i]->arg ? required_argument : no_argument,
							 NULL, LONG_VAL + (int)i };
	}
	return longopts;
}

/* What getopt_long returned, as the option in ALL (NULL: none of them). */
static const struct record_option *option_of(const struct record_cmd *cmd,
					     const struct record_option **all, int c)
{
	if (c >= LONG_VAL) {
		size_t i = (size_t)(c - LONG_VAL), n = 0;
		while (all[n])
			n++;
		return i < n ? all[i] : NULL;
	}
	for (size_t i = 0; all[i]; i++)
		if (c > 0 && short_name(cmd, all[i]) == c)
			return all[i];
	return NULL;
}

/*
 * One pass of getopt_long over argv. HELP_ONLY: only look for -h/--help (so
 * help wins over any error) and return 1 when found. Otherwise apply every
 * option, collect positionals into ARGS and set o->command after "--".
 */
static int scan(struct record_opts *o, const struct record_cmd *cmd, int argc, char **argv,
		void *ctx, struct record_args *args, bool help_only, bool *duration_given)
{
	const struct record_option **all = all_options(cmd);
	char optstring[160];
	struct option *longopts = all ? getopt_tables(cmd, all, optstring, sizeof(optstring)) : NULL;
	struct parse_state ps = { 0 };
	int ret = 0;

	if (!longopts) {
		free(all);
		return msg_error("out of memory");
	}
	optind = 0; /* glibc: a full re-initialisation (another pass, or a test calling again) */
	opterr = 0;
	while (ret == 0) {
		int before = optind ? optind : 1, index = -1;
		int c = getopt_long(argc, argv, optstring, longopts, &index);
		if (c == -1) {
			if (optind == before + 1 && !strcmp(argv[before], "--")) {
				if (help_only)
					break;
				if (optind >= argc || !cmd->takes_command)
					ret = msg_error(cmd->takes_command ?
							"'--' must be followed by a COMMAND" :
							"'--': this command runs no COMMAND");
				else
					o->command = argv + optind;
				break;
			}
			if (optind >= argc)
				break;
			if (!help_only)
				args->v[args->n++] = argv[optind];
			optind++; /* step over the positional; getopt goes on after it */
			continue;
		}
		const struct record_option *opt = c == '?' || c == ':' ? NULL : option_of(cmd, all, c);
		if (help_only) {
			if (opt && opt->key == RECORD_OPT_HELP)
				ret = 1;
			continue;
		}
		/* The option as typed: "-d" (also inside "-sd5") or "--duration". */
		char name[64];
		if (opt && c >= LONG_VAL)
			snprintf(name, sizeof(name), "--%s", opt->long_name);
		else if ((c == '?' || c == ':') && (optopt == 0 || optopt >= LONG_VAL))
			snprintf(name, sizeof(name), "%s", argv[optind - 1]); /* as typed */
		else
			snprintf(name, sizeof(name), "-%c", c == '?' || c == ':' ? optopt : c);
		name[strcspn(name, "=")] = '\0';
		if (c == ':')
			ret = msg_error("%s needs an argument (try 'ftrec %s --help')", name, cmd->name);
		else if (c == '?' && optopt >= LONG_VAL)
			ret = msg_error("%s takes no argument", name);
		else if (!opt)
			ret = msg_error("unknown option '%s' (try 'ftrec %s --help')", name, cmd->name);
		else if (opt->key == RECORD_OPT_HELP)
			ret = 1; /* not reached: the help pass found it */
		else if (!is_common(opt))
			ret = cmd->option ? cmd->option(o, opt->key, optarg, ctx) : -1;
		else
			ret = common_option(o, cmd, &ps, opt->key, name, optarg);
	}
	free(longopts);
	free(all);
	*duration_given = ps.duration_given;
	return ret;
}

/* The positionals against CMD->positionals: count, durations, numbers where names belong. */
static int check_positionals(struct record_opts *o, const struct record_cmd *cmd,
			     struct record_args *args, bool duration_given)
{
	const struct record_positional *slots = cmd->positionals;
	size_t nslots = 0, required = 0, kept = 0;
	bool repeat = false;

	while (slots && slots[nslots].name) {
		if (!(slots[nslots].flags & RECORD_POS_OPTIONAL))
			required++;
		repeat = slots[nslots].flags & RECORD_POS_REPEAT;
		nslots++;
	}
	for (size_t i = 0; i < args->n; i++) {
		const char *a = args->v[i];
		const struct record_positional *slot =
			i < nslots ? &slots[i] : repeat ? &slots[nslots - 1] : NULL;
		if (!slot && looks_like_number(a))
			return msg_error("unexpected argument '%s': to record for a time, use -d %s (try 'ftrec %s --help')",
					 a, a, cmd->name);
		if (!slot)
			return msg_error("unexpected argument '%s'%s (try 'ftrec %s --help')", a,
					 cmd->takes_command ? ": a COMMAND to run goes after --" : "",
					 cmd->name);
		if (slot->flags & RECORD_POS_DURATION) {
			if (duration_given)
				return msg_error("the duration is given twice (-d and %s '%s')", slot->name, a);
			if (parse_number(slot->name, a, 0.001, MAX_DURATION, &o->duration) < 0)
				return -1;
			continue; /* not passed on: it is o->duration */
		}
		if (!(slot->flags & RECORD_POS_NUMBER) && looks_like_number(a))
			return msg_error("'%s' is not a %s: to record for a time, use -d %s", a, slot->name, a);
		args->v[kept++] = args->v[i];
	}
	args->n = kept;
	if (args->n < required) {
		char want[256];
		positionals_synopsis(cmd, want, sizeof(want));
		return msg_error("expected %s (try 'ftrec %s --help')", want, cmd->name);
	}
	return 0;
}

int record_parse(struct record_opts *o, const struct record_cmd *cmd, int argc, char **argv,
		 void *ctx, struct record_args *args)
{
	bool duration_given = false;

	args->n = 0;
	args->v = calloc((size_t)argc + 1, sizeof(*args->v));
	if (!args->v)
		return msg_error("out of memory");
	/* First only -h/--help: it prints the help, whatever else the line holds. */
	int ret = scan(o, cmd, argc, argv, ctx, args, true, &duration_given);
	if (ret == 1) {
		record_print_help(cmd, stdout);
		return 1;
	}
	ret = scan(o, cmd, argc, argv, ctx, args, false, &duration_given);
	if (ret == 0)
		ret = check_positionals(o, cmd, args, duration_given);
	if (ret == 0 && o->follow && o->pid <= 0)
		ret = msg_error(o->pid == RECORD_PID_COMMAND ?
			"--follow is implied by -p cmd" : "--follow needs -p PID (the process to follow)");
	if (ret == 0 && o->pid == RECORD_PID_COMMAND && !o->command)
		ret = msg_error("-p cmd needs a COMMAND after --");
	if (ret == 0 && !o->output)
		o->output = cmd->output_default;
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	struct record_args args;
	record_opts_init(&o, "record", argc, argv);
	int ret = record_parse(&o, &record_cmd_record, argc, argv, NULL, &args);
	/* --stop-if records its condition's events (record/stopif.c) */
	if (ret == 0 && !o.nr_events && !o.stop_if)
		ret = msg_error("no events: give -e SYSTEM:EVENT or --stop-if (try 'ftrec record --help')");
	if (ret == 0 && !o.output)
		ret = msg_error("no output file: give -o FILE.ftz");
	return record_finish(&o, &args, ret);
}

int record_finish(struct record_opts *o, struct record_args *args, int status)
{
	if (status == 0)
		status = record_run(o) < 0 ? CMD_EXIT_ERROR : CMD_EXIT_OK;
	else
		status = status > 0 ? CMD_EXIT_OK : CMD_EXIT_ERROR;
	free(args->v);
	record_opts_free(o);
	return status;
}

const struct record_cmd record_cmd_record = {
	.name = "record",
	.summary = "record the events given with -e (globs allowed), optionally filtered",
	.takes_events = true,
	.takes_command = true,
	.footer = "Report: ftana report tpoint FILE.ftz; ftana sql FILE.ftz 'SELECT ...'\n",
};
