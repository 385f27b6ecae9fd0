/* SPDX-License-Identifier: MIT */
/*
 * capture_set.h - the files that make one capture: a plain .ftz alone, a disk
 * ring (ftrec --ring: its head NAME.ftz, then the segments NAME.ring-NNNNNN.ftz
 * found beside it) or a series joined on purpose (ftrec --rotate: NAME-0001.ftz
 * NAME-0002.ftz ... given together). FORMAT.md 9 describes the layout.
 *
 * Checked before anything is decoded, each refusal one line naming the file:
 * every member carries the head's capture_id (and boot_id, host, kernel), a ring
 * segment's number is the one in its name, a series file appears once (the same
 * file given twice counts once; two files claiming one place are refused),
 * segment names come only from the head's directory and are plain names there
 * (no '/', no symlinks). Segments missing in the middle are a gap, told in the
 * keys (segment_gaps), never silently closed.
 */
#ifndef CAPTURE_SET_H
#define CAPTURE_SET_H

#include <stdbool.h>
#include <stddef.h>

struct cset {
	char **paths;   /* read in this order: the head (or series file 1) first */
	size_t n;
	bool ring;      /* a disk ring: paths[0] is the head, the rest segments */
	bool series;    /* a --rotate series joined from several files */
	char *keys;     /* "key=value\n" lines about the set (segments, gaps, trimmed), "" for one file */
};

/* Resolve ARGS (one path, or several files of one series) into *cs. 0, or -1 after
 * a one-line error (common/msg.h). */
int cset_open(const char *const *args, size_t nargs, struct cset *cs);
void cset_free(struct cset *cs);
/* An input must be a regular file (a FIFO would hang the first read): 0, or -1 after
 * a one-line error naming PATH and what it is. */
int cset_check_regular(const char *path);
/* Is PATH, existing or not, a name of a segment that reading HEAD_PATH would read: in
 * its directory, named by its INFO's ring_prefix? (For -o: common/out_file.h.) */
bool cset_ring_segment_name(const char *path, const char *head_path);

#endif
