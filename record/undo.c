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
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/msg.h"
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

struct undo_log *undo_open(void)
{
	struct undo_log *u = calloc(1, sizeof(*u));
	if (!u) {
		msg_error("out of memory");
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
		/*
		 * Made under a name reset does not read, locked, then renamed: the state
		 * file is locked from the moment it can be seen until its steps are undone,
		 * which tells its owner alive across PID namespaces (undo_pid_is_live_ftrec).
		 */
		char fresh[PATH_MAX];
		tfs_path(fresh, "%s/.ftrec-%d.undo.new", dirs[i], (int)getpid());
		tfs_path(u->state_path, "%s/ftrec-%d.undo", dirs[i], (int)getpid());
		u->fd = open(fresh, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
		if (u->fd >= 0 && flock(u->fd, LOCK_EX | LOCK_NB) == 0 && rename(fresh, u->state_path) == 0)
			return u;
		err = errno;
		if (u->fd >= 0) {
			unlink(fresh);
			close(u->fd);
			u->fd = -1;
		}
	}
	msg_error("cannot create undo state file in %s: %s", dirs[0], strerror(err));
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
		msg_warn("cannot write undo state %s: %s", u->state_path, strerror(errno));
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
 * Files that hold a list and take one entry per write(): written line by line
 * (tfs_write_lines), so a restore puts back every entry, not the first one only.
 */
static bool is_list_file(const char *path)
{
	const char *name = base_name(path);
	size_t n = strlen(name);
	return !strncmp(name, "set_", 4) || (n > 7 && !strcmp(name + n - 7, "_events"));
}

static bool is_function_list(const char *name)
{
	return !strcmp(name, "set_ftrace_filter") || !strcmp(name, "set_ftrace_notrace") ||
	       !strcmp(name, "set_graph_function") || !strcmp(name, "set_graph_notrace");
}

/*
 * One line of a function list as read, as it must be written back, or NULL to
 * leave it out. Reading shows a module's function as "func [mod]": the filter
 * files take that back as "func:mod:mod", the graph files only as "func". A
 * cached module command reads as it is written ("func:mod:mod"). Any other line
 * with a ':' is a function probe ("vfs_read:traceoff:count=3"): truncating the
 * file does not remove probes and adding one again fails, so it is left alone.
 */
static char *function_entry(const char *name, const char *line)
{
	bool graph = !strncmp(name, "set_graph_", 10);
	const char *colon = strchr(line, ':');
	if (line[0] == '#' || !line[0])
		return NULL;
	if (colon) {
		bool mod_cache = !strncmp(colon, ":mod:", 5) && !strchr(colon + 5, ':');
		return mod_cache ? strdup(line) : NULL;
	}
	const char *mod = strstr(line, " [");
	size_t mlen = mod ? strlen(mod) : 0;
	char *out = NULL;
	if (!mod || mod[mlen - 1] != ']')
		return strdup(line);
	if (graph)
		return strndup(line, (size_t)(mod - line));
	if (asprintf(&out, "%.*s:mod:%.*s", (int)(mod - line), line, (int)(mlen - 3), mod + 2) < 0)
		return NULL;
	return out;
}

/*
 * A list as read -> as written: one entry per line, comments and "no pid" left
 * out. A user's filter may hold tens of thousands of functions: linear time.
 */
static char *restore_list(const char *name, char *text)
{
	/* An entry grows by 2 at most ("f [m]" -> "f:mod:m"): twice the text is room enough. */
	char *out = calloc(1, strlen(text) * 2 + 2), *save = NULL;
	size_t used = 0;
	if (!out)
		return NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *entry = NULL;
		if (is_function_list(name))
			entry = function_entry(name, l);
		else if (l[0] != '#' && strcmp(l, "no pid"))
			entry = strdup(l);
		if (!entry)
			continue;
		used += (size_t)sprintf(out + used, "%s\n", entry);
		free(entry);
	}
	return out;
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
	if (!strcmp(name, "buffer_size_kb")) {
		/*
		 * "7 (expanded: 1408)": a buffer never used yet, to grow to 1408 KB on
		 * first use. Our own write counts as a use and the kernel cannot go back,
		 * so the size it would have grown to is restored: "7" would leave a 7 KB
		 * buffer behind.
		 */
		const char *exp = strstr(text, "(expanded: ");
		const char *v = exp ? exp + 11 : text;
		return strndup(v, strspn(v, "0123456789"));
	}
	if (!strcmp(name, "filter"))          /* "none" means no filter; "0" clears */
		return strdup(!strncmp(text, "none", 4) ? "0" : text);
	if (!strcmp(name, "enable"))          /* "1*": enabled, soft mode (a trigger's): the * is not written */
		return strndup(text, strspn(text, "01"));
	if (is_list_file(path))
		return restore_list(name, text);
	return strdup(text);
}

/* Push the undo step first (it must be on disk before the change), then change. */
static int push_and_write(struct undo_log *u, char kind, const char *path,
			  const char *undo_value, const char *value, int *refused_line)
{
	int ret = push(u, kind, path, undo_value);
	if (ret < 0)
		return ret;
	int bad_line = 0;
	bool opened = false;
	if (is_list_file(path)) {
		ret = tfs_write_lines(path, value, kind == 'A', &bad_line);
		opened = bad_line > 0 || ret == 0;
	} else {
		ret = tfs_write_opened(path, value, kind == 'A', &opened);
	}
	/*
	 * A refused write to a file that opened may still have changed it: a list
	 * opened with O_TRUNC is emptied (and holds the entries before the bad one),
	 * an event filter keeps the refused text in place of the old filter. So its
	 * step stays. A file that did not open, or an append (a probe line the kernel
	 * refused adds nothing), changed nothing: replaying would only fail again.
	 */
	if (ret < 0 && (kind == 'A' || !opened))
		cancel_last(u);
	if (refused_line)
		*refused_line = bad_line;
	return ret;
}

/*
 * buffer_size_kb reads "X" when the CPUs' buffers differ in size: that cannot be
 * written back, so the undo steps are one per CPU file (per_cpu/cpuN/buffer_size_kb).
 */
static int save_per_cpu_sizes(struct undo_log *u, const char *path)
{
	char pattern[PATH_MAX];
	glob_t g;
	int ret = 0;
	tfs_path(pattern, "%.*s/per_cpu/cpu*/buffer_size_kb", (int)(base_name(path) - 1 - path), path);
	if (glob(pattern, 0, NULL, &g) != 0)
		return -ENOENT;
	for (size_t i = 0; ret == 0 && i < g.gl_pathc; i++) {
		char *old = tfs_read_trimmed(g.gl_pathv[i]);
		char *restore = old ? restore_value(g.gl_pathv[i], old) : NULL;
		ret = restore ? push(u, 'W', g.gl_pathv[i], restore) : -errno;
		free(old);
		free(restore);
	}
	globfree(&g);
	return ret;
}

int undo_write(struct undo_log *u, const char *path, const char *value)
{
	return undo_write_list(u, path, value, NULL);
}

int undo_write_list(struct undo_log *u, const char *path, const char *value, int *refused_line)
{
	if (refused_line)
		*refused_line = 0;
	char *old = tfs_read_trimmed(path);
	if (!old)
		return -errno;
	if (!strcmp(base_name(path), "buffer_size_kb") && old[0] == 'X') {
		free(old);
		int ret = save_per_cpu_sizes(u, path);
		return ret < 0 ? ret : tfs_write(path, value, false);
	}
	char *restore = restore_value(path, old);
	free(old);
	if (!restore)
		return -ENOMEM;
	int ret = push_and_write(u, 'W', path, restore, value, refused_line);
	free(restore);
	return ret;
}

int undo_append(struct undo_log *u, const char *path, const char *value,
		const char *undo_value)
{
	return push_and_write(u, 'A', path, undo_value, value, NULL);
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
		if (is_list_file(st->path)) {
			int bad = 0;
			ret = tfs_write_lines(st->path, st->value ? st->value : "", false, &bad);
			if (ret < 0)
				msg_error("cleanup: %s: entry %d of the saved list refused (%s); the others are back",
					  st->path, bad, strerror(-ret));
		} else {
			ret = tfs_write(st->path, st->value ? st->value : "", false);
		}
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
		msg_error("cleanup: cannot restore %s: %s", st->path, strerror(-ret));
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
		/* Keep the state file when something could not be restored: `ftrec reset` retries.
		 * Unlinked before the close drops its lock, so no reset replays it twice. */
		if (!failed)
			unlink(u->state_path);
		close(u->fd);
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

/* Does a live process hold this state file's lock? (flock belongs to the file, so
 * an owner in another PID namespace counts: its pid means nothing here.) */
static bool state_file_locked(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool locked = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return locked;
}

static bool state_file_of_pid_locked(pid_t pid)
{
	const char *over = state_dir_override();
	const char *dirs[] = { over ? over : undo_state_dirs[0], over ? NULL : undo_state_dirs[1], NULL };
	char path[PATH_MAX];
	for (int i = 0; dirs[i]; i++)
		if (state_file_locked(tfs_path(path, "%s/ftrec-%d.undo", dirs[i], (int)pid)))
			return true;
	return false;
}

/*
 * A recording ftrec keeps its state file open and locked until its cleanup is
 * done, so "pid holds ftrec-PID.undo open" tells a live owner from a dead one,
 * whatever the binary is called and even if the pid was reused since; the lock
 * does the same for an owner this process cannot see (another PID namespace
 * sharing the state directory).
 */
bool undo_pid_is_live_ftrec(pid_t pid)
{
	char dir[64], want[64];
	if (pid <= 0)
		return false;
	if (state_file_of_pid_locked(pid))
		return true;
	if (kill(pid, 0) < 0 && errno == ESRCH)
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
