/* SPDX-License-Identifier: MIT */
/* diag.c - the message prefix of ftana (diag.h). */
#include <stdarg.h>
#include <stdio.h>

#include "analyze/diag.h"

static const char *prefix = "ftana";

void diag_set_prefix(const char *p)
{
	prefix = p ? p : "ftana";
}

const char *diag_prefix(void)
{
	return prefix;
}

void ftana_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prefix);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
