/* SPDX-License-Identifier: MIT */
/*
 * derive_sched_store.h - how derive_sched.c's rows are stored (issue 23: 3.3 M rows of
 * 55-61 bytes, a third of the bench's database, each repeating what the events it was
 * made from hold). A row the events give back exactly is stored as a link to them
 * (oncpu_link, runq_link, offcpu_link: a few ids); any other row whole (oncpu_rows,
 * runq_rows, offcpu_rows); oncpu, runq_waits and offcpu are views joining the two.
 * derive_sched.c decides which, by the rules the views follow (derive_sched_store.c
 * writes them down once). Internal to import/.
 */
#ifndef IMPORT_DERIVE_SCHED_STORE_H
#define IMPORT_DERIVE_SCHED_STORE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "import/derive_int.h"
#include "import/derive_sched_totals.h" /* enum sched_table */

/* Links wait in a heap by id, so that they reach their table in id order: rows come in
 * the order their intervals end, a little out of id order across CPUs, and SQLite's
 * B-tree splits a page half full for each row that lands before the end. */
#define SCHED_REORDER 512
struct sched_link {
	int64_t v[4];
};
struct sched_heap {
	struct sched_link *a;
	int n;
};

struct sched_store {
	sqlite3 *db;
	const char *schema;
	const char *wakeup;   /* the wakeup table the pass reads */
	bool links;           /* links may be made: the events' ids are their rowids, tasks has its names */
	struct drows rows[3]; /* oncpu_rows, runq_rows, offcpu_rows */
	struct drows link[3]; /* oncpu_link, runq_link, offcpu_link */
	struct sched_heap heap[3];
	struct dmap states;   /* prev_state values a link shows: their text into sched_state_texts */
};

/* The tables made empty (schema/derive_sched.sql), the writers ready. 0, or -1 after msg_error. */
int sched_store_open(struct sched_store *s, sqlite3 *db, const char *schema, const char *wakeup);
/* The cells of a whole row of table t (SCHED_*); then sched_store_add. */
static inline struct dcell *sched_store_cells(struct sched_store *s, int t)
{
	return drows_cells(&s->rows[t]);
}
int sched_store_add(struct sched_store *s, int t);
/*
 * Links (s->links true, the row as the view gives it; derive_sched.c checks). An interval
 * from switch start_id to switch start_id + end_gap (its prev_state end_state); a wait of
 * switch-in run_id queued by the event run_id - q_gap of kind (1 a switch-out still
 * runnable, 2 a wakeup, 3 sched_wakeup_new); an off-CPU stretch from switch-out
 * on_id - off_gap (its prev_state state) to on_id, queued likewise.
 */
int sched_store_link_oncpu(struct sched_store *s, int64_t start_id, int64_t end_gap, struct dint end_state);
int sched_store_link_runq(struct sched_store *s, int64_t run_id, int64_t q_gap, int kind);
int sched_store_link_offcpu(struct sched_store *s, int64_t on_id, int64_t off_gap, int64_t q_gap, int kind,
			    struct dint state);
/* The rest written and the views made. 0, or -1 after msg_error. */
int sched_store_finish(struct sched_store *s);
void sched_store_close(struct sched_store *s);
/* Does SCHEMA hold the stored rows and their views? */
bool sched_store_present(sqlite3 *db, const char *schema);

/* prev_state as the kernel prints it (kernel 4.14 on); "" for NULL, as the SQL gives.
 * buf: 24 bytes. */
const char *sched_state_text(struct dint s, char *buf);

#endif
