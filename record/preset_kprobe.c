/* SPDX-License-Identifier: MIT */
/*
 * preset_kprobe.c - `ftrec kprobe [OPTIONS] PROBE [FILTER]` with PROBE in
 * perf-tools' syntax: 'p:[NAME] FUNC [ARG=FETCH ...]' or 'r:[NAME] FUNC [ARG=$retval]'.
 * kprobe_events is global: record_run() creates the probe in the group ftrec_<pid>,
 * records ftrec_<pid>:NAME (with FILTER, and stacks with -s) and removes only it
 * at exit. Without NAME the probe is named after FUNC.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "record/preset_func.h"

static const struct record_positional positionals[] = {
	{ "PROBE", "'p:[NAME] FUNC [ARG=FETCH ...]' (entry) or 'r:[NAME] FUNC [ARG=$retval]' "
		   "(return), as kprobe_events takes them, e.g. "
		   "'p:open do_sys_openat2 path=+0($arg2):string'  'r:ksys_read ret=$retval'", 0 },
	{ "FILTER", "ftrace filter on the probe's arguments ('ret > 0')", RECORD_POS_OPTIONAL },
	{ 0 },
};

const struct record_cmd record_cmd_kprobe = {
	.name = "kprobe",
	.summary = "a dynamic probe on a kernel function (perf-tools kprobe)",
	.about = "No duration argument (as in perf-tools): a number is refused, use -d SECONDS.",
	.positionals = positionals,
	.takes_command = true,
	.output_default = "kprobe.ftz",
	.footer = "Hits: ftana report kprobe FILE.ftz [--probe NAME]\n",
};

/* A fetch argument or a bare fetch ("$retval", "%di", "+0($arg2):string"), not a name. */
static bool is_fetch(const char *tok)
{
	return strchr(tok, '=') || strchr("$%+@-", tok[0]) || isdigit((unsigned char)tok[0]);
}

/* Skip blanks, then return the end of the word starting there. */
static const char *word(const char **p)
{
	while (isblank((unsigned char)**p))
		(*p)++;
	const char *e = *p;
	while (*e && !isblank((unsigned char)*e))
		e++;
	return e;
}

/*
 * Turn PROBE into "p:NAME FUNC ARGS" (no group: record_run() adds ours).
 * 'p:NAME FUNC ARGS', 'p:FUNC ARGS' and 'p: FUNC ARGS' are all accepted (the first
 * word is a name only when a function follows it). Returns a malloc'd line or
 * NULL after printing an error.
 */
static char *probe_line(const char *def)
{
	if ((def[0] != 'p' && def[0] != 'r') || def[1] != ':') {
		msg_error("'%s' must start with p: (entry) or r: (return)", def);
		return NULL;
	}
	const char *w0 = def + 2, *w0_end = word(&w0);
	const char *w1 = w0_end, *w1_end = word(&w1);
	const char *name = w0, *name_end = w0_end, *func = w0, *func_end = w0_end, *args = w1;
	char w1_copy[256];

	snprintf(w1_copy, sizeof(w1_copy), "%.*s", (int)(w1_end - w1), w1);
	if (w0 == def + 2 && w1 != w1_end && !is_fetch(w1_copy)) {
		func = w1; /* 'p:NAME FUNC ...' */
		func_end = w1_end;
		args = w1_end;
	}
	if (func == func_end) {
		msg_error("'%s' names no function", def);
		return NULL;
	}
	/* Our group replaces the user's: keep only the event part of GRP/NAME. */
	for (const char *c = name; c < name_end; c++)
		if (*c == '/')
			name = c + 1;
	char ev[64];
	size_t n = 0;
	for (const char *c = name; c < name_end && n < sizeof(ev) - 1; c++)
		ev[n++] = isalnum((unsigned char)*c) ? *c : '_';
	ev[n] = '\0';
	if (n == 0 || isdigit((unsigned char)ev[0])) {
		msg_error("'%s': bad probe name", def);
		return NULL;
	}
	while (isblank((unsigned char)*args))
		args++;
	char *line;
	if (asprintf(&line, "%c:%s %.*s%s%s", def[0], ev, (int)(func_end - func), func,
		     *args ? " " : "", args) < 0)
		return NULL;
	return line;
}

static int fill(struct record_opts *o, struct preset_args *a)
{
	char *line = probe_line(a->pos.v[0]);

	if (!line)
		return -1;
	strlist_add(&o->kprobe_events, line);
	free(line);
	/* pos outlives the recording: freed by preset_run() after record_run() */
	o->kprobe_filter = a->pos.n > 1 ? a->pos.v[1] : NULL;
	return 0;
}

int cmd_kprobe(int argc, char **argv)
{
	static const struct preset preset = { .cmd = &record_cmd_kprobe, .fill = fill };

	return preset_func_main(&preset, argc, argv);
}
