// SPDX-License-Identifier: MIT
/*
 * fuzz_ftz.c - libFuzzer target: a .ftz through reader -> decode -> import ->
 * info, sql and report tpoint (tests/fuzz/harness.c).
 *
 * Mutated bytes almost never keep a CRC-32C right, so random inputs would all stop
 * at the first section header. The target therefore re-signs the input before
 * ftana sees it: every section whose header and payload are present gets correct
 * checksums (and, uncompressed, raw_len = stored_len), so the fuzzer's mutations
 * reach the payload parsers, libtraceevent and the importer. Damage is still
 * reachable: a length past the end of the input (truncated payload), a bad zstd
 * frame, lengths over 1 GiB.
 */
#include <stdlib.h>
#include <string.h>

#include "format/ftz.h"
#include "tests/fuzz/harness.h"

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/* Section header (FORMAT.md 3): type, flags, stored_len, raw_len, payload crc, header crc. */
static void resign(uint8_t *buf, size_t size)
{
	size_t off = 16;

	while (size - off >= 32 && off < size) {
		uint8_t *h = buf + off;
		uint64_t stored = get_le(h + 8, 8);
		uint32_t flags = (uint32_t)get_le(h + 4, 4);
		bool whole = stored <= size - off - 32;

		if (whole) {
			if (!(flags & 1))
				put_le(h + 16, stored, 8);
			put_le(h + 24, ftz_crc32c(0, h + 32, stored), 4);
		}
		put_le(h + 28, ftz_crc32c(0, h, 28), 4);
		if (!whole)
			break;
		off += 32 + stored;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	resign(copy, size);
	fuzz_run_ftana(copy, size, ".ftz");
	free(copy);
	return 0;
}
