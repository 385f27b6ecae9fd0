/* SPDX-License-Identifier: MIT */
/*
 * derive_syscall_totals.h - syscall_totals, kept by derive_syscalls.c as it makes each
 * syscall_pairs row (derive_syscall_totals.c says what it holds). Internal to import/.
 */
#ifndef IMPORT_DERIVE_SYSCALL_TOTALS_H
#define IMPORT_DERIVE_SYSCALL_TOTALS_H

#include <sqlite3.h>
#include <stdbool.h>

#include "import/derive_int.h"
#include "import/derive_util.h"

struct syscall_totals {
	struct pmap threads; /* per (syscall, thread) */
	bool valid;          /* false: some row the totals cannot stand for (none are written) */
};

void syscall_totals_init(struct syscall_totals *t);
/* A syscall_pairs row: its syscall's number, thread, and when paired its ret and dur_ns
 * cells (NULL when unpaired). 0, or -1 out of memory (msg_error). */
int syscall_totals_add(struct syscall_totals *t, int syscall, struct dint tid, const struct dcell *ret,
		       const struct dcell *dur);
/* A row added paired that is unpaired after all (import_stream.c: a loss at its exit's
 * time came after it): its ret and dur_ns, both integers, taken back. */
/* The thread's row, with nothing added: a call outside a window (syscall_pairing.counts)
 * still says the thread made syscalls in the capture (calls 0). 0, or -1 out of memory. */
int syscall_totals_seen(struct syscall_totals *t, int syscall, struct dint tid);
void syscall_totals_unpair(struct syscall_totals *t, int syscall, struct dint tid, int64_t ret, int64_t dur);
/* Some row the totals cannot stand for: none are written, syscall_range.totals is 0. */
void syscall_totals_give_up(struct syscall_totals *t);
/* Into SCHEMA's syscall_totals (derive_syscall_totals.sql made it), each syscall
 * number_of[the number it was added with] (NULL: as added); *valid: whether the rows
 * stand for every call. 0, or -1 after msg_error. */
int syscall_totals_write(struct syscall_totals *t, sqlite3 *db, const char *schema, const int *number_of,
			 bool *valid);
void syscall_totals_free(struct syscall_totals *t);

#endif
