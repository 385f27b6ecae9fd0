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

/* Write VALUE with one write() (O_TRUNC unless append). 0 or -errno. */
int tfs_write(const char *path, const char *value, bool append);

/* snprintf into a PATH_MAX buffer; aborts on truncation (paths are ours). */
char *tfs_path(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

bool tfs_exists(const char *path);

/* The bracketed entry of a list file like trace_clock: "[local] global" -> "local". */
char *tfs_bracketed(const char *text);

#endif /* RECORD_TFS_H */
