// SPDX-License-Identifier: MIT
/*
 * fuzz_ftz.c - libFuzzer target: a .ftz through reader -> decode -> import ->
 * info, sql and report tpoint (tests/fuzz/harness.c).
 *
 * Mutated bytes almost never keep a CRC-32C right, so random inputs would all stop
 * at the first section header: the target re-signs the input first (fuzz_resign,
 * harness.h), so the fuzzer's mutations reach the payload parsers, libtraceevent
 * and the importer.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fuzz_resign(copy, size);
	fuzz_run_ftana(copy, size, ".ftz");
	free(copy);
	return 0;
}
