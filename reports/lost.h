/* SPDX-License-Identifier: MIT */
/*
 * lost.h - what a report says first when the events it covers are incomplete: how
 * many the kernel lost (the pages' flags, count or "unknown size"), when and on
 * which CPU, and the files of a ring or series that are missing; split per file
 * when the losses lie in more than one (schema/info_segments.sql).
 */
#ifndef REPORTS_LOST_H
#define REPORTS_LOST_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include "reports/slice.h"

/*
 * The warning for the events between the first and last timestamps RANGE_SQL returns
 * (one row: min ts, max ts; NULL: the whole capture, every event type whether
 * imported or not), within [since, until): its one line of text to OUT (nothing
 * when nothing was lost). 0, or -1 after an error message.
 */
int lost_describe(sqlite3 *db, const char *range_sql, int64_t since, int64_t until, FILE *out);

/* The same as one warning (common/msg.h: stderr and the JSON document), over the
 * slice's window. 0 or -1. */
struct slice;
int lost_warn(sqlite3 *db, const char *range_sql, const struct slice *s);

#endif
