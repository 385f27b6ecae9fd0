// SPDX-License-Identifier: MIT
/*
 * siphash.c - SipHash-2-4, written from the paper ("SipHash: a fast short-input
 * PRF", section 2): 2 compression rounds per 8-byte little-endian block, 4
 * finalization rounds. tests/test_siphash.c checks the paper's test vectors.
 */
#include <string.h>

#include "store/siphash.h"

static inline uint64_t rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

static inline uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void rounds(uint64_t v[4], int n)
{
	while (n--) {
		v[0] += v[1]; v[1] = rotl(v[1], 13); v[1] ^= v[0]; v[0] = rotl(v[0], 32);
		v[2] += v[3]; v[3] = rotl(v[3], 16); v[3] ^= v[2];
		v[0] += v[3]; v[3] = rotl(v[3], 21); v[3] ^= v[0];
		v[2] += v[1]; v[1] = rotl(v[1], 17); v[1] ^= v[2]; v[2] = rotl(v[2], 32);
	}
}

static void block(struct siphash *s, uint64_t m)
{
	s->v[3] ^= m;
	rounds(s->v, 2);
	s->v[0] ^= m;
}

void siphash_init(struct siphash *s, const uint8_t key[SIPHASH_KEY_LEN])
{
	uint64_t k0 = le64(key), k1 = le64(key + 8);

	s->v[0] = k0 ^ 0x736f6d6570736575ull; /* "somepseudorandomlygeneratedbytes" */
	s->v[1] = k1 ^ 0x646f72616e646f6dull;
	s->v[2] = k0 ^ 0x6c7967656e657261ull;
	s->v[3] = k1 ^ 0x7465646279746573ull;
	s->ntail = 0;
	s->total = 0;
}

void siphash_update(struct siphash *s, const void *data, size_t len)
{
	const uint8_t *p = data;

	if (!len)
		return; /* data may be NULL then (an empty blob) */
	s->total += len;
	if (s->ntail) {
		size_t take = 8 - s->ntail < len ? 8 - s->ntail : len;

		memcpy(s->tail + s->ntail, p, take);
		s->ntail += take;
		p += take;
		len -= take;
		if (s->ntail < 8)
			return;
		block(s, le64(s->tail));
		s->ntail = 0;
	}
	for (; len >= 8; p += 8, len -= 8)
		block(s, le64(p));
	memcpy(s->tail, p, len);
	s->ntail = len;
}

uint64_t siphash_final(struct siphash *s)
{
	uint64_t b = s->total << 56;

	for (size_t i = 0; i < s->ntail; i++)
		b |= (uint64_t)s->tail[i] << (8 * i);
	block(s, b);
	s->v[2] ^= 0xff;
	rounds(s->v, 4);
	return s->v[0] ^ s->v[1] ^ s->v[2] ^ s->v[3];
}

uint64_t siphash24(const uint8_t key[SIPHASH_KEY_LEN], const void *data, size_t len)
{
	struct siphash s;

	siphash_init(&s, key);
	siphash_update(&s, data, len);
	return siphash_final(&s);
}
