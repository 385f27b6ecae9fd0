/* SPDX-License-Identifier: MIT */
/* parse.c - option values both programs read (parse.h). */
#include <string.h>

#include "common/msg.h"
#include "common/parse.h"

/* Decimal digits at *p below LIMIT: the value, *p moved past them; -1 if none or too big. */
static int64_t digits(const char **p, uint64_t limit)
{
	uint64_t v = 0;
	size_t n = strspn(*p, "0123456789");

	if (!n || n > 10)
		return -1;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (uint64_t)((*p)[i] - '0');
	*p += n;
	return v < limit ? (int64_t)v : -1;
}

int parse_dev(const char *opt, const char *arg, uint64_t *dev)
{
	const char *p = arg;
	int64_t maj = digits(&p, 4096), min = -1;

	if (maj >= 0 && *p == ',') {
		p++;
		min = digits(&p, 1u << 20);
	}
	if (maj < 0 || min < 0 || *p)
		return msg_error("bad %s '%s' (MAJOR,MINOR as in /proc/partitions, e.g. 253,0)",
				 opt, arg);
	*dev = (uint64_t)maj << 20 | (uint64_t)min;
	return 0;
}
