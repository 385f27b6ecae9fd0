/* SPDX-License-Identifier: MIT */
/*
 * instance.c - find tracefs, create our instance and apply the options to it.
 * Every write goes through the undo log; nothing else in tracefs is touched
 * (on some hosts set_ftrace_filter / set_ftrace_pid answer EPERM, so helpers
 * that reset a whole instance cannot be used).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "common/msg.h"
#include "record/rec_int.h"
#include "record/tfs.h"

static int is_tracefs_dir(const char *dir)
{
	char p[PATH_MAX];
	return tfs_exists(tfs_path(p, "%s/tracing_on", dir)) &&
	       tfs_exists(tfs_path(p, "%s/events", dir));
}

static void try_mount(const char *type, const char *target)
{
	if (mount("nodev", target, type, 0, NULL) == 0)
		msg_note("mounted %s at %s", type, target);
}

int instance_find_tracefs(struct rec *r)
{
	const char *over = getenv("FTREC_TRACEFS"); /* test / override knob */
	if (over && *over) {
		if (!is_tracefs_dir(over))
			return msg_error("no tracefs at %s (FTREC_TRACEFS): no tracing_on or events", over);
		snprintf(r->root, sizeof(r->root), "%s", over);
	} else {
		if (geteuid() != 0)
			return msg_error("must run as root: tracing needs write access to tracefs");
		if (!is_tracefs_dir("/sys/kernel/tracing"))
			try_mount("tracefs", "/sys/kernel/tracing");
		if (is_tracefs_dir("/sys/kernel/tracing")) {
			snprintf(r->root, sizeof(r->root), "/sys/kernel/tracing");
		} else {
			if (!tfs_exists("/sys/kernel/debug/tracing"))
				try_mount("debugfs", "/sys/kernel/debug");
			if (!is_tracefs_dir("/sys/kernel/debug/tracing"))
				return msg_error("no tracefs: cannot find or mount it at /sys/kernel/tracing or /sys/kernel/debug/tracing (kernel without CONFIG_FTRACE?)");
			snprintf(r->root, sizeof(r->root), "/sys/kernel/debug/tracing");
		}
	}
	char p[PATH_MAX];
	if (access(tfs_path(p, "%s/tracing_on", r->root), W_OK) < 0)
		return msg_error("%s: %s%s", p, strerror(errno), geteuid() ? " (must run as root)" : "");
	return 0;
}

/*
 * The error_log the kernel explains a refusal of PATH in: the instance's for a
 * file of an instance, else the top level's -- also for kprobe_events and
 * dynamic_events, which belong to no instance (probe errors go to the top level).
 */
static void error_log_path(const struct rec *r, const char *path, char *log)
{
	size_t n = strlen(r->root);
	const char *rest = path + n;
	if (!strncmp(path, r->root, n) && !strncmp(rest, "/instances/", 11)) {
		const char *slash = strchr(rest + 11, '/');
		if (slash) {
			tfs_path(log, "%.*s/error_log", (int)(slash - path), path);
			return;
		}
	}
	tfs_path(log, "%s/error_log", r->root);
}

char *instance_error_log(const struct rec *r, const char *path)
{
	char log[PATH_MAX];
	error_log_path(r, path, log);
	return tfs_read(log, NULL);
}

/*
 * The newest entry of LOG that BEFORE does not hold, folded into one line without
 * its "[timestamp] ", or NULL. An entry starts with "[" at the start of a line
 * ("[ts] event filter parse error: ...\n  Command: ...\n  ^"); the timestamp makes
 * equal text the same entry, so an old entry -- someone else's -- is never quoted.
 */
static char *new_entry(char *log, const char *before)
{
	char *found = NULL;
	for (char *e = log; e && *e;) {
		char *next = strstr(e, "\n[");
		if (next)
			*next++ = '\0';
		if (*e == '[' && !strstr(before, e))
			found = e;
		e = next;
	}
	if (!found)
		return NULL;
	char *text = strchr(found, ']') ? strchr(found, ']') + 1 : found, *o = text;
	for (char *c = text; *c; c++) {
		int space = *c == '\n' || *c == ' ';
		if (space && (o == text || o[-1] == ' '))
			continue;
		*o++ = space ? ' ' : *c;
	}
	while (o > text && o[-1] == ' ')
		o--;
	*o = '\0';
	return text;
}

char *instance_kernel_reason(const struct rec *r, const char *path, const char *log_before)
{
	char *log = instance_error_log(r, path);
	char *reason = log ? new_entry(log, log_before) : NULL;
	char *copy = reason ? strdup(reason) : NULL;
	free(log);
	return copy;
}

/*
 * "cannot write 'WHAT' to PATH: <errno>", with the kernel's reason when that
 * error_log holds an entry LOG_BEFORE (read before the write) did not.
 */
static void kernel_error(const struct rec *r, const char *what, const char *path, int err,
			 const char *log_before)
{
	char *reason = log_before ? instance_kernel_reason(r, path, log_before) : NULL;
	msg_error("cannot write '%s' to %s: %s%s%s", what, path, strerror(-err),
		  reason ? " -- kernel says: " : "", reason ? reason : "");
	free(reason);
}

int instance_write(struct rec *r, const char *dir, const char *name, const char *value)
{
	char p[PATH_MAX];
	tfs_path(p, "%s/%s", dir, name);
	char *log_before = instance_error_log(r, p);
	int line = 0;
	int ret = undo_write_list(r->undo, p, value, &line);
	if (ret < 0) {
		/* A list's refused entry alone (lists are written one entry per line). */
		char shown[256];
		const char *v = value;
		for (int i = 1; i < line && strchr(v, '\n'); i++)
			v = strchr(v, '\n') + 1;
		snprintf(shown, sizeof(shown), "%.*s", (int)(line ? strcspn(v, "\n") : strlen(v)), v);
		for (char *c = shown; *c; c++)
			if (*c == '\n')
				*c = c[1] ? ' ' : '\0';
		kernel_error(r, shown, p, ret, log_before);
	}
	free(log_before);
	return ret;
}

/* NAME relative to our instance (or the top level when recording there). */
static int set(struct rec *r, const char *name, const char *value)
{
	return instance_write(r, r->dir, name, value);
}

int instance_tracing_on(struct rec *r, int on)
{
	char p[PATH_MAX];
	/* Not through the undo log: the first set(tracing_on, 0) already saved the old state. */
	return tfs_write(tfs_path(p, "%s/tracing_on", r->dir), on ? "1" : "0", false);
}

static int create_instance(struct rec *r)
{
	char p[PATH_MAX];
	if (!tfs_exists(tfs_path(p, "%s/instances", r->root))) {
		msg_note("this kernel has no tracefs instances: recording at the top level (its settings restored at exit; the events in its buffer are discarded)");
		r->top_level = 1;
		snprintf(r->dir, sizeof(r->dir), "%s", r->root);
		return 0;
	}
	snprintf(r->name, sizeof(r->name), "ftrec-%d", (int)getpid());
	tfs_path(r->dir, "%s/instances/%s", r->root, r->name);
	int ret = undo_mkdir(r->undo, r->dir);
	if (ret < 0)
		return msg_error("cannot create instance %s: %s%s", r->dir, strerror(-ret),
				 ret == -EEXIST ? " (left by a killed ftrec? run 'ftrec reset')" : "");
	/*
	 * Held open until cleanup: the kernel refuses to remove an instance while one of
	 * its files is open (EBUSY), so an `ftrec reset` that cannot see this process (its
	 * pid in another PID namespace on the same kernel) leaves it alone also during
	 * setup, before the readers open their buffers (reset.c). Such a reset is the likely
	 * cause of a CI run's recording whose cleanup failed half-way (not reproduced).
	 */
	r->hold_fd = open(tfs_path(p, "%s/tracing_on", r->dir), O_RDONLY | O_CLOEXEC);
	return 0;
}

void instance_release(struct rec *r)
{
	if (r->hold_fd >= 0)
		close(r->hold_fd);
	r->hold_fd = -1;
}

/* A new instance traces as soon as it exists: switch it off before enabling anything. */
static int switch_off(struct rec *r)
{
	int ret = set(r, "tracing_on", "0");
	if (ret == 0 && r->top_level) {
		/* The top-level buffer may hold someone else's old events: start empty. */
		char p[PATH_MAX];
		tfs_write(tfs_path(p, "%s/trace", r->dir), "", false);
	}
	return ret;
}

static int word_in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *s = list; (s = strstr(s, word)); s += n) {
		int start = s == list || s[-1] == ' ' || s[-1] == '[';
		int end = !s[n] || s[n] == ' ' || s[n] == ']' || s[n] == '\n';
		if (start && end)
			return 1;
	}
	return 0;
}

static int set_clock(struct rec *r)
{
	char p[PATH_MAX];
	char *list = tfs_read_trimmed(tfs_path(p, "%s/trace_clock", r->dir));
	if (!list)
		return msg_error_errno(errno, "%s", p);
	const char *want = r->o->clock;
	if (want && !word_in_list(list, want)) {
		msg_error("-C %s: unknown trace clock (this kernel has: %s)", want, list);
		free(list);
		return -1;
	}
	if (!want)
		want = word_in_list(list, "mono") ? "mono" : "global";
	free(list);
	snprintf(r->clock, sizeof(r->clock), "%s", want);
	return set(r, "trace_clock", want);
}

static int set_number(struct rec *r, const char *name, unsigned long long v)
{
	char val[32];
	snprintf(val, sizeof(val), "%llu", v);
	return set(r, name, val);
}

/* options/NAME=0|1 in the instance (the top level when the instance lacks it, e.g. older kernels). */
static int set_option(struct rec *r, const char *name, int on)
{
	char p[PATH_MAX], opt[128];
	snprintf(opt, sizeof(opt), "options/%s", name);
	if (tfs_exists(tfs_path(p, "%s/%s", r->dir, opt)))
		return set(r, opt, on ? "1" : "0");
	if (tfs_exists(tfs_path(p, "%s/%s", r->root, opt)))
		return instance_write(r, r->root, opt, on ? "1" : "0");
	return msg_error("trace option %s does not exist on this kernel", name);
}

int instance_add_event(struct rec *r, const char *sys, const char *ev, const char *filter)
{
	for (size_t i = 0; i < r->nr_events; i++)
		if (!strcmp(r->events[i].system, sys) && !strcmp(r->events[i].event, ev))
			return 0;
	struct rec_event *e = realloc(r->events, (r->nr_events + 1) * sizeof(*e));
	if (!e)
		return msg_error("out of memory");
	r->events = e;
	e[r->nr_events++] = (struct rec_event){ strdup(sys), strdup(ev), filter };
	return 0;
}

static int is_dir_entry(const struct dirent *d)
{
	return d->d_name[0] != '.' && (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN);
}

/* Expand the globs of one -e against the events directory. */
static int expand_event(struct rec *r, const struct record_event *spec)
{
	char p[PATH_MAX];
	int found = 0;
	DIR *sd = opendir(tfs_path(p, "%s/events", r->root));
	if (!sd)
		return msg_error_errno(errno, "%s", p);
	for (struct dirent *s; (s = readdir(sd));) {
		if (!is_dir_entry(s) || fnmatch(spec->system, s->d_name, 0))
			continue;
		DIR *ed = opendir(tfs_path(p, "%s/events/%s", r->root, s->d_name));
		for (struct dirent *e; ed && (e = readdir(ed));) {
			if (!is_dir_entry(e) || fnmatch(spec->event, e->d_name, 0))
				continue;
			if (!tfs_exists(tfs_path(p, "%s/events/%s/%s/enable", r->root, s->d_name, e->d_name)))
				continue;
			if (instance_add_event(r, s->d_name, e->d_name, spec->filter) < 0)
				break;
			found++;
		}
		if (ed)
			closedir(ed);
	}
	closedir(sd);
	if (!found)
		return msg_error("-e %s:%s: no such event (see %s/available_events)", spec->system,
				 spec->event, r->root);
	return 0;
}

static int enable_events(struct rec *r)
{
	char name[PATH_MAX];
	for (size_t i = 0; i < r->nr_events; i++) {
		const struct rec_event *e = &r->events[i];
		if (e->filter) {
			tfs_path(name, "events/%s/%s/filter", e->system, e->event);
			if (set(r, name, e->filter) < 0)
				return -1;
		}
		if (set(r, tfs_path(name, "events/%s/%s/enable", e->system, e->event), "1") < 0)
			return -1;
	}
	return 0;
}

/*
 * "p:NAME SYMBOL ..." -> "p:ftrec_PID/NAME SYMBOL ...", appended to the global
 * kprobe_events at PATH. An OPTIONAL probe the kernel refuses is left out with a
 * note (the refused append pushed no undo step: undo_append cancels it). 0 or -1.
 */
static int add_kprobe(struct rec *r, const char *path, const char *def, bool optional)
{
	const char *colon = strchr(def, ':');
	size_t name_len = colon ? strcspn(colon + 1, " \t") : 0;
	if (!colon || !name_len || memchr(colon + 1, '/', name_len))
		return msg_error("kprobe '%s': expected TYPE:NAME SYMBOL ...", def);
	char *name = strndup(colon + 1, name_len), line[4096], undo[256];
	if (!name)
		return msg_error("out of memory");
	snprintf(line, sizeof(line), "%.*s:%s/%s\n", (int)(colon - def), def,
		 r->kprobe_group, colon + 1);
	snprintf(undo, sizeof(undo), "-:%s/%s\n", r->kprobe_group, name);
	char *log_before = instance_error_log(r, path);
	int ret = undo_append(r->undo, path, line, undo);
	if (ret < 0 && optional) {
		msg_note("the kernel refused the probe '%s' (%s): left out", def, strerror(-ret));
		ret = 0;
	} else if (ret < 0) {
		kernel_error(r, def, path, ret, log_before);
		ret = -1;
	} else {
		ret = instance_add_event(r, r->kprobe_group, name, optional ? NULL : r->o->kprobe_filter);
	}
	free(log_before);
	free(name);
	return ret;
}

/* Every kprobe of the options (kprobe_events, kprobe_optional) in group ftrec_<pid>. */
static int add_kprobes(struct rec *r)
{
	const struct strlist *k = &r->o->kprobe_events, *opt = &r->o->kprobe_optional;
	if (!k->n && !opt->n)
		return 0;
	snprintf(r->kprobe_group, sizeof(r->kprobe_group), "ftrec_%d", (int)getpid());
	char path[PATH_MAX];
	tfs_path(path, "%s/kprobe_events", r->root);
	for (size_t i = 0; i < k->n; i++)
		if (add_kprobe(r, path, k->v[i], false) < 0)
			return -1;
	/* a kernel without kprobes (CONFIG_KPROBE_EVENTS=n) has no file to append to */
	if (opt->n && !tfs_exists(path)) {
		msg_note("this kernel has no kprobe_events: %s left out",
			 opt->n == 1 ? "the optional probe" : "the optional probes");
		return 0;
	}
	for (size_t i = 0; i < opt->n; i++)
		if (add_kprobe(r, path, opt->v[i], true) < 0)
			return -1;
	return 0;
}

/* The list as written: one entry per line ("" for none). NULL when out of memory. */
static char *list_text(const struct strlist *l)
{
	size_t len = 1;
	for (size_t i = 0; i < l->n; i++)
		len += strlen(l->v[i]) + 1;
	char *all = calloc(1, len);
	for (size_t i = 0; all && i < l->n; i++) {
		strcat(all, l->v[i]);
		strcat(all, "\n");
	}
	return all;
}

int instance_write_list(struct rec *r, const char *dir, const char *name, const struct strlist *l)
{
	if (!l->n)
		return 0;
	char *all = list_text(l);
	if (!all) {
		msg_error("out of memory");
		return -ENOMEM;
	}
	int ret = instance_write(r, dir, name, all);
	free(all);
	return ret;
}

/* What reading a list or number file shows when it does nothing: comments, "no pid", 0. */
static bool reads_neutral(const char *text)
{
	char *copy = strdup(text), *save = NULL;
	bool neutral = copy != NULL;
	for (char *l = copy ? strtok_r(copy, "\n", &save) : NULL; l && neutral;
	     l = strtok_r(NULL, "\n", &save))
		neutral = l[0] == '#' || !strcmp(l, "no pid") || !strcmp(l, "0") ||
			  l[strspn(l, " \t")] == '\0';
	free(copy);
	return neutral;
}

/*
 * A file that decides what gets recorded (filter, pid list, threshold), set to WANT -- also when this
 * recording wants nothing there ("" or "0"): at the top level, a filter, pid
 * list, threshold or depth limit the user left would otherwise silently shape
 * the recording. A file already neutral, or missing, is not written when
 * nothing is wanted; the user's value comes back at exit like any other.
 */
static int set_shaping(struct rec *r, const char *dir, const char *name, const char *want)
{
	char p[PATH_MAX];
	if (!*want || !strcmp(want, "0")) {
		char *now = tfs_read(tfs_path(p, "%s/%s", dir, name), NULL);
		bool neutral = !now || reads_neutral(now); /* unreadable: not on this kernel */
		free(now);
		if (neutral)
			return 0;
	}
	return instance_write(r, dir, name, want);
}

static int set_shaping_list(struct rec *r, const char *name, const struct strlist *l)
{
	char *all = list_text(l);
	int ret = all ? set_shaping(r, r->dir, name, all) : msg_error("out of memory");
	free(all);
	return ret;
}

/*
 * Tracer files (function / function_graph presets); the tracer itself goes last.
 * tracing_thresh and max_graph_depth are global (top level only) and act on
 * function_graph in any instance.
 */
static int set_tracer(struct rec *r)
{
	const struct record_opts *o = r->o;
	if (!o->tracer)
		return 0;
	bool graph = !strcmp(o->tracer, "function_graph");
	if (set_shaping_list(r, "set_ftrace_filter", &o->ftrace_filter) < 0 ||
	    set_shaping_list(r, "set_ftrace_notrace", &o->ftrace_notrace) < 0 ||
	    set_shaping_list(r, "set_graph_function", &o->graph_function) < 0 ||
	    set_shaping(r, r->dir, "set_graph_notrace", "") < 0 ||
	    set_shaping(r, r->dir, "set_ftrace_notrace_pid", "") < 0)
		return -1;
	/* With -p / -L the pids are set already; with -p cmd once the COMMAND runs. */
	if (o->pid == 0 && o->tid == 0 && set_shaping(r, r->dir, "set_ftrace_pid", "") < 0)
		return -1;
	char thresh[32], depth[32];
	snprintf(thresh, sizeof(thresh), "%ld", o->tracing_thresh >= 0 ? o->tracing_thresh : 0);
	snprintf(depth, sizeof(depth), "%d", o->max_graph_depth > 0 ? o->max_graph_depth : 0);
	if ((graph || o->tracing_thresh >= 0) && set_shaping(r, r->root, "tracing_thresh", thresh) < 0)
		return -1;
	if ((graph || o->max_graph_depth > 0) && set_shaping(r, r->root, "max_graph_depth", depth) < 0)
		return -1;
	return set(r, "current_tracer", o->tracer);
}

static int tracer_available(struct rec *r)
{
	char p[PATH_MAX];
	if (!r->o->tracer)
		return 0;
	char *list = tfs_read_trimmed(tfs_path(p, "%s/available_tracers", r->root));
	int ok = list && word_in_list(list, r->o->tracer);
	if (!ok)
		msg_error("tracer %s is not available on this kernel (%s: %s)", r->o->tracer, p,
			  list ? list : strerror(errno));
	free(list);
	return ok ? 0 : -1;
}

/* A cpumask as the kernel prints it, for comparing: hex digits only, no leading zeros. */
#define MAX_CPUMASK_HEX 2400 /* 8192 CPUs: 256 groups of 9 characters */

static void mask_norm(const char *in, char *out, size_t size)
{
	size_t n = 0;

	for (; *in && n + 1 < size; in++)
		if (isxdigit((unsigned char)*in) && (n || *in != '0'))
			out[n++] = (char)tolower((unsigned char)*in);
	out[n] = '\0';
}

/*
 * At the top level, the user's tracing_cpumask would drop the events of the other
 * CPUs, silently (a function tracer or graph recording with no calls): every CPU is
 * traced while ftrec records, the user's mask back at exit (undo log).
 */
int instance_cpumask_all(struct rec *r)
{
	char p[PATH_MAX], want[MAX_CPUMASK_HEX], a[MAX_CPUMASK_HEX], b[MAX_CPUMASK_HEX];
	char *now = tfs_read_trimmed(tfs_path(p, "%s/tracing_cpumask", r->dir));
	size_t n = 0;

	if (!now || r->nr_cpus <= 0 || r->nr_cpus > 4 * (MAX_CPUMASK_HEX - 64)) {
		free(now);
		return 0; /* not on this kernel */
	}
	/* bits 0 .. nr_cpus - 1, in 32-bit groups, most significant first */
	for (int group = (r->nr_cpus - 1) / 32; group >= 0; group--) {
		int bits = r->nr_cpus - group * 32;
		unsigned long v = bits >= 32 ? 0xffffffffUL : (1UL << bits) - 1;

		n += (size_t)snprintf(want + n, sizeof(want) - n, n ? ",%08lx" : "%lx", v);
	}
	mask_norm(now, a, sizeof(a));
	mask_norm(want, b, sizeof(b));
	free(now);
	if (!strcmp(a, b))
		return 0;
	return instance_write(r, r->dir, "tracing_cpumask", want) < 0 ? -1 : 0;
}

static int tracer_in_instance(struct rec *r)
{
	char p[PATH_MAX];
	const struct record_opts *o = r->o;
	if (r->top_level || !o->tracer)
		return 1;
	char *list = tfs_read_trimmed(tfs_path(p, "%s/available_tracers", r->dir));
	int ok = list && word_in_list(list, o->tracer);
	free(list);
	if (o->ftrace_filter.n && !tfs_exists(tfs_path(p, "%s/set_ftrace_filter", r->dir)))
		ok = 0;
	if (o->graph_function.n && !tfs_exists(tfs_path(p, "%s/set_graph_function", r->dir)))
		ok = 0;
	if ((o->tracing_thresh >= 0 || o->max_graph_depth > 0))
		ok = 0; /* tracing_thresh and max_graph_depth exist at the top level only */
	return ok;
}

static int use_top_level(struct rec *r)
{
	if (!r->o->allow_top_level_fallback)
		return msg_error("tracer %s is not available in a tracefs instance on this kernel",
				 r->o->tracer);
	/* Our empty instance goes now (its held file first: instance_release); the undo
	 * log still removes it if this fails. */
	instance_release(r);
	if (rmdir(r->dir) < 0)
		return msg_error_errno(errno, "rmdir %s", r->dir);
	msg_note("tracer %s not available in an instance: recording at the top level (its settings restored at exit; the events in its buffer are discarded)",
		 r->o->tracer);
	r->top_level = 1;
	r->name[0] = '\0';
	snprintf(r->dir, sizeof(r->dir), "%s", r->root);
	return 0;
}

/*
 * set_event_pid (and set_ftrace_pid for a tracer) to these tasks, one per line
 * (the kernel adds each write to the list the open emptied); with_children:
 * the tasks they create from now on too (threads and processes: event-fork,
 * function-fork).
 */
static int set_tasks(struct rec *r, const int *tids, size_t n, int with_children)
{
	struct strlist l = { 0 };
	char one[16];
	for (size_t i = 0; i < n; i++) {
		snprintf(one, sizeof(one), "%d", tids[i]);
		strlist_add(&l, one);
	}
	int ret = instance_write_list(r, r->dir, "set_event_pid", &l);
	if (ret == 0 && with_children)
		ret = set_option(r, "event-fork", 1);
	if (ret == 0 && r->o->tracer) {
		ret = instance_write_list(r, r->dir, "set_ftrace_pid", &l);
		if (ret == 0 && with_children)
			ret = set_option(r, "function-fork", 1);
	}
	strlist_free(&l);
	return ret < 0 ? -1 : 0;
}

int instance_set_pid(struct rec *r, pid_t pid, int with_children)
{
	int tid = (int)pid;
	return set_tasks(r, &tid, 1, with_children);
}

/*
 * -p PID: every thread the process has now, read as late as possible before
 * tracing starts (threads it starts later need --follow); -L TID: that one.
 */
static int set_task_filter(struct rec *r)
{
	const struct record_opts *o = r->o;
	if (o->tid > 0)
		return set_tasks(r, &o->tid, 1, 0);
	if (o->pid <= 0)
		return 0;
	int *tids;
	long n = tasks_of_process(o->pid, &tids);
	if (n < 0)
		return msg_error("-p %d: %s", o->pid,
				 errno == ESRCH ? "the process has exited" : strerror(errno));
	int ret = set_tasks(r, tids, (size_t)n, o->follow);
	free(tids);
	return ret;
}

int instance_setup(struct rec *r)
{
	const struct record_opts *o = r->o;
	if (tracer_available(r) < 0 || create_instance(r) < 0)
		return -1;
	if (!tracer_in_instance(r) && use_top_level(r) < 0)
		return -1;
	if (switch_off(r) < 0 || set_clock(r) < 0)
		return -1;
	if (o->buffer_kb && set_number(r, "buffer_size_kb", o->buffer_kb) < 0)
		return -1;
	char p[PATH_MAX];
	if ((tfs_exists(tfs_path(p, "%s/options/record-tgid", r->dir)) ||
	     tfs_exists(tfs_path(p, "%s/options/record-tgid", r->root))) &&
	    set_option(r, "record-tgid", 1) < 0)
		return -1;
	if (o->stacktrace && set_option(r, "stacktrace", 1) < 0)
		return -1;
	/* The flight recorder: the newest events replace the oldest, nothing is read meanwhile. */
	if (o->kernel_ring && set_option(r, "overwrite", 1) < 0)
		return -1;
	for (size_t i = 0; i < o->trace_options.n; i++) {
		const char *opt = o->trace_options.v[i], *eq = strchr(opt, '=');
		char name[128];
		snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - opt) : (int)strlen(opt), opt);
		if (set_option(r, name, eq ? atoi(eq + 1) : 1) < 0)
			return -1;
	}
	if (set_task_filter(r) < 0)
		return -1;
	/*
	 * At the top level, pid lists the user left would silently drop tasks' events
	 * (with -p / -L the pids are set already, with -p cmd once the COMMAND runs).
	 */
	if (r->top_level && ((o->pid == 0 && o->tid == 0 && set_shaping(r, r->dir, "set_event_pid", "") < 0) ||
			     set_shaping(r, r->dir, "set_event_notrace_pid", "") < 0))
		return -1;
	for (size_t i = 0; i < o->nr_events; i++)
		if (expand_event(r, &o->events[i]) < 0)
			return -1;
	if (trigger_add_event(r) < 0 || stopif_add_events(r) < 0)
		return -1;
	if (add_kprobes(r) < 0 || enable_events(r) < 0 || stopif_install(r) < 0 ||
	    trigger_install(r) < 0 || set_tracer(r) < 0)
		return -1;
	if (o->function_profile && profiler_prepare(r) < 0)
		return -1;
	if (!r->nr_events && !o->tracer && !o->function_profile)
		return msg_error("nothing to record: no events and no tracer");
	return 0;
}
