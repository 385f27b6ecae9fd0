// SPDX-License-Identifier: MIT
/*
 * import_queue.c - a pass's writes to SQLite done by a second thread (issue 23: use
 * both cores). The pass (import_pass.c) decodes, merges and decides in the calling
 * thread and hands what SQLite must do -- create a table, insert a row, a loss, a
 * stack -- to the writer thread in batches, in order. SQLite is configured for one
 * thread (analyze/main.c): only the writer touches the connection while it runs,
 * and the caller takes it back after queue_finish.
 *
 * Memory is bounded: at most QUEUE_DEPTH batches of about BATCH_BYTES wait (a
 * record larger than a batch gets a batch of its own). A writer that fails stops
 * taking work; the pass sees its error at its next call and stops too.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "import/import_int.h"

#define BATCH_BYTES (256u << 10)
#define QUEUE_DEPTH 8

enum msg_kind { MSG_CREATE = 1, MSG_ROW, MSG_LOSS, MSG_STACK, MSG_SYS };

struct msg {
	uint8_t kind;
	int cpu;
	uint32_t table;   /* index into im->tables */
	uint32_t size;    /* record bytes (ROW) or addresses (STACK) that follow */
	uint64_t id, ts;  /* ROW; STACK: id */
	int64_t value;    /* ROW: stack_id; LOSS: count, -1 unknown; SYS: its kind */
};

struct batch {
	uint8_t *buf;
	size_t len, cap;
};

struct queue {
	pthread_t writer;
	pthread_mutex_t mu;
	pthread_cond_t changed;
	struct batch *ready[QUEUE_DEPTH];
	int head, count;
	bool done;        /* the pass has queued its last batch */
	int error;        /* the writer's first error (said), 0 none */
	struct batch *filling; /* the pass's batch being filled */
	struct importer *im;
};

static int apply(struct importer *im, const struct msg *m, const uint8_t *bytes)
{
	struct etable *t = &im->tables[m->table];

	switch (m->kind) {
	case MSG_CREATE:
		return plan_create(im, t);
	case MSG_ROW:
		return plan_insert(im, t, m->id, m->ts, m->cpu, bytes, (int)m->size, m->value);
	case MSG_LOSS:
		return pass_note_loss(im, m->cpu, m->ts, m->value);
	case MSG_STACK:
		return stacks_store(im, (int64_t)m->id, (const uint64_t *)bytes, (int)m->size);
	case MSG_SYS:
		return sysstore_apply(im, (int)m->value, bytes);
	}
	return -EINVAL;
}

/* Each message: its header, then its bytes, padded to 8. */
static size_t msg_len(const struct msg *m)
{
	size_t bytes = m->kind == MSG_STACK ? (size_t)m->size * 8 :
		       m->kind == MSG_ROW || m->kind == MSG_SYS ? m->size : 0;

	return sizeof(*m) + ((bytes + 7) & ~(size_t)7);
}

static int apply_batch(struct importer *im, const struct batch *b)
{
	int rc = 0;

	for (size_t at = 0; !rc && at < b->len;) {
		struct msg m;

		memcpy(&m, b->buf + at, sizeof(m));
		rc = apply(im, &m, b->buf + at + sizeof(m));
		at += msg_len(&m);
	}
	return rc;
}

static void *writer_main(void *arg)
{
	struct queue *q = arg;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (!q->count && !q->done)
			pthread_cond_wait(&q->changed, &q->mu);
		if (!q->count)
			break;
		struct batch *b = q->ready[q->head];

		q->head = (q->head + 1) % QUEUE_DEPTH;
		q->count--;
		pthread_cond_broadcast(&q->changed);
		pthread_mutex_unlock(&q->mu);
		int rc = q->error ? 0 : apply_batch(q->im, b);

		free(b->buf);
		free(b);
		pthread_mutex_lock(&q->mu);
		if (rc && !q->error)
			q->error = rc;
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* Hand the batch being filled to the writer (waiting while the queue is full). */
static int send_batch(struct queue *q)
{
	struct batch *b = q->filling;
	int err;

	q->filling = NULL;
	if (!b)
		return 0;
	pthread_mutex_lock(&q->mu);
	while (q->count == QUEUE_DEPTH && !q->error)
		pthread_cond_wait(&q->changed, &q->mu);
	err = q->error;
	if (!err) {
		q->ready[(q->head + q->count) % QUEUE_DEPTH] = b;
		q->count++;
		pthread_cond_broadcast(&q->changed);
	}
	pthread_mutex_unlock(&q->mu);
	if (err) {
		free(b->buf);
		free(b);
	}
	return err;
}

/* Room for a message of LEN bytes at the end of the batch being filled. */
static uint8_t *reserve(struct queue *q, size_t len, int *rc)
{
	struct batch *b = q->filling;

	if (b && b->len + len > b->cap && (*rc = send_batch(q)))
		return NULL;
	b = q->filling;
	if (!b) {
		size_t cap = len > BATCH_BYTES ? len : BATCH_BYTES;

		b = calloc(1, sizeof(*b));
		if (!b || !(b->buf = malloc(cap))) {
			free(b);
			*rc = im_error(q->im, -ENOMEM, "%s: out of memory", q->im->path);
			return NULL;
		}
		b->cap = cap;
		q->filling = b;
	}
	b->len += len;
	return b->buf + b->len - len;
}

static int put(struct importer *im, const struct msg *m, const void *bytes, size_t n)
{
	int rc = 0;

	if (!im->queue) /* no writer thread: at once */
		return apply(im, m, bytes);
	uint8_t *p = reserve(im->queue, msg_len(m), &rc);

	if (!p)
		return rc;
	memcpy(p, m, sizeof(*m));
	if (n)
		memcpy(p + sizeof(*m), bytes, n);
	return 0;
}

int queue_create(struct importer *im, struct etable *t)
{
	struct msg m = { .kind = MSG_CREATE, .table = (uint32_t)(t - im->tables) };

	t->created = true;
	return put(im, &m, NULL, 0);
}

int queue_row(struct importer *im, struct etable *t, uint64_t id, uint64_t ts, int cpu,
	      const uint8_t *data, int size, int64_t stack_id)
{
	struct msg m = { .kind = MSG_ROW, .table = (uint32_t)(t - im->tables), .id = id, .ts = ts,
			 .cpu = cpu, .size = (uint32_t)size, .value = stack_id };

	return put(im, &m, data, (size_t)size);
}

int queue_loss(struct importer *im, int cpu, uint64_t ts, int64_t count)
{
	struct msg m = { .kind = MSG_LOSS, .cpu = cpu, .ts = ts, .value = count };

	return put(im, &m, NULL, 0);
}

int queue_stack(struct importer *im, int64_t id, const uint64_t *addrs, int n)
{
	struct msg m = { .kind = MSG_STACK, .id = (uint64_t)id, .size = (uint32_t)n };

	return put(im, &m, addrs, (size_t)n * sizeof(*addrs));
}

int queue_sys(struct importer *im, int kind, const void *row, size_t size)
{
	struct msg m = { .kind = MSG_SYS, .size = (uint32_t)size, .value = kind };

	return put(im, &m, row, size);
}

int queue_start(struct importer *im)
{
	struct queue *q = calloc(1, sizeof(*q));

	if (!q)
		return im_error(im, -ENOMEM, "%s: out of memory", im->path);
	q->im = im;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->changed, NULL);
	if (pthread_create(&q->writer, NULL, writer_main, q)) {
		/* one thread then: every write at once */
		pthread_mutex_destroy(&q->mu);
		pthread_cond_destroy(&q->changed);
		free(q);
		return 0;
	}
	im->queue = q;
	return 0;
}

int queue_finish(struct importer *im)
{
	struct queue *q = im->queue;
	int rc;

	if (!q)
		return 0;
	rc = send_batch(q);
	pthread_mutex_lock(&q->mu);
	q->done = true;
	pthread_cond_broadcast(&q->changed);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->writer, NULL);
	if (!rc)
		rc = q->error;
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->changed);
	free(q);
	im->queue = NULL;
	return rc;
}
