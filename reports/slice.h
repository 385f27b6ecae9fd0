/* SPDX-License-Identifier: MIT */
/*
 * slice.h - the part of a capture a report or an export looks at: a time window
 * [--since, --until), a process (-p: every thread of it), a thread (-L), a command
 * name (-n), CPUs (--cpu), and ftrec's own threads left out (--include-ftrec keeps
 * them). Parsed without the database (errors through common/msg.h), resolved
 * against it, and given to SQL on the connection as:
 *   in_slice(ts, cpu, pid)  1 when the row is in the slice (time, CPU, task)
 *   in_slice_task(pid)      1 when the task filter passes pid
 *   report_ts(ts)           ts as printed: seconds of the trace clock (REAL), or
 *                           with --wall the UTC wall-clock time as text
 *                           ("HH:MM:SS.uuuuuu", or ISO 8601 with wall_iso)
 *   temp.slice              one row: since_ns, until_ns, lo_id, hi_id (the int64
 *                           extremes when unbounded), for `id BETWEEN lo_id AND hi_id`
 *                           (events are numbered in time order, so a window is one
 *                           rowid range of every event table); span_from_ns,
 *                           span_to_ns: the time events could be recorded within the
 *                           window, what rates divide by (NULL when the database
 *                           does not say)
 *   slice_whole()           1 when the slice is the whole capture in time and CPUs
 * A ring whose CPUs kept different stretches (a trimmed --ring, --kernel-ring) starts
 * by default where every CPU is complete (meta complete_from_ns), with a note;
 * --ragged keeps the part before.
 */
#ifndef REPORTS_SLICE_H
#define REPORTS_SLICE_H

#include <regex.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct slice {
	const char *since_arg, *until_arg; /* as given, NULL when not */
	const char *before_stop_arg; /* --before-stop SECS as given (slice_stop.c), or NULL */
	int64_t before_stop_ns;
	char before_stop_since[40], before_stop_until[48]; /* since_arg/until_arg it sets */
	int64_t since_ns, until_ns; /* trace clock, [since, until): INT64_MIN / INT64_MAX */
	int64_t lo_id, hi_id;       /* the ids inside [since, until), or lo > hi when none */
	int64_t pid;                /* -p: the process (every thread of it); -1 none */
	int64_t tid;                /* -L: one thread; -1 none */
	const char *comm_re;        /* -n: the task's comm matches (POSIX ERE) */
	regex_t comm_regex;
	const char *cpu_arg;        /* --cpu LIST, NULL none */
	uint64_t *cpus;             /* bitmap of --cpu */
	size_t nr_cpu_words;
	bool include_ftrec;         /* --include-ftrec: keep ftrec's own threads */
	bool ragged;                /* --ragged: keep a ring's start where CPUs are incomplete */
	bool quiet;                 /* slice_resolve warns of nothing (said already, or a trial) */
	bool wall;                  /* --wall: report_ts() gives UTC wall-clock time */
	bool wall_iso;              /* ... as ISO 8601 (CSV, JSON) rather than HH:MM:SS */
	/* From the database: */
	int64_t first_ts, last_ts, wall_offset_ns;
	int64_t abs_from_ns;        /* SECS at or after this: trace-clock seconds, else from first */
	bool have_wall;
	/* The time events could be recorded, as the slice takes it (meta traced_from_ns /
	 * complete_from_ns / traced_until_ns, else first_ts / last_ts): rates are per
	 * second of [from_ns, to_ns) within [since_ns, until_ns). */
	int64_t from_ns, to_ns, complete_ns;
	bool have_span;             /* the database knows it (a hand-made .db may not) */
	bool edge_cut;              /* since_ns was moved to where every CPU is complete */
	struct slice_task *tasks;   /* sorted by pid: tgid, comm match */
	size_t nr_tasks;
	int64_t *ftrec_tids;        /* sorted */
	size_t nr_ftrec_tids;
};

/* An empty slice: everything (pid and tid -1). */
void slice_init(struct slice *s);
void slice_free(struct slice *s);

/* Options, without the database. 0, or -1 after a one-line error naming the option. */
int slice_parse_cpus(struct slice *s, const char *arg);
int slice_parse_comm(struct slice *s, const char *arg);
/* -p / -L: a process or thread id. */
int slice_parse_id(const char *opt, const char *arg, int64_t *out);
/* --since / --until: the syntax only (resolved against the capture later). */
int slice_check_time(const char *opt, const char *arg);

/* --before-stop SECS: the syntax. 0, or -1 after an error. */
int slice_parse_before_stop(struct slice *s, const char *arg);
/* Its window in since_ns/until_ns (and since_arg/until_arg saying it), from the view
 * capture_stop. 0, or -1 after an error (the capture has no stop). */
int slice_stop_window(struct slice *s, sqlite3 *db);
/* slice_ids.c: temp.slice's id range (s->lo_id, s->hi_id) over the event tables. 0. */
int slice_window_ids(struct slice *s, sqlite3 *db);

/* Resolve against db (first event, wall-clock offset, tasks, ftrec's threads) and
 * define the SQL side on the connection. 0, or -1 after an error message. */
int slice_resolve(struct slice *s, sqlite3 *db);

/* Is an event (ts, cpu, pid) in the slice? (For code that walks events in C.) */
bool slice_match(const struct slice *s, int64_t ts, int64_t cpu, int64_t pid);
/* Is the task filter (-p/-L/-n, ftrec's threads) passed by pid? */
bool slice_task_match(const struct slice *s, int64_t pid);
/* After the report: one note when the task or CPU filter matched nothing in the
 * capture, naming what it has (a header alone must not pass for "no events"). */
void slice_note_unmatched(const struct slice *s, sqlite3 *db);
/* Is any slice option given (besides leaving out ftrec's threads)? */
bool slice_active(const struct slice *s);
/* The suffix of a timestamp column's name: "_s", or "_wall" with --wall. */
const char *slice_ts_suffix(const struct slice *s);

#endif
