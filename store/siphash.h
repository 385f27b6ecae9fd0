/* SPDX-License-Identifier: MIT */
/*
 * siphash.h - SipHash-2-4 (Aumasson & Bernstein, 2012), a keyed 64-bit MAC,
 * streaming. ftana signs its cache databases with it (cache_trust.h): without
 * the per-user key nobody can make a database that passes as ours.
 */
#ifndef SIPHASH_H
#define SIPHASH_H

#include <stddef.h>
#include <stdint.h>

#define SIPHASH_KEY_LEN 16

struct siphash {
	uint64_t v[4];
	uint8_t tail[8];   /* bytes of an unfinished 8-byte block */
	size_t ntail;
	uint64_t total;    /* bytes fed so far (its low byte goes into the last block) */
};

void siphash_init(struct siphash *s, const uint8_t key[SIPHASH_KEY_LEN]);
void siphash_update(struct siphash *s, const void *data, size_t len);
uint64_t siphash_final(struct siphash *s);

/* One-shot convenience. */
uint64_t siphash24(const uint8_t key[SIPHASH_KEY_LEN], const void *data, size_t len);

#endif
