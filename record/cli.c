/* SPDX-License-Identifier: MIT */
/* cli.c - the options every recording subcommand shares, and `ftrec record`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"

void strlist_add(struct strlist *l, const char *s)
{
	char **v = realloc(l->v, (l->n + 2) * sizeof(*v));
	char *copy = strdup(s);
	if (!v || !copy) {
		fprintf(stderr, "ftrec: out of memory\n");
		exit(FTREC_EXIT_ERROR);
	}
	v[l->n++] = copy;
	v[l->n] = NULL;
	l->v = v;
}

void strlist_free(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

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
	o->events = NULL;
	o->nr_events = 0;
}

int record_add_event(struct record_opts *o, const char *spec, const char *filter)
{
	char *copy = strdup(spec), *save = NULL;
	int ret = 0;
	for (char *one = strtok_r(copy, ",", &save); one; one = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(one, ':');
		if (!colon || colon == one || !colon[1] || strchr(one, '/')) {
			fprintf(stderr, "ftrec: -e %s: expected SYSTEM:EVENT (globs allowed, e.g. 'block:*')\n", one);
			ret = -1;
			break;
		}
		struct record_event *ev = realloc(o->events, (o->nr_events + 1) * sizeof(*ev));
		if (!ev) {
			ret = -1;
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

static int parse_number(const char *opt, const char *s, double min, double *out)
{
	char *end;
	errno = 0;
	double v = s ? strtod(s, &end) : 0;
	if (!s || errno || end == s || *end || v < min) {
		fprintf(stderr, "ftrec: %s: expected a number >= %g, got '%s'\n", opt,
			min, s ? s : "(nothing)");
		return -1;
	}
	*out = v;
	return 0;
}

/* The first event index of the last -e, so -f applies to every spec of "-e a,b". */
struct parse_state {
	size_t last_e_first, last_e_end;
	bool have_e;
};

static int set_filter(struct record_opts *o, struct parse_state *ps, const char *filter)
{
	if (!ps->have_e) {
		fprintf(stderr, "ftrec: -f '%s' must follow the -e it filters\n", filter);
		return -1;
	}
	for (size_t i = ps->last_e_first; i < ps->last_e_end; i++) {
		if (o->events[i].filter) {
			fprintf(stderr, "ftrec: -f given twice for -e %s:%s\n", o->events[i].system,
				o->events[i].event);
			return -1;
		}
		o->events[i].filter = strdup(filter);
	}
	return 0;
}

/* One common option at argv[i]: returns arguments used, 0 if not common, -1 on error. */
static int parse_common(struct record_opts *o, struct parse_state *ps, const char *a,
			const char *next)
{
	double v;
	bool needs = !strcmp(a, "-e") || !strcmp(a, "-f") || !strcmp(a, "-p") ||
		     !strcmp(a, "-d") || !strcmp(a, "-b") || !strcmp(a, "-C") ||
		     !strcmp(a, "-o") || !strcmp(a, "--max-size");
	if (needs && !next) {
		fprintf(stderr, "ftrec: %s needs an argument\n", a);
		return -1;
	}
	if (!strcmp(a, "-e")) {
		ps->last_e_first = o->nr_events;
		if (record_add_event(o, next, NULL) < 0)
			return -1;
		ps->last_e_end = o->nr_events;
		ps->have_e = true;
	} else if (!strcmp(a, "-f")) {
		if (set_filter(o, ps, next) < 0)
			return -1;
	} else if (!strcmp(a, "-p") && !strcmp(next, "cmd")) {
		o->pid = RECORD_PID_COMMAND;
	} else if (!strcmp(a, "-p")) {
		if (parse_number(a, next, 1, &v) < 0 || v != (int)v)
			return -1;
		o->pid = (int)v;
	} else if (!strcmp(a, "-d")) {
		if (parse_number(a, next, 0.001, &v) < 0)
			return -1;
		o->duration = v;
	} else if (!strcmp(a, "-b")) {
		if (parse_number(a, next, 1, &v) < 0)
			return -1;
		o->buffer_kb = (unsigned long)v;
	} else if (!strcmp(a, "--max-size")) {
		if (parse_number(a, next, 0.001, &v) < 0)
			return -1;
		o->max_size = (uint64_t)(v * 1024 * 1024);
	} else if (!strcmp(a, "-C")) {
		o->clock = next;
	} else if (!strcmp(a, "-o")) {
		o->output = next;
	} else if (!strcmp(a, "-s")) {
		o->stacktrace = true;
		return 1;
	} else if (!strcmp(a, "-q")) {
		o->quiet = true;
		return 1;
	} else {
		return 0;
	}
	return 2;
}

int record_parse(struct record_opts *o, int argc, char **argv, record_arg_fn extra,
		 void *ctx, const char *usage)
{
	struct parse_state ps = { 0 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			printf("%s", usage);
			return 1;
		}
		if (!strcmp(a, "--")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "ftrec: '--' must be followed by a COMMAND\n");
				return -1;
			}
			o->command = argv + i + 1;
			return 0;
		}
		int used = parse_common(o, &ps, a, next);
		if (used == 0 && extra)
			used = extra(o, a, next, ctx);
		if (used == 0) {
			fprintf(stderr, "ftrec %s: unknown %s '%s' (try 'ftrec %s --help')\n",
				argv[0], a[0] == '-' ? "option" : "argument", a, argv[0]);
			return -1;
		}
		if (used < 0)
			return -1;
		i += used - 1;
	}
	return 0;
}

static const char record_usage[] =
	"usage: ftrec record -e SYSTEM:EVENT[,...] [-f FILTER] [-e ...] [-s] [-p PID]\n"
	"                    [-d SECONDS] [-b KB] [-C CLOCK] [--max-size MB] [-q]\n"
	"                    -o FILE.ftz [-- COMMAND ARGS...]\n"
	"  -e SYS:EVENT  events to record; globs allowed ('block:*'); may repeat\n"
	"  -f FILTER     ftrace filter for the events of the preceding -e ('rwbs ~ \"*R*\"')\n"
	"  -s            kernel stack trace after each event\n"
	"  -p PID        only events of PID; '-p cmd': only the COMMAND and its children\n"
	"                (without -p, COMMAND mode records the whole system while it runs)\n"
	"  -d SECONDS    stop after SECONDS\n"
	"  -b KB         ring buffer size per CPU\n"
	"  -C CLOCK      trace clock (default: mono if available, else global)\n"
	"  --max-size MB stop when the output reaches MB\n"
	"  -- COMMAND    run COMMAND and stop when it exits\n"
	"Stops on Ctrl-C / SIGTERM too. Exit 0 when the recording is complete (also when\n"
	"COMMAND failed: its status is in the summary), 1 on errors.\n";

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	record_opts_init(&o, "record", argc, argv);
	int ret = record_parse(&o, argc, argv, NULL, NULL, record_usage);
	if (ret == 0 && o.pid == RECORD_PID_COMMAND && !o.command) {
		fprintf(stderr, "ftrec record: -p cmd needs a COMMAND after --\n");
		ret = -1;
	}
	if (ret == 0 && !o.nr_events) {
		fprintf(stderr, "ftrec record: no events: give -e SYSTEM:EVENT (try 'ftrec record --help')\n");
		ret = -1;
	}
	if (ret == 0)
		ret = record_run(&o);
	else
		ret = ret > 0 ? FTREC_EXIT_OK : FTREC_EXIT_ERROR;
	record_opts_free(&o);
	return ret;
}
