// SPDX-License-Identifier: MIT
/*
 * getpid_gen N [CPU_FILE] - call getpid() N times: a workload of exactly known
 * size for the recording benchmark (one syscalls:sys_enter_getpid event each).
 * syscall(SYS_getpid) because a libc may cache getpid(). With CPU_FILE, writes
 * "USER_SECONDS SYS_SECONDS" of this process there, so the benchmark can subtract
 * the workload from the CPU time of the recorder that waited for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	long n;

	if (argc < 2 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: getpid_gen N [CPU_FILE]\n");
		return 1;
	}
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
	if (argc > 2) {
		FILE *f = fopen(argv[2], "w");

		if (!f || getrusage(RUSAGE_SELF, &ru) < 0) {
			perror(argv[2]);
			return 1;
		}
		fprintf(f, "%ld.%06ld %ld.%06ld\n", (long)ru.ru_utime.tv_sec,
			(long)ru.ru_utime.tv_usec, (long)ru.ru_stime.tv_sec,
			(long)ru.ru_stime.tv_usec);
		if (fclose(f) != 0)
			return 1;
	}
	return 0;
}
