// SPDX-License-Identifier: MIT
/*
 * perfetto.c - `ftana export`: the capture as a timeline in the Trace Event Format
 * (the JSON that Perfetto's UI and chrome://tracing open; "ts"/"dur" in
 * microseconds, written exactly from integer ns as "S.FFF").
 *
 * What goes in, each from the database's tables and the reports' views:
 *   - per-CPU tracks of the running task, from sched:sched_switch: a pseudo-process
 *     "CPUs" with one thread per CPU, one X slice per stretch a task ran;
 *   - function_graph calls (the `calls` view, reports/funcgraph_calls.c) as X
 *     slices on their thread, nested by time (see put_calls: a call the recording
 *     saw only half of still gets a slice, inside its caller's);
 *   - block I/O (the `io` view of iolat) as nestable async slices (b/e) on one
 *     pseudo-process per device: the request, and inside it its queue (insert ->
 *     issue) and service (issue -> complete) phases;
 *   - ftrace print events (trace_marker) as thread instants;
 *   - lost events as a counter per CPU (cumulative), from lost_events;
 *   - process and thread names (M events) from the tasks table.
 * The document is streamed row by row: memory does not grow with the capture
 * (a thread's open calls are held until their end is known: its call depth).
 * Every string from the capture goes through ftana_json_string (print.c), which
 * keeps any bytes valid JSON.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/cmd.h"
#include "common/msg.h"
#include "export/perfetto.h"
#include "reports/report.h"

/*
 * Tracks that are no task get ids above any pid the kernel gives (PID_MAX_LIMIT
 * is 2^22): the idle tasks (all pid 0, one per CPU), the CPUs, the devices.
 */
#define PSEUDO_BASE   (1ll << 30)
#define IDLE_TID(cpu) (PSEUDO_BASE + (cpu))
#define CPUS_PID      (PSEUDO_BASE + (1ll << 24))
#define CPU_TID(cpu)  (CPUS_PID + 1 + (cpu))
#define DEV_PID(i)    (PSEUDO_BASE + (2ll << 24) + (i))

struct tef {
	FILE *out;
	sqlite3 *db;
	const struct slice *slice; /* NULL: the whole capture */
	bool first;                       /* no event written yet */
	int64_t first_ts, last_ts;        /* the capture's (meta) */
	struct perfetto_counts counts;
};

/* --- writing --- */

/* ns as microseconds, exactly: "-12.345" */
static void put_us(FILE *out, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	fprintf(out, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000, (unsigned)(a % 1000));
}

/* Begin an event object: {"ph":PH,"name":NAME,"pid":P,"tid":T (T < 0: none) */
static void ev_begin(struct tef *t, const char *ph, const char *name, int64_t pid, int64_t tid)
{
	fputs(t->first ? "\n" : ",\n", t->out);
	t->first = false;
	fprintf(t->out, "{\"ph\":\"%s\",\"name\":", ph);
	print_json_string(t->out, name ? name : "");
	fprintf(t->out, ",\"pid\":%" PRId64, pid);
	if (tid >= 0)
		fprintf(t->out, ",\"tid\":%" PRId64, tid);
}

static void ev_ts(struct tef *t, const char *key, int64_t ns)
{
	fprintf(t->out, ",\"%s\":", key);
	put_us(t->out, ns);
}

static void put_meta(struct tef *t, const char *what, int64_t pid, int64_t tid, const char *name)
{
	ev_begin(t, "M", what, pid, tid);
	fputs(",\"args\":{\"name\":", t->out);
	print_json_string(t->out, name);
	fputs("}}", t->out);
}

/* A column as int64_t (sqlite3_int64 is long long: PRId64 wants int64_t) */
static int64_t col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_int64(st, i);
}

static sqlite3_stmt *prepare(struct tef *t, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) != SQLITE_OK) {
		msg_error("%s", sqlite3_errmsg(t->db));
		return NULL;
	}
	return st;
}

static int finish(struct tef *t, sqlite3_stmt *st, int rc)
{
	if (rc != SQLITE_DONE) {
		msg_error("%s", sqlite3_errmsg(t->db));
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static bool has_object(struct tef *t, const char *name)
{
	sqlite3_stmt *st = prepare(t, "SELECT 1 FROM sqlite_temp_master WHERE name = ?1 "
				      "UNION ALL SELECT 1 FROM sqlite_master WHERE name = ?1");
	bool found;

	if (!st)
		return false;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* The table of SYSTEM:EVENT's events (its name is the file's: quoted where used), or NULL. */
static char *event_table(struct tef *t, const char *system, const char *event)
{
	sqlite3_stmt *st = prepare(t, "SELECT table_name FROM event_types "
				      "WHERE system = ?1 AND name = ?2 AND table_name IS NOT NULL");
	char *name = NULL;

	if (!st)
		return NULL;
	sqlite3_bind_text(st, 1, system, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, event, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		name = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return name;
}

/*
 * SQL_FMT (its one %w the table's name) over SYSTEM:EVENT's table, prepared in *ST;
 * *ST NULL when the capture has no such events. 0, or -1 after an error.
 */
static int event_query(struct tef *t, const char *system, const char *event, const char *sql_fmt,
		       sqlite3_stmt **st)
{
	char *table = event_table(t, system, event), *sql;

	*st = NULL;
	if (!table)
		return 0;
	sql = sqlite3_mprintf(sql_fmt, table);
	free(table);
	*st = sql ? prepare(t, sql) : NULL;
	sqlite3_free(sql);
	return *st ? 0 : -1;
}

static bool in_slice(const struct tef *t, int64_t ts, int64_t cpu, int64_t pid)
{
	return !t->slice || slice_match(t->slice, ts, cpu, pid);
}

/* --- names --- */

static int put_task_names(struct tef *t)
{
	sqlite3_stmt *st = prepare(t, "SELECT pid, coalesce(tgid, pid), comm FROM tasks "
				      "WHERE pid > 0 AND comm IS NOT NULL ORDER BY pid");
	int rc;

	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		put_meta(t, "thread_name", col(st, 1), col(st, 0),
			 (const char *)sqlite3_column_text(st, 2));
	if (finish(t, st, rc) < 0)
		return -1;
	/* a process named after its main thread */
	st = prepare(t, "SELECT pid, comm FROM tasks WHERE pid > 0 AND comm IS NOT NULL AND "
			"(tgid IS NULL OR tgid = pid) ORDER BY pid");
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		put_meta(t, "process_name", col(st, 0), -1,
			 (const char *)sqlite3_column_text(st, 1));
	return finish(t, st, rc);
}

static unsigned nr_cpus(struct tef *t)
{
	sqlite3_stmt *st = prepare(t, "SELECT max(cpu) + 1 FROM events");
	int64_t n = 0;

	if (st && sqlite3_step(st) == SQLITE_ROW)
		n = col(st, 0);
	sqlite3_finalize(st);
	return n > 0 && n <= 65536 ? (unsigned)n : 0;
}

static void put_pseudo_names(struct tef *t, unsigned cpus)
{
	char name[64];

	put_meta(t, "process_name", 0, -1, "<idle>");
	put_meta(t, "process_name", CPUS_PID, -1, "CPUs");
	for (unsigned cpu = 0; cpu < cpus; cpu++) {
		snprintf(name, sizeof(name), "swapper/%u", cpu);
		put_meta(t, "thread_name", 0, IDLE_TID(cpu), name);
		snprintf(name, sizeof(name), "CPU %u", cpu);
		put_meta(t, "thread_name", CPUS_PID, CPU_TID(cpu), name);
		ev_begin(t, "M", "thread_sort_index", CPUS_PID, CPU_TID(cpu));
		fprintf(t->out, ",\"args\":{\"sort_index\":%u}}", cpu);
	}
}

/* --- CPUs: who ran, from sched_switch --- */

static void put_run(struct tef *t, int64_t cpu, int64_t pid, const char *comm, int64_t from, int64_t to)
{
	if (pid == 0 || to <= from || !in_slice(t, from, cpu, pid))
		return; /* idle is the gap between slices */
	ev_begin(t, "X", comm, CPUS_PID, CPU_TID(cpu));
	ev_ts(t, "ts", from);
	ev_ts(t, "dur", to - from);
	fprintf(t->out, ",\"cat\":\"sched\",\"args\":{\"pid\":%" PRId64 "}}", pid);
	t->counts.cpu_slices++;
}

static int put_cpu_tracks(struct tef *t)
{
	sqlite3_stmt *st;
	int64_t cpu = -1, pid = 0, since = 0;
	char comm[64] = "";
	int rc;

	if (event_query(t, "sched", "sched_switch", "SELECT cpu, ts, prev_pid, prev_comm, next_pid, "
			"next_comm FROM \"%w\" ORDER BY cpu, ts, id", &st) < 0)
		return -1;
	if (!st)
		return 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t c = col(st, 0), ts = col(st, 1);
		const char *prev_comm = (const char *)sqlite3_column_text(st, 3);
		const char *next_comm = (const char *)sqlite3_column_text(st, 5);

		if (c != cpu) {
			/* the CPU's first switch: prev ran since the capture began */
			if (cpu >= 0)
				put_run(t, cpu, pid, comm, since, t->last_ts);
			cpu = c;
			pid = col(st, 2);
			snprintf(comm, sizeof(comm), "%s", prev_comm ? prev_comm : "");
			since = t->first_ts;
		}
		put_run(t, cpu, pid, comm, since, ts);
		pid = col(st, 4);
		snprintf(comm, sizeof(comm), "%s", next_comm ? next_comm : "");
		since = ts;
	}
	if (cpu >= 0)
		put_run(t, cpu, pid, comm, since, t->last_ts);
	return finish(t, st, rc);
}

/* --- function calls --- */

#define UNKNOWN INT64_MIN

struct open_call {
	int64_t id, start, end, limit, max_child_end;
	int depth, flags;
	char *func;
};

struct call_walk {
	struct tef *t;
	int64_t pid, tid;     /* Chrome's: the process (tgid) and thread */
	struct open_call *stack;
	size_t n, cap;
};

static void emit_call(struct call_walk *w, struct open_call *c)
{
	struct tef *t = w->t;

	if (c->end == UNKNOWN) /* never closed: running at the end of the capture */
		c->end = c->max_child_end > t->last_ts ? c->max_child_end : t->last_ts;
	if (c->end > c->limit)
		c->end = c->limit;
	if (c->end < c->start)
		c->end = c->start;
	if (w->n > 1 && w->stack[w->n - 2].max_child_end < c->end)
		w->stack[w->n - 2].max_child_end = c->end;
	ev_begin(t, "X", c->func, w->pid, w->tid);
	ev_ts(t, "ts", c->start);
	ev_ts(t, "dur", c->end - c->start);
	fprintf(t->out, ",\"cat\":\"funcgraph\",\"args\":{\"call_id\":%" PRId64 ",\"depth\":%d,"
		"\"flags\":%d}}", c->id, c->depth, c->flags);
	t->counts.call_slices++;
	free(c->func);
	w->n--;
}

/* Close what a call starting at START at DEPTH ends: calls that ended before it, and
 * calls whose return was not recorded that are as deep or deeper (it could not
 * start while they ran). */
static void close_before(struct call_walk *w, int64_t start, int depth)
{
	while (w->n) {
		struct open_call *top = &w->stack[w->n - 1];

		if (top->end != UNKNOWN && top->end <= start) {
			emit_call(w, top);
		} else if (top->end == UNKNOWN && top->depth >= depth) {
			top->end = start > top->max_child_end ? start : top->max_child_end;
			emit_call(w, top);
		} else {
			break;
		}
	}
}

static int push_call(struct call_walk *w, sqlite3_stmt *st)
{
	struct open_call c = { .id = col(st, 0), .depth = sqlite3_column_int(st, 3),
			       .flags = sqlite3_column_int(st, 8), .limit = INT64_MAX };
	bool has_start = sqlite3_column_type(st, 5) != SQLITE_NULL;
	bool has_end = sqlite3_column_type(st, 6) != SQLITE_NULL;

	c.end = has_end ? col(st, 6) : UNKNOWN;
	/* without its entry: the kernel's own duration says when it began */
	c.start = has_start ? col(st, 5) :
		  has_end ? c.end - col(st, 7) : 0;
	c.max_child_end = c.start;
	close_before(w, c.start, c.depth);
	if (w->n) {
		/* inside the call still open: clamped to it, so slices always nest */
		const struct open_call *parent = &w->stack[w->n - 1];

		if (c.start < parent->start)
			c.start = parent->start;
		c.limit = parent->end != UNKNOWN ? parent->end : parent->limit;
	}
	if (c.end != UNKNOWN && c.end > c.limit)
		c.end = c.limit;
	if (c.end != UNKNOWN && c.end < c.start)
		c.end = c.start;
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct open_call *n = realloc(w->stack, cap * sizeof(*n));

		if (!n)
			return -1;
		w->stack = n;
		w->cap = cap;
	}
	c.func = strdup(sqlite3_column_text(st, 4) ? (const char *)sqlite3_column_text(st, 4) : "?");
	if (!c.func)
		return -1;
	w->stack[w->n++] = c;
	return 0;
}

static int put_calls(struct tef *t)
{
	struct call_walk w = { .t = t };
	sqlite3_stmt *st;
	int64_t task = INT64_MIN;
	int rc;

	if (!has_object(t, "calls"))
		return 0;
	/* per thread, in order of start (a caller before its callees) */
	st = prepare(t, "SELECT c.id, c.pid, c.cpu, c.depth, c.func, c.start_ts, c.end_ts, c.dur_ns, "
			"c.flags, coalesce(k.tgid, c.pid), c.task "
			"FROM calls c LEFT JOIN tasks k ON k.pid = c.pid "
			"ORDER BY c.task, coalesce(c.start_ts, c.end_ts - c.dur_ns), c.depth, c.id");
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t pid = col(st, 1), cpu = col(st, 2);
		int64_t ts = sqlite3_column_type(st, 5) != SQLITE_NULL ? col(st, 5) :
			     col(st, 6);

		if (!in_slice(t, ts, cpu, pid))
			continue;
		if (col(st, 10) != task) {
			close_before(&w, INT64_MAX, -1);
			task = col(st, 10);
			w.pid = pid ? col(st, 9) : 0;
			w.tid = pid ? pid : IDLE_TID(cpu);
		}
		if (push_call(&w, st) < 0) {
			msg_error("out of memory");
			rc = SQLITE_NOMEM;
			break;
		}
	}
	/* the last thread's open calls (end UNKNOWN: running at the end) */
	while (w.n) {
		struct open_call *top = &w.stack[w.n - 1];

		if (top->end == UNKNOWN)
			top->end = top->max_child_end > t->last_ts ? top->max_child_end : t->last_ts;
		emit_call(&w, top);
	}
	free(w.stack);
	return finish(t, st, rc == SQLITE_NOMEM ? SQLITE_ERROR : rc);
}

/* --- block I/O --- */

static void put_async(struct tef *t, const char *ph, const char *name, int64_t dev_pid,
		      int64_t id, int64_t ts)
{
	ev_begin(t, ph, name, dev_pid, -1);
	fprintf(t->out, ",\"cat\":\"block\",\"id\":\"0x%" PRIx64 "\"", (uint64_t)id);
	ev_ts(t, "ts", ts);
}

static int put_io(struct tef *t)
{
	sqlite3_stmt *st;
	int64_t dev = INT64_MIN, dev_index = -1;
	int rc;

	if (!has_object(t, "io"))
		return 0;
	st = prepare(t, "SELECT dev, disk, complete_id, insert_ts, issue_ts, complete_ts, rwbs, bytes, "
			"sector, pid, comm, error, issue_cpu, lat_ns FROM io ORDER BY dev, complete_id");
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = col(st, 2), issue = col(st, 4);
		int64_t complete = col(st, 5), pid = col(st, 9);
		/* a queue phase only when it ends where service begins (slices must nest) */
		bool queued = sqlite3_column_type(st, 3) != SQLITE_NULL && col(st, 3) <= issue;
		int64_t start = queued ? col(st, 3) : issue;
		const char *rwbs = (const char *)sqlite3_column_text(st, 6);
		char name[96];

		if (!in_slice(t, issue, col(st, 12), pid))
			continue;
		if (col(st, 0) != dev) {
			char label[64];

			dev = col(st, 0);
			dev_index++;
			snprintf(label, sizeof(label), "block %s",
				 sqlite3_column_text(st, 1) ? (const char *)sqlite3_column_text(st, 1) : "?");
			put_meta(t, "process_name", DEV_PID(dev_index), -1, label);
		}
		snprintf(name, sizeof(name), "%.16s %" PRId64, rwbs ? rwbs : "?", col(st, 7));
		put_async(t, "b", name, DEV_PID(dev_index), id, start);
		fprintf(t->out, ",\"args\":{\"sector\":%" PRId64 ",\"bytes\":%" PRId64 ",\"pid\":%" PRId64
			",\"error\":%" PRId64 ",\"lat_ns\":%" PRId64 ",\"comm\":",
			col(st, 8), col(st, 7), pid,
			col(st, 11), col(st, 13));
		print_json_string(t->out, (const char *)sqlite3_column_text(st, 10));
		fputs("}}", t->out);
		if (queued) {
			put_async(t, "b", "queue", DEV_PID(dev_index), id, start);
			fputc('}', t->out);
			put_async(t, "e", "queue", DEV_PID(dev_index), id, issue);
			fputc('}', t->out);
		}
		put_async(t, "b", "service", DEV_PID(dev_index), id, issue);
		fputc('}', t->out);
		put_async(t, "e", "service", DEV_PID(dev_index), id, complete);
		fputc('}', t->out);
		put_async(t, "e", name, DEV_PID(dev_index), id, complete);
		fputc('}', t->out);
		t->counts.io_slices++;
	}
	return finish(t, st, rc);
}

/* --- markers and losses --- */

static int put_markers(struct tef *t)
{
	sqlite3_stmt *st;
	int rc;

	if (event_query(t, "ftrace", "print", "SELECT e.ts, e.cpu, e.pid, coalesce(k.tgid, e.pid), "
			"e.buf FROM \"%w\" e LEFT JOIN tasks k ON k.pid = e.pid ORDER BY e.id", &st) < 0)
		return -1;
	if (!st)
		return 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t ts = col(st, 0), cpu = col(st, 1);
		int64_t pid = col(st, 2);
		const char *text = (const char *)sqlite3_column_text(st, 4);
		char name[128];
		size_t len;

		if (!in_slice(t, ts, cpu, pid))
			continue;
		/* the instant's name: the text's first line, short (all of it in args) */
		snprintf(name, sizeof(name), "%s", text ? text : "");
		len = strcspn(name, "\n");
		name[len] = 0;
		ev_begin(t, "i", name, pid ? col(st, 3) : 0, pid ? pid : IDLE_TID(cpu));
		ev_ts(t, "ts", ts);
		fputs(",\"s\":\"t\",\"cat\":\"marker\",\"args\":{\"text\":", t->out);
		print_json_string(t->out, text);
		fprintf(t->out, ",\"cpu\":%" PRId64 "}}", cpu);
		t->counts.markers++;
	}
	return finish(t, st, rc);
}

static int put_losses(struct tef *t)
{
	sqlite3_stmt *st = prepare(t, "SELECT cpu, ts, count, sum(coalesce(count, 0)) OVER "
				      "(PARTITION BY cpu ORDER BY ts, rowid) FROM lost_events "
				      "WHERE ts IS NOT NULL ORDER BY cpu, ts, rowid");
	int rc;

	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t cpu = col(st, 0), ts = col(st, 1);
		char name[64];

		/* a loss belongs to no task: the window alone decides */
		if (t->slice && (ts < t->slice->since_ns || ts >= t->slice->until_ns))
			continue;
		snprintf(name, sizeof(name), "lost events CPU %" PRId64, cpu);
		ev_begin(t, "C", name, CPUS_PID, -1);
		ev_ts(t, "ts", ts);
		/* cumulative: a count the kernel did not store adds 0 (and says so) */
		fprintf(t->out, ",\"args\":{\"lost\":%" PRId64 "}}", col(st, 3));
		t->counts.lost_counters++;
		if (sqlite3_column_type(st, 2) == SQLITE_NULL) {
			ev_begin(t, "i", "events lost (count unknown)", CPUS_PID, CPU_TID(cpu));
			ev_ts(t, "ts", ts);
			fputs(",\"s\":\"t\"}", t->out);
		}
	}
	return finish(t, st, rc);
}

/* --- the document --- */

static int64_t meta_int(struct tef *t, const char *key, int64_t dflt)
{
	sqlite3_stmt *st = prepare(t, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?1");
	int64_t v = dflt;

	if (!st)
		return dflt;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = col(st, 0);
	sqlite3_finalize(st);
	return v;
}

int perfetto_write(sqlite3 *db, const char *file, const struct slice *slice, FILE *out,
		   struct perfetto_counts *counts)
{
	struct tef t = { .out = out, .db = db, .slice = slice, .first = true };
	int rc;

	t.first_ts = meta_int(&t, "first_ts", 0);
	t.last_ts = meta_int(&t, "last_ts", t.first_ts);
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":", out);
	print_json_string(out, file);
	fputs(",\"exporter\":\"ftana " CMD_VERSION "\"},\"traceEvents\":[", out);
	put_pseudo_names(&t, nr_cpus(&t));
	rc = put_task_names(&t);
	if (!rc)
		rc = put_cpu_tracks(&t);
	if (!rc)
		rc = put_calls(&t);
	if (!rc)
		rc = put_io(&t);
	if (!rc)
		rc = put_markers(&t);
	if (!rc)
		rc = put_losses(&t);
	fputs("\n]}\n", out);
	if (counts)
		*counts = t.counts;
	return rc;
}
