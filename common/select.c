/* SPDX-License-Identifier: MIT */
/*
 * select.c - select_kth (select.h): quickselect, Hoare's partition around a pivot
 * drawn at random, so that no order of the values (a hostile capture's or database's)
 * makes it quadratic but by chance.
 */
#include "common/select.h"

int64_t select_kth(int64_t *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ n;

	while (lo < hi) {
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17; /* xorshift64 */
		int64_t pivot = a[lo + seed % (hi - lo + 1)];
		size_t i = lo, j = hi;

		while (i <= j) { /* then a[lo..j] <= pivot <= a[i..hi] */
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				int64_t t = a[i];

				a[i++] = a[j];
				a[j] = t;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break; /* between them: equal to the pivot */
	}
	return a[k];
}
