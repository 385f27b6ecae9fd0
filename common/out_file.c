// SPDX-License-Identifier: MIT
/* out_file.c - temp file beside the output, renamed into place when complete (out_file.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/msg.h"
#include "common/out_file.h"

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int out_check(const char *path, const char *input)
{
	struct stat st;
	char *db = NULL;
	bool is_input;

	if (!*path) {
		msg_error("-o: an empty file name: give a file name");
		return -1;
	}
	is_input = input && (same_file(path, input) ||
			     (asprintf(&db, "%s.db", input) > 0 && same_file(path, db)));
	free(db);
	if (is_input) {
		msg_error("-o %s: that is the input (or its cached database): give another file "
			    "name", path);
		return -1;
	}
	/* the rename would replace what is there: only ever a regular file (never
	 * /dev/null, /dev/stdout, a device, a FIFO, a directory or a symbolic link) */
	if (!lstat(path, &st) && !S_ISREG(st.st_mode)) {
		msg_error("-o %s: %s (the output is written beside it, then renamed over it): "
			    "give a file name", path, S_ISDIR(st.st_mode) ? "is a directory" :
			    "not a regular file");
		return -1;
	}
	return 0;
}

int out_open(struct out_file *o, const char *path, const char *input)
{
	mode_t mask;
	int fd;

	*o = (struct out_file){ .path = path };
	if (out_check(path, input) < 0)
		return -1;
	if (asprintf(&o->tmp, "%s.XXXXXX", path) < 0) {
		o->tmp = NULL;
		msg_error("out of memory");
		return -1;
	}
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		msg_error("cannot write %s: %s", path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	/* mkstemp makes 0600; the output is an ordinary file, as the umask says */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0 || !(o->f = fdopen(fd, "w+"))) {
		msg_error("cannot write %s: %s", path, strerror(errno));
		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	return 0;
}

void out_abort(struct out_file *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp) {
		unlink(o->tmp);
		free(o->tmp);
	}
	o->f = NULL;
	o->tmp = NULL;
}

int out_commit(struct out_file *o)
{
	int err = 0;

	if (fflush(o->f) || ferror(o->f) || fsync(fileno(o->f)))
		err = errno ? errno : EIO;
	if (fclose(o->f) && !err)
		err = errno ? errno : EIO;
	o->f = NULL;
	if (!err && rename(o->tmp, o->path) < 0)
		err = errno;
	if (err) {
		msg_error("cannot write %s: %s", o->path, strerror(err));
		out_abort(o);
		return -1;
	}
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}
