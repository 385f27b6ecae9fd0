/* SPDX-License-Identifier: MIT */
/*
 * syscall_pairing.c - the pairing rule (syscall_pairing.h): an entry pairs with the
 * next syscall event of the same thread when that is the exit of the same syscall
 * (the same NAME) and no events were lost on ANY CPU between them (p->lost). An entry
 * without one (exit_group, execve's old image, a call still running at the stop, a
 * loss) is a call with NULL exit_gap, ret and dur_ns; exits without their entry are
 * left out. Threads are told apart as SQL's PARTITION BY pid does for the importer's
 * values (an integer or NULL). tests/oracle/syscount.sql is the SQL the rows equal.
 *
 * Memory: one entry per thread inside a syscall (its entry waiting for the next
 * event). Past derive_pending_max threads waiting (a hostile capture: a new thread id
 * per event) the older half is made unpaired, and an exit that comes for one of them
 * later is left out.
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "common/msg.h"
#include "import/syscall_pairing.h"
#include "store/db.h"

/* A thread's tid as the map's key (its padding zeroed). */
struct tid_key {
	int64_t v;
	uint64_t null;
};

/* A thread inside a syscall: its entry, waiting for the thread's next syscall event. */
struct thread {
	struct tid_key k;
	int syscall;
	int64_t id;
	struct dint ts, cpu;
};

int syscall_pairing_kind(const struct tep_event *ev, const char **name)
{
	const char *n = ev->name ? ev->name : "";

	if (!ev->system || strcmp(ev->system, "syscalls"))
		return 0;
	if (!strncmp(n, "sys_exit_", 9) && n[9]) {
		*name = n + 9;
		return SYSCALL_EXIT;
	}
	if (!strncmp(n, "sys_enter_", 10) && n[10]) {
		*name = n + 10;
		return SYSCALL_ENTRY;
	}
	return 0;
}

int syscall_pairing_name(struct syscall_pairing *p, const char *text, int64_t entries)
{
	for (int i = 0; i < p->nnames; i++)
		if (!strcmp(p->names[i].text, text)) {
			p->names[i].entries += entries;
			return i;
		}
	struct syscall_name *n = realloc(p->names, (size_t)(p->nnames + 1) * sizeof(*n));

	if (!n)
		return -1;
	p->names = n;
	n[p->nnames] = (struct syscall_name){ strdup(text), entries, p->nnames };
	return n[p->nnames].text ? p->nnames++ : -1;
}

static int cmp_by_count(const void *a, const void *b)
{
	const struct syscall_name *x = *(const struct syscall_name *const *)a;
	const struct syscall_name *y = *(const struct syscall_name *const *)b;

	if (x->entries != y->entries)
		return x->entries > y->entries ? -1 : 1;
	return strcmp(x->text, y->text);
}

int syscall_pairing_number(struct syscall_pairing *p)
{
	struct syscall_name **order = malloc((size_t)(p->nnames ? p->nnames : 1) * sizeof(*order));

	if (!order)
		return msg_error("out of memory");
	for (int i = 0; i < p->nnames; i++)
		order[i] = &p->names[i];
	qsort(order, (size_t)p->nnames, sizeof(*order), cmp_by_count);
	for (int i = 0; i < p->nnames; i++)
		order[i]->number = i;
	free(order);
	return 0;
}

void syscall_pairing_start(struct syscall_pairing *p, int64_t base)
{
	p->first = p->last = (struct dint){ 0, true };
	p->overflow = false;
	p->end_slot = 0;
	p->base = base;
	pmap_init(&p->threads, sizeof(struct tid_key), sizeof(struct thread));
	syscall_totals_init(&p->totals);
}

/* The row of thread t's entry; x: the exit it pairs with, or NULL. */
static int put_call(struct syscall_pairing *p, const struct thread *t, const struct syscall_event *x)
{
	int64_t ts_rel = 0, gap = 0;

	if (p->counts && !p->counts(p->arg, t->ts, t->cpu))
		return syscall_totals_seen(&p->totals, p->names[t->syscall].number,
					   (struct dint){ t->k.v, t->k.null != 0 });
	if (!t->ts.null && __builtin_sub_overflow(t->ts.v, p->base, &ts_rel)) {
		p->overflow = true;
		return 0;
	}
	if (x && __builtin_sub_overflow(x->id, t->id, &gap))
		return msg_error("syscall event ids %lld and %lld: too far apart", (long long)t->id,
				 (long long)x->id);
	struct syscall_call *c = p->slot(p->arg);

	if (!c)
		return msg_error("out of memory");
	c->id = t->id;
	c->gap = gap;
	c->ts_rel = (struct dint){ ts_rel, t->ts.null };
	c->cpu = t->cpu;
	c->tid = (struct dint){ t->k.v, t->k.null != 0 };
	c->syscall = p->names[t->syscall].number;
	c->paired = x != NULL;
	if (!x)
		return syscall_totals_add(&p->totals, c->syscall, c->tid, NULL, NULL);
	dc_diff(&c->dur, x->ts, t->ts);
	if (x->ret->type == SQLITE_TEXT || x->ret->type == SQLITE_BLOB) { /* a hostile format's ret */
		if (dc_text(&c->ret, x->ret->text.s ? x->ret->text.s : "", x->ret->text.len < 0 ? 0 : x->ret->text.len))
			return -1;
		c->ret.type = x->ret->type;
	} else {
		c->ret.type = x->ret->type;
		c->ret.i = x->ret->i;
		c->ret.r = x->ret->r;
	}
	return syscall_totals_add(&p->totals, c->syscall, c->tid, &c->ret, &c->dur);
}

static int64_t thread_age(const void *t)
{
	return ((const struct thread *)t)->id;
}

/* More than derive_pending_max threads inside a syscall: the older half is made
 * unpaired. 0 or -1. */
static int evict(struct syscall_pairing *p)
{
	struct pmap old = p->threads;
	int64_t cut;
	int rc = 0;

	if (derive_median_age(&old, thread_age, &cut))
		return -1;
	pmap_init(&p->threads, sizeof(struct tid_key), sizeof(struct thread));
	for (size_t i = 0; !rc && i < old.cap; i++) {
		const struct thread *t = pmap_slot(&old, i);
		struct thread *to;
		bool added;

		if (!t)
			continue;
		if (t->id <= cut)
			rc = put_call(p, t, NULL);
		else if (!(to = pmap_add(&p->threads, &t->k, &added)))
			rc = msg_error("out of memory");
		else
			*to = *t;
	}
	pmap_free(&old);
	return rc;
}

int syscall_pairing_event(struct syscall_pairing *p, const struct syscall_event *ev)
{
	struct tid_key k = { ev->tid.null ? 0 : ev->tid.v, ev->tid.null };
	struct thread *t = pmap_find(&p->threads, &k);
	bool added;

	if (!ev->ts.null) {
		if (p->first.null || ev->ts.v < p->first.v)
			p->first = ev->ts;
		if (p->last.null || ev->ts.v > p->last.v)
			p->last = ev->ts;
	}
	if (t) {
		bool paired = ev->is_exit && ev->name == t->syscall && !p->lost(p->arg, t->ts, ev->ts);

		if (put_call(p, t, paired ? ev : NULL))
			return -1;
		if (ev->is_exit) {
			pmap_del(&p->threads, t);
			return 0;
		}
	} else if (ev->is_exit) {
		return 0; /* an exit without its entry */
	} else if (!(t = pmap_add(&p->threads, &k, &added))) {
		return msg_error("out of memory");
	}
	t->syscall = ev->name;
	t->id = ev->id;
	t->ts = ev->ts;
	t->cpu = ev->cpu;
	return p->threads.len > derive_pending_max ? evict(p) : 0;
}

int syscall_pairing_end(struct syscall_pairing *p)
{
	const struct thread *t = NULL;

	while (p->end_slot < p->threads.cap && !(t = pmap_slot(&p->threads, p->end_slot)))
		p->end_slot++;
	if (!t)
		return 0;
	p->end_slot++;
	return put_call(p, t, NULL) ? -1 : 1;
}

int syscall_pairing_write(struct syscall_pairing *p, sqlite3 *db, const char *schema, bool renumber)
{
	int *number_of = NULL;
	struct drows r;
	int rc;

	if (renumber) {
		if (!(number_of = malloc((size_t)(p->nnames ? p->nnames : 1) * sizeof(*number_of))))
			return msg_error("out of memory");
		if (syscall_pairing_number(p)) {
			free(number_of);
			return -1;
		}
		for (int i = 0; i < p->nnames; i++)
			number_of[i] = p->names[i].number;
	}
	rc = drows_open(&r, db, schema, "syscall_names", 2);
	for (int i = 0; !rc && i < p->nnames; i++) {
		struct dcell *c = drows_cells(&r);

		if (p->names[i].number < 0)
			continue; /* a name of no event (import_syscalls.c) */
		dc_int(&c[0], (struct dint){ p->names[i].number, false });
		rc = dc_text(&c[1], p->names[i].text, -1) || drows_add(&r);
	}
	bool totals = false;

	rc = derive_rows_done(&r, rc);
	if (!rc)
		rc = syscall_totals_write(&p->totals, db, schema, number_of, &totals);
	free(number_of);
	if (rc)
		return -1;
	char *sql = sqlite3_mprintf("INSERT INTO \"%w\".syscall_range VALUES (?1, ?2, ?3, ?4)", schema);
	sqlite3_stmt *st = sql ? db_prepare(db, sql) : NULL;

	sqlite3_free(sql);
	if (!st)
		return -1;
	if (!p->first.null) {
		sqlite3_bind_int64(st, 1, p->first.v);
		sqlite3_bind_int64(st, 2, p->last.v);
	}
	sqlite3_bind_int64(st, 3, p->base);
	sqlite3_bind_int(st, 4, totals);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_step_error(db);
	sqlite3_finalize(st);
	return rc;
}

void syscall_pairing_stop(struct syscall_pairing *p)
{
	pmap_free(&p->threads);
	syscall_totals_free(&p->totals);
}

void syscall_pairing_free(struct syscall_pairing *p)
{
	syscall_pairing_stop(p);
	for (int i = 0; i < p->nnames; i++)
		free(p->names[i].text);
	free(p->names);
	p->names = NULL;
	p->nnames = 0;
}
