// SPDX-License-Identifier: MIT
/*
 * import_pass.c - one walk over a capture's events in merged order, writing the rows
 * of the types asked for into their tables (issue 23: import only what a question
 * needs). The decoder numbers every event whatever is handed out (decode.h,
 * dec_select), so a row gets the id a full import gives it, and a later pass that
 * adds other types to the same database gives them ids in the same sequence.
 *
 * The first pass of a database (base) also writes what every question needs:
 * losses, every kernel stack (in the order a full import meets them, so stack ids
 * are the same), and the comms of every event that carries one (tasks). A later
 * pass writes only its types' rows.
 *
 * Stacks: a kernel_stack event follows the event it belongs to on the same CPU, so
 * each CPU's last event waits (a copy of its bytes) until the next event of that
 * CPU shows whether a stack follows. Its id was taken when it was decoded, so ids
 * stay in global time order although rows are written a little late. An event the
 * decoder skipped is "waiting" too: the decoder says (prev_skipped, cpu_prev_seq)
 * when the event before a stack on its CPU was one it did not hand out, and the
 * stack is interned as if it had been attached to it. Recordings without the
 * kernel_stack format skip the wait.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/msg.h"
#include "format/ftz.h"
#include "import/import_int.h"

struct pending {
	struct etable *t;       /* NULL: nothing waiting */
	bool wanted;            /* its row is written (else: only its comms, base pass) */
	uint64_t id;
	unsigned long long ts;
	int size;
	int64_t stack_id;
	uint8_t *data;
	int cap;
	uint64_t skipped_done;  /* seq of the last skipped event whose wait ended */
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

void pass_progress(struct importer *im, bool last)
{
	const struct dec_stats *s = dec_stats(im->dec);
	double dt = now_s() - im->progress_t0;

	/* a progress line on a terminal, redrawn in place: not a message */
	fprintf(stderr, "\r%s: pages %llu/%llu, %llu events, %.0f events/s%s", msg_prefix(),
		(unsigned long long)dec_pages_done(im->dec), (unsigned long long)s->nr_pages,
		(unsigned long long)im->ids, dt > 0 ? im->ids / dt : 0.0, last ? "\n" : "");
	if (last)
		im->progress_on = false;
}

/* The waiting event's row (when wanted) and comms (base pass), then nothing waits. */
static int flush(struct importer *im, struct pending *p, int cpu)
{
	int rc = 0;

	if (!p->t)
		return 0;
	if (im->base)
		plan_comms(im, p->t, p->data, p->size);
	if (p->wanted)
		rc = queue_row(im, p->t, p->id, p->ts, cpu, p->data, p->size, p->stack_id);
	p->t = NULL;
	return rc;
}

static int hold(struct pending *p, struct etable *t, bool wanted, const struct dec_event *ev)
{
	if (ev->record->size > p->cap) {
		uint8_t *n = realloc(p->data, ev->record->size);

		if (!n)
			return -ENOMEM;
		p->data = n;
		p->cap = ev->record->size;
	}
	memcpy(p->data, ev->record->data, ev->record->size);
	p->t = t;
	p->wanted = wanted;
	p->id = ev->seq;
	p->ts = ev->ts;
	p->size = ev->record->size;
	p->stack_id = -1;
	return 0;
}

int pass_note_loss(struct importer *im, int cpu, uint64_t ts, int64_t missed)
{
	sqlite3_stmt *st = im->lost_insert;
	int rc;

	sqlite3_bind_int(st, 1, cpu);
	sqlite3_bind_int64(st, 2, (int64_t)ts);
	if (missed > 0)
		sqlite3_bind_int64(st, 3, missed);
	else
		sqlite3_bind_null(st, 3);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : im_sql_error(im, "lost_events");
}

/* A skipped event waited on this CPU (the decoder says which): its wait ends now. */
static bool skipped_waits(struct pending *p, const struct dec_event *ev)
{
	return !p->t && ev->prev_skipped && ev->cpu_prev_seq &&
	       ev->cpu_prev_seq != p->skipped_done;
}

/* A kernel_stack: attached to the event waiting on its CPU, or an orphan. */
static int on_stack(struct importer *im, struct pending *p, const struct dec_event *ev)
{
	if (skipped_waits(p, ev)) {
		/* interned all the same: stack ids follow the order a full import meets them */
		stacks_intern(im, ev->event, ev->record->data, ev->record->size);
		im->stacks_attached++;
		p->skipped_done = ev->cpu_prev_seq;
		return 0;
	}
	if (p->t && p->stack_id < 0) {
		p->stack_id = stacks_intern(im, ev->event, ev->record->data, ev->record->size);
		im->stacks_attached++;
		return flush(im, p, ev->cpu);
	}
	im->orphan_stacks++;
	return 0;
}

/*
 * Can the capture hold kernel stacks? Not when its INFO says ftrec recorded without
 * them (stacktrace=0): then no event waits for one, and rows reach each table in id
 * order (a wait on one CPU would put it behind rows of other CPUs, and SQLite's
 * B-tree then splits pages half full).
 */
bool pass_stacks_possible(struct importer *im)
{
	char v[8];
	const char *info = dec_info_text(im->dec);

	return ftz_kv_get(info, strlen(info), "stacktrace", v, sizeof(v)) <= 0 || strcmp(v, "0");
}

struct tep_event *pass_stack_event(struct importer *im)
{
	/* (a window's pass makes no row a stack could belong to) */
	return !im->window && pass_stacks_possible(im) ?
	       tep_find_event_by_name(im->tep, "ftrace", "kernel_stack") : NULL;
}

/* The event loop. */
int pass_events(struct importer *im, bool show)
{
	unsigned nr_cpus = dec_stats(im->dec)->nr_cpus;
	struct pending *pend = calloc(nr_cpus + 1, sizeof(*pend));
	struct tep_event *ks = pass_stack_event(im);
	struct dec_event ev;
	double shown = now_s();
	int rc = pend ? 0 : -ENOMEM;

	im->progress_t0 = shown;
	im->progress_on = show;
	dec_select(im->dec, im->deliver, im->counted);
	while (!rc && dec_next(im->dec, &ev) > 0) {
		struct etable *t = im->by_id[ev.type_id & 0xffff];
		struct pending *p = &pend[ev.cpu];

		if (im->stream && (rc = stream_tick(im, &ev)))
			break;
		if (im->sys && (rc = sysstore_tick(im, &ev)))
			break;

		/* an event the decoder skipped came after the waiting one on this CPU: in a
		 * full import it would have ended that wait (and now waits itself) */
		if (p->t && ev.prev_skipped && ev.cpu_prev_seq > p->id && (rc = flush(im, p, ev.cpu)))
			break;
		if (ev.missed) {
			/* events were lost just before: a stack here may be a lost event's */
			if (im->base && (rc = queue_loss(im, ev.cpu, ev.ts, ev.missed)))
				break;
			if (skipped_waits(p, &ev))
				p->skipped_done = ev.cpu_prev_seq;
			if ((rc = flush(im, p, ev.cpu)))
				break;
		}
		/* ks was looked up once: a pointer compare, not two strcmp per event */
		if (ks && ev.event == ks) {
			rc = on_stack(im, p, &ev);
			continue;
		}
		if (!t || !DEC_TYPE_HAS(im->counted, ev.type_id & 0xffff))
			continue; /* no format for this type in the file: counted at the end */
		bool wanted = DEC_TYPE_HAS(im->want, ev.type_id & 0xffff);

		if (im->stream && (rc = stream_event(im, t, &ev)))
			break;

		im->ids = ev.seq;
		if (im->sys && sysstore_takes(im, ev.type_id)) {
			/* (no stack: the store is not used where one could follow) */
			if (im->base)
				plan_comms(im, t, ev.record->data, ev.record->size);
			rc = sysstore_event(im, t, &ev);
		} else if (wanted && !t->created && (rc = queue_create(im, t))) {
			break;
		} else if (ks) {
			if (skipped_waits(p, &ev))
				p->skipped_done = ev.cpu_prev_seq;
			rc = flush(im, p, ev.cpu);
			if (!rc)
				rc = hold(p, t, wanted, &ev);
		} else {
			if (im->base)
				plan_comms(im, t, ev.record->data, ev.record->size);
			if (wanted)
				rc = queue_row(im, t, ev.seq, ev.ts, ev.cpu, ev.record->data,
					       ev.record->size, -1);
		}
		if (im->progress_on && !(im->ids & 0xffff) && now_s() - shown > 0.25) {
			shown = now_s();
			pass_progress(im, false);
		}
	}
	for (unsigned c = 0; !rc && pend && c < nr_cpus; c++)
		rc = flush(im, &pend[c], c);
	for (unsigned c = 0; pend && c < nr_cpus; c++)
		free(pend[c].data);
	free(pend);
	if (im->progress_on)
		pass_progress(im, true);
	return rc;
}
