/* SPDX-License-Identifier: MIT */
/*
 * profiler.c - the kernel's function profiler (`ftrec funccount --profile`).
 *
 * With CONFIG_FUNCTION_PROFILER the kernel counts the calls (and, with the
 * function_graph tracer built in, the time) of every function in the TOP
 * level's set_ftrace_filter, per CPU, in trace_stat/functionN. Nothing goes
 * through the ring buffer, which makes it the cheap way to count hot functions
 * (perf-tools funccount uses it). It exists only at the top level, and
 * switching it on resets its counts. So ftrec writes the filter there (undone
 * at exit like every change), switches it on together with tracing and stores
 * the tables as SNAPSHOT rounds: at start, every snapshot_interval, and once
 * more before stopping; counts per interval are differences of rounds.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/msg.h"
#include "record/rec_int.h"
#include "record/tfs.h"

#define PROFILE_ENABLE "function_profile_enabled"
#define PROFILE_TABLES "trace_stat/function[0-9]*"

int profiler_prepare(struct rec *r)
{
	char p[PATH_MAX];
	char *on = tfs_read_trimmed(tfs_path(p, "%s/" PROFILE_ENABLE, r->root));

	if (!on)
		return msg_error("--profile: %s: %s (the kernel needs CONFIG_FUNCTION_PROFILER; without --profile every call is recorded as an event)",
				 p, strerror(errno));
	/* Switching it on again would not reset it, and at exit we would switch it off under its owner. */
	int busy = strcmp(on, "0") != 0;
	free(on);
	if (busy)
		return msg_error("--profile: the function profiler is already in use (%s is 1)", p);
	if (!r->o->ftrace_filter.n)
		return msg_error("--profile: no functions to count (give PATTERNs)");
	return instance_write_list(r, r->root, "set_ftrace_filter", &r->o->ftrace_filter) < 0 ? -1 : 0;
}

static int find_tables(struct rec *r)
{
	char pattern[PATH_MAX];
	glob_t g;
	size_t skip = strlen(r->root) + 1;

	if (glob(tfs_path(pattern, "%s/" PROFILE_TABLES, r->root), 0, NULL, &g) != 0)
		return msg_error("--profile: no %s", pattern);
	for (size_t i = 0; i < g.gl_pathc; i++)
		strlist_add(&r->snap_files, g.gl_pathv[i] + skip);
	globfree(&g);
	return 0;
}

int profiler_start(struct rec *r)
{
	if (find_tables(r) < 0 || instance_write(r, r->root, PROFILE_ENABLE, "1") < 0)
		return -1;
	r->profiler_on = 1;
	return profiler_snapshot(r) < 0 ? -1 : 0;
}

int profiler_snapshot(struct rec *r)
{
	struct ftz_snapshot_time t = {
		.mono_ns = run_now_ns(CLOCK_MONOTONIC),
		.wall_ns = run_now_ns(CLOCK_REALTIME),
		.round = r->snap_rounds,
	};

	for (size_t i = 0; i < r->snap_files.n; i++) {
		char p[PATH_MAX];
		size_t len;
		const char *name = r->snap_files.v[i];
		char *data = tfs_read(tfs_path(p, "%s/%s", r->root, name), &len);
		int ret = data ? ftz_write_snapshot(r->w, &t, name, data, len) : -errno;

		free(data);
		if (ret < 0) {
			msg_error("snapshot of %s: %s", p, strerror(-ret));
			return ret;
		}
	}
	r->snap_rounds++;
	return 0;
}

void profiler_free(struct rec *r)
{
	strlist_free(&r->snap_files);
}
