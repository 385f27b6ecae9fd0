/* SPDX-License-Identifier: MIT */
/*
 * run.c - record_run(): the order of one recording, one step a function.
 *
 *   check_options -> prepare (find tracefs, create the output, instance +
 *   options through the undo log) -> start_command (waits) -> write_start
 *   (INFO, START files) -> start_readers -> start_tracing (tracing on, start
 *   marker, COMMAND released) -> wait_for_stop -> stop_tracing (tracing off,
 *   drain, END files, END) -> close_output (summary) -> undo everything.
 *
 * Signals are blocked in every thread and taken synchronously here with
 * sigtimedwait(), so a Ctrl-C during setup also ends in the same cleanup.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/msg.h"
#include "record/rec_int.h"
#include "record/tfs.h"

uint64_t run_now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The POSIX clock a trace clock reads, or -1 when it has none (local, global, counter...). */
static clockid_t clock_of(const char *trace_clock)
{
	if (!strcmp(trace_clock, "mono"))
		return CLOCK_MONOTONIC;
	if (!strcmp(trace_clock, "mono_raw"))
		return CLOCK_MONOTONIC_RAW;
	if (!strcmp(trace_clock, "boot"))
		return CLOCK_BOOTTIME;
	if (!strcmp(trace_clock, "tai"))
		return CLOCK_TAI;
	return (clockid_t)-1;
}

void run_time_pair(struct rec *r, uint64_t *wall, uint64_t *trace)
{
	clockid_t c = clock_of(r->clock);
	*wall = run_now_ns(CLOCK_REALTIME);
	*trace = c == (clockid_t)-1 ? 0 : run_now_ns(c);
}

static int count_cpus(struct rec *r)
{
	char p[PATH_MAX];
	DIR *d = opendir(tfs_path(p, "%s/per_cpu", r->dir));
	if (!d)
		return msg_error_errno(errno, "%s", p);
	int max = -1;
	for (struct dirent *e; (e = readdir(d));) {
		int n;
		if (sscanf(e->d_name, "cpu%d", &n) == 1 && n > max)
			max = n;
	}
	closedir(d);
	r->nr_cpus = max + 1;
	return r->nr_cpus > 0 ? 0 : msg_error("%s: no CPUs", p);
}

static void read_subbuf_size(struct rec *r)
{
	char p[PATH_MAX];
	char *kb = tfs_read_trimmed(tfs_path(p, "%s/buffer_subbuf_size_kb", r->dir));
	/* Kernels before 6.8 have no buffer_subbuf_size_kb: sub-buffers are pages. */
	r->subbuf_size = kb ? (uint32_t)strtoul(kb, NULL, 10) * 1024 : (uint32_t)sysconf(_SC_PAGESIZE);
	free(kb);
}

/* What the steps of one recording hand on to each other, beyond struct rec. */
struct run {
	struct rec *r;
	sigset_t orig_mask; /* the signal mask before record_run(): the COMMAND's */
	int release_fd;     /* the COMMAND waits for a byte on it; -1: none is waiting */
	bool tracing;       /* tracing was switched on: there is a recording to keep */
	bool ok;            /* no error so far (set once a stop reason came) */
};

/*
 * The signals that end a recording (SIGUSR1: a reader hit --max-size or a write
 * error, or a user's `kill -USR1` to stop a flight recorder from outside).
 */
static void stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGUSR1);
}

/* Options no parser could refuse alone (a preset may have set them). */
static int check_options(const struct record_opts *o)
{
	if (!o->output)
		return msg_error("no output file: give -o FILE.ftz");
	if (o->pid == RECORD_PID_COMMAND && !o->command)
		return msg_error("-p cmd needs a COMMAND after --");
	if (trigger_check_options(o) < 0 || segs_check_options(o) < 0)
		return -1;
	return 0;
}

struct ftz_writer *run_create_output(const struct rec *r, const char *path)
{
	char err[512];
	struct ftz_writer *w = ftz_writer_create(path, err, sizeof(err));

	if (!w) {
		msg_error("%s", err);
		return NULL;
	}
	if (r->o->zstd_level)
		ftz_writer_set_level(w, r->o->zstd_level);
	return w;
}

/* Setup up to the point where the COMMAND can be started. */
static int prepare(struct rec *r)
{
	if (instance_find_tracefs(r) < 0 || stopif_check(r) < 0 || segs_open(r) < 0)
		return -1;
	r->w = run_create_output(r, r->out_path);
	if (!r->w)
		return -1;
	r->undo = undo_open();
	if (!r->undo || stopif_define(r) < 0 || instance_setup(r) < 0 || count_cpus(r) < 0 ||
	    (r->top_level && instance_cpumask_all(r) < 0))
		return -1;
	read_subbuf_size(r);
	return 0;
}

/*
 * The COMMAND (if any) is forked now and waits on a pipe, so it starts only once
 * tracing is on; with -p cmd its pid is the filter.
 */
static int start_command(struct run *run)
{
	struct rec *r = run->r;
	int p[2];

	if (!r->o->command)
		return 0;
	if (pipe2(p, O_CLOEXEC) < 0)
		return msg_error_errno(errno, "pipe");
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return msg_error_errno(errno, "fork");
	}
	if (pid == 0) {
		char c;
		close(p[1]);
		sigprocmask(SIG_SETMASK, &run->orig_mask, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (read(p[0], &c, 1) != 1)
			_exit(126); /* ftrec gave up before tracing started */
		execvp(r->o->command[0], r->o->command);
		msg_error_errno(errno, "cannot run %s", r->o->command[0]);
		_exit(127);
	}
	close(p[0]);
	run->release_fd = p[1];
	r->child = pid;
	if (r->o->pid == RECORD_PID_COMMAND)
		return instance_set_pid(r, r->child, 1);
	return 0;
}

/* INFO and the START files, then the ring's first segment / the series' preamble. */
static int write_start(struct rec *r)
{
	run_time_pair(r, &r->start_wall_ns, &r->start_trace_ns);
	if (metadata_write_info(r) < 0)
		return -1;
	uint64_t info_end = ftz_writer_bytes(r->w);
	if (metadata_write_start_files(r) < 0 || segs_start(r, info_end) < 0)
		return -1;
	return 0;
}

/* Every CPU's reader (with --kernel-ring only opened: they start at the stop). */
static int start_readers(struct rec *r)
{
	if (capture_open(r) < 0)
		return -1;
	if (!r->o->kernel_ring) {
		if (capture_start(r) < 0)
			return -1;
		capture_list_threads(r);
	}
	return 0;
}

static void write_start_marker(struct rec *r)
{
	char p[PATH_MAX], line[160];
	snprintf(line, sizeof(line), "ftrec: start wall_ns=%llu trace_ns=%llu clock=%s\n",
		 (unsigned long long)r->start_wall_ns, (unsigned long long)r->start_trace_ns, r->clock);
	tfs_write(tfs_path(p, "%s/trace_marker", r->dir), line, false);
}

/* The progress line: what is recorded where, and how it stops. */
static void announce(const struct rec *r)
{
	const struct record_opts *o = r->o;

	fprintf(stderr, "ftrec: recording %zu event types%s into %s%s (instance %s)%s%s; Ctrl-C%s to stop\n",
		r->nr_events, o->tracer ? " and a tracer" :
		o->function_profile ? " and the function profiler" : "", o->output,
		o->kernel_ring ? " from the kernel ring (overwrite mode, drained at the stop)" : "",
		r->top_level ? "top level" : r->name,
		o->stop_if ? "; stops at --stop-if " : o->trigger ? "; stops at --trigger " : "",
		o->stop_if ? o->stop_if : o->trigger ? o->trigger : "", o->kernel_ring || o->trigger ? " or SIGUSR1" : "");
}

/* Tracing on (and the profiler), the start marker, then the COMMAND may run. */
static int start_tracing(struct run *run)
{
	struct rec *r = run->r;

	metadata_read_stats(r, 0);
	run_time_pair(r, &r->start_wall_ns, &r->start_trace_ns);
	r->file_from_trace_ns = r->start_trace_ns;
	if (instance_tracing_on(r, 1) < 0)
		return msg_error("cannot switch tracing on in %s", r->dir);
	run->tracing = true;
	if (r->o->function_profile && profiler_start(r) < 0)
		return -1;
	write_start_marker(r);
	if (!r->o->quiet)
		announce(r);
	if (run->release_fd >= 0) {
		if (write(run->release_fd, "g", 1) != 1)
			msg_error("cannot start the command");
		close(run->release_fd);
		run->release_fd = -1;
	}
	return 0;
}

#define TRIGGER_POLL_NS 100000000ull /* how often tracing_on is read for the --trigger */

/*
 * How long sigtimedwait may sleep: at most CAPTURE_FLUSH_NS (TRIGGER_POLL_NS while a trigger
 * is armed or a --rotate series is watched), and not past the next deadline (0 = none).
 */
static struct timespec wait_time(uint64_t now, uint64_t deadline, uint64_t next_snapshot,
				 bool poll)
{
	/* capture_tick: the readers' partial pages (CAPTURE_FLUSH_NS) */
	uint64_t wait = poll ? TRIGGER_POLL_NS : CAPTURE_FLUSH_NS;

	if (deadline && deadline - now < wait)
		wait = deadline - now;
	if (next_snapshot && next_snapshot - now < wait)
		wait = next_snapshot - now;
	return (struct timespec){ (time_t)(wait / 1000000000ull), (long)(wait % 1000000000ull) };
}

static const char *wait_for_stop(struct rec *r)
{
	sigset_t set;
	stop_signals(&set);
	uint64_t start = run_now_ns(CLOCK_MONOTONIC);
	uint64_t deadline = r->o->duration > 0 ? start + (uint64_t)(r->o->duration * 1e9) : 0;
	uint64_t interval = r->profiler_on ? (uint64_t)(r->o->snapshot_interval * 1e9) : 0;
	uint64_t next_snapshot = interval ? start + interval : 0;
	bool armed = r->o->trigger != NULL; /* the trigger has not fired yet */
	for (;;) {
		if (atomic_load(&r->write_failed))
			return "error: write failed";
		if (atomic_load(&r->max_size_hit))
			return "max-size";
		uint64_t now = run_now_ns(CLOCK_MONOTONIC);
		if (deadline && now >= deadline)
			return armed || !r->o->trigger ? "duration" : "trigger";
		if (armed && trigger_fired(r)) {
			armed = false;
			run_time_pair(r, &r->trigger_wall_ns, &r->trigger_trace_ns);
			if (r->o->post <= 0)
				return "trigger";
			/*
			 * --post: the kernel switched tracing off at the event; switch it
			 * back on for the seconds after (what happened in between, up to
			 * TRIGGER_POLL_NS, is not recorded: the kernel has no trigger that
			 * only tells us). The trigger fires once (traceoff:1).
			 */
			if (!r->o->quiet)
				fprintf(stderr, "ftrec: trigger %s fired; recording %.3g s more\n",
					r->o->trigger, r->o->post);
			if (instance_tracing_on(r, 1) < 0)
				return "trigger";
			deadline = now + (uint64_t)(r->o->post * 1e9);
		}
		if (next_snapshot && now >= next_snapshot) {
			if (profiler_snapshot(r) < 0)
				return "error: snapshot failed";
			/* A late round (a stalled host) does not make the next ones come faster. */
			while (next_snapshot <= now)
				next_snapshot += interval;
		}
		if (segs_poll(r) < 0)
			return "error: --rotate failed";
		capture_tick(r);
		struct timespec ts = wait_time(now, deadline, next_snapshot, armed || segs_polls(r));
		int sig = sigtimedwait(&set, NULL, &ts);
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
			return "signal";
		/* A reader's SIGUSR1 comes after it set its flag; without one it is the user's. */
		if (sig == SIGUSR1 && !atomic_load(&r->write_failed) && !atomic_load(&r->max_size_hit))
			return "SIGUSR1";
		if (sig == SIGCHLD && r->child > 0 &&
		    waitpid(r->child, &r->child_status, WNOHANG) == r->child) {
			r->child_reaped = 1;
			return "command exited";
		}
	}
}

static void end_command(struct rec *r)
{
	if (r->child <= 0 || r->child_reaped)
		return;
	/* Stopped for another reason (Ctrl-C already reached it through the terminal). */
	kill(r->child, SIGTERM);
	if (waitpid(r->child, &r->child_status, 0) == r->child)
		r->child_reaped = 1;
}

/*
 * Whatever step stopped the recording: tracing off, the readers drained and
 * joined, the END files and END written (when all went well), the COMMAND ended.
 */
static void stop_tracing(struct run *run)
{
	struct rec *r = run->r;

	if (run->tracing && r->profiler_on && run->ok && profiler_snapshot(r) < 0)
		run->ok = false; /* the last round: counts up to the stop */
	if (run->tracing)
		instance_tracing_on(r, 0);
	run_time_pair(r, &r->end_wall_ns, &r->end_trace_ns);
	if (run->release_fd >= 0)
		close(run->release_fd); /* the command never starts: it exits 126 */
	if (r->o->kernel_ring && run->tracing) {
		/* Only now the readers start, and only to drain the whole ring. */
		atomic_store(&r->stop, 1);
		if (capture_start(r) < 0)
			run->ok = false;
		capture_list_threads(r);
	}
	capture_stop(r);
	if (segs_finish(r) < 0)
		run->ok = false;
	if (r->cpus && run->tracing)
		metadata_read_stats(r, 1);
	if (run->ok && !atomic_load(&r->write_failed) && metadata_write_end(r) < 0)
		run->ok = false;
	end_command(r);
}

/* The summary (after a complete recording) and the output closed; nothing kept unless traced. */
static void close_output(struct run *run)
{
	struct rec *r = run->r;

	if (!r->w)
		return;
	int werr = ftz_writer_error(r->w);
	if (run->ok)
		summary_print(r);
	int cerr = ftz_writer_close(r->w);
	if (werr || cerr) {
		msg_error("%s: write failed: %s", r->out_path, strerror(-(werr ? werr : cerr)));
		run->ok = false;
	}
	r->w = NULL;
	if (!run->tracing) { /* nothing was recorded: leave no half file */
		unlink(r->out_path);
		segs_abandon(r);
	}
}

static void free_rec(struct rec *r)
{
	for (size_t i = 0; i < r->nr_events; i++) {
		free(r->events[i].system);
		free(r->events[i].event);
	}
	free(r->events);
	profiler_free(r);
	segs_free(r);
	free(r->info_text);
}

int record_run(const struct record_opts *o)
{
	struct rec rec = { .o = o, .main_thread = pthread_self(), .hold_fd = -1 };
	struct run run = { .r = &rec, .release_fd = -1 };
	sigset_t block;

	if (check_options(o) < 0)
		return -1;
	stop_signals(&block);
	sigaddset(&block, SIGUSR2); /* readers unblock it for themselves */
	pthread_sigmask(SIG_BLOCK, &block, &run.orig_mask);
	signal(SIGPIPE, SIG_IGN);

	if (prepare(&rec) == 0 && start_command(&run) == 0 && write_start(&rec) == 0 &&
	    start_readers(&rec) == 0 && start_tracing(&run) == 0) {
		rec.stop_reason = wait_for_stop(&rec);
		run.ok = true;
	}
	/* Every way out, also a failure half-way, ends here. */
	stop_tracing(&run);
	close_output(&run);
	capture_close(&rec);
	instance_release(&rec); /* before the undo log removes the instance */
	if (undo_finish(rec.undo) > 0) {
		msg_error("some tracefs settings could not be restored: run 'ftrec reset'");
		run.ok = false;
	}
	free_rec(&rec);
	/* Signals stay blocked: a second Ctrl-C must not kill us after the cleanup. */
	return run.ok ? 0 : -1;
}
