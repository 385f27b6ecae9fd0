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
 * Import FTZ into a new database at DB (which must not exist yet; the caller
 * builds into a temporary name and renames). progress: print pages done/total
 * and events/s on stderr while importing. 0, or -1 after a one-line error
 * (common/msg.h); -2 after one when the .ftz is damaged before its metadata is
 * complete: nothing to import. The damage of an import that succeeded is in *res,
 * not said.
 */
int import_ftz(const char *ftz, const char *db, bool progress, struct import_result *res);
/* The same for a capture of several files (decode.h dec_open_set: a --rotate series). */
int import_ftz_set(const char *const *inputs, size_t n, const char *db, bool progress,
		   struct import_result *res);

#endif
