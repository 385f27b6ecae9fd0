// SPDX-License-Identifier: MIT
/*
 * crc32c.c - CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum
 * of iSCSI/ext4/btrfs, chosen because x86 and arm64 compute it in hardware.
 *
 * Portable slicing-by-8 table version: at ~1-2 GB/s it is far faster than zstd
 * decompression of the same bytes, so the hardware instruction is not worth the
 * per-architecture code yet. ftz_crc32c(0, "123456789", 9) == 0xE3069283.
 */
#include <pthread.h>

#include "ftz.h"

static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^
					  crc_table[0][crc_table[t - 1][i] & 0xff];
}

/* CRC is chainable: ftz_crc32c(ftz_crc32c(0, a, n), b, m) == crc of a||b. */
uint32_t ftz_crc32c(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;

	pthread_once(&crc_once, crc_init);
	crc = ~crc;
	while (len >= 8) {
		/* Byte-wise loads keep this independent of host endianness. */
		uint32_t lo = crc ^ (p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24);
		uint32_t hi = p[4] | p[5] << 8 | p[6] << 16 | (uint32_t)p[7] << 24;

		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		      crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
		      crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
	return ~crc;
}
