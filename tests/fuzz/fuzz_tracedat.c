// SPDX-License-Identifier: MIT
/*
 * fuzz_tracedat.c - libFuzzer target: a trace-cmd trace.dat through ftana's
 * libtracecmd backend (decode/decode_tracedat.c), the importer and report tpoint.
 * Seeds: tests/data's trace.dat files, tests/hostile's.
 */
#include "tests/fuzz/harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_run_ftana_library_first(data, size, ".dat");
	return 0;
}
