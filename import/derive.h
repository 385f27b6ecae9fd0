/* SPDX-License-Identifier: MIT */
/*
 * derive.h - tables derived from the event tables ONCE, in C, in one ordered pass over
 * their inputs, instead of window-function views re-run by every report (issue 23).
 * The documented names (docs/SQL.md) are kept: what was a TEMP view is now a table,
 * or a thin view over a narrow table, with the same columns and rows. The SQL views
 * they replace live on in tests/oracle/ as the reference the C must agree with.
 *
 * Each derive_* reads its inputs from db (any of them may be missing: a capture
 * without those events derives empty tables) and creates its outputs in SCHEMA:
 * "main" (the cache database, at import, on a writable connection) or "temp" (a
 * .db made elsewhere that lacks them, on a report's read-only connection). Existing
 * outputs in that schema are replaced. 0, or -1 after msg_error (common/msg.h).
 */
#ifndef IMPORT_DERIVE_H
#define IMPORT_DERIVE_H

#include <sqlite3.h>
#include <stdbool.h>

/* Scheduler intervals: oncpu, runq_waits, offcpu (import/derive_sched.c).
 * Inputs: sched_switch, sched_wakeup, sched_wakeup_new, sched_waking, lost_events. */
int derive_sched(sqlite3 *db, const char *schema);

/* Block I/O pairs: io_pairs, io, io_dropped (import/derive_io.c).
 * Inputs: block_rq_insert, block_rq_issue, block_rq_complete, lost_events. */
int derive_io(sqlite3 *db, const char *schema);

/* Syscall entries paired with their exits: syscall_calls (import/derive_syscalls.c).
 * Inputs: every syscalls:sys_enter_* / sys_exit_* table (event_types), lost_events,
 * tasks. */
int derive_syscalls(sqlite3 *db, const char *schema);

/* An empty syscall_pairs in SCHEMA, for SQL over it where only syscall_totals were
 * made (reports/snoop.c). 0, or -1 after msg_error. */
int derive_syscall_pairs_empty(sqlite3 *db, const char *schema);

/* Does SCHEMA already hold the outputs of derivation NAME ("sched", "io", "syscalls",
 * "syscall_totals")? */
bool derive_present(sqlite3 *db, const char *schema, const char *name);

/*
 * The derivations, for the importer: each is made in the cache once all of its
 * input types the capture has are imported (import.c), except those made only when
 * asked (import.h import_types.derive): syscall pairs cost about as much as
 * importing the syscalls again, and only syscount, opensnoop and `ftana sql` read
 * them; syscall_totals (syscall_names, syscall_totals, syscall_range) are what
 * syscount reads without a time or CPU filter, made with the pairs or streamed
 * without them. Ends with an entry whose name is NULL.
 */
struct derivation {
	const char *name;
	const char *const *inputs;   /* SYSTEM:EVENT globs, NULL-terminated */
	bool on_request;
	int (*derive)(sqlite3 *db, const char *schema); /* NULL: streamed */
	/* Made by the import pass from the decoded events, its inputs not imported
	 * (import_stream.c), unless the pass also makes made_by, which makes it too. */
	bool streamed;
	const char *made_by;
};
extern const struct derivation derivations[];

#endif
