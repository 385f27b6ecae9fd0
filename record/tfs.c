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

#include "common/msg.h"
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

/*
 * Write LEN bytes to FD. tracefs list files (set_ftrace_filter, set_graph_function,
 * set_event ...) take one entry per write() and return a short count: that is not
 * an error, the rest is written next. 0 or -errno.
 */
static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO; /* no progress: do not spin */
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int open_for_write(const char *path, bool append)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	return fd < 0 ? -errno : fd;
}

/* close() of set_ftrace_filter is where the kernel applies it: its error counts too. */
static int close_checked(int fd, int ret)
{
	if (close(fd) < 0 && !ret)
		ret = -errno;
	return ret;
}

int tfs_write(const char *path, const char *value, bool append)
{
	return tfs_write_opened(path, value, append, NULL);
}

int tfs_write_opened(const char *path, const char *value, bool append, bool *opened)
{
	int fd = open_for_write(path, append);
	if (opened)
		*opened = fd >= 0;
	if (fd < 0)
		return fd;
	return close_checked(fd, write_all(fd, value, strlen(value)));
}

int tfs_write_lines(const char *path, const char *text, bool append, int *bad_line)
{
	int fd = open_for_write(path, append), ret = 0, line = 0;
	if (bad_line)
		*bad_line = 0;
	if (fd < 0)
		return fd;
	for (const char *l = text; *l;) {
		size_t len = strcspn(l, "\n");
		line++;
		if (len) {
			/* With its newline: it ends the entry (the kernel's parser waits for one). */
			int r = write_all(fd, l, len + (l[len] == '\n'));
			if (r < 0 && !ret) {
				ret = r;
				if (bad_line)
					*bad_line = line;
			}
		}
		l += len + (l[len] == '\n');
	}
	return close_checked(fd, ret);
}

char *tfs_path(char *buf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_MAX) {
		msg_error("path too long: %s", buf);
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
