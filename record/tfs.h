/* SPDX-License-Identifier: MIT */
/* tfs.h - small file helpers for tracefs and /proc files (no state). */
#ifndef RECORD_TFS_H
#define RECORD_TFS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Read a whole file to EOF with a growing buffer: tracefs and /proc files report
 * a size of 0 or a stale one, and kallsyms may change while being read.
 * Returns a NUL-terminated malloc'd buffer (*len without the NUL), or NULL with errno set.
 */
char *tfs_read(const char *path, size_t *len);

/* tfs_read with surrounding white space removed; NULL with errno set. */
char *tfs_read_trimmed(const char *path);

/*
 * Write VALUE (O_TRUNC unless append) through one open file, continuing after
 * short counts (list files take one entry per write). 0 or -errno.
 */
int tfs_write(const char *path, const char *value, bool append);

/*
 * tfs_write telling whether the file could be opened: a refused write may still
 * have changed it (an event filter keeps the refused text and drops the old one).
 */
int tfs_write_opened(const char *path, const char *value, bool append, bool *opened);

/*
 * Write TEXT one line per write() through one open file (O_TRUNC unless append),
 * going on past a line the kernel refuses: a restore puts back every entry it
 * can, e.g. when one function of a saved set_ftrace_filter went with its module.
 * Returns 0 or the first -errno; *bad_line (may be NULL) is its line number, from
 * 1, or 0 when the file could not be opened (then nothing changed).
 */
int tfs_write_lines(const char *path, const char *text, bool append, int *bad_line);

/* snprintf into a PATH_MAX buffer; aborts on truncation (paths are ours). */
char *tfs_path(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

bool tfs_exists(const char *path);

/* The bracketed entry of a list file like trace_clock: "[local] global" -> "local". */
char *tfs_bracketed(const char *text);

#endif /* RECORD_TFS_H */
