/* SPDX-License-Identifier: MIT */
/*
 * ftz_int.h - what the format/ sources share and the programs do not need:
 * little-endian field access and the two fixed headers (FORMAT.md sections 2-3).
 */
#ifndef FTZ_INT_H
#define FTZ_INT_H

#include <stdint.h>
#include <string.h>

#define FTZ_MAGIC          "\x89" "FTZ\r\n\x1a\n"
#define FTZ_MAGIC_LEN      8
#define FTZ_FILE_HDR_LEN   16
#define FTZ_SEC_HDR_LEN    32
#define FTZ_SEC_CRC_SPAN   28   /* header bytes covered by header_crc32c */
#define FTZ_MAX_LEN        (1ull << 30) /* larger stored/raw lengths are damage */
#define FTZ_FILE_FIXED_LEN 4    /* phase, reserved, name_len */
#define FTZ_PAGES_FIXED_LEN 16  /* cpu, page_size, nr_pages, reserved */
#define FTZ_SNAPSHOT_FIXED_LEN 24 /* mono_ns, wall_ns, round, name_len, reserved */
#define FTZ_FIXED_HEADER_MAX 64 /* a payload iov this small is a fixed header */

/* The file format is little-endian on every host: always go through these. */
static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = v; p[1] = v >> 8;
}
static inline void put_le32(uint8_t *p, uint32_t v)
{
	put_le16(p, v); put_le16(p + 2, v >> 16);
}
static inline void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, v); put_le32(p + 4, v >> 32);
}
static inline uint16_t get_le16(const uint8_t *p)
{
	return p[0] | (uint16_t)p[1] << 8;
}
static inline uint32_t get_le32(const uint8_t *p)
{
	return get_le16(p) | (uint32_t)get_le16(p + 2) << 16;
}
static inline uint64_t get_le64(const uint8_t *p)
{
	return get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

/* A section header as it is on disk, minus the checksum of itself. */
struct ftz_sec_hdr {
	uint32_t type;
	uint32_t flags;
	uint64_t stored_len;
	uint64_t raw_len;
	uint32_t payload_crc;
};

/* header.c */
void ftz_file_hdr_encode(uint8_t out[FTZ_FILE_HDR_LEN]);
void ftz_sec_hdr_encode(const struct ftz_sec_hdr *h, uint8_t out[FTZ_SEC_HDR_LEN]);
/* Returns 0, or -1 when the header checksum does not match. */
int ftz_sec_hdr_decode(const uint8_t in[FTZ_SEC_HDR_LEN], struct ftz_sec_hdr *h);

#endif /* FTZ_INT_H */
