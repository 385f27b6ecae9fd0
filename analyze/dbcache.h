/* SPDX-License-Identifier: MIT */
/* dbcache.h - building databases from .ftz files (ftana_open in ftana.h uses it). */
#ifndef DBCACHE_H
#define DBCACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "analyze/ftana.h"

/*
 * Import FTZ (a .ftz or trace.dat) into OUT, signed as ours (cache_trust.h),
 * through OUT.tmp.PID renamed at the end, with progress on a terminal. The import
 * runs in a child process: a crash on hostile input costs the import, not ftana,
 * and OUT.tmp.PID is removed on every exit path ftana controls. Prints a one-line
 * error and returns -1 on failure; *damaged is set (and a warning printed once)
 * when the input is damaged -- also when the damage comes before anything could
 * be imported, in which case -1 is returned.
 */
int dbcache_build(const char *ftz, const char *out, bool *damaged);
/* The same for a capture of several files (one --rotate series, capture_set.h). */
int dbcache_build_set(const char *const *inputs, size_t n, const char *out, bool *damaged);
/* ftana_open for several files of one --rotate series (one: ftana_open). */
sqlite3 *ftana_open_set(const char *const *inputs, size_t n, bool *damaged);

/* ftana's per-user cache directory ($XDG_CACHE_HOME/ftana or ~/.cache/ftana),
 * created (0700) if missing. 0, or -errno. */
int ftana_cache_dir(char *out, size_t len);

#endif
