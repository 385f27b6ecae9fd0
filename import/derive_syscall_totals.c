/* SPDX-License-Identifier: MIT */
/*
 * derive_syscall_totals.c - per (syscall, thread) totals of syscall_pairs, kept while
 * derive_syscalls.c writes the rows (issue 23: `report syscount` on a capture of 10 M
 * getpid calls grouped every row on every run, 6 s, where the totals are a few rows).
 * They answer syscount when no time or CPU filter is asked (reports/slice.c
 * slice_whole(): the task filters still apply, per thread); a slice reads the rows.
 * The SQL whose results they hold is schema/reports/syscount_report.sql's over the
 * rows, and tests/test_derive_syscalls.c checks one against the other.
 *
 * syscall_totals: per syscall number and thread (tid): calls (entries), errors (paired
 * calls that returned -4095..-1), paired (entries with their exit), dur_ns (the sum of
 * their durations; NULL when none is paired) and error_dur_ns (the same over the
 * errors). syscall_range.totals says whether they stand for every row: not when a row
 * holds what a sum of integers cannot (a hand-made database's text or real ret or
 * duration, an unknown time, a sum past int64), nor when a hostile capture makes more
 * (syscall, thread) pairs than SYSCALL_TOTALS_MAX; then the reports read the rows.
 */
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "import/derive_syscall_totals.h"
#include "store/db.h"

/* 2^20 pairs of 64 bytes: a host with 10,000 threads each making 100 kinds of syscall */
#define SYSCALL_TOTALS_MAX ((size_t)1 << 20)

struct total_key {
	int64_t syscall;
	int64_t tid;
	uint64_t null; /* the tid is NULL */
};

struct total {
	struct total_key k;
	int64_t calls, errors, paired, dur, error_dur;
};

void syscall_totals_init(struct syscall_totals *t)
{
	pmap_init(&t->threads, sizeof(struct total_key), sizeof(struct total));
	t->valid = true;
}

void syscall_totals_give_up(struct syscall_totals *t)
{
	t->valid = false;
	pmap_free(&t->threads);
	pmap_init(&t->threads, sizeof(struct total_key), sizeof(struct total));
}

int syscall_totals_add(struct syscall_totals *t, int syscall, struct dint tid, const struct dcell *ret,
		       const struct dcell *dur)
{
	struct total_key k = { syscall, tid.null ? 0 : tid.v, tid.null };
	struct total *e;
	bool added;

	if (!t->valid)
		return 0;
	if (ret && (ret->type != SQLITE_INTEGER || dur->type != SQLITE_INTEGER)) {
		syscall_totals_give_up(t);
		return 0;
	}
	if (!(e = pmap_add(&t->threads, &k, &added)))
		return msg_error("out of memory");
	e->calls++;
	if (ret) {
		bool error = ret->i >= -4095 && ret->i <= -1;

		e->paired++;
		if ((error && __builtin_add_overflow(e->error_dur, dur->i, &e->error_dur)) ||
		    __builtin_add_overflow(e->dur, dur->i, &e->dur)) {
			syscall_totals_give_up(t);
			return 0;
		}
		e->errors += error;
	}
	if (t->threads.len > SYSCALL_TOTALS_MAX)
		syscall_totals_give_up(t);
	return 0;
}

int syscall_totals_seen(struct syscall_totals *t, int syscall, struct dint tid)
{
	struct total_key k = { syscall, tid.null ? 0 : tid.v, tid.null };
	bool added;

	if (!t->valid)
		return 0;
	if (!pmap_add(&t->threads, &k, &added))
		return msg_error("out of memory");
	if (t->threads.len > SYSCALL_TOTALS_MAX)
		syscall_totals_give_up(t);
	return 0;
}

void syscall_totals_unpair(struct syscall_totals *t, int syscall, struct dint tid, int64_t ret, int64_t dur)
{
	struct total_key k = { syscall, tid.null ? 0 : tid.v, tid.null };
	struct total *e = t->valid ? pmap_find(&t->threads, &k) : NULL;

	if (!e || !e->paired)
		return;
	e->paired--;
	e->dur -= dur;
	if (ret >= -4095 && ret <= -1) {
		e->errors--;
		e->error_dur -= dur;
	}
}

int syscall_totals_write(struct syscall_totals *t, sqlite3 *db, const char *schema, const int *number_of,
			 bool *valid)
{
	struct drows r;
	int rc = drows_open(&r, db, schema, "syscall_totals", 7);

	for (size_t i = 0; !rc && t->valid && i < t->threads.cap; i++) {
		const struct total *e = pmap_slot(&t->threads, i);
		struct dcell *c;

		if (!e)
			continue;
		c = drows_cells(&r);
		dc_int(&c[0], (struct dint){ number_of ? number_of[e->k.syscall] : e->k.syscall, false });
		dc_int(&c[1], (struct dint){ e->k.tid, e->k.null != 0 });
		dc_int(&c[2], (struct dint){ e->calls, false });
		dc_int(&c[3], (struct dint){ e->errors, false });
		dc_int(&c[4], (struct dint){ e->paired, false });
		dc_int(&c[5], (struct dint){ e->dur, !e->paired });
		dc_int(&c[6], (struct dint){ e->error_dur, !e->errors });
		rc = drows_add(&r);
	}
	*valid = t->valid;
	return derive_rows_done(&r, rc);
}

void syscall_totals_free(struct syscall_totals *t)
{
	pmap_free(&t->threads);
}
