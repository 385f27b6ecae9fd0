/* SPDX-License-Identifier: MIT */
/*
 * syscall_pairing.h - the rule that pairs a syscall entry with its exit, for the two
 * that apply it: derive_syscalls.c over the imported syscall tables (every pair a
 * syscall_pairs row, and the totals), and import_stream.c over the decoded events
 * when only the totals are asked (`report syscount`, no time or CPU filter: 20 M
 * events summed in seconds, none of them imported). The rule is in syscall_pairing.c.
 * Internal to import/.
 */
#ifndef IMPORT_SYSCALL_PAIRING_H
#define IMPORT_SYSCALL_PAIRING_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "import/derive_int.h"
#include "import/derive_syscall_totals.h"
#include "import/derive_util.h"

/* A syscall NAME (of sys_enter_NAME / sys_exit_NAME) and its number in syscall_names. */
struct syscall_name {
	char *text;
	int64_t entries; /* its entries in the capture: the commonest get the smallest numbers */
	int number;      /* -1: none (yet): import_syscalls.c numbers them as first seen */
};

/* A syscall_pairs row. */
struct syscall_call {
	int64_t id, gap;
	struct dint ts_rel, cpu, tid;
	int syscall;  /* its number */
	bool paired;
	struct dcell ret, dur; /* ret's type may be SQLITE_BLOB (derive_util.h) */
};

/* One syscall event, in id order. */
struct syscall_event {
	int64_t id;
	struct dint ts, cpu, tid;
	int name;               /* index into the names */
	bool is_exit;
	const struct dcell *ret; /* an exit's return value */
};

struct syscall_pairing {
	struct syscall_name *names;
	int nnames;
	struct pmap threads;        /* the threads inside a syscall */
	struct syscall_totals totals;
	int64_t base;               /* ts_rel = ts - base */
	bool overflow;              /* some ts - base did not fit */
	struct dint first, last;    /* of every syscall event */
	size_t end_slot;            /* at the end: the next thread still waiting */
	/* Were events lost (any CPU) after time a and up to b? */
	bool (*lost)(void *arg, struct dint a, struct dint b);
	/* Where the next row is made (its dcells' buffers the caller's), or NULL (out of
	 * memory); the row is the caller's once syscall_pairing_event/_end returns. */
	struct syscall_call *(*slot)(void *arg);
	/* Is the call entered at ts on cpu one to count (a windowed derivation)? NULL:
	 * every call. A call not counted makes no row and adds to no total; its thread's
	 * totals row is there all the same, with calls 0 (syscall_totals_seen). */
	bool (*counts)(void *arg, struct dint ts, struct dint cpu);
	void *arg;
};

/* What a tep event is to the pairing: 0 none, SYSCALL_ENTRY (syscalls:sys_enter_NAME) or
 * SYSCALL_EXIT (syscalls:sys_exit_NAME), NAME not empty; its NAME then into *name. */
enum { SYSCALL_ENTRY = 1, SYSCALL_EXIT };
struct tep_event;
int syscall_pairing_kind(const struct tep_event *ev, const char **name);
/* The index of NAME, added (unnumbered) when new, its entries added; -1 out of memory. */
int syscall_pairing_name(struct syscall_pairing *p, const char *text, int64_t entries);
/* Number the names by their entries, the commonest first (0 and 1 take no bytes in a
 * row); ties by name. 0, or -1 after msg_error. */
int syscall_pairing_number(struct syscall_pairing *p);
/* Ready for the events (names kept), with base as ts_rel's origin. */
void syscall_pairing_start(struct syscall_pairing *p, int64_t base);
/* The next event: 0, or -1 after msg_error. */
int syscall_pairing_event(struct syscall_pairing *p, const struct syscall_event *ev);
/* The next entry still waiting at the end, as an unpaired call: 1 made, 0 none left, -1. */
int syscall_pairing_end(struct syscall_pairing *p);
/*
 * Into SCHEMA's syscall_names, syscall_totals and syscall_range (made empty by
 * schema/derive_syscall_totals.sql): the names, the totals, the first and last time.
 * renumber: the names were not numbered before the events (each number is its index
 * then), so number them now and the totals with them. 0, or -1 after msg_error.
 */
int syscall_pairing_write(struct syscall_pairing *p, sqlite3 *db, const char *schema, bool renumber);
/* The threads and totals freed (the names kept: syscall_pairing_free). */
void syscall_pairing_stop(struct syscall_pairing *p);
void syscall_pairing_free(struct syscall_pairing *p);

#endif
