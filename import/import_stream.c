// SPDX-License-Identifier: MIT
/*
 * import_stream.c - a derivation made from a pass's decoded events, none of its input
 * rows imported (issue 23: the first `report syscount` of a capture of 10 M getpid
 * calls imported 20 M rows to sum them: 14 s). One such: syscall_totals (derive.h),
 * the per-thread syscall totals with their names and range, by the same pairing rule
 * as derive_syscalls.c (syscall_pairing.c), fed here in id order as the decoder hands
 * the events out.
 *
 * The rule asks whether events were lost on any CPU after an entry and up to its
 * exit (lost_events.ts in (entry, exit]). A loss reaches the pass with the event that
 * carries it (dec_event.missed, its time that event's), in the merged order, so while
 * the times the pass sees never go back, every loss before an exit's time has come
 * when the exit does: the newest loss time tells. A loss at the exit's very time may
 * come just after it (another CPU, the same nanosecond): the calls paired at the
 * newest time are kept (up to RECENT_MAX), and such a loss takes their pairing back.
 * Where the times go back (a hostile capture) or more calls share one time, the
 * totals give up (syscall_range.totals 0) and a report reads the rows instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "import/derive.h"
#include "import/import_int.h"
#include "import/syscall_pairing.h"

#define TOTALS_FILE "schema/derive_syscall_totals.sql"
#define RECENT_MAX 4096

/* What each event type is to the stream. */
struct stype {
	int name;     /* index into the names; -1 none yet (-2: not a syscall event) */
	int ret_col;  /* an exit's ret column, or -1 */
	bool is_exit;
	const char *text; /* NAME */
};

/* A call paired at the newest time: what taking its pairing back needs. */
struct recent {
	int syscall;
	struct dint tid;
	int64_t ret, dur, entry_ts;
};

struct stream {
	struct syscall_pairing pr;
	struct stype *types;   /* 65536, by type id */
	struct syscall_call row; /* where the pairing makes each call */
	bool made;
	struct recent *recent;
	size_t nrecent;
	uint64_t now;          /* the newest time seen */
	bool seen;
	struct dint last_loss; /* the newest loss's time */
	struct dcell ret;
	const struct import_window *window; /* IMPORT_WINDOW's calls, or NULL: every one */
};

static bool lost_since(void *arg, struct dint a, struct dint b)
{
	const struct stream *s = arg;

	(void)b; /* every loss that came is at or before b: the order is checked */
	return !a.null && !s->last_loss.null && s->last_loss.v > a.v;
}

/* A call of the window (syscall_pairing.counts): by its entry, as the report's slice
 * takes a syscall_calls row (reports/slice.c in_slice: time and CPU; its task filter
 * applies per thread, to the totals). */
static bool in_window(void *arg, struct dint ts, struct dint cpu)
{
	const struct import_window *w = ((const struct stream *)arg)->window;

	if (ts.null || ts.v < w->since_ns || ts.v >= w->until_ns)
		return false;
	if (!w->cpus)
		return true;
	return !cpu.null && cpu.v >= 0 && (uint64_t)cpu.v / 64 < w->nr_cpu_words &&
	       (w->cpus[cpu.v / 64] >> (cpu.v % 64) & 1);
}

static struct syscall_call *one_row(void *arg)
{
	struct stream *s = arg;

	s->made = true;
	return &s->row;
}

/* Which streamed derivation this pass makes, if any: asked, not made yet, and not made
 * by another one the pass runs from the rows. */
static bool stream_asked(struct importer *im, const struct import_types *types)
{
	if (!types || !types->derive)
		return false;
	for (const struct derivation *dv = derivations; dv->name; dv++) {
		bool asked = false, by_rows = false;

		if (!dv->streamed)
			continue;
		for (const char *const *n = types->derive; *n; n++) {
			asked |= !strcmp(*n, dv->name);
			by_rows |= dv->made_by && !strcmp(*n, dv->made_by);
		}
		if (asked && !by_rows && !derive_present(im->db, "main", dv->name))
			return true;
	}
	return false;
}

int stream_plan(struct importer *im, const struct import_types *types)
{
	if (im->summary || im->sys || !stream_asked(im, types))
		return 0;
	struct stream *s = calloc(1, sizeof(*s));

	if (!s || !(s->types = calloc(65536, sizeof(*s->types)))) {
		free(s);
		return im_error(im, -ENOMEM, "%s: out of memory", im->path);
	}
	for (int i = 0; i < 65536; i++)
		s->types[i].name = -2;
	for (int i = 0; i < im->nr_tables; i++) {
		struct etable *t = &im->tables[i];
		int id = t->event->id, kind;
		const char *name;

		if (t->duplicate_id || id < 0 || id >= 65536 || !DEC_TYPE_HAS(im->counted, id) ||
		    !(kind = syscall_pairing_kind(t->event, &name)))
			continue;
		bool is_exit = kind == SYSCALL_EXIT;
		struct stype *st = &s->types[id];

		*st = (struct stype){ .name = -1, .ret_col = -1, .is_exit = is_exit, .text = name };
		for (int c = 0; is_exit && c < t->nr_cols && st->ret_col < 0; c++)
			if (!sqlite3_stricmp(t->col_names[c], "ret"))
				st->ret_col = c;
		DEC_TYPE_SET(im->deliver, id);
	}
	s->pr.lost = lost_since;
	s->pr.slot = one_row;
	s->pr.arg = s;
	if (im->window) {
		s->window = types->window;
		s->pr.counts = in_window;
	}
	s->last_loss = (struct dint){ 0, true };
	syscall_pairing_start(&s->pr, 0);
	im->stream = s;
	return 0;
}

/* The pairings made at the newest time, taken back for a loss at that time. */
static void take_back(struct stream *s, int64_t loss_ts)
{
	for (size_t i = 0; i < s->nrecent; i++) {
		const struct recent *r = &s->recent[i];

		if (r->entry_ts < loss_ts)
			syscall_totals_unpair(&s->pr.totals, r->syscall, r->tid, r->ret, r->dur);
	}
}

static void keep_recent(struct stream *s, int64_t exit_ts)
{
	const struct syscall_call *c = &s->row;

	if (!s->recent && !(s->recent = malloc(RECENT_MAX * sizeof(*s->recent)))) {
		syscall_totals_give_up(&s->pr.totals);
		return;
	}
	if (s->nrecent == RECENT_MAX || c->ret.type != SQLITE_INTEGER || c->dur.type != SQLITE_INTEGER) {
		syscall_totals_give_up(&s->pr.totals); /* too many at one time (a text ret or dur: given up already) */
		return;
	}
	s->recent[s->nrecent++] = (struct recent){ c->syscall, c->tid, c->ret.i, c->dur.i,
						   exit_ts - c->dur.i };
}

int stream_tick(struct importer *im, const struct dec_event *ev)
{
	struct stream *s = im->stream;

	if (s->seen && ev->ts < s->now) {
		syscall_totals_give_up(&s->pr.totals); /* the times went back */
		return 0;
	}
	if (!s->seen || ev->ts > s->now)
		s->nrecent = 0;
	s->seen = true;
	s->now = ev->ts;
	if (ev->missed) {
		take_back(s, (int64_t)ev->ts);
		s->nrecent = 0;
		s->last_loss = (struct dint){ (int64_t)ev->ts, false };
	}
	return 0;
}

int stream_event(struct importer *im, const struct etable *t, const struct dec_event *ev)
{
	struct stream *s = im->stream;
	struct stype *st = &s->types[ev->type_id & 0xffff];
	const uint8_t *data = ev->record->data;
	int size = ev->record->size;
	int64_t v;

	if (st->name == -2)
		return 0;
	if (st->name == -1 && (st->name = syscall_pairing_name(&s->pr, st->text, 0)) < 0)
		return im_error(im, -ENOMEM, "%s: out of memory", im->path);
	struct syscall_event e = { .id = (int64_t)ev->seq, .ts = { (int64_t)ev->ts, false },
				   .cpu = { ev->cpu, false }, .tid = { 0, true },
				   .name = st->name, .is_exit = st->is_exit };

	if (t->pid.kind == COL_INT && plan_col_int(im, &t->pid, data, size, &v))
		e.tid = (struct dint){ v, false };
	if (st->is_exit) {
		const struct col *rc = st->ret_col >= 0 ? &t->cols[st->ret_col] : NULL;

		if (rc && plan_col_int(im, rc, data, size, &v))
			dc_int(&s->ret, (struct dint){ v, false });
		else if (rc && rc->kind != COL_INT)
			s->ret.type = SQLITE_BLOB; /* not a number: the totals give up, as for its row */
		else
			dc_null(&s->ret);
		e.ret = &s->ret;
	}
	s->made = false;
	if (syscall_pairing_event(&s->pr, &e)) {
		im->said = true;
		return -EIO;
	}
	if (s->made && s->row.paired)
		keep_recent(s, e.ts.v);
	return 0;
}

int stream_write(struct importer *im)
{
	struct stream *s = im->stream;
	const uint64_t *counts = dec_type_counts(im->dec);
	int rc;

	if (!s)
		return 0;
	while ((rc = syscall_pairing_end(&s->pr)) > 0)
		;
	for (int id = 0; !rc && id < 65536; id++) {
		const struct stype *st = &s->types[id];

		if (st->name >= 0 && !st->is_exit)
			s->pr.names[st->name].entries += (int64_t)counts[id];
	}
	if (!s->pr.first.null)
		s->pr.base = s->pr.first.v;
	if (rc || derive_tables_create(im->db, "main", TOTALS_FILE) ||
	    syscall_pairing_write(&s->pr, im->db, "main", true)) {
		im->said = true;
		return -EIO;
	}
	return 0;
}

void stream_free(struct importer *im)
{
	struct stream *s = im->stream;

	if (!s)
		return;
	syscall_pairing_free(&s->pr);
	dtext_free(&s->row.ret.text);
	dtext_free(&s->row.dur.text);
	dtext_free(&s->ret.text);
	free(s->recent);
	free(s->types);
	free(s);
	im->stream = NULL;
}
