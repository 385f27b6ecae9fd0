// SPDX-License-Identifier: MIT
/* out_file.c - temp file beside the output, renamed into place when complete (out_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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

/* Is PATH a segment name of the ring whose head is INPUT (FORMAT.md 10: NAME.ftz's
 * segments are NAME.ring-NNNNNN.ftz beside it), existing or not? */
static bool ring_segment_of(const char *path, const char *input)
{
	const char *ib = strrchr(input, '/'), *pb = strrchr(path, '/');
	size_t idir = ib ? (size_t)(ib - input) : 0, pdir = pb ? (size_t)(pb - path) : 0;
	char *a = NULL, *b = NULL;
	bool same_dir, hit = false;

	ib = ib ? ib + 1 : input;
	pb = pb ? pb + 1 : path;
	size_t stem = strlen(ib);
	if (stem <= 4 || strcmp(ib + stem - 4, ".ftz"))
		return false;
	stem -= 4;
	if (strncmp(pb, ib, stem) || strncmp(pb + stem, ".ring-", 6))
		return false;
	const char *d = pb + stem + 6;
	size_t digits = strspn(d, "0123456789");
	if (digits < 6 || strcmp(d + digits, ".ftz"))
		return false;
	/* the directories: "." without a slash, "/" for a file in the root */
	if (asprintf(&a, "%.*s", idir ? (int)idir : 1, strchr(input, '/') ? input : ".") < 0)
		a = NULL;
	if (asprintf(&b, "%.*s", pdir ? (int)pdir : 1, strchr(path, '/') ? path : ".") < 0)
		b = NULL;
	same_dir = a && b && (!strcmp(a, b) || same_file(a, b));
	hit = same_dir;
	free(a);
	free(b);
	return hit;
}

static bool (*member_check)(const char *path, const char *input);

void out_set_member_check(bool (*is_member)(const char *path, const char *input))
{
	member_check = is_member;
}

bool out_is_stdout(const char *path)
{
	return !strcmp(path, "-");
}

int out_check(const char *path, const char *input)
{
	struct stat st;
	char *db = NULL;
	bool is_input;

	if (out_is_stdout(path))
		return 0;
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
	/* by the input's name, and as its INFO names the segments (a renamed head) */
	if (input && (ring_segment_of(path, input) || (member_check && member_check(path, input)))) {
		msg_error("-o %s: that is a segment name of the input's ring (it reads %s's "
			  "segments beside it): give another file name", path, input);
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

/*
 * The temp file being written, removed if SIGINT, SIGTERM or SIGHUP ends ftana first
 * (then the signal does what it would have done). One output at a time is open.
 */
static char *volatile pending_tmp;
static char *volatile pending_dir; /* stdout's private directory, removed after it */

static void out_on_signal(int sig)
{
	char *tmp = pending_tmp, *dir = pending_dir;

	if (tmp)
		unlink(tmp); /* async-signal-safe */
	if (dir)
		rmdir(dir);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_handlers(void)
{
	static bool installed;

	if (!installed) {
		struct sigaction sa = { .sa_handler = out_on_signal };
		int sigs[] = { SIGINT, SIGTERM, SIGHUP };

		sigemptyset(&sa.sa_mask);
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
			struct sigaction old;

			/* a signal ignored by whoever started us stays ignored */
			if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_DFL)
				sigaction(sigs[i], &sa, NULL);
		}
		installed = true;
	}
}

static void out_pending(char *tmp)
{
	install_handlers();
	pending_tmp = tmp;
}

void out_private_dir_pending(char *dir)
{
	install_handlers();
	pending_dir = dir;
}

void out_private_dir_done(char *dir)
{
	if (pending_dir == dir)
		pending_dir = NULL;
	rmdir(dir);
}

int out_open(struct out_file *o, const char *path, const char *input)
{
	mode_t mask;
	int fd;

	*o = (struct out_file){ .path = path };
	if (out_check(path, input) < 0)
		return -1;
	if (out_is_stdout(path)) {
		/* a directory of our own: a name in a shared $TMPDIR could be planted */
		if (!(o->tmpdir = out_private_dir("ftana-stdout"))) {
			msg_error("cannot make a temp directory for standard output: %s", strerror(errno));
			return -1;
		}
		out_private_dir_pending(o->tmpdir);
		if (asprintf(&o->tmp, "%s/out.XXXXXX", o->tmpdir) < 0)
			o->tmp = NULL;
	} else if (asprintf(&o->tmp, "%s.XXXXXX", path) < 0) {
		o->tmp = NULL;
	}
	if (!o->tmp) {
		msg_error("out of memory");
		out_abort(o);
		return -1;
	}
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		msg_error("cannot write %s: %s", out_is_stdout(path) ? o->tmp : path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		out_abort(o);
		return -1;
	}
	out_pending(o->tmp);
	/* mkstemp makes 0600; the output is an ordinary file, as the umask says (stdout's
	 * temp file is no output: it stays the user's own) */
	mask = umask(0);
	umask(mask);
	if ((!out_is_stdout(path) && fchmod(fd, 0666 & ~mask) < 0) || !(o->f = fdopen(fd, "w+"))) {
		msg_error("cannot write %s: %s", path, strerror(errno));
		close(fd);
		out_abort(o);
		return -1;
	}
	return 0;
}

void out_abort(struct out_file *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp == pending_tmp)
		pending_tmp = NULL;
	if (o->tmp) {
		unlink(o->tmp);
		free(o->tmp);
	}
	if (o->tmpdir) {
		if (o->tmpdir == pending_dir)
			pending_dir = NULL;
		rmdir(o->tmpdir);
		free(o->tmpdir);
	}
	o->f = NULL;
	o->tmp = NULL;
	o->tmpdir = NULL;
}

/* The temp file, by name, to stdout; removed. 0, or -1 after a one-line error. */
static int commit_stdout(struct out_file *o)
{
	char buf[65536];
	ssize_t n = 0;
	int err = 0, fd;

	if (o->f && (fflush(o->f) || ferror(o->f)))
		err = errno ? errno : EIO;
	if (o->f && fclose(o->f) && !err)
		err = errno ? errno : EIO;
	o->f = NULL;
	fd = err ? -1 : open(o->tmp, O_RDONLY | O_NOFOLLOW);
	if (!err && fd < 0)
		err = errno;
	if (err) {
		msg_error("cannot write %s: %s", o->tmp, strerror(err));
		out_abort(o);
		return -1;
	}
	/* gone before the copy, held open: a reader that stops early (SIGPIPE) leaves nothing */
	out_abort(o);
	errno = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			break;
	err = n < 0 ? errno : 0; /* a read error of our temp file */
	close(fd);
	if (err)
		msg_error("reading the output's temp file: %s", strerror(err));
	else if (n > 0 || fflush(stdout) || ferror(stdout))
		err = msg_error("write error on standard output%s%s", errno ? ": " : "",
				errno ? strerror(errno) : "");
	return err ? -1 : 0;
}

int out_commit(struct out_file *o)
{
	int err = 0;

	if (out_is_stdout(o->path))
		return commit_stdout(o);

	if (fflush(o->f) || ferror(o->f) || fsync(fileno(o->f)))
		err = errno ? errno : EIO;
	if (fclose(o->f) && !err)
		err = errno ? errno : EIO;
	o->f = NULL;
	if (!err && rename(o->tmp, o->path) < 0)
		err = errno;
	if (!err && o->tmp == pending_tmp)
		pending_tmp = NULL; /* renamed: nothing of ours to remove any more */
	if (err) {
		msg_error("cannot write %s: %s", o->path, strerror(err));
		out_abort(o);
		return -1;
	}
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

char *out_private_dir(const char *stem)
{
	const char *dir = getenv("TMPDIR");
	char *path;

	if (asprintf(&path, "%s/%s.XXXXXX", dir && *dir ? dir : P_tmpdir, stem) < 0)
		return errno = ENOMEM, NULL;
	if (!mkdtemp(path)) { /* mode 0700 */
		int err = errno;

		free(path);
		errno = err;
		return NULL;
	}
	return path;
}
