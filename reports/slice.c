/* SPDX-License-Identifier: MIT */
/*
 * report_slice.c - the part of a capture a report looks at: a time window
 * [--since, --until), a process (-p: every thread of it), a thread (-L), a command
 * name (-n), CPUs (--cpu), and ftrec's own threads left out (--include-ftrec keeps
 * them). Parsed without the database, resolved against it, and given to the
 * report's SQL as in_slice(ts, cpu, pid), in_slice_task(pid) and temp.slice (the
 * id range of the window: events are numbered in time order, so a window is one
 * rowid range of every event table, found by binary search, not by a scan).
 */
#include <errno.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/msg.h"
#include "reports/slice.h"
#include "store/db.h"

#define NS_PER_S 1000000000LL
#define NS_PER_DAY (86400LL * NS_PER_S)
#define MAX_CPU 65536

struct slice_task {
	int64_t pid, tgid; /* tgid -1: unknown */
	bool comm_match;   /* -n matched its comm */
};

/* --- parsing (no database) --- */

int slice_parse_cpus(struct slice *s, const char *arg)
{
	const char *p = arg;

	if (!s->cpus) {
		s->nr_cpu_words = MAX_CPU / 64;
		s->cpus = calloc(s->nr_cpu_words, sizeof(*s->cpus));
		if (!s->cpus)
			return msg_error("out of memory");
	}
	s->cpu_arg = arg;
	for (;;) {
		char *end;
		long lo, hi;

		errno = 0;
		lo = strtol(p, &end, 10);
		if (end == p || lo < 0 || lo >= MAX_CPU || errno)
			goto bad;
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo || hi >= MAX_CPU || errno)
				goto bad;
		}
		for (long c = lo; c <= hi; c++)
			s->cpus[c / 64] |= 1ull << (c % 64);
		if (!*end)
			return 0;
		if (*end != ',')
			goto bad;
		p = end + 1;
	}
bad:
	return msg_error("bad --cpu '%s' (CPU numbers and ranges below %d: 0,2-3)",
			    arg, MAX_CPU);
}

int slice_parse_comm(struct slice *s, const char *arg)
{

	if (s->comm_re) {
		regfree(&s->comm_regex);
		s->comm_re = NULL;
	}
	if (regcomp(&s->comm_regex, arg, REG_EXTENDED | REG_NOSUB))
		return msg_error("bad -n '%s' (not a POSIX extended regular expression)", arg);
	s->comm_re = arg;
	return 0;
}

void slice_free(struct slice *s)
{
	if (s->comm_re)
		regfree(&s->comm_regex);
	free(s->cpus);
	free(s->tasks);
	free(s->ftrec_tids);
	slice_init(s);
}

/* Digits of a fraction ".25" as nanoseconds; p points after the dot. */
static const char *parse_frac(const char *p, int64_t *ns)
{
	int64_t scale = NS_PER_S / 10;

	*ns = 0;
	if (*p < '0' || *p > '9')
		return NULL;
	for (; *p >= '0' && *p <= '9'; p++, scale /= 10)
		*ns += (*p - '0') * scale;
	return p;
}

/* a + b, held at the int64 extremes (file-controlled offsets must not overflow) */
static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* "HH:MM:SS[.frac]" at p: seconds of the day in ns; the rest in *rest. */
static bool parse_hms(const char *p, int64_t *ns, const char **rest)
{
	int h, m, sec, n = 0;
	int64_t frac = 0;

	if (sscanf(p, "%2d:%2d:%2d%n", &h, &m, &sec, &n) != 3 || n != 8 ||
	    h > 23 || m > 59 || sec > 60 || h < 0 || m < 0 || sec < 0)
		return false;
	p += n;
	if (*p == '.' && !(p = parse_frac(p + 1, &frac)))
		return false;
	*ns = ((int64_t)h * 3600 + m * 60 + sec) * NS_PER_S + frac;
	*rest = p;
	return true;
}

/*
 * T as a trace-clock time: seconds from the first event, or a UTC wall-clock time
 * (HH:MM:SS[.frac]: the occurrence within 12 hours of the first event; or ISO 8601
 * date and time, 'T' or ' ' between, 'Z' or +HH:MM / -HH:MM or nothing (UTC) after).
 */
static int parse_time(const struct slice *s, const char *opt, const char *arg, int64_t *out)
{
	int64_t wall, frac = 0;
	const char *rest;

	if (strchr(arg, ':') || strchr(arg, 'T')) {
		if (!s->have_wall)
			return msg_error("%s '%s': this capture has no wall-clock start "
					    "time; give seconds from the first event", opt, arg);
		int64_t first_wall = sat_add(s->first_ts, s->wall_offset_ns);

		if (parse_hms(arg, &wall, &rest) && !*rest) {
			int64_t day = first_wall / NS_PER_DAY * NS_PER_DAY;

			wall = sat_add(wall, day);
			if (wall < sat_add(first_wall, -NS_PER_DAY / 2))
				wall = sat_add(wall, NS_PER_DAY);
			else if (wall >= sat_add(first_wall, NS_PER_DAY / 2))
				wall = sat_add(wall, -NS_PER_DAY);
		} else {
			struct tm tm = { 0 };
			int n = 0, y, mo, d;

			if (sscanf(arg, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10 ||
			    (arg[10] != 'T' && arg[10] != ' ') || !parse_hms(arg + 11, &wall, &rest) ||
			    mo < 1 || mo > 12 || d < 1 || d > 31 || y < 1970)
				goto bad;
			tm.tm_year = y - 1900;
			tm.tm_mon = mo - 1;
			tm.tm_mday = d;
			int64_t day_ns;

			/* year 2262 and later overflow ns since the epoch: after any capture */
			if (__builtin_mul_overflow((int64_t)timegm(&tm), NS_PER_S, &day_ns))
				day_ns = INT64_MAX;
			wall = sat_add(wall, day_ns);
			if (*rest == 'Z') {
				rest++;
			} else if (*rest == '+' || *rest == '-') {
				int oh, om;

				if (sscanf(rest + 1, "%2d:%2d%n", &oh, &om, &n) != 2 || n != 5 || oh > 23 || om > 59)
					goto bad;
				wall = sat_add(wall, (*rest == '+' ? -1 : 1) * ((int64_t)oh * 3600 + om * 60) * NS_PER_S);
				rest += 1 + n;
			}
			if (*rest)
				goto bad;
		}
		/* (a .db's wall_offset_ns is its own: INT64_MIN has no negation) */
		*out = wall == INT64_MAX ? wall : sat_add(wall, s->wall_offset_ns == INT64_MIN ?
							    INT64_MAX : -s->wall_offset_ns);
		return 0;
	}
	/* +SECS: seconds from the first event; SECS: trace-clock seconds as listings print
	 * them, or, below the first event's, seconds from it (older command lines) */
	const char *p = arg;
	char *end;
	bool relative = *p == '+';

	if (relative)
		p++;
	errno = 0;
	long long secs = strtoll(p, &end, 10);
	if (end == p || secs < 0 || secs > 100LL * 365 * 86400 || errno)
		goto bad;
	const char *dot = *end == '.' ? end : NULL;

	if (dot && !(end = (char *)parse_frac(end + 1, &frac)))
		goto bad;
	if (*end)
		goto bad;
	int64_t t = secs * NS_PER_S + frac;

	/* six decimals: a time as the text reports print it, rounded to the microsecond;
	 * it stands for the events printed so, from half a us before (the capture's own
	 * start as `ftana info` prints it too, rounded down or up) */
	int64_t printed = dot && end - dot == 7 ? 500 : 0;

	if (!relative && t >= s->abs_from_ns - printed) {
		*out = t - printed;
		return 0;
	}
	/* below the first event, and as seconds from it past the last: either meaning is
	 * outside, and which was meant cannot be told (--until 39.0 on a capture from 39.05
	 * to 40.79 s would be the whole capture), so neither is taken */
	if (!relative && s->last_ts > s->first_ts && t > s->last_ts - s->first_ts)
		return msg_error("%s %s: before the capture's first event at %.6f s of the trace clock, "
				 "and as seconds from it after its end (%.6f s long): a time from %.6f to "
				 "%.6f, or +SECS", opt, arg, s->first_ts / 1e9, (s->last_ts - s->first_ts) / 1e9,
				 s->first_ts / 1e9, s->last_ts / 1e9);
	*out = sat_add(s->first_ts, t);
	return 0;
bad:
	return msg_error("bad %s '%s' (trace-clock seconds as reports print them, +SECS from "
			    "the first event, HH:MM:SS[.frac] or YYYY-MM-DDTHH:MM:SS[.frac][Z|+HH:MM], UTC)",
			    opt, arg);
}

/* --since/--until outside the capture: an error naming its span (the window is empty). */
static int outside(const struct slice *s, const char *opt, const char *arg)
{
	char span[160];
	int n = snprintf(span, sizeof(span), "%.6f to %.6f s of the trace clock",
			 s->first_ts / 1e9, s->last_ts / 1e9);

	if (s->have_wall && n > 0 && (size_t)n < sizeof(span)) {
		/* to the microsecond, as the text reports print times: whole seconds made a
		 * capture of a second look like an instant */
		int64_t a_ns = sat_add(s->first_ts, s->wall_offset_ns), b_ns = sat_add(s->last_ts, s->wall_offset_ns);
		time_t a = (time_t)(a_ns / NS_PER_S), b = (time_t)(b_ns / NS_PER_S);
		struct tm ta, tb;
		char wa[32], wb[32];

		if (a_ns >= 0 && b_ns >= 0 && gmtime_r(&a, &ta) && gmtime_r(&b, &tb) &&
		    strftime(wa, sizeof(wa), "%Y-%m-%dT%H:%M:%S", &ta) &&
		    strftime(wb, sizeof(wb), "%Y-%m-%dT%H:%M:%S", &tb))
			snprintf(span + n, sizeof(span) - (size_t)n, " (UTC %s.%06dZ to %s.%06dZ)", wa,
				 (int)(a_ns % NS_PER_S / 1000), wb, (int)(b_ns % NS_PER_S / 1000));
	}
	return msg_error("%s %s: outside the capture, whose events span %s", opt, arg, span);
}

int slice_check_time(const char *opt, const char *arg)
{
	/* The syntax only, before the database is opened: as if it had a wall clock. */
	struct slice probe = { .have_wall = true };
	int64_t ignored;

	return parse_time(&probe, opt, arg, &ignored);
}

int slice_parse_id(const char *opt, const char *arg, int64_t *out)
{
	char *end;
	long long v = strtoll(arg, &end, 10);

	if (end == arg || *end || v < 0 || v > INT32_MAX)
		return msg_error("bad %s '%s' (a process or thread id)", opt, arg);
	*out = v;
	return 0;
}

void slice_init(struct slice *s)
{
	memset(s, 0, sizeof(*s));
	s->pid = s->tid = -1;
}

/* --- against the database --- */

static int cmp_task(const void *a, const void *b)
{
	int64_t x = ((const struct slice_task *)a)->pid, y = ((const struct slice_task *)b)->pid;
	return x < y ? -1 : x > y;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int load_tasks(struct slice *s, sqlite3 *db)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int step;

	if (!db_has_table(db, "tasks"))
		return 0;
	if (sqlite3_prepare_v2(db, "SELECT pid, tgid, comm FROM tasks WHERE pid IS NOT NULL",
			       -1, &st, NULL) != SQLITE_OK)
		return msg_error("%s", sqlite3_errmsg(db));
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (s->nr_tasks == DB_TASKS_MAX) {
			sqlite3_finalize(st);
			return db_too_many_tasks();
		}
		if (s->nr_tasks == cap) {
			cap = cap ? 2 * cap : 256;
			struct slice_task *t = realloc(s->tasks, cap * sizeof(*t));
			if (!t) {
				sqlite3_finalize(st);
				return msg_error("out of memory");
			}
			s->tasks = t;
		}
		const char *comm = (const char *)sqlite3_column_text(st, 2);
		struct slice_task *t = &s->tasks[s->nr_tasks++];

		t->pid = sqlite3_column_int64(st, 0);
		t->tgid = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
		t->comm_match = s->comm_re && comm && !regexec(&s->comm_regex, comm, 0, NULL, 0);
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE)
		return msg_error("tasks: %s", sqlite3_errmsg(db));
	if (s->nr_tasks) /* qsort(NULL, 0) is undefined: an empty tasks table */
		qsort(s->tasks, s->nr_tasks, sizeof(*s->tasks), cmp_task);
	return 0;
}

/* meta.ftrec_tids: "tid tid ..." (END section of a recording by ftrec; notrace_pids before). */
static int load_ftrec_tids(struct slice *s, sqlite3 *db)
{
	sqlite3_stmt *st;

	/* Captures of ftrec before END's ftrec_tids named the same threads notrace_pids. */
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key IN ('ftrec_tids', "
			       "'notrace_pids') ORDER BY key = 'ftrec_tids' DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return 0; /* a .db without meta: nothing to leave out */
	const char *v = sqlite3_step(st) == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;

	for (const char *p = v; p && *p;) {
		char *end;
		long long tid = strtoll(p, &end, 10);

		if (end == p)
			break;
		int64_t *t = realloc(s->ftrec_tids, (s->nr_ftrec_tids + 1) * sizeof(*t));
		if (!t)
			break;
		s->ftrec_tids = t;
		s->ftrec_tids[s->nr_ftrec_tids++] = tid;
		p = end;
	}
	sqlite3_finalize(st);
	if (s->nr_ftrec_tids) /* qsort(NULL, 0) is undefined: a capture without ftrec_tids */
		qsort(s->ftrec_tids, s->nr_ftrec_tids, sizeof(int64_t), cmp_i64);
	return 0;
}

bool slice_task_match(const struct slice *s, int64_t pid)
{
	if (!s->include_ftrec && s->nr_ftrec_tids &&
	    bsearch(&pid, s->ftrec_tids, s->nr_ftrec_tids, sizeof(int64_t), cmp_i64))
		return false;
	if (s->tid >= 0 && pid != s->tid)
		return false;
	if (s->pid < 0 && !s->comm_re)
		return true;
	struct slice_task key = { .pid = pid };
	const struct slice_task *t = s->nr_tasks ?
		bsearch(&key, s->tasks, s->nr_tasks, sizeof(key), cmp_task) : NULL;

	if (s->pid >= 0 && pid != s->pid && !(t && t->tgid == s->pid))
		return false;
	if (s->comm_re && !(t && t->comm_match))
		return false;
	return true;
}

bool slice_match(const struct slice *s, int64_t ts, int64_t cpu, int64_t pid)
{
	if (ts < s->since_ns || ts >= s->until_ns)
		return false;
	if (s->cpus && (cpu < 0 || cpu >= MAX_CPU || !(s->cpus[cpu / 64] & (1ull << (cpu % 64)))))
		return false;
	return slice_task_match(s, pid);
}

const char *slice_ts_suffix(const struct slice *s)
{
	return s->wall ? "_wall" : "_s";
}

bool slice_active(const struct slice *s)
{
	return s->since_arg || s->until_arg || s->pid >= 0 || s->tid >= 0 || s->comm_re || s->cpus;
}

/* in_slice(ts, cpu, pid): NULL ts or pid fail a filter that needs them. */
static void in_slice_func(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	const struct slice *s = sqlite3_user_data(c);
	bool null_ts = sqlite3_value_type(argv[0]) == SQLITE_NULL;
	bool null_cpu = sqlite3_value_type(argv[1]) == SQLITE_NULL;
	bool null_pid = sqlite3_value_type(argv[2]) == SQLITE_NULL;

	if ((null_ts && (s->since_arg || s->until_arg)) || (null_cpu && s->cpus) ||
	    (null_pid && (s->pid >= 0 || s->tid >= 0 || s->comm_re))) {
		sqlite3_result_int(c, 0);
		return;
	}
	/* A NULL that reached here is not tested by any filter. */
	sqlite3_result_int(c, slice_match(s, null_ts ? s->since_ns : sqlite3_value_int64(argv[0]),
					  null_cpu ? -1 : sqlite3_value_int64(argv[1]),
					  null_pid ? -1 : sqlite3_value_int64(argv[2])));
}

static void in_slice_task_func(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	const struct slice *s = sqlite3_user_data(c);

	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		sqlite3_result_int(c, !(s->pid >= 0 || s->tid >= 0 || s->comm_re));
	else
		sqlite3_result_int(c, slice_task_match(s, sqlite3_value_int64(argv[0])));
}

/* slice_whole(): no time or CPU filter (task filters may be set): a report may read
 * per-task totals made at import (sched_tasks) instead of the rows. */
static void slice_whole_func(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	const struct slice *s = sqlite3_user_data(c);

	(void)argc;
	(void)argv;
	/* with --ragged on a ring, the window starts before the totals' (complete_from_ns) */
	sqlite3_result_int(c, !s->since_arg && !s->until_arg && !s->edge_cut && !s->cpus &&
			      s->from_ns == s->complete_ns);
}

/* report_ts(ts): seconds (REAL), or with --wall the UTC time as text. */
static void report_ts_func(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	const struct slice *s = sqlite3_user_data(c);

	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	int64_t ts = sqlite3_value_int64(argv[0]);

	if (!s->wall || !s->have_wall) {
		sqlite3_result_double(c, ts / 1e9);
		return;
	}
	int64_t wall = sat_add(ts, s->wall_offset_ns);
	time_t secs = (time_t)(wall / NS_PER_S - (wall % NS_PER_S < 0));
	int64_t ns = wall - (int64_t)secs * NS_PER_S;
	struct tm tm;
	char buf[64];

	if (!gmtime_r(&secs, &tm))
		return;
	if (!s->wall_iso)
		snprintf(buf, sizeof(buf), "%02d:%02d:%02d.%06" PRId64, tm.tm_hour, tm.tm_min,
			 tm.tm_sec, ns / 1000);
	else
		snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%09" PRId64 "Z",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
			 tm.tm_sec, ns);
	sqlite3_result_text(c, buf, -1, SQLITE_TRANSIENT);
}

/*
 * The time events could be recorded (import_meta.c writes it): from tracing on, or
 * where every CPU of a ring is complete, to the stop. Without --since, a ragged start
 * is left out, said once; --ragged keeps it, from the first event kept.
 */
static void resolve_span(struct slice *s, sqlite3 *db)
{
	int64_t from = 0, complete = 0, to = 0, ignored;

	s->have_span = true;
	if (!db_meta_int(db, "traced_from_ns", &from) || !db_meta_int(db, "complete_from_ns", &complete) ||
	    !db_meta_int(db, "traced_until_ns", &to)) {
		from = complete = s->first_ts; /* a database of an older ftana */
		to = s->last_ts;
		s->have_span = db_meta_int(db, "first_ts", &ignored);
	}
	if (complete > from && !s->ragged) {
		from = complete;
		if (!s->since_arg && complete > s->since_ns && complete < s->until_ns) {
			s->since_ns = complete;
			s->edge_cut = true;
			if (!s->quiet)
				msg_warn("from %.6f s: before it, a ring kept some CPUs' events only "
					 "(%.6f s left out; --ragged keeps them)", complete / 1e9,
					 (complete - s->first_ts) / 1e9);
		}
	} else if (complete > from) {
		from = s->first_ts < complete ? s->first_ts : complete;
	}
	s->complete_ns = complete;
	s->from_ns = from;
	s->to_ns = to > from ? to : from;
}

int slice_resolve(struct slice *s, sqlite3 *db)
{
	s->since_ns = INT64_MIN;
	s->until_ns = INT64_MAX;
	s->have_wall = db_meta_int(db, "wall_offset_ns", &s->wall_offset_ns);
	bool known = db_meta_int(db, "first_ts", &s->first_ts);

	if (!known)
		s->first_ts = 0;
	if (!db_meta_int(db, "last_ts", &s->last_ts)) {
		s->last_ts = s->first_ts;
		known = false;
	}
	/* a plain number at or after tracing on (or the first event) is a trace-clock time */
	int64_t on;

	s->abs_from_ns = db_meta_int(db, "traced_from_ns", &on) && on < s->first_ts ? on : s->first_ts;
	if (s->wall && !s->have_wall && !s->quiet)
		msg_warn("--wall: this capture has no wall-clock start time: "
			    "timestamps stay trace-clock seconds");
	if (s->before_stop_arg ? slice_stop_window(s, db) < 0 :
	    (s->since_arg && parse_time(s, "--since", s->since_arg, &s->since_ns)) ||
	    (s->until_arg && parse_time(s, "--until", s->until_arg, &s->until_ns)))
		return -1;
	/* (a .db made by hand may not say where its events are: nothing to check) */
	if (known && s->since_arg && s->since_ns > s->last_ts)
		return outside(s, "--since", s->since_arg);
	if (known && s->until_arg && s->until_ns <= s->first_ts)
		return outside(s, "--until", s->until_arg);
	if (s->until_ns <= s->since_ns)
		return msg_error("--until is not after --since: the window is empty");
	resolve_span(s, db);
	/* what an earlier resolve read (front.c resolves again on another database) */
	free(s->tasks);
	free(s->ftrec_tids);
	s->tasks = NULL;
	s->ftrec_tids = NULL;
	s->nr_tasks = s->nr_ftrec_tids = 0;
	if (load_tasks(s, db) || load_ftrec_tids(s, db) || slice_window_ids(s, db))
		return -1;

	char span[64] = "NULL, NULL";
	if (s->have_span)
		snprintf(span, sizeof(span), "%lld, %lld",
			 (long long)(s->from_ns > s->since_ns ? s->from_ns : s->since_ns),
			 (long long)(s->to_ns < s->until_ns ? s->to_ns : s->until_ns));
	char *sql = sqlite3_mprintf(
		"DROP TABLE IF EXISTS temp.slice;"
		"CREATE TEMP TABLE slice(since_ns INTEGER, until_ns INTEGER, lo_id INTEGER, hi_id INTEGER,"
		" span_from_ns INTEGER, span_to_ns INTEGER);"
		"INSERT INTO temp.slice VALUES(%lld, %lld, %lld, %lld, %s)",
		(long long)s->since_ns, (long long)s->until_ns, (long long)s->lo_id,
		(long long)s->hi_id, span);
	int rc = sql ? sqlite3_exec(db, sql, NULL, NULL, NULL) : SQLITE_NOMEM;

	sqlite3_free(sql);
	if (rc != SQLITE_OK ||
	    sqlite3_create_function(db, "in_slice", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC, s,
				    in_slice_func, NULL, NULL) != SQLITE_OK ||
	    sqlite3_create_function(db, "in_slice_task", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, s,
				    in_slice_task_func, NULL, NULL) != SQLITE_OK ||
	    sqlite3_create_function(db, "report_ts", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, s,
				    report_ts_func, NULL, NULL) != SQLITE_OK ||
	    sqlite3_create_function(db, "slice_whole", 0, SQLITE_UTF8 | SQLITE_DETERMINISTIC, s,
				    slice_whole_func, NULL, NULL) != SQLITE_OK)
		return msg_error("%s", sqlite3_errmsg(db));
	return 0;
}

/* --- filters that matched nothing --- */

static int64_t count_query(sqlite3 *db, const char *sql, int64_t arg)
{
	sqlite3_stmt *st;
	int64_t n = -1; /* unknown: the database cannot say */

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, arg);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* A thread of the syscall events summed without a row imported (syscall_totals,
 * import/import_stream.c; a window's has every thread, calls 0 outside it)? */
static bool in_syscall_totals(sqlite3 *db, int64_t tid)
{
	return db_has_table(db, "syscall_totals") &&
	       count_query(db, "SELECT EXISTS (SELECT 1 FROM syscall_totals WHERE tid = ?1)", tid) != 0;
}

/* Does -p name a process or thread of the capture: in tasks (pid or tgid), or on an
 * event of an imported table (a task saved_cmdlines forgot), or of the syscall events
 * summed without a row imported (syscall_totals, import/import_stream.c)? */
static bool pid_seen(const struct slice *s, sqlite3 *db)
{
	for (size_t i = 0; i < s->nr_tasks; i++)
		if (s->tasks[i].pid == s->pid || s->tasks[i].tgid == s->pid)
			return true;
	return count_query(db, "SELECT EXISTS (SELECT 1 FROM events WHERE pid = ?1)", s->pid) != 0 ||
	       in_syscall_totals(db, s->pid);
}

void slice_note_unmatched(const struct slice *s, sqlite3 *db)
{
	if (s->pid >= 0 && !pid_seen(s, db))
		msg_warn("-p %lld: no process or thread of that id in this capture (%zu tasks known)",
			 (long long)s->pid, s->nr_tasks);
	if (s->tid >= 0 && count_query(db, "SELECT EXISTS (SELECT 1 FROM tasks WHERE pid = ?1) OR "
				       "EXISTS (SELECT 1 FROM events WHERE pid = ?1)", s->tid) == 0 &&
	    !in_syscall_totals(db, s->tid))
		msg_warn("-L %lld: no thread of that id in this capture (%zu tasks known)",
			 (long long)s->tid, s->nr_tasks);
	if (s->comm_re) {
		size_t hit = 0;

		for (size_t i = 0; i < s->nr_tasks; i++)
			hit += s->tasks[i].comm_match;
		if (!hit)
			msg_warn("-n '%s': no task name in this capture matches (%zu tasks known)",
				 s->comm_re, s->nr_tasks);
	}
	if (s->cpus && db_has_table(db, "cpu_spans")) {
		sqlite3_stmt *st;
		char have[256] = "";
		size_t len = 0;
		bool any = false;

		if (sqlite3_prepare_v2(db, "SELECT cpu FROM cpu_spans ORDER BY cpu", -1, &st, NULL) != SQLITE_OK)
			return;
		while (sqlite3_step(st) == SQLITE_ROW) {
			int64_t cpu = sqlite3_column_int64(st, 0);

			if (cpu >= 0 && cpu < MAX_CPU && (s->cpus[cpu / 64] & (1ull << (cpu % 64))))
				any = true;
			if (len < sizeof(have) - 24)
				len += (size_t)snprintf(have + len, sizeof(have) - len, "%s%lld",
							len ? "," : "", (long long)cpu);
		}
		sqlite3_finalize(st);
		if (!any)
			msg_warn("--cpu %s: no event of this capture is on those CPUs (events on CPUs %s)",
				 s->cpu_arg, len ? have : "none");
	}
}
