/* SPDX-License-Identifier: MIT */
/* import.h - decode a .ftz into a new SQLite database (schema: schema/tables.sql). */
#ifndef IMPORT_H
#define IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct import_result {
	uint64_t events;        /* rows in typed tables */
	uint64_t stacks;        /* kernel_stack events attached to an event */
	bool damaged;           /* the .ftz was damaged: everything before it was imported */
	uint64_t damage_offset;
	char damage_reason[160];
};

/*
 * Import FTZ, every event type, into a new database at DB (which must not exist
 * yet; the caller builds into a temporary name and renames). progress: print pages
 * done/total and events/s on stderr while importing. 0, or -1 after a one-line
 * error (common/msg.h); -2 after one when the .ftz is damaged before its metadata
 * is complete: nothing to import. The damage of an import that succeeded is in
 * *res, not said.
 */
int import_ftz(const char *ftz, const char *db, bool progress, struct import_result *res);

/* Which event types an import writes rows for: SYSTEM:EVENT globs (fnmatch(3)); and
 * the derivations made only when asked (import/derive.h) that are asked for. */
struct import_types {
	const char *const *specs;
	size_t n;
	const char *const *derive; /* NULL-terminated, or NULL */
	const struct import_window *window; /* IMPORT_WINDOW's, else NULL */
};

/* The calls a windowed derivation counts (IMPORT_WINDOW): those whose entry lies in
 * [since_ns, until_ns) of the trace clock, on a CPU of cpus (a bitmap of nr_cpu_words
 * words; NULL: every CPU), as a report's slice takes them (reports/slice.h). */
struct import_window {
	int64_t since_ns, until_ns;
	const uint64_t *cpus;
	size_t nr_cpu_words;
};
/* No type: only what every question needs (meta, tasks, losses, stacks, ...). */
extern const struct import_types import_types_none;
/* (NULL instead of an import_types: every type and every derivation: `ftana db`,
 * `ftana sql`.) */

/* What a pass of import_capture makes of DB. */
enum import_mode {
	IMPORT_NEW,     /* a new database: the first pass also writes what every question
			 * needs (meta, event_types with every type's count, tasks, losses,
			 * stacks, symbols, cpu_stats, cpu_spans) */
	IMPORT_EXTEND,  /* one an earlier pass made from the same capture: the types asked
			 * for that it lacks are added, nothing else changes */
	IMPORT_SUMMARY, /* a new database of what `ftana info` shows: as IMPORT_NEW without
			 * symbols and tasks, and rows only of the --trigger event's type */
	IMPORT_WINDOW,  /* a new database of the streamed derivation asked for alone
			 * (import/derive.h; syscall_totals), over types->window: what a
			 * report with a time or CPU filter reads instead of millions of rows */
};

/*
 * Import the capture INPUTS (one file, a ring's head, or a --rotate series:
 * decode.h dec_open_set) into DB, the rows of TYPES only (NULL: every type), as
 * import_ftz does; ids, stack ids and names are those a full import gives them,
 * whatever the passes. Same returns.
 */
int import_capture(const char *const *inputs, size_t n, const char *db, enum import_mode mode,
		   const struct import_types *types, bool progress, struct import_result *res);

#endif
