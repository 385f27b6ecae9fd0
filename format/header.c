// SPDX-License-Identifier: MIT
/* header.c - encode/decode the fixed file header and section headers (FORMAT.md 2-3). */
#include "ftz.h"
#include "ftz_int.h"

void ftz_file_hdr_encode(uint8_t out[FTZ_FILE_HDR_LEN])
{
	memcpy(out, FTZ_MAGIC, FTZ_MAGIC_LEN);
	put_le16(out + 8, FTZ_VERSION_MAJOR);
	put_le16(out + 10, FTZ_VERSION_MINOR);
	put_le32(out + 12, 0);
}

void ftz_sec_hdr_encode(const struct ftz_sec_hdr *h, uint8_t out[FTZ_SEC_HDR_LEN])
{
	put_le32(out, h->type);
	put_le32(out + 4, h->flags);
	put_le64(out + 8, h->stored_len);
	put_le64(out + 16, h->raw_len);
	put_le32(out + 24, h->payload_crc);
	put_le32(out + 28, ftz_crc32c(0, out, FTZ_SEC_CRC_SPAN));
}

int ftz_sec_hdr_decode(const uint8_t in[FTZ_SEC_HDR_LEN], struct ftz_sec_hdr *h)
{
	if (get_le32(in + 28) != ftz_crc32c(0, in, FTZ_SEC_CRC_SPAN))
		return -1;
	h->type = get_le32(in);
	h->flags = get_le32(in + 4);
	h->stored_len = get_le64(in + 8);
	h->raw_len = get_le64(in + 16);
	h->payload_crc = get_le32(in + 24);
	return 0;
}

bool ftz_sniff(const void *buf, size_t n)
{
	return n >= 1 && !memcmp(buf, FTZ_MAGIC, n < FTZ_MAGIC_LEN ? n : FTZ_MAGIC_LEN);
}
