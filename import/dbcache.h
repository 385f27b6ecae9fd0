/* SPDX-License-Identifier: MIT */
/*
 * dbcache.h - a capture as a database: every ftana command takes a .ftz (a ring's
 * head, a --rotate series' files), a trace.dat or a .db, and reads it through here.
 * A capture is imported once (import.h) into a cached database beside it
 * (FILE.ftz.db) or, when that directory is not writable, under
 * $XDG_CACHE_HOME/ftana/; the cache is reused only while store/trust.h proves that
 * this user's ftana made it from this very input.
 *
 * Every connection returned is read-only, hardened and guarded (store/sqlguard.h:
 * GUARD_REPORT). Functions print a one-line error (common/msg.h) before they fail.
 */
#ifndef IMPORT_DBCACHE_H
#define IMPORT_DBCACHE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

#include "import/import.h"

/*
 * Open PATH for reading: a .db as is; a .ftz or trace.dat through its cache, built
 * when missing or not ours, with the rows of the event TYPES asked for (import.h;
 * NULL: every type; none: only what every question needs). A cache that lacks some
 * of them gets them added (a copy extended, signed and renamed over it), so a
 * capture is imported only as far as the questions asked of it so far need. *damaged is set when the input was damaged (a warning
 * with the offset has been given once). NULL after a one-line error (*damaged is
 * then set when the .ftz is damaged before anything could be imported).
 */
sqlite3 *dbcache_open(const char *path, const struct import_types *types, bool *damaged);
/* The same for several files of one --rotate series (one: dbcache_open). */
sqlite3 *dbcache_open_set(const char *const *inputs, size_t n, const struct import_types *types,
			  bool *damaged);
/* The same after checking that each of FILES exists (one line naming the one that
 * does not): for `ftana info`, `sql` and the reports, whose operands may be typos. */
sqlite3 *dbcache_open_inputs(const char *const *files, size_t n, const struct import_types *types,
			     bool *damaged);

/*
 * What `ftana info` needs of FILES (one capture): its database when one was made
 * (trusted), else a summary read from the capture now (import.h IMPORT_SUMMARY: the
 * counts, losses, spans and stacks, no event rows) into a temporary database that
 * is gone once closed. As dbcache_open otherwise.
 */
sqlite3 *dbcache_summary(const char *const *files, size_t n, bool *damaged);

/*
 * Import INPUT (a .ftz or trace.dat) into OUT, signed as ours, through OUT.tmp.PID
 * renamed at the end, with progress on a terminal. The import runs in a child
 * process: a crash on hostile input costs the import, not ftana, and OUT.tmp.PID is
 * removed on every exit path ftana controls. 0, or -1 after a one-line error;
 * *damaged as for dbcache_open (-1 also when the damage comes before anything).
 */
int dbcache_build(const char *input, const char *out, bool *damaged);
/* The same for a capture of several files (one --rotate series, capture_set.h). */
int dbcache_build_set(const char *const *inputs, size_t n, const char *out, bool *damaged);

/* Is PATH a capture (a .ftz or trace.dat), not a .db or something else? */
bool dbcache_is_capture(const char *path);

/*
 * A streamed derivation (import/derive.h; syscall_totals) of the capture FILES made
 * over window W alone, its tables as TEMP tables of the same names on db (hiding the
 * database's own): dbcache_window.c. 1 made; 0 when FILES are not a capture (a .db:
 * its rows are what there is); -1 after a one-line error.
 */
int dbcache_window(sqlite3 *db, const char *const *files, size_t n, const char *const *derive,
		   const struct import_window *w);

/*
 * Called on every database dbcache builds or extends, once its rows are in and before
 * it is signed: what a layer above adds to a database a user keeps (ftana sets it to
 * reports' views_keep). 0, or -1 after an error (the build fails). NULL: nothing.
 */
extern int (*dbcache_keep_hook)(sqlite3 *db);

#endif
