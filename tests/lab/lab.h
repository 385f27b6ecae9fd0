/* SPDX-License-Identifier: MIT */
/* lab.h - what the lab's helper programs (each tests/lab/NAME.c is one program) share. */
#ifndef LAB_H
#define LAB_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ARG as a count >= 0, or exit 2 naming WHAT. */
static inline long parse_count(const char *arg, const char *what)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || *end || end == arg || n < 0) {
		fprintf(stderr, "%s: %s '%s' is not a non-negative number\n", program_invocation_short_name,
			what, arg);
		exit(2);
	}
	return n;
}

/* One operation of a helper: NAME and its NARGS arguments (-N: at least N). */
struct lab_op {
	const char *name;
	int nargs;
	int (*run)(char **argv);
	const char *usage;
};

/* `PROGRAM OP ARGS...`: "pid=N" first, then the op's run; usage errors exit 2. */
static inline int lab_main(int argc, char **argv, const struct lab_op *ops, size_t n)
{
	for (size_t i = 0; argc > 1 && i < n; i++) {
		if (strcmp(argv[1], ops[i].name))
			continue;
		if (ops[i].nargs >= 0 ? argc - 2 != ops[i].nargs : argc - 2 < -ops[i].nargs) {
			fprintf(stderr, "usage: %s %s\n", program_invocation_short_name, ops[i].usage);
			return 2;
		}
		printf("pid=%d\n", (int)getpid());
		fflush(stdout);
		return ops[i].run(argv + 2);
	}
	fprintf(stderr, "usage: %s", program_invocation_short_name);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s %s", i ? " |" : "", ops[i].usage);
	fputc('\n', stderr);
	return 2;
}

#endif
