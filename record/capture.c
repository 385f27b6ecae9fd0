/* SPDX-License-Identifier: MIT */
/*
 * capture.c - one reader thread per CPU moving raw sub-buffers from
 * per_cpu/cpuN/trace_pipe_raw into PAGES sections.
 *
 * While tracing is on, a reader only takes WHOLE sub-buffers
 * (tracefs_cpu_buffered_read: splice, which the kernel serves with full pages
 * only, and blocks until buffer_percent of the buffer is filled). Reading the
 * page the kernel is still writing loses events silently (measured: 1-5.6 % of
 * getpid events with non-blocking read(); 0 of 5,000,000 with this scheme).
 * The last partial page of each CPU is taken by tracefs_cpu_flush after tracing
 * was switched off.
 *
 * Batches: up to BATCH_PAGES pages of one CPU per section, also written as soon
 * as the reader has caught up (the next read would block), so a section reaches
 * the file within one wake-up of its pages being read.
 *
 * A slow stream: the kernel wakes a reader only when buffer_percent of its buffer
 * is filled, and splice gives only whole pages, so one event every 10 ms could stay
 * in the kernel for minutes and die with ftrec (kill -9). capture_tick, on the main
 * thread, interrupts every reader that has written nothing for CAPTURE_FLUSH_NS; the
 * reader then takes the whole pages there are and the page the kernel is writing,
 * up to its last committed event (read(), as tracefs_cpu_flush at the stop; the
 * kernel goes on filling the same page after what was taken), and writes them. So
 * an event is in the file at most 2 x CAPTURE_FLUSH_NS after it was recorded, plus
 * the write, at any rate (docs: 1 s). A busy stream never waits that long for a
 * wake-up, and is never read a partial page at a time.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <kbuffer.h>
#include <tracefs.h>

#include "common/msg.h"
#include "record/rec_int.h"
#include "record/tfs.h"

struct batch {
	uint8_t *buf;
	uint32_t nr;
	uint64_t events, missed_pages; /* in these pages (a series file counts its own) */
};

static struct kbuffer *new_kbuffer(void)
{
	return kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			     __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? KBUFFER_ENDIAN_LITTLE
								       : KBUFFER_ENDIAN_BIG);
}

/*
 * Count the page's events and its missed-events flag (commit bit 31, with the
 * count stored after the data when bit 30 is set). kbuffer skips padding and
 * time extends, so the count matches the kernel's "read events".
 */
static void account_page(struct cpu_capture *c, struct kbuffer *kb, void *page)
{
	unsigned long long ts;
	c->pages++;
	if (kbuffer_load_subbuffer(kb, page) < 0)
		return;
	int missed = kbuffer_missed_events(kb);
	if (missed) {
		c->missed_pages++;
		if (missed > 0)
			c->missed_known += (uint64_t)missed;
	}
	for (void *d = kbuffer_read_event(kb, &ts); d; d = kbuffer_next_event(kb, &ts))
		c->events++;
}

static void flush_batch(struct cpu_capture *c, struct batch *b)
{
	struct rec *r = c->rec;
	if (!b->nr)
		return;
	int ret = r->segs ? segs_write_pages(r, c->cpu, b->buf, b->nr, b->events, b->missed_pages)
			  : ftz_write_pages(r->w, (uint32_t)c->cpu, r->subbuf_size, b->buf, b->nr);
	atomic_store(&c->last_write_ns, run_now_ns(CLOCK_MONOTONIC));
	b->nr = 0;
	b->events = b->missed_pages = 0;
	if (ret < 0) {
		if (!c->error)
			c->error = ret;
		if (!atomic_exchange(&r->write_failed, 1))
			pthread_kill(r->main_thread, SIGUSR1);
		return;
	}
	if (r->o->max_size && ftz_writer_bytes(r->w) >= r->o->max_size &&
	    !atomic_exchange(&r->max_size_hit, 1))
		pthread_kill(r->main_thread, SIGUSR1);
}

/* A read of n bytes landed at the batch's next slot: keep it (zero-fill a short read). */
static void take_page(struct cpu_capture *c, struct kbuffer *kb, struct batch *b, int n)
{
	uint8_t *page = b->buf + (size_t)b->nr * c->rec->subbuf_size;
	if ((uint32_t)n < c->rec->subbuf_size)
		memset(page + n, 0, c->rec->subbuf_size - (uint32_t)n);
	uint64_t events = c->events, missed = c->missed_pages;
	account_page(c, kb, page);
	b->events += c->events - events;
	b->missed_pages += c->missed_pages - missed;
	if (++b->nr == BATCH_PAGES)
		flush_batch(c, b);
}

/*
 * capture_tick asked: the page the kernel is writing, up to its last committed event
 * (the whole pages before it were taken already), written now. read() on the fd made
 * non-blocking for it: blocking, read() would wait for an event on an empty buffer;
 * the flag is the file's, so splice (which would then never wait) gets it back.
 */
static void flush_partial(struct cpu_capture *c, struct kbuffer *kb, struct batch *b)
{
	int flags = fcntl(c->fd, F_GETFL);
	int n;

	if (flags < 0 || fcntl(c->fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return;
	do
		n = (int)read(c->fd, b->buf + (size_t)b->nr * c->rec->subbuf_size, c->rec->subbuf_size);
	while (n < 0 && errno == EINTR);
	fcntl(c->fd, F_SETFL, flags);
	if (n > 0)
		take_page(c, kb, b, n);
	else if (n < 0 && errno != EAGAIN && !c->error)
		c->error = -errno;
	flush_batch(c, b);
	atomic_store(&c->last_write_ns, run_now_ns(CLOCK_MONOTONIC));
}

static void *reader_main(void *arg)
{
	struct cpu_capture *c = arg;
	struct rec *r = c->rec;
	struct batch b = { malloc((size_t)BATCH_PAGES * r->subbuf_size), 0, 0, 0 };
	struct kbuffer *kb = new_kbuffer();
	atomic_store(&c->tid, (int)syscall(SYS_gettid));
	atomic_store(&c->last_write_ns, run_now_ns(CLOCK_MONOTONIC));
	if (!b.buf || !kb) {
		c->error = -ENOMEM;
		goto out;
	}
	while (!atomic_load(&r->stop)) {
		uint8_t *slot = b.buf + (size_t)b.nr * r->subbuf_size;
		int n = tracefs_cpu_buffered_read(c->tcpu, slot, true);
		if (n <= 0 && !atomic_load(&r->stop)) {
			/* Caught up: store what we have, then sleep until the kernel wakes us. */
			flush_batch(c, &b);
			if (atomic_exchange(&c->flush_asked, 0)) {
				flush_partial(c, kb, &b);
				continue;
			}
			slot = b.buf;
			n = tracefs_cpu_buffered_read(c->tcpu, slot, false);
		}
		if (n > 0) {
			take_page(c, kb, &b, n);
		} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
			c->error = -errno;
			break;
		}
	}
	/* Tracing is off: drain everything, down to the last partial page. */
	for (;;) {
		int n = tracefs_cpu_flush(c->tcpu, b.buf + (size_t)b.nr * r->subbuf_size);
		if (n < 0 && errno == EINTR)
			continue; /* a nudge from capture_stop(): keep draining */
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && !c->error)
				c->error = -errno;
			break;
		}
		take_page(c, kb, &b, n);
	}
	flush_batch(c, &b);
out:
	kbuffer_free(kb);
	free(b.buf);
	return NULL;
}

/* Readers block in select()/splice(); this signal only interrupts them (no SA_RESTART). */
static void nudge_handler(int sig)
{
	(void)sig;
}

int capture_open(struct rec *r)
{
	char p[PATH_MAX];
	r->cpus = calloc((size_t)r->nr_cpus, sizeof(*r->cpus));
	if (!r->cpus)
		return msg_error("out of memory");
	for (int i = 0; i < r->nr_cpus; i++) {
		struct cpu_capture *c = &r->cpus[i];
		c->rec = r;
		c->cpu = i;
		c->fd = open(tfs_path(p, "%s/per_cpu/cpu%d/trace_pipe_raw", r->dir, i),
			     O_RDONLY | O_CLOEXEC);
		if (c->fd < 0) {
			if (errno == ENOENT) /* offline / not possible CPU */
				continue;
			return msg_error_errno(errno, "%s", p);
		}
		c->tcpu = tracefs_cpu_alloc_fd(c->fd, (int)r->subbuf_size, false);
		if (!c->tcpu)
			return msg_error("cannot set up reader for %s", p);
	}
	return 0;
}

/*
 * With --kernel-ring this runs only after tracing was switched off, with r->stop
 * already set: the readers go straight to draining, so nothing is read while
 * the ring records (no wake-ups, no CPU).
 */
int capture_start(struct rec *r)
{
	struct sigaction sa = { .sa_handler = nudge_handler };
	sigaction(SIGUSR2, &sa, NULL);
	/* Readers get SIGUSR2 only: the main thread handles every other signal. */
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_UNBLOCK, &set, &old);
	int ret = 0;
	for (int i = 0; i < r->nr_cpus; i++) {
		struct cpu_capture *c = &r->cpus[i];
		if (!c->tcpu)
			continue;
		if (pthread_create(&c->thread, NULL, reader_main, c) != 0) {
			ret = msg_error("cannot start reader thread for CPU %d", i);
			break;
		}
		c->started = 1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* capture_list_threads() needs every reader's thread id. */
	for (int i = 0; i < r->nr_cpus; i++)
		while (r->cpus[i].started && !atomic_load(&r->cpus[i].tid))
			nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	return ret;
}

/*
 * ftrec's own threads show up in whole-system recordings (a reader's splice is a
 * system call like any other). They are named in END so queries can leave them out.
 * They are NOT filtered in the kernel: set_event_notrace_pid drops every event
 * raised while one of them is current, interrupts included -- measured: 2 of 150
 * block_rq_complete events of other tasks' I/O lost with a 4 KB buffer.
 */
void capture_list_threads(struct rec *r)
{
	size_t size = sizeof(r->self_tids);
	size_t len = (size_t)snprintf(r->self_tids, size, "%d", (int)getpid());

	for (int i = 0; r->cpus && i < r->nr_cpus && len < size; i++)
		if (r->cpus[i].started)
			len += (size_t)snprintf(r->self_tids + len, size - len, " %d",
						atomic_load(&r->cpus[i].tid));
	if (len >= size) { /* thousands of CPUs: keep whole ids only */
		char *cut = strrchr(r->self_tids, ' ');
		if (cut)
			*cut = '\0';
	}
}

void capture_tick(struct rec *r)
{
	uint64_t now = run_now_ns(CLOCK_MONOTONIC);

	for (int i = 0; r->cpus && i < r->nr_cpus; i++) {
		struct cpu_capture *c = &r->cpus[i];

		/* asked again while stale: a signal that came just before the reader went to
		 * sleep in splice did not wake it */
		if (!c->started || atomic_load(&r->stop) ||
		    now - atomic_load(&c->last_write_ns) < CAPTURE_FLUSH_NS)
			continue;
		atomic_store(&c->flush_asked, 1);
		pthread_kill(c->thread, SIGUSR2);
	}
}

/* Call after tracing was switched off: wake the readers, let them drain, join them. */
void capture_stop(struct rec *r)
{
	atomic_store(&r->stop, 1);
	for (int i = 0; r->cpus && i < r->nr_cpus; i++)
		if (r->cpus[i].started)
			tracefs_cpu_stop(r->cpus[i].tcpu);
	for (int i = 0; r->cpus && i < r->nr_cpus; i++) {
		struct cpu_capture *c = &r->cpus[i];
		if (!c->started)
			continue;
		/*
		 * Kernels before the ioctl wake-up may leave a reader asleep in splice:
		 * interrupt it until it has finished draining.
		 */
		for (;;) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 200 * 1000 * 1000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			if (pthread_timedjoin_np(c->thread, NULL, &ts) == 0)
				break;
			pthread_kill(c->thread, SIGUSR2);
		}
		c->started = 0;
	}
}

void capture_close(struct rec *r)
{
	for (int i = 0; r->cpus && i < r->nr_cpus; i++)
		if (r->cpus[i].tcpu)
			tracefs_cpu_close(r->cpus[i].tcpu);
	free(r->cpus);
	r->cpus = NULL;
}
