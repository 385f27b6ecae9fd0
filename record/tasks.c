/* SPDX-License-Identifier: MIT */
/*
 * tasks.c - the tasks -p and -L name: a PID is a process (every thread of it,
 * as in perf and bcc), a TID one thread. Checked when the command line is
 * parsed, so a bad one is refused before tracefs is touched.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "record/record.h"
#include "record/tfs.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

long tasks_of_process(int pid, int **tids)
{
	char path[PATH_MAX];
	DIR *d = opendir(tfs_path(path, "/proc/%d/task", pid));
	size_t n = 0, cap = 16;
	int *v = malloc(cap * sizeof(*v));

	*tids = NULL;
	if (!d || !v) {
		int err = d ? ENOMEM : errno;
		if (d)
			closedir(d);
		free(v);
		errno = err == ENOENT ? ESRCH : err;
		return -1;
	}
	for (struct dirent *e; (e = readdir(d));) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		if (*end || tid <= 0 || tid > INT_MAX)
			continue; /* ".", ".." */
		if (n == cap) {
			int *more = realloc(v, 2 * cap * sizeof(*v));
			if (!more) {
				closedir(d);
				free(v);
				errno = ENOMEM;
				return -1;
			}
			v = more;
			cap *= 2;
		}
		v[n++] = (int)tid;
	}
	closedir(d);
	if (n == 0) { /* a zombie: its threads are gone */
		free(v);
		errno = ESRCH;
		return -1;
	}
	qsort(v, n, sizeof(*v), cmp_int);
	*tids = v;
	return (long)n;
}

/* The Tgid: line of /proc/TID/status: the process TID belongs to; -1 when it does not exist. */
static int tgid_of(int tid)
{
	char path[PATH_MAX];
	char *status = tfs_read(tfs_path(path, "/proc/%d/status", tid), NULL);
	const char *line = status ? strstr(status, "\nTgid:") : NULL;
	int tgid = line ? atoi(line + 6) : -1;
	free(status);
	return tgid;
}

int tasks_parse(const char *opt, const char *arg, bool process, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);

	/* Digits only: no sign, no blanks, no "0x" (the kernel would read them otherwise). */
	if (!*arg || strspn(arg, "0123456789") != strlen(arg) || *end || errno || v <= 0 ||
	    v > INT_MAX)
		return msg_error("%s '%s': expected a %s id, a number from 1 to %d%s", opt, arg,
				 process ? "process" : "thread", INT_MAX,
				 process ? " (or 'cmd' before a -- COMMAND)" : "");
	int tgid = tgid_of((int)v);
	if (tgid < 0)
		return msg_error("%s %ld: no such %s", opt, v, process ? "process" : "thread");
	if (process && tgid != v)
		return msg_error("%s %ld is a thread of process %d: -L %ld records the thread, -p %d the process",
				 opt, v, tgid, v, tgid);
	*out = (int)v;
	return 0;
}
