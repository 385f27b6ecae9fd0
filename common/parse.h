/* SPDX-License-Identifier: MIT */
/* parse.h - option values both programs read, parsed one way. */
#ifndef COMMON_PARSE_H
#define COMMON_PARSE_H

#include <stdint.h>

/*
 * "MAJ,MIN" as in /proc/partitions (decimal digits only, MAJ < 4096, MIN < 2^20):
 * the disk as block trace events carry it, the kernel's dev_t MAJ << 20 | MIN.
 * 0, or -1 after "bad OPT 'ARG' (MAJOR,MINOR as in /proc/partitions, e.g. 253,0)".
 */
int parse_dev(const char *opt, const char *arg, uint64_t *dev);

#endif
