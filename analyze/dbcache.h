/* SPDX-License-Identifier: MIT */
/* dbcache.h - building databases from .ftz files (ftana_open in ftana.h uses it). */
#ifndef DBCACHE_H
#define DBCACHE_H

#include <stdbool.h>

#include "analyze/ftana.h"

/*
 * Import FTZ into OUT (through OUT.tmp.PID renamed at the end; progress on a
 * terminal). Prints a one-line error and returns -1 on failure; *damaged is set
 * (and a warning printed once) when the .ftz is damaged -- also when the damage
 * comes before anything could be imported, in which case -1 is returned.
 */
int dbcache_build(const char *ftz, const char *out, bool *damaged);

#endif
