// SPDX-License-Identifier: MIT
/*
 * prefetch.c - each CPU's next PAGES batch read and decompressed ahead by a second
 * thread, while the merge walks the current ones (issue 23: use both cores;
 * decompression is a third of a walk over a capture). The merge takes a batch that
 * is ready, waits for one being read, and reads one itself when the thread has not
 * got to it yet: the same bytes and the same damage either way, in the same order.
 *
 * The thread reads through its own zstd context and scratch (ftz_read_ctx: the
 * readers' file descriptors are shared, their positions are not used). What it
 * holds is bounded on its own (PREFETCH_MAX_BYTES), and a batch larger than ftrec
 * writes (PREFETCH_MAX_BATCH) is left to the merge: a file of decompression bombs
 * costs no more memory than without the thread.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "decode/decode_int.h"

#define PREFETCH_MAX_BATCH (32u << 20) /* ftrec's largest: 64 sub-buffers of 512 KiB */
#define PREFETCH_MAX_BYTES (64u << 20)

enum ahead_state { AHEAD_NONE, AHEAD_BUSY, AHEAD_READY, AHEAD_FAILED };

struct prefetch {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t changed;
	bool stop;
	unsigned next;          /* round-robin start */
	uint64_t bytes;         /* the buffers' capacity, against DEC_MAX_BATCH_BYTES */
	struct ftz_read_ctx *ctx;
};

/* A cursor whose next batch is still to be read ahead, or NULL. Under the lock. */
static struct cursor *wanted(struct dec *d, struct prefetch *pf)
{
	for (unsigned i = 0; i < d->stats.nr_cpus; i++) {
		unsigned cpu = (pf->next + i) % d->stats.nr_cpus;
		struct cursor *c = &d->cpus[cpu];

		if (c->ahead_state != AHEAD_NONE || c->next_sec >= c->nr_secs)
			continue;
		uint32_t raw = c->secs[c->next_sec].raw_len;

		if (raw > PREFETCH_MAX_BATCH || pf->bytes - c->ahead_cap + raw + 1 > PREFETCH_MAX_BYTES)
			continue; /* the merge reads it itself */
		pf->next = cpu + 1;
		return c;
	}
	return NULL;
}

static void *prefetch_main(void *arg)
{
	struct dec *d = arg;
	struct prefetch *pf = d->prefetch;

	pthread_mutex_lock(&pf->mu);
	while (!pf->stop) {
		struct cursor *c = wanted(d, pf);

		if (!c) {
			pthread_cond_wait(&pf->changed, &pf->mu);
			continue;
		}
		const struct sec_ref *ref = &c->secs[c->next_sec];
		size_t cap = c->ahead_cap;

		c->ahead_idx = c->next_sec;
		c->ahead_state = AHEAD_BUSY;
		pthread_mutex_unlock(&pf->mu);
		int rc = ftz_reader_read_at_ctx(decode_set_reader(d, ref->file), pf->ctx, ref->offset,
						&c->ahead_sec, &c->ahead, &c->ahead_cap, &c->ahead_why);
		pthread_mutex_lock(&pf->mu);
		pf->bytes += c->ahead_cap - cap;
		c->ahead_state = rc == FTZ_READ_OK ? AHEAD_READY : AHEAD_FAILED;
		pthread_cond_broadcast(&pf->changed);
	}
	pthread_mutex_unlock(&pf->mu);
	return NULL;
}

void prefetch_start(struct dec *d)
{
	struct prefetch *pf;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || !(pf = calloc(1, sizeof(*pf))))
		return; /* one core: the merge reads every batch itself */
	pf->ctx = ftz_read_ctx_new();
	pthread_mutex_init(&pf->mu, NULL);
	pthread_cond_init(&pf->changed, NULL);
	d->prefetch = pf;
	if (!pf->ctx || pthread_create(&pf->thread, NULL, prefetch_main, d)) {
		d->prefetch = NULL;
		ftz_read_ctx_free(pf->ctx);
		pthread_mutex_destroy(&pf->mu);
		pthread_cond_destroy(&pf->changed);
		free(pf);
	}
}

void prefetch_stop(struct dec *d)
{
	struct prefetch *pf = d->prefetch;

	if (!pf)
		return;
	pthread_mutex_lock(&pf->mu);
	pf->stop = true;
	pthread_cond_broadcast(&pf->changed);
	pthread_mutex_unlock(&pf->mu);
	pthread_join(pf->thread, NULL);
	for (unsigned i = 0; d->cpus && i < d->stats.nr_cpus; i++) {
		free(d->cpus[i].ahead);
		d->cpus[i].ahead = NULL;
	}
	ftz_read_ctx_free(pf->ctx);
	pthread_mutex_destroy(&pf->mu);
	pthread_cond_destroy(&pf->changed);
	free(pf);
	d->prefetch = NULL;
}

int prefetch_next(struct dec *d, struct cursor *c, const struct sec_ref **ref,
		  struct ftz_section *sec, const char **why)
{
	struct prefetch *pf = d->prefetch;
	size_t idx;
	int rc = PREFETCH_READ_IT;

	if (!pf) {
		if (c->next_sec >= c->nr_secs)
			return 0;
		*ref = &c->secs[c->next_sec++];
		return PREFETCH_READ_IT;
	}
	pthread_mutex_lock(&pf->mu);
	if (c->next_sec >= c->nr_secs) {
		pthread_mutex_unlock(&pf->mu);
		return 0;
	}
	idx = c->next_sec++; /* claimed: the thread now reads the one after, if any */
	*ref = &c->secs[idx];
	while (c->ahead_state == AHEAD_BUSY && c->ahead_idx == idx)
		pthread_cond_wait(&pf->changed, &pf->mu);
	if (c->ahead_idx == idx && c->ahead_state == AHEAD_READY) {
		uint8_t *b = c->batch;
		size_t cap = c->batch_cap;

		/* the merge's buffer becomes the thread's next one: both budgets keep theirs */
		c->batch = c->ahead;
		c->batch_cap = c->ahead_cap;
		c->ahead = b;
		c->ahead_cap = cap;
		d->batch_bytes += c->batch_cap - cap;
		pf->bytes += cap - c->batch_cap;
		*sec = c->ahead_sec;
		rc = FTZ_READ_OK;
	} else if (c->ahead_idx == idx && c->ahead_state == AHEAD_FAILED) {
		*why = c->ahead_why;
		rc = FTZ_READ_DAMAGE;
	}
	if (c->ahead_idx == idx)
		c->ahead_state = AHEAD_NONE;
	pthread_cond_broadcast(&pf->changed);
	pthread_mutex_unlock(&pf->mu);
	return rc;
}
