// SPDX-License-Identifier: MIT
/*
 * mix_load SECS GETPIDS DIR - a moderately busy host for SECS seconds, the mix of
 * issue 23's production-size capture:
 *   - GETPIDS getpid() calls spread evenly over SECS (one thread, in batches of 1000
 *     paced against the clock): the bulk of the events, a syscall entry and exit each;
 *   - a pipe ping-pong between two threads, each sleeping 1 ms every 10 hops:
 *     context switches and wakeups, about 10,000 switches a second;
 *   - a 4 KiB O_DIRECT write then read of a file in DIR every 36 ms: block requests.
 * syscall(SYS_getpid) because a libc may cache getpid(). Prints what it did.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_clock.h"

static double deadline;
static atomic_long switches_done, ios_done;

static void *pingpong(void *arg)
{
	int *fds = arg; /* read end, write end */
	char c = 0;
	long n = 0;

	while (read(fds[0], &c, 1) == 1 && write(fds[1], &c, 1) == 1) {
		if (!(++n % 10))
			usleep(1000);
		atomic_fetch_add(&switches_done, 1);
		if (c)
			break;
	}
	return NULL;
}

static void *disk(void *arg)
{
	char path[4096];
	void *buf;
	int fd;

	snprintf(path, sizeof(path), "%s/mix_load.dat", (const char *)arg);
	fd = open(path, O_RDWR | O_CREAT | O_DIRECT, 0600);
	if (fd < 0 || posix_memalign(&buf, 4096, 4096)) {
		perror(path);
		return NULL;
	}
	memset(buf, 'x', 4096);
	while (now_s() < deadline) {
		if (pwrite(fd, buf, 4096, 0) != 4096 || pread(fd, buf, 4096, 0) != 4096)
			break;
		atomic_fetch_add(&ios_done, 2);
		usleep(36000);
	}
	close(fd);
	unlink(path);
	return NULL;
}

int main(int argc, char **argv)
{
	int a[2], b[2], there[2], back[2];
	pthread_t pp, io;
	double secs, t0;
	long getpids, done = 0;
	char c = 0;

	if (argc != 4 || (secs = atof(argv[1])) <= 0 || (getpids = atol(argv[2])) < 0) {
		fprintf(stderr, "usage: mix_load SECS GETPIDS DIR\n");
		return 1;
	}
	if (pipe(a) || pipe(b))
		return 1;
	t0 = now_s();
	deadline = t0 + secs;
	there[0] = a[0], there[1] = b[1];
	back[0] = b[0], back[1] = a[1];
	if (pthread_create(&pp, NULL, pingpong, there) || pthread_create(&io, NULL, disk, argv[3]))
		return 1;
	/* the other end of the ping-pong runs in this process too, in its own thread */
	pthread_t pp2;
	if (pthread_create(&pp2, NULL, pingpong, back) || write(a[1], &c, 1) != 1)
		return 1;
	while (done < getpids) {
		for (int i = 0; i < 1000 && done < getpids; i++, done++)
			syscall(SYS_getpid);
		/* pace: done calls by now is getpids * elapsed / secs */
		double due = t0 + secs * done / (double)getpids, now = now_s();
		if (due > now)
			usleep((useconds_t)((due - now) * 1e6));
	}
	while (now_s() < deadline)
		usleep(10000);
	/* stop the ping-pong: a non-zero byte ends both threads */
	c = 1;
	if (write(a[1], &c, 1) != 1 || write(b[1], &c, 1) != 1)
		return 1;
	pthread_join(pp, NULL);
	pthread_join(pp2, NULL);
	pthread_join(io, NULL);
	printf("mix_load: %.1f s, %ld getpid calls, %ld ping-pong hops, %ld direct I/Os\n",
	       now_s() - t0, done, (long)atomic_load(&switches_done), (long)atomic_load(&ios_done));
	return 0;
}
