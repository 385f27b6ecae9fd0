// SPDX-License-Identifier: MIT
/*
 * fuzz_db.c - libFuzzer target: a SQLite database given to ftana directly (`ftana
 * info X.db`, `ftana sql`, every `ftana report NAME X.db`), the surface issue 25
 * found hanging on a view that recurses forever. Seeds (tests/test_fuzz.sh): `ftana
 * db` of the samples, and hand-made hostile databases.
 */
#include "tests/fuzz/harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_run_ftana_db(data, size);
	return 0;
}
