// SPDX-License-Identifier: MIT
/*
 * fuzz_set.c - libFuzzer target: the files of one capture set, a disk ring (head and
 * segments) or a --rotate series, cut from one input (fuzz_run_ftana_set, harness.h)
 * through capture_set -> decode -> import -> info and sql. Seeds: a small ring and
 * series recorded by ftrec (tests/data/sets/, mkseeds.py joins their files).
 */
#include "tests/fuzz/harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_run_ftana_set(data, size);
	return 0;
}
