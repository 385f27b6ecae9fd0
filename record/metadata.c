/* SPDX-License-Identifier: MIT */
/*
 * metadata.c - what makes a .ftz decodable elsewhere: the INFO section, FILE
 * snapshots of tracefs / proc files (format/FORMAT.md 4.2 lists the names), and
 * the END section.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cmd.h"
#include "common/msg.h"
#include "record/rec_int.h"
#include "record/tfs.h"

/* key=value line; newlines in values become spaces (FORMAT.md 4.1). */
static void kv(FILE *f, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void kv(FILE *f, const char *key, const char *fmt, ...)
{
	char *val = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&val, fmt, ap) < 0)
		val = NULL;
	va_end(ap);
	if (!val)
		return;
	for (char *c = val; *c; c++)
		if (*c == '\n')
			*c = ' ';
	fprintf(f, "%s=%s\n", key, val);
	free(val);
}

static int write_kv_section(struct rec *r, uint32_t type, char *text, size_t len)
{
	int ret = text ? ftz_write_info(r->w, type, text) : -ENOMEM;
	(void)len;
	free(text);
	if (ret < 0)
		msg_error("%s: cannot write %s section: %s", r->out_path,
			  type == FTZ_SEC_INFO ? "INFO" : "END", strerror(-ret));
	return ret;
}

/* A FILE section of DATA under NAME. 0 or -errno (after a message). */
static int write_file(struct rec *r, enum ftz_phase phase, const char *name, const char *data,
		      size_t len)
{
	int ret = ftz_write_file(r->w, phase, name, data, len);

	if (ret < 0)
		msg_error("%s: write failed: %s", r->out_path, strerror(-ret));
	return ret;
}

/* A key=value text section being built (INFO, END, /proc/tgids). NULL after a message. */
static FILE *open_text(char **text, size_t *len)
{
	FILE *f = open_memstream(text, len);

	if (!f)
		msg_error("out of memory");
	return f;
}

int metadata_write_info(struct rec *r)
{
	const struct record_opts *o = r->o;
	struct utsname u;
	char host[256] = "";
	uname(&u);
	gethostname(host, sizeof(host) - 1);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_text(&text, &len);
	if (!f)
		return -ENOMEM;
	kv(f, "ftz_version", "%d.%d", FTZ_VERSION_MAJOR, FTZ_VERSION_MINOR);
	kv(f, "ftrec_version", "%s", CMD_VERSION);
	kv(f, "hostname", "%s", host);
	kv(f, "uname_sysname", "%s", u.sysname);
	kv(f, "uname_release", "%s", u.release);
	kv(f, "uname_version", "%s", u.version);
	kv(f, "uname_machine", "%s", u.machine);
	kv(f, "page_size", "%ld", sysconf(_SC_PAGESIZE));
	kv(f, "subbuf_size", "%u", r->subbuf_size);
	kv(f, "long_size", "%zu", sizeof(long));
	kv(f, "endian", "%s", __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? "little" : "big");
	kv(f, "clock", "%s", r->clock);
	char p[PATH_MAX], *kb = tfs_read_trimmed(tfs_path(p, "%s/buffer_size_kb", r->dir));
	if (kb)
		kv(f, "buffer_size_kb", "%lu", strtoul(kb, NULL, 10)); /* per CPU */
	free(kb);
	kv(f, "nr_cpus", "%d", r->nr_cpus);
	fputs("cmdline=ftrec", f);
	for (int i = 0; i < o->argc; i++)
		fprintf(f, " %s", o->argv[i]);
	fputc('\n', f);
	kv(f, "preset", "%s", o->preset ? o->preset : "record");
	kv(f, "start_wall_ns", "%llu", (unsigned long long)r->start_wall_ns);
	/* Only for clocks user space can read too; otherwise the start marker pairs them. */
	if (r->start_trace_ns)
		kv(f, "start_trace_ns", "%llu", (unsigned long long)r->start_trace_ns);
	kv(f, "instance", "%s", r->top_level ? "(top level)" : r->name);
	kv(f, "tracefs", "%s", r->root);
	fputs("events=", f);
	for (size_t i = 0; i < r->nr_events; i++)
		fprintf(f, "%s%s:%s", i ? "," : "", r->events[i].system, r->events[i].event);
	fputc('\n', f);
	for (size_t i = 0; i < r->nr_events; i++)
		if (r->events[i].filter)
			kv(f, "filter", "%s:%s %s", r->events[i].system, r->events[i].event,
			   r->events[i].filter);
	kv(f, "stacktrace", "%d", o->stacktrace ? 1 : 0);
	if (o->pid)
		kv(f, "pid", "%d", o->pid == RECORD_PID_COMMAND ? (int)r->child : o->pid);
	if (o->tracer)
		kv(f, "tracer", "%s", o->tracer);
	if (o->kernel_ring)
		kv(f, "kernel_ring", "1");
	if (o->stop_if) {
		kv(f, "stop_if", "%s", o->stop_if);
		kv(f, "stop_kind", "%s", stopif_kind_name(o->stop_kind));
		kv(f, "stop_threshold_ns", "%llu", (unsigned long long)o->stop_ns);
	}
	if (o->trigger) {
		kv(f, "trigger", "%s", o->trigger);
		kv(f, "trigger_event", "%s:%s", o->trigger_system, o->trigger_event);
		if (o->post > 0)
			kv(f, "trigger_post_ns", "%llu", (unsigned long long)(o->post * 1e9));
	}
	if (o->function_profile) {
		kv(f, "function_profile", "1");
		kv(f, "snapshot_interval_ns", "%llu", (unsigned long long)(o->snapshot_interval * 1e9));
	}
	if (o->command) {
		fputs("command=", f);
		for (char **a = o->command; *a; a++)
			fprintf(f, "%s%s", a == o->command ? "" : " ", *a);
		fputc('\n', f);
	}
	segs_info_keys(r, f);
	fclose(f);
	free(r->info_text);
	r->info_text = text ? strdup(text) : NULL;
	return write_kv_section(r, FTZ_SEC_INFO, text, len);
}

/* Snapshot tracefs file NAME (relative to DIR) under the FORMAT.md name STORED. */
static int snap(struct rec *r, enum ftz_phase phase, const char *dir, const char *name,
		const char *stored)
{
	char p[PATH_MAX];
	size_t len;
	char *data = tfs_read(tfs_path(p, "%s/%s", dir, name), &len);
	if (!data) {
		msg_warn("cannot read %s: %s", p, strerror(errno));
		return 0; /* a missing snapshot costs decoding comfort, not the recording */
	}
	int ret = write_file(r, phase, stored ? stored : name, data, len);
	free(data);
	return ret;
}

static int snap_ftrace_formats(struct rec *r)
{
	char p[PATH_MAX];
	DIR *d = opendir(tfs_path(p, "%s/events/ftrace", r->root));
	if (!d)
		return 0;
	int ret = 0;
	for (struct dirent *e; ret == 0 && (e = readdir(d));) {
		if (e->d_name[0] == '.' || !tfs_exists(tfs_path(p, "%s/events/ftrace/%s/format", r->root, e->d_name)))
			continue;
		char name[PATH_MAX];
		ret = snap(r, FTZ_PHASE_START, r->root, tfs_path(name, "events/ftrace/%s/format", e->d_name), NULL);
	}
	closedir(d);
	return ret;
}

static int all_zero_addresses(const char *syms)
{
	/* kptr_restrict hides addresses by printing zeros; one real address is enough. */
	for (const char *l = syms; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		if (strspn(l, "0") < 8 && l[0] != '\n')
			return 0;
		if (!strchr(l, '\n'))
			break;
	}
	return 1;
}

static int snap_kallsyms(struct rec *r)
{
	size_t len;
	char *syms = tfs_read("/proc/kallsyms", &len);
	if (syms && len && all_zero_addresses(syms)) {
		/* Root sees addresses with kptr_restrict <= 1: lower it for this read only. */
		if (undo_write(r->undo, "/proc/sys/kernel/kptr_restrict", "1") == 0) {
			free(syms);
			syms = tfs_read("/proc/kallsyms", &len);
		}
		if (!syms || all_zero_addresses(syms))
			msg_warn("/proc/kallsyms shows no addresses: stacks will not be symbolized");
	}
	if (!syms) {
		msg_warn("cannot read /proc/kallsyms: %s", strerror(errno));
		return 0;
	}
	int ret = write_file(r, FTZ_PHASE_START, "/proc/kallsyms", syms, len);
	free(syms);
	return ret;
}

/*
 * "tid tgid" of every thread in /proc, as FILE /proc/tgids. The kernel's saved_tgids
 * only knows tasks it saw switch while an event was committed with record-tgid on,
 * and misses every thread of a function-tracer recording in an instance (6.1): the
 * reports' -p (the process) needs each thread's process.
 */
static int snap_proc_tgids(struct rec *r, enum ftz_phase phase)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_text(&text, &len);
	DIR *proc = opendir("/proc");
	struct dirent *p;

	if (!f) {
		if (proc)
			closedir(proc);
		return -ENOMEM;
	}
	while (proc && (p = readdir(proc))) {
		char path[300], *end;
		long tgid = strtol(p->d_name, &end, 10);

		if (*end || tgid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		DIR *tasks = opendir(path);
		struct dirent *t;

		while (tasks && (t = readdir(tasks))) {
			long tid = strtol(t->d_name, &end, 10);

			if (!*end && tid > 0)
				fprintf(f, "%ld %ld\n", tid, tgid);
		}
		if (tasks)
			closedir(tasks);
	}
	if (proc)
		closedir(proc);
	fclose(f);
	int ret = text ? write_file(r, phase, "/proc/tgids", text, len) : -ENOMEM;
	if (!text)
		msg_error("out of memory");
	free(text);
	return ret;
}

int metadata_write_stats(struct rec *r, enum ftz_phase phase)
{
	char name[PATH_MAX];
	int ret = 0;
	for (int i = 0; ret == 0 && i < r->nr_cpus; i++)
		ret = snap(r, phase, r->dir, tfs_path(name, "per_cpu/cpu%d/stats", i), NULL);
	return ret;
}

int metadata_write_start_files(struct rec *r)
{
	char name[PATH_MAX];
	int ret;
	if ((ret = snap(r, FTZ_PHASE_START, r->root, "events/header_page", NULL)) < 0 ||
	    (ret = snap(r, FTZ_PHASE_START, r->root, "events/header_event", NULL)) < 0)
		return ret;
	for (size_t i = 0; i < r->nr_events; i++) {
		tfs_path(name, "events/%s/%s/format", r->events[i].system, r->events[i].event);
		if ((ret = snap(r, FTZ_PHASE_START, r->root, name, NULL)) < 0)
			return ret;
	}
	if ((ret = snap_ftrace_formats(r)) < 0 ||
	    (ret = snap(r, FTZ_PHASE_START, r->root, "printk_formats", NULL)) < 0 ||
	    /* also at END: tasks that ran only before the start are gone from it by then */
	    (ret = snap(r, FTZ_PHASE_START, r->root, "saved_cmdlines", NULL)) < 0 ||
	    (ret = snap(r, FTZ_PHASE_START, r->root, "saved_tgids", NULL)) < 0 ||
	    (ret = snap_proc_tgids(r, FTZ_PHASE_START)) < 0 ||
	    (ret = snap_kallsyms(r)) < 0 || (ret = metadata_write_stats(r, FTZ_PHASE_START)) < 0)
		return ret;
	return 0;
}

/* per_cpu/cpuN/stats as the kernel prints it ("entries: 12\n..."). */
static void parse_stats(const char *text, struct cpu_stats *st)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "entries:", offsetof(struct cpu_stats, entries) },
		{ "overrun:", offsetof(struct cpu_stats, overrun) },
		{ "commit overrun:", offsetof(struct cpu_stats, commit_overrun) },
		{ "bytes:", offsetof(struct cpu_stats, bytes) },
		{ "dropped events:", offsetof(struct cpu_stats, dropped) },
		{ "read events:", offsetof(struct cpu_stats, read_events) },
	};
	memset(st, 0, sizeof(*st));
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strncmp(l, keys[i].key, strlen(keys[i].key)))
				*(uint64_t *)((char *)st + keys[i].off) =
					strtoull(l + strlen(keys[i].key), NULL, 10);
	st->valid = 1;
}

void metadata_read_stats(struct rec *r, int end)
{
	char p[PATH_MAX];
	for (int i = 0; i < r->nr_cpus; i++) {
		char *t = tfs_read(tfs_path(p, "%s/per_cpu/cpu%d/stats", r->dir, i), NULL);
		struct cpu_stats *st = end ? &r->cpus[i].end : &r->cpus[i].start;
		if (t)
			parse_stats(t, st);
		free(t);
	}
}

int metadata_write_end(struct rec *r)
{
	int ret;
	if ((ret = metadata_write_stats(r, FTZ_PHASE_END)) < 0 ||
	    (ret = snap(r, FTZ_PHASE_END, r->root, "saved_cmdlines", NULL)) < 0 ||
	    (ret = snap(r, FTZ_PHASE_END, r->root, "saved_tgids", NULL)) < 0 ||
	    (ret = snap_proc_tgids(r, FTZ_PHASE_END)) < 0)
		return ret;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_text(&text, &len);
	if (!f)
		return -ENOMEM;
	kv(f, "stop_reason", "%s", r->stop_reason ? r->stop_reason : "unknown");
	if (r->stop_reason && !strcmp(r->stop_reason, "trigger"))
		kv(f, "stop_trigger", "%s", r->o->trigger);
	/* The trigger event is the last of its type before this (--post records more after). */
	if (r->trigger_wall_ns)
		kv(f, "trigger_seen_wall_ns", "%llu", (unsigned long long)r->trigger_wall_ns);
	if (r->trigger_trace_ns)
		kv(f, "trigger_seen_trace_ns", "%llu", (unsigned long long)r->trigger_trace_ns);
	kv(f, "end_wall_ns", "%llu", (unsigned long long)r->end_wall_ns);
	if (r->self_tids[0])
		kv(f, "ftrec_tids", "%s", r->self_tids);
	if (r->end_trace_ns)
		kv(f, "end_trace_ns", "%llu", (unsigned long long)r->end_trace_ns);
	if (r->file_from_trace_ns)
		kv(f, "traced_from_trace_ns", "%llu", (unsigned long long)r->file_from_trace_ns);
	for (int i = 0; i < r->nr_cpus; i++) {
		uint64_t pages, events, missed; /* a series file: its own */
		char key[64];
		segs_cpu_counts(r, i, &pages, &events, &missed);
		snprintf(key, sizeof(key), "cpu%d_pages", i);
		kv(f, key, "%llu", (unsigned long long)pages);
		snprintf(key, sizeof(key), "cpu%d_bytes", i);
		kv(f, key, "%llu", (unsigned long long)pages * r->subbuf_size);
		snprintf(key, sizeof(key), "cpu%d_events", i);
		kv(f, key, "%llu", (unsigned long long)events);
		snprintf(key, sizeof(key), "cpu%d_missed_pages", i);
		kv(f, key, "%llu", (unsigned long long)missed);
	}
	segs_end_keys(r, f);
	if (r->child_reaped) {
		if (WIFEXITED(r->child_status))
			kv(f, "command_exit", "%d", WEXITSTATUS(r->child_status));
		else if (WIFSIGNALED(r->child_status))
			kv(f, "command_signal", "%d", WTERMSIG(r->child_status));
	}
	fclose(f);
	return write_kv_section(r, FTZ_SEC_END, text, len);
}
