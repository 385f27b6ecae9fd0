/* SPDX-License-Identifier: MIT */
/* tfs.c - whole-file reads and single writes for tracefs and /proc files. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/tfs.h"

char *tfs_read(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 16384, used = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf)
			break;
		if (cap - used < 4096 + 1) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + used, cap - used - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			buf = NULL;
			errno = e;
			break;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	int e = errno;
	close(fd);
	errno = e;
	if (!buf)
		return NULL;
	buf[used] = '\0';
	if (len)
		*len = used;
	return buf;
}

char *tfs_read_trimmed(const char *path)
{
	size_t len;
	char *s = tfs_read(path, &len);
	if (!s)
		return NULL;
	while (len && isspace((unsigned char)s[len - 1]))
		s[--len] = '\0';
	size_t skip = strspn(s, " \t\n");
	memmove(s, s + skip, len - skip + 1);
	return s;
}

int tfs_write(const char *path, const char *value, bool append)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -errno;
	size_t len = strlen(value);
	int ret = 0;
	if (len) {
		ssize_t n = write(fd, value, len);
		if (n < 0)
			ret = -errno;
		else if ((size_t)n != len)
			ret = -EIO;
	}
	if (close(fd) < 0 && !ret)
		ret = -errno;
	return ret;
}

char *tfs_path(char *buf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_MAX) {
		fprintf(stderr, "ftrec: path too long: %s\n", buf);
		abort();
	}
	return buf;
}

bool tfs_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

char *tfs_bracketed(const char *text)
{
	const char *a = strchr(text, '[');
	const char *b = a ? strchr(a, ']') : NULL;
	if (!a || !b)
		return NULL;
	return strndup(a + 1, (size_t)(b - a - 1));
}
