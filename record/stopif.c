// SPDX-License-Identifier: MIT
/*
 * stopif.c - --stop-if 'COND': the flight recorder stops itself when a latency goes
 * bad, keeping the moments before (issue 24).
 *
 *   runq > DUR           a task waited longer than DUR from its wakeup (sched_waking,
 *                        else sched_wakeup) until it was switched in
 *   io > DUR             a block request from block_rq_issue to block_rq_complete
 *   syscall NAME > DUR   one thread from syscalls:sys_enter_NAME to sys_exit_NAME
 *
 * The kernel measures it, not ftrec: a synthetic event ftrec_stop_<pid> (u64 lat;
 * pid: the task) is defined in the global synthetic_events, and in our instance two hist
 * triggers compute it (the first event saves common_timestamp per key, the second
 * one's onmatch().trace() fires the synthetic event with the difference). The
 * synthetic event is then the --trigger: recorded, with a one-shot traceoff trigger
 * `if lat > N` (trigger.c), so the rest -- ftrec noticing tracing_on went to 0,
 * --post, --kernel-ring's drain -- is the --trigger's.
 *
 * Kernel facts this relies on (measured on 6.1, ../shared/notes/hist-triggers-6.1.md):
 * every trigger that uses common_timestamp says clock=CLOCK, or the instance's clock
 * becomes global; the hist triggers and the traceoff work inside an instance and
 * touch only its tracing_on; a field's type must be the one passed exactly (common_pid
 * is int, next_pid pid_t);
 * a synthetic event in use (a trigger names it, an instance enables it) cannot be
 * removed, nor an instance with hist triggers. Hence the order: the definition is
 * the first undo step (so it is removed last, after the instance), the hist
 * triggers come after the events are enabled and go before them. Each is removed
 * by writing '!' and its own text. The user's synthetic events and triggers are
 * other lines and other files: never touched.
 *
 * With -p PID (its threads when ftrec starts) or -L TID, and with -n COMM, only
 * those tasks count: a filter on each hist trigger (the instance's event pid list
 * alone would not do it: a sched_switch passes it when the task switched OUT is
 * listed). An io condition counts every request and takes none of them: a
 * request's completion runs in whichever task the interrupt finds, which the pid
 * list would hide.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/msg.h"
#include "record/rec_int.h"
#include "record/tfs.h"

#define STOPIF_MAX_TASKS 64 /* threads named one by one in the triggers' filter */
/*
 * A latency of a day or more is not one: u64 of a negative difference. Seen on 6.1
 * when the first event was not recorded (its common_timestamp is then not the
 * event's), so stopif_add_events records both, and this bound keeps any such
 * value from stopping the recording.
 */
#define STOPIF_MAX_NS 86400000000000ull

/* What each condition measures: the hist triggers' two events and keys. */
struct stopif_measure {
	const char *name;
	const char *start_sys, *start_key, *end_sys, *end_key, *end_pid;
	const char *start_task, *end_task; /* the task fields -p/-L filter on, or NULL */
	const char *start_comm, *end_comm; /* ... and -n */
	const char *pid_type;              /* end_pid's, exactly: the kernel compares them */
};

static const struct stopif_measure kinds[] = {
	[STOPIF_RUNQ] = { "runq", "sched", "pid", "sched", "next_pid", "next_pid", "pid", "next_pid",
			"comm", "next_comm", "pid_t" },
	[STOPIF_IO] = { "io", "block", "dev,sector", "block", "dev,sector", "common_pid", NULL, NULL,
		      NULL, NULL, "int" },
	/* comm: the filter's field of the current task (every event has it) */
	[STOPIF_SYSCALL] = { "syscall", "syscalls", "common_pid", "syscalls", "common_pid",
			     "common_pid", "common_pid", "common_pid", "comm", "comm", "int" },
};

/* "5ms", "100 us", "0.5s", "2000000ns": nanoseconds, at least 1 us, at most a day. */
static int parse_duration(const char *spec, const char *s, uint64_t *ns)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v = strtod(s, &end);

	while (*end == ' ')
		end++;
	for (size_t i = 0; end != s && i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		v *= units[i].ns;
		if (!isfinite(v) || v < 1e3 || v >= STOPIF_MAX_NS)
			break;
		*ns = (uint64_t)v;
		return 0;
	}
	return msg_error("--stop-if '%s': '%s' is not a duration from 1us to 1 day "
			 "(a number with ns, us, ms or s)", spec, s);
}

/* A word of [a-zA-Z0-9_] at *P (after blanks) into W; *P moves past it. */
static bool word(const char **p, char *w, size_t len)
{
	size_t n;

	*p += strspn(*p, " \t");
	n = strspn(*p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	if (!n || n >= len)
		return false;
	memcpy(w, *p, n);
	w[n] = 0;
	*p += n;
	return true;
}

int stopif_parse(struct record_opts *o, const char *spec)
{
	char kind[16], name[64] = "";
	const char *p = spec;

	if (o->trigger)
		return msg_error("--stop-if cannot go with --trigger, nor be given twice "
				 "(one stop per recording)");
	if (!word(&p, kind, sizeof(kind)) || (!strcmp(kind, "syscall") && !word(&p, name, sizeof(name))) ||
	    *(p += strspn(p, " \t")) != '>')
		return msg_error("--stop-if '%s': expected 'runq > DURATION', 'io > DURATION' or "
				 "'syscall NAME > DURATION'", spec);
	o->stop_kind = -1;
	for (int i = 0; i < (int)(sizeof(kinds) / sizeof(kinds[0])); i++)
		if (!strcmp(kind, kinds[i].name))
			o->stop_kind = i;
	if (o->stop_kind < 0)
		return msg_error("--stop-if '%s': '%s' is not runq, io or syscall", spec, kind);
	if (parse_duration(spec, p + 1 + strspn(p + 1, " \t"), &o->stop_ns) < 0)
		return -1;
	/* The synthetic event is this process's: record_run runs in it. */
	if (asprintf(&o->stop_event, "ftrec_stop_%d", (int)getpid()) < 0)
		o->stop_event = NULL; /* asprintf leaves it undefined: record_opts_free frees it */
	else if (asprintf(&o->stop_trigger, "synthetic:%s if lat > %llu && lat < %llu", o->stop_event,
			  (unsigned long long)o->stop_ns, (unsigned long long)STOPIF_MAX_NS) < 0)
		o->stop_trigger = NULL;
	if (!o->stop_trigger)
		return msg_error("out of memory");
	if (name[0] && !(o->stop_syscall = strdup(name)))
		return msg_error("out of memory");
	if (trigger_parse(o, o->stop_trigger) < 0)
		return -1;
	o->stop_if = spec;
	return 0;
}

const char *stopif_kind_name(int kind)
{
	return kinds[kind].name;
}

/* The condition's two events in R's tracefs ("sched_waking", "sched_switch"). */
static void stopif_events(const struct rec *r, char *start, char *end, size_t len)
{
	const struct record_opts *o = r->o;
	char p[PATH_MAX];

	switch (o->stop_kind) {
	case STOPIF_RUNQ:
		/* sched_waking is the wakeup's first moment (4.6+); sched_wakeup before */
		snprintf(start, len, "%s", tfs_exists(tfs_path(p, "%s/events/sched/sched_waking",
							       r->root)) ? "sched_waking" : "sched_wakeup");
		snprintf(end, len, "sched_switch");
		break;
	case STOPIF_IO:
		snprintf(start, len, "block_rq_issue");
		snprintf(end, len, "block_rq_complete");
		break;
	default:
		snprintf(start, len, "sys_enter_%s", o->stop_syscall);
		snprintf(end, len, "sys_exit_%s", o->stop_syscall);
	}
}

/* Clocks whose timestamps count nanoseconds: the threshold's unit. */
static bool ns_clock(const char *clock)
{
	static const char *const ns[] = { "local", "global", "mono", "mono_raw", "boot", "tai",
					  "perf", NULL };

	for (int i = 0; ns[i]; i++)
		if (!strcmp(clock, ns[i]))
			return true;
	return false;
}

int stopif_check(struct rec *r)
{
	const struct record_opts *o = r->o;
	const struct stopif_measure *k;
	char p[PATH_MAX], start[96], end[96];

	if (!o->stop_if)
		return 0;
	k = &kinds[o->stop_kind];
	if (!tfs_exists(tfs_path(p, "%s/synthetic_events", r->root)))
		return msg_error("--stop-if needs synthetic events, which this kernel lacks "
				 "(CONFIG_SYNTH_EVENTS: no %s)", p);
	stopif_events(r, start, end, sizeof(start));
	if (!tfs_exists(tfs_path(p, "%s/events/%s/%s", r->root, k->start_sys, start)) ||
	    !tfs_exists(tfs_path(p, "%s/events/%s/%s", r->root, k->end_sys, end)))
		return msg_error("--stop-if '%s': this kernel has no %s (see %s/available_events)",
				 o->stop_if, p + strlen(r->root) + strlen("/events/"), r->root);
	if (!tfs_exists(tfs_path(p, "%s/events/%s/%s/hist", r->root, k->start_sys, start)))
		return msg_error("--stop-if needs hist triggers, which this kernel lacks "
				 "(CONFIG_HIST_TRIGGERS: no %s)", p);
	if (o->clock && !ns_clock(o->clock))
		return msg_error("--stop-if needs a trace clock that counts nanoseconds, not -C %s",
				 o->clock);
	if (o->pid == RECORD_PID_COMMAND)
		return msg_error("--stop-if cannot go with -p cmd (give -p PID or -L TID)");
	/* a request completes in whichever task the interrupt finds: a pid list hides it */
	if (o->stop_kind == STOPIF_IO && (o->pid || o->tid || o->stop_comm))
		return msg_error("--stop-if '%s' counts every block request: not with -p, -L or -n",
				 o->stop_if);
	return 0;
}

/* Append TEXT to PATH through the undo log ('!' TEXT at replay); the kernel's reason
 * when it refuses. */
static int stopif_append(struct rec *r, const char *path, const char *text, const char *undo)
{
	char *log_before = instance_error_log(r, path);
	int ret = undo_append(r->undo, path, text, undo);

	if (ret < 0) {
		char *reason = log_before ? instance_kernel_reason(r, path, log_before) : NULL;

		msg_error("--stop-if '%s': the kernel refused '%.*s' in %s: %s%s%s", r->o->stop_if,
			  (int)strcspn(text, "\n"), text, path, strerror(-ret),
			  reason ? " -- kernel says: " : "", reason ? reason : "");
		free(reason);
	}
	free(log_before);
	return ret < 0 ? -1 : 0;
}

int stopif_define(struct rec *r)
{
	char p[PATH_MAX], text[160], undo[96];

	if (!r->o->stop_if)
		return 0;
	snprintf(text, sizeof(text), "%s u64 lat; %s pid\n", r->o->stop_event,
		 kinds[r->o->stop_kind].pid_type);
	snprintf(undo, sizeof(undo), "!%s\n", r->o->stop_event);
	return stopif_append(r, tfs_path(p, "%s/synthetic_events", r->root), text, undo);
}

/*
 * " if (F == t1 || F == t2 ...) && C == \"COMM\"": the -L thread, or -p's threads now,
 * and -n's name; "" for all.
 */
static int task_filter(const struct rec *r, const char *field, const char *comm_field,
		       char *out, size_t len)
{
	const struct record_opts *o = r->o;
	int *tids = NULL;
	long n = 0;
	size_t at = 0;

	out[0] = 0;
	if (o->stop_comm && comm_field)
		at = (size_t)snprintf(out, len, " if %s == \"%s\"", comm_field, o->stop_comm);
	if (!field || (o->tid <= 0 && o->pid <= 0))
		return 0;
	at += (size_t)snprintf(out + at, len - at, "%s(", at ? " && " : " if ");
	if (o->tid > 0) {
		snprintf(out + at, len - at, "%s == %d)", field, o->tid);
		return 0;
	}
	n = tasks_of_process(o->pid, &tids);
	if (n < 0)
		return msg_error("-p %d: %s", o->pid, strerror(errno));
	if (n > STOPIF_MAX_TASKS) {
		free(tids);
		return msg_error("--stop-if with -p %d: the process has %ld threads, over the %d a "
				 "condition names one by one; give -L TID", o->pid, n, STOPIF_MAX_TASKS);
	}
	for (long i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(out + at, len - at, "%s%s == %d", i ? " || " : "", field, tids[i]);
	if (at < len)
		at += (size_t)snprintf(out + at, len - at, ")");
	free(tids);
	return at < len ? 0 : msg_error("--stop-if: the task filter is too long");
}

/* One hist trigger on SYS/EVENT of our instance: TEXT, removed by '!' TEXT. */
static int hist_trigger(struct rec *r, const char *sys, const char *event, const char *text)
{
	char p[PATH_MAX], undo[2200];

	snprintf(undo, sizeof(undo), "!%s", text);
	return stopif_append(r, tfs_path(p, "%s/events/%s/%s/trigger", r->dir, sys, event), text,
			     undo);
}

int stopif_add_events(struct rec *r)
{
	const struct stopif_measure *k;
	char start[96], end[96];

	if (!r->o->stop_if)
		return 0;
	k = &kinds[r->o->stop_kind];
	stopif_events(r, start, end, sizeof(start));
	if (instance_add_event(r, k->start_sys, start, NULL) < 0 ||
	    instance_add_event(r, k->end_sys, end, NULL) < 0)
		return -1;
	/* An event with a filter is built in a temporary buffer, where 6.1's hist
	 * triggers read the CPU's previous event's timestamp as its own. */
	for (size_t i = 0; i < r->nr_events; i++) {
		const struct rec_event *e = &r->events[i];

		if (e->filter && ((!strcmp(e->system, k->start_sys) && !strcmp(e->event, start)) ||
				  (!strcmp(e->system, k->end_sys) && !strcmp(e->event, end))))
			return msg_error("--stop-if '%s' measures %s:%s, which -f filters: the kernel's "
					 "hist triggers misread the time of a filtered event; record "
					 "it without -f", r->o->stop_if, e->system, e->event);
	}
	return 0;
}

int stopif_install(struct rec *r)
{
	const struct record_opts *o = r->o;
	const struct stopif_measure *k;
	char start[96], end[96], start_if[1400], end_if[1400], text[2100];

	if (!o->stop_if)
		return 0;
	k = &kinds[o->stop_kind];
	stopif_events(r, start, end, sizeof(start));
	if (task_filter(r, k->start_task, k->start_comm, start_if, sizeof(start_if)) < 0 ||
	    task_filter(r, k->end_task, k->end_comm, end_if, sizeof(end_if)) < 0)
		return -1;
	/* clock= on each: a trigger with common_timestamp and none sets the clock to global */
	snprintf(text, sizeof(text), "hist:keys=%s:ftrec_ts0=common_timestamp:clock=%s%s\n",
		 k->start_key, r->clock, start_if);
	if (hist_trigger(r, k->start_sys, start, text) < 0)
		return -1;
	snprintf(text, sizeof(text), "hist:keys=%s:ftrec_lat=common_timestamp-$ftrec_ts0:clock=%s:"
		 "onmatch(%s.%s).trace(%s,$ftrec_lat,%s)%s\n", k->end_key, r->clock, k->start_sys,
		 start, o->stop_event, k->end_pid, end_if);
	return hist_trigger(r, k->end_sys, end, text);
}
