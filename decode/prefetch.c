// SPDX-License-Identifier: MIT
/*
 * prefetch.c - each CPU's next PAGES batch read and decompressed ahead by other
 * threads, one per core, while the merge walks the current ones (issue 23: use
 * every core; decompression is the larger part of a walk over a capture, and with
 * one thread it is the one the merge waits for). The merge takes a batch that
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

#define PREFETCH_MAX_THREADS 8

struct prefetch {
	pthread_t thread[PREFETCH_MAX_THREADS];
	struct ftz_read_ctx *ctx[PREFETCH_MAX_THREADS];
	int nr_threads, started;
	pthread_mutex_t mu;
	pthread_cond_t changed;
	bool stop;
	unsigned next;          /* round-robin start */
	uint64_t bytes;         /* the buffers' capacity, against PREFETCH_MAX_BYTES */
	struct dec *d;
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
	struct prefetch *pf = arg;
	struct dec *d = pf->d;
	int self;

	pthread_mutex_lock(&pf->mu);
	self = pf->started++; /* each thread its own reading context */
	pthread_mutex_unlock(&pf->mu);

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
		int rc = ftz_reader_read_at_ctx(decode_set_reader(d, ref->file), pf->ctx[self], ref->offset,
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
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	struct prefetch *pf;
	int n = cores < 2 ? 0 : cores > PREFETCH_MAX_THREADS ? PREFETCH_MAX_THREADS : (int)cores;

	/* as many threads as cores, but no more than CPUs to read ahead for */
	if (n > (int)d->stats.nr_cpus)
		n = (int)d->stats.nr_cpus;
	if (n < 1 || !(pf = calloc(1, sizeof(*pf))))
		return; /* one core: the merge reads every batch itself */
	pf->d = d;
	pthread_mutex_init(&pf->mu, NULL);
	pthread_cond_init(&pf->changed, NULL);
	for (int i = 0; i < n; i++)
		if (!(pf->ctx[i] = ftz_read_ctx_new()))
			n = i;
	d->prefetch = pf;
	for (int i = 0; i < n; i++, pf->nr_threads++)
		if (pthread_create(&pf->thread[i], NULL, prefetch_main, pf))
			break;
	if (!pf->nr_threads)
		prefetch_stop(d);
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
	for (int i = 0; i < pf->nr_threads; i++)
		pthread_join(pf->thread[i], NULL);
	for (unsigned i = 0; d->cpus && i < d->stats.nr_cpus; i++) {
		free(d->cpus[i].ahead);
		d->cpus[i].ahead = NULL;
	}
	for (int i = 0; i < PREFETCH_MAX_THREADS; i++)
		ftz_read_ctx_free(pf->ctx[i]);
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

void prefetch_cut(struct dec *d, const struct sec_ref *at)
{
	struct prefetch *pf = d->prefetch;

	if (pf)
		pthread_mutex_lock(&pf->mu);
	for (unsigned i = 0; i < d->stats.nr_cpus; i++) {
		struct cursor *c = &d->cpus[i];
		size_t n = c->next_sec;

		while (n < c->nr_secs && (c->secs[n].file < at->file ||
		       (c->secs[n].file == at->file && c->secs[n].offset < at->offset)))
			n++;
		c->nr_secs = n; /* a section read ahead past it is dropped unused */
	}
	if (pf)
		pthread_mutex_unlock(&pf->mu);
}
