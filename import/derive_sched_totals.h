/* SPDX-License-Identifier: MIT */
/*
 * derive_sched_totals.h - sched_tasks and sched_statuses, kept by derive_sched.c as it
 * writes each row (derive_sched_totals.c says what they hold). Internal to import/.
 */
#ifndef IMPORT_DERIVE_SCHED_TOTALS_H
#define IMPORT_DERIVE_SCHED_TOTALS_H

#include "import/derive_int.h"

enum sched_table { SCHED_ONCPU, SCHED_RUNQ, SCHED_OFFCPU, SCHED_NR_TABLES };
#define SCHED_MAX_STATUSES 8

struct sched_totals {
	int64_t t0, t1;  /* the capture's window */
	bool window;     /* known: else no task has CPU time */
	struct dmap tasks;
	/* each table's statuses seen (literals of derive_sched.c; NULL ends a list) */
	const char *status[SCHED_NR_TABLES][SCHED_MAX_STATUSES];
};

void sched_totals_init(struct sched_totals *t, sqlite3 *db);
/* An oncpu row; a runq_waits row (wait_ns: its cell); an offcpu row. 0 or -1 (msg_error). */
int sched_totals_interval(struct sched_totals *t, struct dint pid, const char *comm, int comm_len,
			  struct dint start_ts, struct dint end_ts, const char *status);
int sched_totals_wait(struct sched_totals *t, struct dint pid, const char *comm, int comm_len,
		      const struct dcell *wait_ns, const char *status);
int sched_totals_offcpu(struct sched_totals *t, struct dint pid, const char *status);
/* Into SCHEMA's sched_tasks and sched_statuses (derive_sched.sql made them). */
int sched_totals_write(struct sched_totals *t, sqlite3 *db, const char *schema);
void sched_totals_free(struct sched_totals *t);

#endif
