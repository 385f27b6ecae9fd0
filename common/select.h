/* SPDX-License-Identifier: MIT */
/*
 * select.h - the k-th smallest of an array of integers, in expected linear time (a
 * median for import/'s evictions, a percentile for store/nearest_rank.c).
 */
#ifndef COMMON_SELECT_H
#define COMMON_SELECT_H

#include <stddef.h>
#include <stdint.h>

/* The k-th smallest (0-based, k < n) of a[0..n); a is reordered. */
int64_t select_kth(int64_t *a, size_t n, size_t k);

#endif
