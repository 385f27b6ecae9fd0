/* SPDX-License-Identifier: MIT */
/*
 * stall.c - one latency stall of known length among quick ones, for the kernel lab's
 * --stop-if scenario (built static by tests/lab/run.sh, in the guest's PATH as `stall`;
 * split from workload.c, whose conventions it keeps). Each mode measures its own stall
 * with CLOCK_MONOTONIC, the trace clock "mono".
 *
 *   stall runq BEFORE_MS MS AFTER_MS
 *                               a run-queue stall among quick wakeups: a victim thread (on
 *                               the last CPU it may use) sleeps in futex(2) and is woken
 *                               every 2 ms for BEFORE_MS, once with a stall, then every
 *                               2 ms again for AFTER_MS. The waker is a SCHED_FIFO thread
 *                               on the victim's CPU (asked by the main thread, on another
 *                               CPU): it sleeps again at once, but after the stall's
 *                               wakeup it spins MS ms first, so the victim (SCHED_FIFO
 *                               under it) waits MS ms for its CPU. Needs 2 CPUs and
 *                               SCHED_FIFO (root).
 *                               -> "quick=N unslept=U first_mono_ns=F max_ns=X" (the quick
 *                               wakeups: how many, how many found the victim awake, the
 *                               first one's wake time, the longest wait), then
 *                               "stall=runq victim_tid=T victim_cpu=C wake_mono_ns=A
 *                               run_mono_ns=B wait_ns=B-A schedstat_delay_ns=D hog_ms=MS"
 *                               (A: just before the waker's futex wake, B: the victim's
 *                               first instruction after its futex wait returned; D: the
 *                               kernel's run_delay of the victim across the stall, from
 *                               /proc/PID/task/TID/schedstat, -1 if the kernel has none)
 *   stall slowsleep BEFORE_MS MS AFTER_MS
 *                               1 ms nanosleeps for BEFORE_MS, one of MS ms, then 1 ms ones
 *                               for AFTER_MS -> "quick=N first_mono_ns=F max_ns=X" (the 1 ms
 *                               sleeps), "stall=syscall tid=T start_mono_ns=A end_mono_ns=B
 *                               ns=B-A ms=MS" (A, B: just before and after the long one)
 *   stall slowio FAST SLOW BEFORE_MS AFTER_MS
 *                               O_DIRECT reads of 4096 bytes (each one block request) of
 *                               the block device FAST for BEFORE_MS, one of SLOW, then of
 *                               FAST for AFTER_MS -> "quick=N first_mono_ns=F max_ns=X",
 *                               "stall=io file=SLOW tid=T start_mono_ns=A end_mono_ns=B
 *                               ns=B-A" (A, B: just before and after the read of SLOW)
 *
 * runq, slowsleep and slowio print "ready=1" once set up (the threads created); with
 * STALL_GO=FILE in the environment they then wait for FILE to exist before they start
 * (time to attach `ftrec -p`). Times are CLOCK_MONOTONIC nanoseconds (the trace clock
 * "mono").
 *
 * First line on stdout: "pid=N". Exit 0; 1 when a system call failed; 2 on bad usage.
 */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET, program_invocation_short_name */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lab.h"

/* ---------------------------------------------------------- latency stalls */

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ms(long ms) /* clock_nanosleep in the C library: not a nanosleep(2) */
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* STALL_GO=FILE: "ready=1", then wait for FILE (2 minutes at most). */
static int wait_go(void)
{
	const char *go = getenv("STALL_GO");

	printf("ready=1\n");
	fflush(stdout);
	for (int i = 0; go && access(go, F_OK); i++) {
		if (i == 12000) {
			fprintf(stderr, "stall: %s did not appear in 2 minutes\n", go);
			return -1;
		}
		sleep_ms(10);
	}
	return 0;
}

static long futex_wait(int *word, int val)
{
	return syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(int *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static int load(int *word) { return __atomic_load_n(word, __ATOMIC_SEQ_CST); }
static void store(int *word, int v) { __atomic_store_n(word, v, __ATOMIC_SEQ_CST); }
static long load_long(long *v) { return __atomic_load_n(v, __ATOMIC_SEQ_CST); }
static void store_long(long *v, long x) { __atomic_store_n(v, x, __ATOMIC_SEQ_CST); }

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "stall: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * runq: wakeup n (1, 2, ...) sets seq = n; the victim answers with ack = n once it ran.
 * Every wakeup is made by the hog, on the victim's CPU, when the main thread (on another
 * CPU) asks for it with hog_cmd = n: then nothing runs between the waker's clock reading
 * and the kernel's sched_waking but its own system call entry (a waker on another vCPU
 * of an emulated machine may be descheduled by the emulator in between: measured up to
 * 10 ms under qemu TCG that the kernel did not see). The hog then spins spin_ms (0 for the
 * quick wakeups) before it sleeps again and the victim gets its CPU.
 * wake_ns[n] is taken by the hog just before its futex wake, run_ns[n] by the victim
 * just after its futex wait returned. The victim is SCHED_FIFO too, under the hog: it
 * waits for the hog alone, and once switched in nothing can take its CPU before it reads
 * the clock (as a SCHED_OTHER task it could lose it to the kernel threads and ftrec's
 * own that woke on that CPU during the stall: up to 0.3 ms more were measured so).
 */
#define RUNQ_MAX 100000
struct runq {
	int seq, ack, hog_cmd, quit;
	int victim_cpu, victim_tid;
	long spin_ms;
	long long *wake_ns, *run_ns;
	char *unslept;   /* the victim's futex wait did not block: the value had changed */
	int rt_error;
};

/* A runq thread on the victim's CPU, SCHED_FIFO at PRIO (a failure noted in rt_error). */
static void runq_thread_setup(struct runq *r, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (pin_to(r->victim_cpu))
		exit(1);
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "stall: runq: SCHED_FIFO: %s\n", strerror(errno));
		r->rt_error = 1;
	}
}

static void *runq_victim(void *arg)
{
	struct runq *r = arg;
	int seen = 0;

	runq_thread_setup(r, 1); /* under the hog's */
	r->victim_tid = (int)syscall(SYS_gettid);
	store(&r->ack, -1); /* ready */
	futex_wake(&r->ack);
	for (;;) {
		long ret = futex_wait(&r->seq, seen);
		long long t = mono_ns(); /* first thing after the wait */
		int n = load(&r->seq);

		if (n == seen)
			continue; /* EINTR or spurious: still waiting */
		r->run_ns[n] = t;
		r->unslept[n] = ret != 0;
		seen = n;
		if (load(&r->quit))
			return NULL;
		store(&r->ack, n);
		futex_wake(&r->ack);
	}
}

static void *runq_hog(void *arg)
{
	struct runq *r = arg;
	int done = 0;

	runq_thread_setup(r, 2);
	for (;;) {
		int n;

		while ((n = load(&r->hog_cmd)) == done)
			futex_wait(&r->hog_cmd, done);
		if (n < 0)
			return NULL; /* quit */
		long long t = mono_ns(), until = t + load_long(&r->spin_ms) * 1000000LL;

		r->wake_ns[n] = t;
		store(&r->seq, n);
		futex_wake(&r->seq);
		while (mono_ns() < until)
			; /* the victim is on this CPU's run queue, behind us */
		done = n;
		/* sleeping in the loop's futex wait lets the victim in */
	}
}

/* The victim's state letter (R, S...) from /proc, '?' if unreadable. */
static char task_state(int tid)
{
	char path[64], buf[512], *p;
	int fd;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return '?';
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return '?';
	buf[len] = 0;
	p = strrchr(buf, ')'); /* after "pid (comm)" */
	return p && p[1] == ' ' ? p[2] : '?';
}

/* The kernel's run_delay (ns waiting on a run queue) of TID, -1 without schedstat. */
static long long run_delay(int tid)
{
	char path[64];
	unsigned long long on_cpu, delay;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	int ok = fscanf(f, "%llu %llu", &on_cpu, &delay) == 2;
	fclose(f);
	return ok ? (long long)delay : -1;
}

static void runq_wait_ack(struct runq *r, int n)
{
	int a;

	while ((a = load(&r->ack)) != n)
		futex_wait(&r->ack, a);
}

/* Wakeup N by the hog, which then holds the victim's CPU SPIN_MS; back once the victim ran. */
static void runq_wake(struct runq *r, int n, long spin_ms)
{
	store_long(&r->spin_ms, spin_ms);
	store(&r->hog_cmd, n);
	futex_wake(&r->hog_cmd);
	runq_wait_ack(r, n);
}

/* Quick wakeups 2 ms apart until UNTIL; N: the last wakeup's number. */
static int runq_quick(struct runq *r, int n, long long until)
{
	while (mono_ns() < until && n < RUNQ_MAX - 2) {
		sleep_ms(2);
		runq_wake(r, ++n, 0);
	}
	return n;
}

static int do_runq(char **argv)
{
	long before = parse_count(argv[0], "BEFORE_MS"), ms = parse_count(argv[1], "MS");
	long after = parse_count(argv[2], "AFTER_MS");
	struct runq r = { 0 };
	pthread_t victim, hog;
	cpu_set_t mine;
	int waker_cpu = -1;

	r.wake_ns = calloc(RUNQ_MAX, sizeof(*r.wake_ns));
	r.run_ns = calloc(RUNQ_MAX, sizeof(*r.run_ns));
	r.unslept = calloc(RUNQ_MAX, 1);
	if (!r.wake_ns || !r.run_ns || !r.unslept || sched_getaffinity(0, sizeof(mine), &mine))
		return 1;
	r.victim_cpu = -1;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &mine))
			continue;
		if (waker_cpu < 0)
			waker_cpu = c;
		r.victim_cpu = c;
	}
	if (r.victim_cpu == waker_cpu) {
		fprintf(stderr, "stall: runq needs 2 CPUs\n");
		return 1;
	}
	if (pin_to(waker_cpu) || pthread_create(&victim, NULL, runq_victim, &r) ||
	    pthread_create(&hog, NULL, runq_hog, &r))
		return 1;
	runq_wait_ack(&r, -1);
	if (wait_go())
		return 1;

	int n = runq_quick(&r, 0, mono_ns() + before * 1000000LL);
	/* The stall: the victim asleep (S, and off its CPU: 2 ms after it said so), then
	 * the hog wakes it and holds its CPU. */
	sleep_ms(2);
	for (int i = 0; task_state(r.victim_tid) != 'S'; i++) {
		if (i == 1000) {
			fprintf(stderr, "stall: runq: the victim does not sleep\n");
			return 1;
		}
		sleep_ms(1);
	}
	sleep_ms(2);
	int stall = ++n;
	long long delay0 = run_delay(r.victim_tid);

	runq_wake(&r, stall, ms);
	long long delay1 = run_delay(r.victim_tid);

	n = runq_quick(&r, n, mono_ns() + after * 1000000LL);
	store(&r.quit, 1);
	store(&r.seq, n + 1);
	futex_wake(&r.seq);
	store(&r.hog_cmd, -1);
	futex_wake(&r.hog_cmd);
	pthread_join(victim, NULL);
	pthread_join(hog, NULL);
	if (r.rt_error)
		return 1;

	long long max = 0;
	int quick = 0, unslept = 0;
	for (int i = 1; i <= n; i++) {
		if (i == stall)
			continue;
		quick++;
		unslept += r.unslept[i];
		if (r.run_ns[i] - r.wake_ns[i] > max)
			max = r.run_ns[i] - r.wake_ns[i];
	}
	printf("quick=%d unslept=%d first_mono_ns=%lld max_ns=%lld\n", quick, unslept,
	       r.wake_ns[1], max);
	printf("stall=runq victim_tid=%d victim_cpu=%d wake_mono_ns=%lld run_mono_ns=%lld "
	       "wait_ns=%lld schedstat_delay_ns=%lld hog_ms=%ld\n", r.victim_tid, r.victim_cpu,
	       r.wake_ns[stall], r.run_ns[stall], r.run_ns[stall] - r.wake_ns[stall],
	       delay0 < 0 || delay1 < 0 ? -1 : delay1 - delay0, ms);
	if (r.unslept[stall]) {
		fprintf(stderr, "stall: runq: the stalled wakeup found the victim awake\n");
		return 1;
	}
	free(r.wake_ns);
	free(r.run_ns);
	free(r.unslept);
	return 0;
}

/* slowsleep: nanosleep(2) of MS ms, timed around the system call. */
static long long timed_nanosleep(long ms, long long *start)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	*start = mono_ns();
	if (syscall(SYS_nanosleep, &ts, NULL)) {
		fprintf(stderr, "stall: nanosleep: %s\n", strerror(errno));
		exit(1);
	}
	return mono_ns();
}

static void quick_sleeps(long long until, int *n, long long *first, long long *max)
{
	long long start, end;

	while (mono_ns() < until) {
		end = timed_nanosleep(1, &start);
		if (!(*n)++)
			*first = start;
		if (end - start > *max)
			*max = end - start;
	}
}

static int do_slowsleep(char **argv)
{
	long before = parse_count(argv[0], "BEFORE_MS"), ms = parse_count(argv[1], "MS");
	long after = parse_count(argv[2], "AFTER_MS");
	long long first = 0, max = 0, start, end;
	int n = 0;

	if (wait_go())
		return 1;
	quick_sleeps(mono_ns() + before * 1000000LL, &n, &first, &max);
	end = timed_nanosleep(ms, &start);
	quick_sleeps(mono_ns() + after * 1000000LL, &n, &first, &max);
	printf("quick=%d first_mono_ns=%lld max_ns=%lld\n", n, first, max);
	printf("stall=syscall tid=%d start_mono_ns=%lld end_mono_ns=%lld ns=%lld ms=%ld\n",
	       (int)syscall(SYS_gettid), start, end, end - start, ms);
	return 0;
}

/* slowio: one O_DIRECT pread(2) of 4096 bytes, timed around the system call. */
static long long timed_read(int fd, void *buf, long long off, const char *path, long long *start)
{
	*start = mono_ns();
	long got = syscall(SYS_pread64, fd, buf, 4096, off);
	long long end = mono_ns();

	if (got != 4096) {
		fprintf(stderr, "stall: read %s: %s\n", path, got < 0 ? strerror(errno) : "short");
		exit(1);
	}
	return end;
}

/* Reads of FAST until UNTIL: 4 KiB blocks 0..255 in turn. */
static void quick_reads(int fd, const char *path, void *buf, long long until, int *n,
			long long *first, long long *max)
{
	long long start, end;

	while (mono_ns() < until) {
		end = timed_read(fd, buf, (*n % 256) * 4096LL, path, &start);
		if (!(*n)++)
			*first = start;
		if (end - start > *max)
			*max = end - start;
	}
}

static int do_slowio(char **argv)
{
	const char *fast_path = argv[0], *slow_path = argv[1];
	long before = parse_count(argv[2], "BEFORE_MS"), after = parse_count(argv[3], "AFTER_MS");
	long long first = 0, max = 0, start, end;
	void *buf;
	int n = 0, fast, slow;

	if ((fast = open(fast_path, O_RDONLY | O_DIRECT)) < 0 ||
	    (slow = open(slow_path, O_RDONLY | O_DIRECT)) < 0) {
		fprintf(stderr, "stall: slowio: %s: %s\n", fast < 0 ? fast_path : slow_path,
			strerror(errno));
		return 1;
	}
	if (posix_memalign(&buf, 4096, 4096) || wait_go())
		return 1;
	quick_reads(fast, fast_path, buf, mono_ns() + before * 1000000LL, &n, &first, &max);
	end = timed_read(slow, buf, 0, slow_path, &start);
	quick_reads(fast, fast_path, buf, mono_ns() + after * 1000000LL, &n, &first, &max);
	printf("quick=%d first_mono_ns=%lld max_ns=%lld\n", n, first, max);
	printf("stall=io file=%s tid=%d start_mono_ns=%lld end_mono_ns=%lld ns=%lld\n", slow_path,
	       (int)syscall(SYS_gettid), start, end, end - start);
	close(fast);
	close(slow);
	free(buf);
	return 0;
}

static const struct lab_op ops[] = {
	{ "runq",      3, do_runq,      "runq BEFORE_MS MS AFTER_MS" },
	{ "slowsleep", 3, do_slowsleep, "slowsleep BEFORE_MS MS AFTER_MS" },
	{ "slowio",    4, do_slowio,    "slowio FAST SLOW BEFORE_MS AFTER_MS" },
};

int main(int argc, char **argv)
{
	return lab_main(argc, argv, ops, sizeof(ops) / sizeof(ops[0]));
}
