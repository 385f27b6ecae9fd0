/* SPDX-License-Identifier: MIT */
/*
 * io_options.h - the options iolat and iolatency share, with perf-tools' letters
 * (iosnoop and iolatency: -i iotype, a glob of the kernel's rwbs letters, as `ftrec
 * iolat -i` records it; the interval, which perf-tools' iolatency takes as an operand,
 * is --interval here).
 */
#ifndef REPORTS_IO_OPTIONS_H
#define REPORTS_IO_OPTIONS_H

#include <sqlite3.h>
#include <stdint.h>

#define IO_OPTION_TYPE_HELP "only I/Os whose type (the kernel's rwbs letters: R, W,\n" \
			    "S, M, ...) matches the glob TYPE, as perf-tools' -i\n" \
			    "('*R*': every read)"

/* -i TYPE: a glob (SQLite GLOB, as fnmatch(3) takes it). 0, or -1 after a one-line
 * error (a number: the interval that -i was before is --interval now). */
int io_option_type(const char *arg, const char **glob);
/* --interval SECS: at least a millisecond (a finer cut of a long capture is millions of
 * tables), at most 10^8 s (interval ends stay far inside int64 ns). 0, or -1. */
int io_option_interval(const char *arg, int64_t *step_ns);

/* After the report: one note for -D DEV (>= 0) or -i TYPE (non-NULL) that matched no
 * I/O of the capture (the `io` view), naming the disks or types it has. */
void io_options_note_unmatched(sqlite3 *db, int64_t dev, const char *type);

#endif
