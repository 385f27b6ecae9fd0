/* SPDX-License-Identifier: MIT */
/*
 * preset_iolat.c - `ftrec iolat [-D MAJ,MIN] [-i TYPEGLOB] [OPTIONS] [SECONDS]
 * [-- COMMAND]`: block I/O for perf-tools' iosnoop / bcc's biosnoop and
 * biolatency, analysed by `ftana report iolat`. Records block_rq_insert, block_rq_issue
 * and block_rq_complete, so one capture answers both the issue-based latency and the
 * queued (-Q) one. -D and -i are in-kernel filters on all three events, as iosnoop's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/parse.h"
#include "record/record.h"

enum { IOLAT_OPT_DEV = 'D', IOLAT_OPT_TYPE = 'i' };

static const struct record_option options[] = {
	{ IOLAT_OPT_DEV, 'D', NULL, "MAJ,MIN", "only this disk (in-kernel filter dev == MAJ << 20 | MIN)" },
	{ IOLAT_OPT_TYPE, 'i', NULL, "TYPEGLOB", "only I/O whose rwbs matches the glob, e.g. '*R*' (reads), '*W*'" },
	{ 0 },
};

static const struct record_positional positionals[] = {
	{ "SECONDS", "record for SECONDS, as iosnoop's duration argument (the same as -d)",
	  RECORD_POS_OPTIONAL | RECORD_POS_DURATION },
	{ 0 },
};

static int iolat_option(struct record_opts *o, int key, const char *arg, void *ctx);

const struct record_cmd record_cmd_iolat = {
	.name = "iolat",
	.summary = "block I/O with its latency (perf-tools iosnoop, bcc biosnoop/biolatency)",
	.about = "Records block_rq_insert, block_rq_issue and block_rq_complete. -p and -L filter "
		 "the requests inserted/issued by those threads (completions run in any task's "
		 "context, so they are not filtered: as iosnoop -p); --follow is not available.",
	.options = options,
	.positionals = positionals,
	.takes_command = true,
	.output_default = "iolat.ftz",
	.footer = "Report: ftana report iolat FILE.ftz [-Q] [-s] [-t] [--summary] [--hist] ...\n",
	.option = iolat_option,
};

/* "dev == N" for MAJ,MIN (common/parse.h: the kernel's dev_t MAJ << 20 | MIN). NULL after a message. */
static char *dev_filter(const char *arg)
{
	uint64_t dev;
	char *filter;

	if (parse_dev("-D", arg, &dev) < 0)
		return NULL;
	if (asprintf(&filter, "dev == %" PRIu64, dev) < 0) {
		msg_error("out of memory");
		return NULL;
	}
	return filter;
}

/* 'rwbs ~ "GLOB"': the glob goes inside a quoted filter string, so no quotes in it. */
static char *type_filter(const char *glob)
{
	char *filter;

	if (!*glob || strpbrk(glob, "\"\\")) {
		msg_error("bad -i '%s' (a glob over rwbs, e.g. '*R*')", glob);
		return NULL;
	}
	if (asprintf(&filter, "rwbs ~ \"%s\"", glob) < 0) {
		msg_error("out of memory");
		return NULL;
	}
	return filter;
}

/* "a && b && c" of the non-NULL parts, or NULL when there are none. */
static char *join_filters(const char *a, const char *b, const char *c)
{
	const char *parts[] = { a, b, c };
	char *out = NULL;

	for (size_t i = 0; i < 3; i++) {
		char *more;
		if (!parts[i])
			continue;
		if (asprintf(&more, "%s%s%s", out ? out : "", out ? " && " : "", parts[i]) < 0)
			more = NULL;
		free(out);
		out = more;
	}
	return out;
}

struct iolat_args {
	char *dev_filter;  /* "dev == N" */
	char *type_filter; /* "rwbs ~ \"GLOB\"" */
};

static int iolat_option(struct record_opts *o, int key, const char *arg, void *ctx)
{
	struct iolat_args *a = ctx;
	char **slot = key == IOLAT_OPT_DEV ? &a->dev_filter : &a->type_filter;

	free(*slot);
	*slot = key == IOLAT_OPT_DEV ? dev_filter(arg) : type_filter(arg);
	return *slot ? 0 : -1;
}

/*
 * -p / -L as a filter on the start events: set_event_pid would also drop every
 * completion, which runs in interrupt context of whatever task was there.
 * "common_pid == T || ..." over every thread of -p's process into *FILTER, or
 * NULL without -p / -L. 0, or -1 after a msg_error.
 */
static int task_filter(const struct record_opts *o, char **filter)
{
	int *tids = NULL, one = o->tid;
	long n = 1;
	char *out = NULL;

	*filter = NULL;
	if (o->pid <= 0 && o->tid <= 0)
		return 0;
	if (o->pid > 0 && (n = tasks_of_process(o->pid, &tids)) < 0)
		return msg_error("-p %d: the process has exited", o->pid);
	for (long i = 0; i < n; i++) {
		char *more;
		if (asprintf(&more, "%s%scommon_pid == %d", out ? out : "", out ? " || " : "",
			     tids ? tids[i] : one) < 0)
			more = NULL;
		free(out);
		if (!(out = more))
			break;
	}
	free(tids);
	if (!out)
		return msg_error("out of memory");
	/* The kernel takes a filter of less than a page (and it is joined with -D, -i). */
	if (strlen(out) > 3000) {
		free(out);
		return msg_error("-p %d has %ld threads, too many for an in-kernel filter: "
				 "record all and use 'ftana report iolat -p %d'", o->pid, n, o->pid);
	}
	if (n > 1) {
		char *grouped;
		if (asprintf(&grouped, "(%s)", out) < 0)
			grouped = NULL;
		free(out);
		if (!(out = grouped))
			return msg_error("out of memory");
	}
	*filter = out;
	return 0;
}

int cmd_iolat(int argc, char **argv)
{
	struct record_opts o;
	struct record_args args;
	struct iolat_args a = { 0 };
	char *pid_filter = NULL;
	static const char *const events[] = { "block_rq_insert", "block_rq_issue",
					      "block_rq_complete" };

	record_opts_init(&o, "iolat", argc, argv);
	int ret = record_parse(&o, &record_cmd_iolat, argc, argv, &a, &args);

	if (ret == 0 && o.pid == RECORD_PID_COMMAND)
		ret = msg_error("-p cmd is not supported (completions run in other "
				"tasks' context); record all and use 'ftana report iolat -p PID'");
	if (ret == 0 && o.follow)
		ret = msg_error("--follow is not supported: -p filters the threads PID has at the start");
	if (ret == 0)
		ret = task_filter(&o, &pid_filter);
	o.pid = 0; /* filters instead (see task_filter) */
	o.tid = 0;
	for (size_t i = 0; ret == 0 && i < sizeof(events) / sizeof(events[0]); i++) {
		bool start = i < 2;
		char *filter = join_filters(a.dev_filter, a.type_filter, start ? pid_filter : NULL);
		char spec[64];

		snprintf(spec, sizeof(spec), "block:%s", events[i]);
		ret = record_add_event(&o, spec, filter);
		free(filter);
	}
	ret = record_finish(&o, &args, ret);
	free(pid_filter);
	free(a.dev_filter);
	free(a.type_filter);
	return ret;
}
