/* SPDX-License-Identifier: MIT */
/* diag.c - the message prefix of ftana (diag.h), and usage texts (ftana.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "analyze/diag.h"
#include "analyze/ftana.h"

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

int ftana_usage(const char *text, bool asked)
{
	fputs(text, asked ? stdout : stderr);
	return asked ? FTANA_EXIT_OK : FTANA_EXIT_ERROR;
}

bool ftana_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}
