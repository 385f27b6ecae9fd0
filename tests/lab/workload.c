/* SPDX-License-Identifier: MIT */
/*
 * workload.c - a workload of known shape for the kernel lab (built static by
 * tests/lab/run.sh, in the guest's PATH as `workload`). Lab scenarios trace it and
 * check that the trace shows exactly what it did: the counts, sizes and durations
 * are ours, not computed by the code under test.
 *
 *   workload getppid K          K getppid(2) system calls
 *   workload bursts B K MS      B bursts of K getppid(2) calls, MS ms of sleep between two
 *   workload sleep M MS         M sleeps of MS milliseconds each (nanosleep)
 *   workload read FILE BYTES    one read(2) of BYTES bytes from the start of FILE
 *   workload open PATH          one open(2) + close(2) of PATH (failing is fine)
 *   workload exec PATH ARG0 [ARG...]
 *                               execve(2) of PATH with exactly the argv ARG0 ARG...
 *                               (a PATH without '/' searched in $PATH, an execve per
 *                               directory tried); "exec=PATH argc=N" first; exit 1
 *                               when it fails
 *   workload threads T K MS     T threads; thread i (1..T) makes i*K getppid(2) calls in
 *                               each of 3 bursts, MS ms apart (all threads in step); with
 *                               WORKLOAD_START_MS=N in the environment the threads exist
 *                               N ms before the first burst (time to attach `ftrec -p`)
 *   workload faults FILE CTL STRIDE OFFSET MS
 *                               a database stand-in: opens FILE once and obeys the commands
 *                               written to the FIFO CTL, one per line, answering each with
 *                               one line on stdout:
 *                                 touch N   drop FILE's cached pages (fadvise DONTNEED), mmap
 *                                           it, read one byte of N pages in a random order,
 *                                           MS ms apart, munmap: the pages are STRIDE pages
 *                                           apart from page OFFSET on, each touched at most
 *                                           once, so each is a page fault that reads the disk
 *                                           -> "touched=N majflt=M minflt=m pages=P1,P2,..."
 *                                           (getrusage's counts over the N touches)
 *                                 reopen    close FILE and open it again -> "reopen fd=FD"
 *                                 quit      -> "quit", exit 0
 *   (the latency stalls runq, slowsleep and slowio are the program `stall`: stall.c)
 *
 * Each operation is made with syscall() so it is exactly one system call of that kind
 * (the C library would add or cache some). First line on stdout: "pid=N" (so a scenario
 * can pick the workload out of the trace), then one "key=value" line of what was done:
 * "getppid=K", "bursts=B getppid=B*K", "sleep=M ms=MS", "read=BYTES_READ", "open=PATH fd=FD";
 * threads: one "tid=X getppid=N" line per thread, then for each burst
 * "burst=J start_wall_ns=A end_wall_ns=B" (CLOCK_REALTIME around all threads' calls).
 * Exit 0; 1 when a system call failed; 2 on bad usage.
 */
#define _GNU_SOURCE /* program_invocation_short_name (lab.h) */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lab.h"

static int do_getppid(char **argv)
{
	long k = parse_count(argv[0], "K");

	for (long i = 0; i < k; i++)
		syscall(SYS_getppid);
	printf("getppid=%ld\n", k);
	return 0;
}

static int do_bursts(char **argv)
{
	long b = parse_count(argv[0], "B"), k = parse_count(argv[1], "K");
	long ms = parse_count(argv[2], "MS");
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	for (long i = 0; i < b; i++) {
		if (i > 0 && syscall(SYS_nanosleep, &ts, NULL)) {
			fprintf(stderr, "workload: nanosleep: %s\n", strerror(errno));
			return 1;
		}
		for (long j = 0; j < k; j++)
			syscall(SYS_getppid);
	}
	printf("bursts=%ld getppid=%ld\n", b, b * k);
	return 0;
}

static int do_sleep(char **argv)
{
	long m = parse_count(argv[0], "M"), ms = parse_count(argv[1], "MS");
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	for (long i = 0; i < m; i++) {
		if (syscall(SYS_nanosleep, &ts, NULL)) {
			fprintf(stderr, "workload: nanosleep: %s\n", strerror(errno));
			return 1;
		}
	}
	printf("sleep=%ld ms=%ld\n", m, ms);
	return 0;
}

static int do_read(char **argv)
{
	long bytes = parse_count(argv[1], "BYTES");
	char *buf = malloc(bytes ? bytes : 1);
	int fd = open(argv[0], O_RDONLY);
	ssize_t got;

	if (!buf || fd < 0) {
		fprintf(stderr, "workload: %s: %s\n", argv[0], strerror(errno));
		return 1;
	}
	got = syscall(SYS_read, fd, buf, bytes);
	printf("read=%zd\n", got);
	close(fd);
	free(buf);
	return got < 0;
}

static int do_open(char **argv)
{
	long fd = syscall(SYS_openat, AT_FDCWD, argv[0], O_RDONLY);

	printf("open=%s fd=%ld\n", argv[0], fd);
	if (fd >= 0)
		close(fd);
	return 0;
}

#define THREAD_BURSTS 3

/* threads: every thread waits for the main thread at a barrier before and after each burst. */
struct burst_thread {
	pthread_t thread;
	pthread_barrier_t *barrier;
	long calls;      /* per burst */
	pid_t tid;
};

static void *burst_thread(void *arg)
{
	struct burst_thread *t = arg;

	t->tid = (pid_t)syscall(SYS_gettid);
	for (int b = 0; b < THREAD_BURSTS; b++) {
		pthread_barrier_wait(t->barrier); /* start */
		for (long i = 0; i < t->calls; i++)
			syscall(SYS_getppid);
		pthread_barrier_wait(t->barrier); /* done */
	}
	return NULL;
}

static long long wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int do_threads(char **argv)
{
	long nr = parse_count(argv[0], "T"), k = parse_count(argv[1], "K");
	long ms = parse_count(argv[2], "MS");
	struct timespec gap = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
	long long start[THREAD_BURSTS], end[THREAD_BURSTS];
	struct burst_thread *t = calloc(nr ? nr : 1, sizeof(*t));
	pthread_barrier_t barrier;

	if (!t || nr < 1 || pthread_barrier_init(&barrier, NULL, (unsigned)nr + 1)) {
		fprintf(stderr, "workload: threads: cannot set up %ld threads\n", nr);
		return 1;
	}
	for (long i = 0; i < nr; i++) {
		t[i].barrier = &barrier;
		t[i].calls = (i + 1) * k;
		if (pthread_create(&t[i].thread, NULL, burst_thread, &t[i])) {
			fprintf(stderr, "workload: threads: pthread_create failed\n");
			return 1;
		}
	}
	const char *delay = getenv("WORKLOAD_START_MS");
	if (delay) {
		long d = parse_count(delay, "WORKLOAD_START_MS");
		struct timespec wait = { .tv_sec = d / 1000, .tv_nsec = (d % 1000) * 1000000L };

		printf("threads_ready=%d\n", (int)nr);
		fflush(stdout);
		nanosleep(&wait, NULL);
	}
	for (int b = 0; b < THREAD_BURSTS; b++) {
		if (b > 0)
			nanosleep(&gap, NULL);
		start[b] = wall_ns();
		pthread_barrier_wait(&barrier);
		pthread_barrier_wait(&barrier);
		end[b] = wall_ns();
	}
	for (long i = 0; i < nr; i++) {
		pthread_join(t[i].thread, NULL);
		printf("tid=%d getppid=%ld\n", (int)t[i].tid, t[i].calls * THREAD_BURSTS);
	}
	for (int b = 0; b < THREAD_BURSTS; b++)
		printf("burst=%d start_wall_ns=%lld end_wall_ns=%lld\n", b + 1, start[b], end[b]);
	free(t);
	return 0;
}

/* faults: the pages one "touch" can reach, and the random order they are touched in. */
struct fault_file {
	const char *path;
	int fd;
	long stride, offset, ms;
	long slots;              /* pages that can be touched: OFFSET + k * STRIDE, k < slots */
	unsigned long long rng;  /* xorshift state: the same order on every run */
};

static unsigned long long next_random(struct fault_file *f)
{
	f->rng ^= f->rng << 13;
	f->rng ^= f->rng >> 7;
	f->rng ^= f->rng << 17;
	return f->rng;
}

static int fault_open(struct fault_file *f)
{
	struct stat st;
	long page = sysconf(_SC_PAGESIZE);

	f->fd = open(f->path, O_RDONLY);
	if (f->fd < 0 || fstat(f->fd, &st)) {
		fprintf(stderr, "workload: %s: %s\n", f->path, strerror(errno));
		return -1;
	}
	long pages = st.st_size / page;
	f->slots = pages > f->offset ? (pages - 1 - f->offset) / f->stride + 1 : 0;
	return 0;
}

/* One "touch N": each touched page is a major fault, since its cached copy was dropped first. */
static int fault_touch(struct fault_file *f, long n)
{
	long page = sysconf(_SC_PAGESIZE);
	struct timespec gap = { .tv_sec = f->ms / 1000, .tv_nsec = (f->ms % 1000) * 1000000L };
	struct stat st;
	struct rusage before, after;

	if (n < 1 || n > f->slots || fstat(f->fd, &st)) {
		fprintf(stderr, "workload: touch %ld: between 1 and %ld pages\n", n, f->slots);
		return -1;
	}
	long *slot = malloc(f->slots * sizeof(*slot));
	if (!slot)
		return -1;
	for (long i = 0; i < f->slots; i++)
		slot[i] = i;
	for (long i = f->slots - 1; i > 0; i--) { /* Fisher-Yates */
		long j = (long)(next_random(f) % (unsigned long long)(i + 1)), t = slot[i];

		slot[i] = slot[j];
		slot[j] = t;
	}
	/* DONTNEED leaves the file's readahead state alone (NORMAL, RANDOM, SEQUENTIAL would not). */
	posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED);
	volatile const char *map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, f->fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "workload: mmap %s: %s\n", f->path, strerror(errno));
		free(slot);
		return -1;
	}
	getrusage(RUSAGE_SELF, &before);
	for (long i = 0; i < n; i++) {
		if (i > 0)
			nanosleep(&gap, NULL);
		(void)map[(f->offset + slot[i] * f->stride) * page];
	}
	getrusage(RUSAGE_SELF, &after);
	munmap((void *)map, st.st_size);
	printf("touched=%ld majflt=%ld minflt=%ld pages=", n, after.ru_majflt - before.ru_majflt,
	       after.ru_minflt - before.ru_minflt);
	for (long i = 0; i < n; i++)
		printf("%s%ld", i ? "," : "", f->offset + slot[i] * f->stride);
	printf("\n");
	free(slot);
	return 0;
}

static int do_faults(char **argv)
{
	struct fault_file f = {
		.path = argv[0], .stride = parse_count(argv[2], "STRIDE"),
		.offset = parse_count(argv[3], "OFFSET"), .ms = parse_count(argv[4], "MS"),
		.rng = 88172645463325252ULL,
	};
	char line[64];
	long n;

	if (f.stride < 1) {
		fprintf(stderr, "workload: faults: STRIDE must be at least 1\n");
		return 2;
	}
	/* Read-write, so the FIFO never reports end-of-file between two writers. */
	FILE *ctl = fopen(argv[1], "r+");
	if (!ctl) {
		fprintf(stderr, "workload: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (fault_open(&f))
		return 1;
	while (fflush(stdout) == 0 && fgets(line, sizeof(line), ctl)) { /* each answer seen at once */
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "touch %ld", &n) == 1) {
			if (fault_touch(&f, n))
				return 1;
		} else if (!strcmp(line, "reopen")) {
			close(f.fd);
			if (fault_open(&f))
				return 1;
			printf("reopen fd=%d\n", f.fd);
		} else if (!strcmp(line, "quit")) {
			/* the answer before the exit: drive takes an exit without it for a death */
			printf("quit\n");
			return fflush(stdout) == 0 ? 0 : 1;
		} else {
			fprintf(stderr, "workload: faults: unknown command '%s'\n", line);
			return 2;
		}
	}
	return 1;
}

static int do_exec(char **argv)
{
	int n = 0;

	while (argv[1 + n])
		n++;
	printf("exec=%s argc=%d\n", argv[0], n);
	fflush(stdout);
	if (strchr(argv[0], '/'))
		execv(argv[0], argv + 1);
	else
		execvp(argv[0], argv + 1);
	perror("workload: exec");
	return 1;
}

static const struct lab_op ops[] = {
	{ "getppid", 1, do_getppid, "getppid K" },
	{ "bursts",  3, do_bursts,  "bursts B K MS" },
	{ "sleep",   2, do_sleep,   "sleep M MS" },
	{ "read",    2, do_read,    "read FILE BYTES" },
	{ "open",    1, do_open,    "open PATH" },
	{ "threads", 3, do_threads, "threads T K MS" },
	{ "faults",  5, do_faults,  "faults FILE CTL STRIDE OFFSET MS" },
	{ "exec",   -2, do_exec,    "exec PATH ARG0 [ARG...]" }, /* -2: at least 2 */
};

int main(int argc, char **argv)
{
	return lab_main(argc, argv, ops, sizeof(ops) / sizeof(ops[0]));
}
