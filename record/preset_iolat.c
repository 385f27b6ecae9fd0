/* SPDX-License-Identifier: MIT */
/*
 * preset_iolat.c - `ftrec iolat [-D MAJ,MIN] [-i TYPEGLOB] [-p PID] [-s] [-d SECONDS]
 * [-o FILE] [-- COMMAND]`: block I/O for perf-tools' iosnoop / bcc's biosnoop and
 * biolatency, analysed by `ftana report iolat`. Records block_rq_insert, block_rq_issue
 * and block_rq_complete, so one capture answers both the issue-based latency and the
 * queued (-Q) one. -D and -i are in-kernel filters on all three events, as iosnoop's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"

static const char usage[] =
	"usage: ftrec iolat [-D MAJ,MIN] [-i TYPEGLOB] [-p PID] [-s] [-d SECONDS] [-o FILE.ftz]\n"
	"                   [-- COMMAND ARGS...]\n"
	"  records block_rq_insert, block_rq_issue and block_rq_complete\n"
	"  -D MAJ,MIN   only this disk (in-kernel filter dev == MAJ << 20 | MIN)\n"
	"  -i TYPEGLOB  only I/O whose rwbs matches the glob, e.g. '*R*' (reads), '*W*'\n"
	"  -p PID       only requests inserted/issued by PID (completions run in any\n"
	"               task's context, so they are not filtered: as iosnoop -p)\n"
	"  -s           kernel stacks (ftana report stacks)   -d SECONDS  stop after\n"
	"  -o FILE.ftz  output (default iolat.ftz)   -- COMMAND  record while it runs\n"
	"Report: ftana report iolat FILE.ftz [-Q] [-s] [-t] [--summary] [--hist] ...\n";

/* "dev == N" for MAJ,MIN: the kernel's dev_t in trace events is MAJ << 20 | MIN. */
static char *dev_filter(const char *arg)
{
	unsigned long maj, min;
	char *end, *filter;

	maj = strtoul(arg, &end, 10);
	if (end != arg && *end == ',') {
		const char *m = end + 1;
		min = strtoul(m, &end, 10);
		if (end != m && !*end && maj < 4096 && min < (1ul << 20) &&
		    asprintf(&filter, "dev == %lu", maj << 20 | min) >= 0)
			return filter;
	}
	fprintf(stderr, "ftrec iolat: bad -D '%s' (MAJOR,MINOR as in /proc/partitions, "
		"e.g. 253,0)\n", arg);
	return NULL;
}

/* 'rwbs ~ "GLOB"': the glob goes inside a quoted filter string, so no quotes in it. */
static char *type_filter(const char *glob)
{
	char *filter;

	if (!*glob || strpbrk(glob, "\"\\")) {
		fprintf(stderr, "ftrec iolat: bad -i '%s' (a glob over rwbs, e.g. '*R*')\n", glob);
		return NULL;
	}
	return asprintf(&filter, "rwbs ~ \"%s\"", glob) >= 0 ? filter : NULL;
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

static int iolat_arg(struct record_opts *o, const char *arg, const char *next, void *ctx)
{
	struct iolat_args *a = ctx;
	bool is_dev = !strcmp(arg, "-D"), is_type = !strcmp(arg, "-i");

	if (!is_dev && !is_type)
		return 0;
	if (!next) {
		fprintf(stderr, "ftrec iolat: %s needs an argument\n", arg);
		return -1;
	}
	char **slot = is_dev ? &a->dev_filter : &a->type_filter;
	free(*slot);
	*slot = is_dev ? dev_filter(next) : type_filter(next);
	return *slot ? 2 : -1;
}

int cmd_iolat(int argc, char **argv)
{
	struct record_opts o;
	struct iolat_args a = { 0 };
	static const char *const events[] = { "block_rq_insert", "block_rq_issue",
					      "block_rq_complete" };

	record_opts_init(&o, "iolat", argc, argv);
	int ret = record_parse(&o, argc, argv, iolat_arg, &a, usage);

	if (ret == 0 && o.pid == RECORD_PID_COMMAND) {
		fprintf(stderr, "ftrec iolat: -p cmd is not supported (completions run in other "
			"tasks' context); record all and use 'ftana report iolat -p PID'\n");
		ret = -1;
	}
	/*
	 * -p becomes a filter on the start events only: set_event_pid would also drop
	 * every completion, which runs in interrupt context of whatever task was there.
	 */
	char pid_filter[48] = "";
	if (o.pid > 0)
		snprintf(pid_filter, sizeof(pid_filter), "common_pid == %d", o.pid);
	o.pid = 0;
	for (size_t i = 0; ret == 0 && i < sizeof(events) / sizeof(events[0]); i++) {
		bool start = i < 2;
		char *filter = join_filters(a.dev_filter, a.type_filter,
					    start && *pid_filter ? pid_filter : NULL);
		char spec[64];

		snprintf(spec, sizeof(spec), "block:%s", events[i]);
		ret = record_add_event(&o, spec, filter);
		free(filter);
	}
	if (ret == 0) {
		if (!o.output)
			o.output = "iolat.ftz";
		ret = record_run(&o);
	} else {
		ret = ret > 0 ? FTREC_EXIT_OK : FTREC_EXIT_ERROR;
	}
	free(a.dev_filter);
	free(a.type_filter);
	record_opts_free(&o);
	return ret;
}
