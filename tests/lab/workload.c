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
 *   workload threads T K MS     T threads; thread i (1..T) makes i*K getppid(2) calls in
 *                               each of 3 bursts, MS ms apart (all threads in step); with
 *                               WORKLOAD_START_MS=N in the environment the threads exist
 *                               N ms before the first burst (time to attach `ftrec -p`)
 *
 * Each operation is made with syscall() so it is exactly one system call of that kind
 * (the C library would add or cache some). First line on stdout: "pid=N" (so a scenario
 * can pick the workload out of the trace), then one "key=value" line of what was done:
 * "getppid=K", "bursts=B getppid=B*K", "sleep=M ms=MS", "read=BYTES_READ", "open=PATH fd=FD";
 * threads: one "tid=X getppid=N" line per thread, then for each burst
 * "burst=J start_wall_ns=A end_wall_ns=B" (CLOCK_REALTIME around all threads' calls).
 * Exit 0; 1 when a system call failed; 2 on bad usage.
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long parse_count(const char *arg, const char *what)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || *end || end == arg || n < 0) {
		fprintf(stderr, "workload: %s '%s' is not a non-negative number\n", what, arg);
		exit(2);
	}
	return n;
}

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

static const struct op {
	const char *name;
	int nargs;
	int (*run)(char **argv);
	const char *usage;
} ops[] = {
	{ "getppid", 1, do_getppid, "getppid K" },
	{ "bursts",  3, do_bursts,  "bursts B K MS" },
	{ "sleep",   2, do_sleep,   "sleep M MS" },
	{ "read",    2, do_read,    "read FILE BYTES" },
	{ "open",    1, do_open,    "open PATH" },
	{ "threads", 3, do_threads, "threads T K MS" },
};

int main(int argc, char **argv)
{
	for (size_t i = 0; argc > 1 && i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (strcmp(argv[1], ops[i].name))
			continue;
		if (argc - 2 != ops[i].nargs) {
			fprintf(stderr, "usage: workload %s\n", ops[i].usage);
			return 2;
		}
		printf("pid=%d\n", (int)getpid());
		fflush(stdout);
		return ops[i].run(argv + 2);
	}
	fprintf(stderr, "usage: workload getppid K | bursts B K MS | sleep M MS | read FILE BYTES | open PATH | threads T K MS\n");
	return 2;
}
