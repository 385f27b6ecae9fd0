/* SPDX-License-Identifier: MIT */
/* perfetto.h - the Trace Event Format document of `ftana export` (perfetto.c). */
#ifndef EXPORT_PERFETTO_H
#define EXPORT_PERFETTO_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include "reports/slice.h"

struct slice;

/* What went into the document (the command's summary, and tests). */
struct perfetto_counts {
	uint64_t cpu_slices, call_slices, io_slices, markers, lost_counters;
};

/*
 * Write the timeline of the database db (its report views defined: report_sql_views)
 * to out, limited to slice (NULL: everything). FILE names the source in the
 * document. 0, or -1 after a one-line error (the document is still closed).
 */
int perfetto_write(sqlite3 *db, const char *file, const struct slice *slice, FILE *out,
		   struct perfetto_counts *counts);

#endif
