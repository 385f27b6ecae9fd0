/* SPDX-License-Identifier: MIT */
/*
 * undo.c - the undo log: every tracefs / proc change ftrec makes, with the step
 * that reverts it, kept in memory and in a state file (one line per step:
 * "W\tPATH\tOLD" write back, "A\tPATH\tLINE" append, "D\tPATH" rmdir,
 * "C" cancels the step before it because the change itself failed).
 * Values are escaped (\\, \n, \t) so each step stays on one line.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/tfs.h"
#include "record/undo.h"

struct undo_step {
	char kind; /* 'W', 'A', 'D' */
	char *path;
	char *value;
};

struct undo_log {
	struct undo_step *steps;
	size_t n, cap;
	int fd; /* state file, -1 when none could be created */
	char state_path[PATH_MAX];
};

/* FTREC_STATE_DIR overrides (tests); /run is tmpfs on systemd hosts, /tmp elsewhere. */
const char *const undo_state_dirs[] = { "/run/ftrec", "/tmp/ftrec", NULL };

static const char *state_dir_override(void)
{
	const char *d = getenv("FTREC_STATE_DIR");
	return d && *d ? d : NULL;
}

struct undo_log *undo_open(char *errbuf, size_t errlen)
{
	struct undo_log *u = calloc(1, sizeof(*u));
	if (!u) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	u->fd = -1;
	const char *over = state_dir_override();
	const char *dirs[] = { over ? over : undo_state_dirs[0], over ? NULL : undo_state_dirs[1], NULL };
	int err = 0;
	for (int i = 0; dirs[i]; i++) {
		if (mkdir(dirs[i], 0700) < 0 && errno != EEXIST) {
			err = errno;
			continue;
		}
		tfs_path(u->state_path, "%s/ftrec-%d.undo", dirs[i], (int)getpid());
		u->fd = open(u->state_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
		if (u->fd >= 0)
			return u;
		err = errno;
	}
	snprintf(errbuf, errlen, "cannot create undo state file in %s: %s",
		 dirs[0], strerror(err));
	free(u);
	return NULL;
}

static void escape_into(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '\t')
			fputs("\\t", f);
		else
			fputc(*s, f);
	}
}

static void unescape(char *s)
{
	char *o = s;
	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			*o++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* One line to the state file with a single write(), synced: it must survive kill -9. */
static void persist(struct undo_log *u, const char *line, size_t len)
{
	if (u->fd < 0)
		return;
	if (write(u->fd, line, len) != (ssize_t)len)
		fprintf(stderr, "ftrec: warning: cannot write undo state %s: %s\n",
			u->state_path, strerror(errno));
	fdatasync(u->fd);
}

static int push(struct undo_log *u, char kind, const char *path, const char *value)
{
	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 32;
		struct undo_step *s = realloc(u->steps, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		u->steps = s;
		u->cap = cap;
	}
	struct undo_step *st = &u->steps[u->n++];
	st->kind = kind;
	st->path = strdup(path);
	st->value = value ? strdup(value) : NULL;

	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "%c\t", kind);
	escape_into(f, path);
	if (value) {
		fputc('\t', f);
		escape_into(f, value);
	}
	fputc('\n', f);
	fclose(f);
	persist(u, line, len);
	free(line);
	return 0;
}

static void free_step(struct undo_step *st)
{
	free(st->path);
	free(st->value);
}

/* The change failed: forget its undo step (it would only fail again at replay). */
static void cancel_last(struct undo_log *u)
{
	free_step(&u->steps[--u->n]);
	persist(u, "C\n", 2);
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/*
 * What must be written to PATH to get back to the state shown by reading it:
 * the read format of several tracefs files differs from the write format.
 */
static char *restore_value(const char *path, char *text)
{
	const char *name = base_name(path);
	if (!strcmp(name, "trace_clock"))
		return tfs_bracketed(text);
	if (!strcmp(name, "buffer_size_kb"))  /* "7 (expanded: 1408)" */
		return strndup(text, strspn(text, "0123456789"));
	if (!strcmp(name, "filter"))          /* "none" means no filter; "0" clears */
		return strdup(!strncmp(text, "none", 4) ? "0" : text);
	if (!strncmp(name, "set_", 4)) {      /* function / pid lists: drop "#" comment lines */
		char *out = calloc(1, strlen(text) + 1), *save = NULL;
		if (!out)
			return NULL;
		for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			if (l[0] == '#' || !strcmp(l, "no pid"))
				continue;
			strcat(out, l);
			strcat(out, "\n");
		}
		return out;
	}
	return strdup(text);
}

/* Push the undo step first (it must be on disk before the change), then change. */
static int push_and_write(struct undo_log *u, char kind, const char *path,
			  const char *undo_value, const char *value)
{
	int ret = push(u, kind, path, undo_value);
	if (ret < 0)
		return ret;
	ret = tfs_write(path, value, kind == 'A');
	if (ret < 0)
		cancel_last(u);
	return ret;
}

int undo_write(struct undo_log *u, const char *path, const char *value)
{
	char *old = tfs_read_trimmed(path);
	if (!old)
		return -errno;
	char *restore = restore_value(path, old);
	free(old);
	if (!restore)
		return -ENOMEM;
	int ret = push_and_write(u, 'W', path, restore, value);
	free(restore);
	return ret;
}

int undo_append(struct undo_log *u, const char *path, const char *value,
		const char *undo_value)
{
	return push_and_write(u, 'A', path, undo_value, value);
}

int undo_mkdir(struct undo_log *u, const char *path)
{
	int ret = push(u, 'D', path, NULL);
	if (ret < 0)
		return ret;
	if (mkdir(path, 0755) < 0) {
		ret = -errno;
		cancel_last(u);
	}
	return ret;
}

/* Revert one step. A directory or probe that is already gone counts as done. */
static int replay_step(const struct undo_step *st)
{
	int ret = 0;
	switch (st->kind) {
	case 'W':
		ret = tfs_write(st->path, st->value ? st->value : "", false);
		break;
	case 'A':
		ret = tfs_write(st->path, st->value ? st->value : "", true);
		if (ret == -ENOENT)
			ret = 0;
		break;
	case 'D':
		if (rmdir(st->path) < 0 && errno != ENOENT)
			ret = -errno;
		break;
	default:
		ret = -EINVAL;
	}
	if (ret < 0)
		fprintf(stderr, "ftrec: cleanup: cannot restore %s: %s\n", st->path, strerror(-ret));
	return ret;
}

static int replay_all(struct undo_step *steps, size_t n)
{
	int failed = 0;
	for (size_t i = n; i-- > 0;) {
		if (replay_step(&steps[i]) < 0)
			failed++;
		free_step(&steps[i]);
	}
	return failed;
}

int undo_finish(struct undo_log *u)
{
	if (!u)
		return 0;
	int failed = replay_all(u->steps, u->n);
	free(u->steps);
	if (u->fd >= 0) {
		close(u->fd);
		/* Keep the state file when something could not be restored: `ftrec reset` retries. */
		if (!failed)
			unlink(u->state_path);
	}
	free(u);
	return failed;
}

int undo_replay_file(const char *state_file)
{
	size_t len;
	char *text = tfs_read(state_file, &len);
	if (!text)
		return -errno;
	struct undo_log u = { .fd = -1 };
	char *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (l[0] == 'C') {
			if (u.n)
				free_step(&u.steps[--u.n]);
			continue;
		}
		char *f1 = strchr(l, '\t');
		if (!f1 || (l[0] != 'W' && l[0] != 'A' && l[0] != 'D'))
			continue; /* a line cut by the crash: its change never happened */
		char *f2 = strchr(f1 + 1, '\t');
		if (f2)
			*f2++ = '\0';
		unescape(f1 + 1);
		if (f2)
			unescape(f2);
		if (push(&u, l[0], f1 + 1, f2) < 0)
			break;
	}
	free(text);
	int failed = replay_all(u.steps, u.n);
	free(u.steps);
	if (!failed)
		unlink(state_file);
	return failed;
}

/*
 * A recording ftrec keeps its state file open until its cleanup is done, so
 * "pid holds ftrec-PID.undo open" tells a live owner from a dead one, whatever
 * the binary is called and even if the pid was reused since.
 */
bool undo_pid_is_live_ftrec(pid_t pid)
{
	char dir[64], want[64];
	if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH))
		return false;
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	snprintf(want, sizeof(want), "/ftrec-%d.undo", (int)pid);
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool live = false;
	for (struct dirent *e; !live && (e = readdir(d));) {
		char link[PATH_MAX], target[PATH_MAX];
		snprintf(link, sizeof(link), "%s/%s", dir, e->d_name);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		size_t wl = strlen(want);
		live = (size_t)n >= wl && !strcmp(target + n - wl, want);
	}
	closedir(d);
	return live;
}
