// SPDX-License-Identifier: MIT
/*
 * import_meta.c - the tables around the events: meta (INFO/END keys and derived
 * figures), event_types, tasks, cpu_stats and symbols (schema/tables.sql).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import_int.h"
#include "format/ftz.h"

/* ---------------------------------------------------------------- pid -> comm seen in events */

struct pid_comm {
	struct { int pid; bool used; char comm[16]; } *slots;
	size_t cap, used;
};

static size_t slot_of(const struct pid_comm *m, int pid)
{
	size_t j = ((uint32_t)pid * 2654435761u) & (m->cap - 1);

	while (m->slots[j].used && m->slots[j].pid != pid)
		j = (j + 1) & (m->cap - 1);
	return j;
}

static int comms_grow(struct pid_comm *m)
{
	struct pid_comm n = { .cap = m->cap ? 2 * m->cap : 1024 };

	n.slots = calloc(n.cap, sizeof(*n.slots));
	if (!n.slots)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].used)
			n.slots[slot_of(&n, m->slots[i].pid)] = m->slots[i];
	n.used = m->used;
	free(m->slots);
	*m = n;
	return 0;
}

/* The last comm seen for pid wins (a task's comm changes on exec). */
void comms_note(struct importer *im, int pid, const char *comm, int len)
{
	struct pid_comm *m = im->comms;
	size_t j, n = strnlen(comm, len);

	if (!m && !(m = im->comms = calloc(1, sizeof(*m))))
		return;
	if ((m->used + 1) * 2 > m->cap && comms_grow(m) < 0)
		return;
	j = slot_of(m, pid);
	if (!m->slots[j].used) {
		m->slots[j].used = true;
		m->slots[j].pid = pid;
		m->used++;
	}
	if (n >= sizeof(m->slots[j].comm))
		n = sizeof(m->slots[j].comm) - 1;
	memcpy(m->slots[j].comm, comm, n);
	m->slots[j].comm[n] = '\0';
}

void comms_free(struct importer *im)
{
	if (im->comms)
		free(im->comms->slots);
	free(im->comms);
}

/* ---------------------------------------------------------------- helpers */

/* Copy the line at *p into buf (truncated to fit) and move *p past it; false at
 * the end. sscanf on a line, not on the rest of a multi-MB file: glibc's sscanf
 * measures its whole input string on every call. */
static bool next_line(const char **p, char *buf, size_t len)
{
	const char *s = *p, *e;
	size_t n;

	if (!s || !*s)
		return false;
	e = strchr(s, '\n');
	n = e ? (size_t)(e - s) : strlen(s);
	*p = e ? e + 1 : s + n;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return true;
}

static int put_kv(struct importer *im, sqlite3_stmt *st, const char *key, const char *val)
{
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, val, -1, SQLITE_TRANSIENT);
	return im_step_done(im, st, "meta");
}

static int put_kv_u64(struct importer *im, sqlite3_stmt *st, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return put_kv(im, st, key, buf);
}

/* Every "key=value" line of an INFO / END text into meta. */
static int put_kv_text(struct importer *im, sqlite3_stmt *st, const char *text)
{
	char *copy = strdup(text), *save = NULL, *line;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line && !rc; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq = '\0';
		rc = put_kv(im, st, line, eq + 1);
	}
	free(copy);
	return rc;
}

static bool kv_i64(const char *text, const char *key, int64_t *v)
{
	char buf[32];

	if (ftz_kv_get(text, strlen(text), key, buf, sizeof(buf)) <= 0)
		return false;
	*v = strtoll(buf, NULL, 10);
	return true;
}

/* ---------------------------------------------------------------- cpu_stats, symbols */

/* per_cpu/cpuN/stats: "entries: 12\noverrun: 0\ncommit overrun: 0\nbytes: ...". */
static int64_t stat_value(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, n) && l[n] == ':')
			return strtoll(l + n + 1, NULL, 10);
	return -1;
}

static int cpu_stats(struct importer *im)
{
	static const char *const keys[] = { "entries", "overrun", "commit overrun", "bytes",
					    "dropped events", "read events" };
	sqlite3_stmt *st;
	int rc = im_prepare(im, "INSERT OR REPLACE INTO cpu_stats VALUES (?,?,?,?,?,?,?,?)", &st);

	for (size_t i = 0; !rc && i < dec_nr_files(im->dec); i++) {
		const struct dec_file *f = dec_file_at(im->dec, i);
		unsigned cpu;
		char tail[16];

		if (sscanf(f->name, "per_cpu/cpu%u/%15s", &cpu, tail) != 2 || strcmp(tail, "stats"))
			continue;
		sqlite3_bind_int(st, 1, cpu);
		sqlite3_bind_text(st, 2, f->phase ? "end" : "start", -1, SQLITE_STATIC);
		for (int k = 0; k < 6; k++) {
			int64_t v = stat_value(f->data, keys[k]);

			if (v < 0)
				sqlite3_bind_null(st, 3 + k);
			else
				sqlite3_bind_int64(st, 3 + k, v);
		}
		rc = im_step_done(im, st, "cpu_stats");
	}
	sqlite3_finalize(st);
	return rc;
}

/* /proc/kallsyms lines: "ffffffff81000000 T _stext [module]". */
static int symbols(struct importer *im)
{
	const char *text = dec_file(im->dec, "/proc/kallsyms", -1, NULL);
	sqlite3_stmt *st;
	int rc;

	if (!text)
		return 0;
	rc = im_prepare(im, "INSERT INTO symbols VALUES (?,?,?,?)", &st);
	/* Split by hand: ~150,000 lines, and sscanf was most of this function's time. */
	for (char l[512]; !rc && next_line(&text, l, sizeof(l));) {
		char *end, *name, *mod;
		unsigned long long addr = strtoull(l, &end, 16);

		if (!addr || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		name = end + 3;
		mod = strchr(name, '\t');
		if (mod) {
			*mod++ = '\0';
			if (*mod == '[')
				mod++;
			mod[strcspn(mod, "]")] = '\0';
		}
		sqlite3_bind_int64(st, 1, (int64_t)addr);
		sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, end + 1, 1, SQLITE_STATIC);
		if (mod)
			sqlite3_bind_text(st, 4, mod, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 4);
		rc = im_step_done(im, st, "symbols");
	}
	sqlite3_finalize(st);
	return rc;
}

/* ---------------------------------------------------------------- entry points */

/* cpu_spans: each CPU's events, first and last (decode.h dec_cpu_span). */
static int cpu_spans(struct importer *im)
{
	sqlite3_stmt *st;
	int rc = im_prepare(im, "INSERT INTO cpu_spans VALUES (?,?,?,?)", &st);

	for (unsigned cpu = 0; !rc && cpu < dec_stats(im->dec)->nr_cpus; cpu++) {
		uint64_t first, last, n = dec_cpu_span(im->dec, cpu, &first, &last);

		if (!n)
			continue;
		sqlite3_bind_int(st, 1, (int)cpu);
		sqlite3_bind_int64(st, 2, (int64_t)n);
		sqlite3_bind_int64(st, 3, (int64_t)first);
		sqlite3_bind_int64(st, 4, (int64_t)last);
		rc = im_step_done(im, st, "cpu_spans");
	}
	sqlite3_finalize(st);
	return rc;
}

struct capture_window {
	uint64_t from, complete_from, until;
};

/*
 * The time events could be recorded: from tracing on (END traced_from_trace_ns; older
 * files: the first event, ftrec's start marker written right after tracing on) to the
 * stop (END end_trace_ns; after a crash the last event). Events kept from before
 * (an earlier use of the buffer) widen it. Where a ring dropped its oldest pages (a
 * trimmed --ring, --kernel-ring) each CPU lost a different stretch: every CPU is
 * complete only from the latest of the CPUs' first events.
 */
static void meta_window(struct importer *im, const char *info, uint64_t first_ts,
			uint64_t last_ts, struct capture_window *w)
{
	const char *end = dec_end_text(im->dec);
	int64_t v = 0;

	w->from = first_ts;
	if (kv_i64(end, "traced_from_trace_ns", &v) && v > 0 && (uint64_t)v < first_ts)
		w->from = (uint64_t)v;
	w->until = last_ts;
	if (kv_i64(end, "end_trace_ns", &v) && (uint64_t)v > last_ts)
		w->until = (uint64_t)v;
	w->complete_from = w->from;
	bool ragged = (kv_i64(info, "kernel_ring", &v) && v) ||
		      (kv_i64(info, "ring_before_pages", &v) && v > 0) ||
		      (kv_i64(end, "ring_trimmed_segments", &v) && v > 0);
	for (unsigned cpu = 0; ragged && cpu < dec_stats(im->dec)->nr_cpus; cpu++) {
		uint64_t first, last;

		if (dec_cpu_span(im->dec, cpu, &first, &last) && first > w->complete_from)
			w->complete_from = first;
	}
}

int meta_write(struct importer *im, const struct import_result *res, uint64_t first_ts,
	       uint64_t last_ts)
{
	const struct dec_stats *s = dec_stats(im->dec);
	const char *info = dec_info_text(im->dec);
	sqlite3_stmt *st;
	int64_t wall, trace;
	char buf[64];
	int rc = im_prepare(im, "INSERT OR REPLACE INTO meta VALUES (?,?)", &st);

	if (!rc)
		rc = put_kv_text(im, st, info);
	if (!rc)
		rc = put_kv_text(im, st, dec_end_text(im->dec));
	/* (a pair whose difference int64 cannot hold is no clock: no wall-clock times) */
	int64_t offset;

	if (!rc && kv_i64(info, "start_wall_ns", &wall) && kv_i64(info, "start_trace_ns", &trace) &&
	    !__builtin_sub_overflow(wall, trace, &offset)) {
		snprintf(buf, sizeof(buf), "%" PRId64, offset);
		rc = put_kv(im, st, "wall_offset_ns", buf);
	}
	if (!rc && res->events) {
		struct capture_window w;

		meta_window(im, info, first_ts, last_ts, &w);
		rc = put_kv_u64(im, st, "first_ts", first_ts) ||
		     put_kv_u64(im, st, "last_ts", last_ts) ||
		     put_kv_u64(im, st, "duration_ns", last_ts - first_ts) ||
		     put_kv_u64(im, st, "traced_from_ns", w.from) ||
		     put_kv_u64(im, st, "complete_from_ns", w.complete_from) ||
		     put_kv_u64(im, st, "traced_until_ns", w.until);
	}
	if (!rc)
		rc = put_kv_u64(im, st, "file_size", s->file_size) ||
		     put_kv_u64(im, st, "pages", s->nr_pages) ||
		     put_kv_u64(im, st, "page_bytes_raw", s->raw_bytes) ||
		     put_kv_u64(im, st, "page_bytes_stored", s->stored_bytes) ||
		     put_kv_u64(im, st, "bad_pages", s->bad_pages) ||
		     put_kv_u64(im, st, "events_total", res->events) ||
		     put_kv_u64(im, st, "stacks_attached", res->stacks) ||
		     put_kv_u64(im, st, "stacks_orphan", im->orphan_stacks) ||
		     put_kv_u64(im, st, "unknown_events", im->unknown_events) ||
		     put_kv(im, st, "end_state", res->damaged ? "damaged" :
			    s->end_seen ? "clean" : "no-end-section");
	if (!rc && res->damaged) {
		rc = put_kv_u64(im, st, "damage_offset", res->damage_offset) ||
		     put_kv(im, st, "damage_reason", res->damage_reason);
	}
	sqlite3_finalize(st);
	if (!rc)
		rc = cpu_spans(im);
	if (!rc)
		rc = cpu_stats(im);
	if (!rc && !im->summary)
		rc = symbols(im);
	return rc;
}

int meta_event_types(struct importer *im)
{
	sqlite3_stmt *st;
	const uint64_t *counts = dec_type_counts(im->dec);
	int rc = im_prepare(im, "INSERT INTO event_types VALUES (?,?,?,?,?,?,?,?)", &st);

	for (int i = 0; !rc && i < im->nr_tables; i++) {
		struct etable *t = &im->tables[i];
		char *path;
		const char *fmt;

		if (t->duplicate_id) /* type_id is the key: the ID's first format only */
			continue;
		if (asprintf(&path, "events/%s/%s/format", t->event->system ? t->event->system : "",
			     t->event->name ? t->event->name : "") < 0) {
			rc = -ENOMEM;
			break;
		}
		fmt = dec_file(im->dec, path, -1, NULL);
		free(path);
		sqlite3_bind_int(st, 1, t->event->id);
		sqlite3_bind_text(st, 2, t->event->system ? t->event->system : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, t->event->name ? t->event->name : "", -1, SQLITE_STATIC);
		/* the types of this pass are in their tables; the others' tables are made
		 * when a later pass imports them (import_pass.c) */
		uint64_t n = t->event->id >= 0 && t->event->id < 65536 && DEC_TYPE_HAS(im->counted, t->event->id)
			     ? counts[t->event->id] : 0;

		if (n)
			sqlite3_bind_text(st, 4, t->name, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 4);
		sqlite3_bind_text(st, 5, fmt, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, t->event->print_fmt.format, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 7, (int64_t)n);
		sqlite3_bind_int(st, 8, !n || DEC_TYPE_HAS(im->want, t->event->id));
		rc = im_step_done(im, st, "event_types");
	}
	sqlite3_finalize(st);
	return rc;
}

/* Lines of "PID WORD" (saved_cmdlines: pid comm; saved_tgids: pid tgid) into tasks. */
/* A decimal number 0..INT_MAX and nothing else (sscanf's %d overflows silently). */
static bool pid_number(const char *s, int *out)
{
	char *end;
	long long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v > INT32_MAX)
		return false;
	*out = (int)v;
	return true;
}

/* "PID WORD" lines of FILE into tasks through sql; with numeric, WORD must be a
 * pid too (a tgid): the files come from the capture, and a line that is not what
 * the kernel or ftrec writes is skipped (FORMAT.md 4.2). */
static int tasks_from(struct importer *im, const char *file, int phase, const char *sql,
		      bool numeric)
{
	const char *text = dec_file(im->dec, file, phase, NULL);
	sqlite3_stmt *st;
	int rc;

	if (!text)
		return 0;
	rc = im_prepare(im, sql, &st);
	for (char l[256]; !rc && next_line(&text, l, sizeof(l));) {
		char first[16], word[64];
		int pid, tgid;

		if (sscanf(l, "%15s %63[^\n]", first, word) != 2 || !pid_number(first, &pid) ||
		    (numeric && !pid_number(word, &tgid)))
			continue;
		sqlite3_bind_int(st, 1, pid);
		if (numeric)
			sqlite3_bind_int(st, 2, tgid);
		else
			sqlite3_bind_text(st, 2, word, -1, SQLITE_TRANSIENT);
		rc = im_step_done(im, st, "tasks");
	}
	sqlite3_finalize(st);
	return rc;
}

/* saved_cmdlines first, then comms seen in events (they win: they were current
 * during the trace), then the tgids. */
int meta_tasks(struct importer *im)
{
	static const char set_comm[] = "INSERT INTO tasks(pid, comm) VALUES (?, ?) "
				       "ON CONFLICT(pid) DO UPDATE SET comm = excluded.comm";
	sqlite3_stmt *st;
	int rc = tasks_from(im, "saved_cmdlines", -1, set_comm, false);

	if (!rc && im->comms) {
		rc = im_prepare(im, set_comm, &st);
		for (size_t i = 0; !rc && i < im->comms->cap; i++) {
			if (!im->comms->slots[i].used)
				continue;
			sqlite3_bind_int(st, 1, im->comms->slots[i].pid);
			sqlite3_bind_text(st, 2, im->comms->slots[i].comm, -1, SQLITE_STATIC);
			rc = im_step_done(im, st, "tasks");
		}
		sqlite3_finalize(st);
	}
	/*
	 * Tgids: ftrec's /proc/tgids first (END, then START: every thread alive then, as
	 * /proc said), then the kernel's saved_tgids for the tasks that lived only during
	 * the recording. saved_tgids keeps entries from long before (a reused pid would
	 * get a dead process's tgid), and misses threads it never saw switch.
	 */
	static const char first_tgid[] = "INSERT INTO tasks(pid, tgid) VALUES (?, ?) "
		"ON CONFLICT(pid) DO UPDATE SET tgid = coalesce(tasks.tgid, excluded.tgid)";
	for (int phase = FTZ_PHASE_END; !rc && phase >= FTZ_PHASE_START; phase--)
		rc = tasks_from(im, "/proc/tgids", phase, first_tgid, true);
	if (!rc)
		rc = tasks_from(im, "saved_tgids", -1, first_tgid, true);
	return rc;
}

int meta_imported(struct importer *im)
{
	sqlite3_stmt *st;
	int rc = im_prepare(im, "UPDATE event_types SET imported = 1 WHERE type_id = ?", &st);

	for (int i = 0; !rc && i < im->nr_tables; i++) {
		int id = im->tables[i].event->id;

		if (im->tables[i].duplicate_id || id < 0 || id >= 65536 || !DEC_TYPE_HAS(im->want, id))
			continue;
		sqlite3_bind_int(st, 1, id);
		rc = im_step_done(im, st, "event_types");
	}
	sqlite3_finalize(st);
	return rc;
}
