/* SPDX-License-Identifier: MIT */
/*
 * run.c - record_run(): the order of one recording.
 *
 *   find tracefs -> create the output -> instance + options (undo log) ->
 *   INFO, START files -> readers -> tracing on, start marker -> COMMAND ->
 *   wait for a stop reason -> tracing off -> drain -> END files, END ->
 *   undo everything -> summary.
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

#include "record/rec_int.h"
#include "record/tfs.h"

uint64_t now_ns(clockid_t clk)
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

void rec_take_time_pair(struct rec *r, uint64_t *wall, uint64_t *trace)
{
	clockid_t c = clock_of(r->clock);
	*wall = now_ns(CLOCK_REALTIME);
	*trace = c == (clockid_t)-1 ? 0 : now_ns(c);
}

static int count_cpus(struct rec *r)
{
	char p[PATH_MAX];
	DIR *d = opendir(tfs_path(p, "%s/per_cpu", r->dir));
	if (!d) {
		fprintf(stderr, "ftrec: %s: %s\n", p, strerror(errno));
		return -1;
	}
	int max = -1;
	for (struct dirent *e; (e = readdir(d));) {
		int n;
		if (sscanf(e->d_name, "cpu%d", &n) == 1 && n > max)
			max = n;
	}
	closedir(d);
	r->nr_cpus = max + 1;
	return r->nr_cpus > 0 ? 0 : -1;
}

static void read_subbuf_size(struct rec *r)
{
	char p[PATH_MAX];
	char *kb = tfs_read_trimmed(tfs_path(p, "%s/buffer_subbuf_size_kb", r->dir));
	/* Kernels before 6.8 have no buffer_subbuf_size_kb: sub-buffers are pages. */
	r->subbuf_size = kb ? (uint32_t)strtoul(kb, NULL, 10) * 1024 : (uint32_t)sysconf(_SC_PAGESIZE);
	free(kb);
}

/* The command waits on a pipe so it starts only once tracing is on. */
static int start_command(struct rec *r, int *release_fd, const sigset_t *orig_mask)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "ftrec: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		char c;
		close(p[1]);
		sigprocmask(SIG_SETMASK, orig_mask, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (read(p[0], &c, 1) != 1)
			_exit(126); /* ftrec gave up before tracing started */
		execvp(r->o->command[0], r->o->command);
		fprintf(stderr, "ftrec: cannot run %s: %s\n", r->o->command[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*release_fd = p[1];
	r->child = pid;
	return 0;
}

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

#define TRIGGER_POLL_NS 100000000ull /* how often tracing_on is read for the --trigger */

/*
 * How long sigtimedwait may sleep: at most 1 s (TRIGGER_POLL_NS while a trigger
 * is armed or a --rotate series is watched), and not past the next deadline (0 = none).
 */
static struct timespec wait_time(uint64_t now, uint64_t deadline, uint64_t next_snapshot,
				 bool poll)
{
	uint64_t wait = poll ? TRIGGER_POLL_NS : 1000000000ull;

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
	uint64_t start = now_ns(CLOCK_MONOTONIC);
	uint64_t deadline = r->o->duration > 0 ? start + (uint64_t)(r->o->duration * 1e9) : 0;
	uint64_t interval = r->profiler_on ? (uint64_t)(r->o->snapshot_interval * 1e9) : 0;
	uint64_t next_snapshot = interval ? start + interval : 0;
	bool armed = r->o->trigger != NULL; /* the trigger has not fired yet */
	for (;;) {
		if (atomic_load(&r->write_failed))
			return "error: write failed";
		if (atomic_load(&r->max_size_hit))
			return "max-size";
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		if (deadline && now >= deadline)
			return armed || !r->o->trigger ? "duration" : "trigger";
		if (armed && trigger_fired(r)) {
			armed = false;
			rec_take_time_pair(r, &r->trigger_wall_ns, &r->trigger_trace_ns);
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
			if (rec_tracing_on(r, 1) < 0)
				return "trigger";
			deadline = now + (uint64_t)(r->o->post * 1e9);
		}
		if (next_snapshot && now >= next_snapshot) {
			if (snapshot_round(r) < 0)
				return "error: snapshot failed";
			/* A late round (a stalled host) does not make the next ones come faster. */
			while (next_snapshot <= now)
				next_snapshot += interval;
		}
		if (segs_poll(r) < 0)
			return "error: --rotate failed";
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

static void write_start_marker(struct rec *r)
{
	char p[PATH_MAX], line[160];
	snprintf(line, sizeof(line), "ftrec: start wall_ns=%llu trace_ns=%llu clock=%s\n",
		 (unsigned long long)r->start_wall_ns, (unsigned long long)r->start_trace_ns, r->clock);
	tfs_write(tfs_path(p, "%s/trace_marker", r->dir), line, false);
}

/* Setup up to the point where tracing can be switched on. 0 or -1 (message printed). */
static int prepare(struct rec *r, char *err, size_t errlen)
{
	if (rec_find_tracefs(r) < 0)
		return -1;
	if (segs_open(r, err, errlen) < 0) {
		fprintf(stderr, "ftrec: %s\n", err);
		return -1;
	}
	r->w = ftz_writer_create(r->out_path, err, errlen);
	if (!r->w) {
		fprintf(stderr, "ftrec: %s\n", err);
		return -1;
	}
	if (r->o->zstd_level)
		ftz_writer_set_level(r->w, r->o->zstd_level);
	r->undo = undo_open(err, errlen);
	if (!r->undo) {
		fprintf(stderr, "ftrec: %s\n", err);
		return -1;
	}
	if (rec_setup(r) < 0 || count_cpus(r) < 0)
		return -1;
	read_subbuf_size(r);
	return 0;
}

int record_run(const struct record_opts *o)
{
	struct rec rec = { .o = o, .main_thread = pthread_self() };
	struct rec *r = &rec;
	char err[512];
	int release_fd = -1, ok = 0, tracing = 0;

	if (!o->output) {
		fprintf(stderr, "ftrec %s: no output file: give -o FILE.ftz\n", o->preset ? o->preset : "record");
		return FTREC_EXIT_ERROR;
	}
	if (o->pid == RECORD_PID_COMMAND && !o->command) {
		fprintf(stderr, "ftrec: -p cmd needs a COMMAND after --\n");
		return FTREC_EXIT_ERROR;
	}
	if (flight_check_options(o) < 0 || segs_check_options(o) < 0)
		return FTREC_EXIT_ERROR;
	sigset_t block, orig;
	stop_signals(&block);
	sigaddset(&block, SIGUSR2); /* readers unblock it for themselves */
	pthread_sigmask(SIG_BLOCK, &block, &orig);
	signal(SIGPIPE, SIG_IGN);

	if (prepare(r, err, sizeof(err)) < 0)
		goto cleanup;
	if (o->command && start_command(r, &release_fd, &orig) < 0)
		goto cleanup;
	if (o->pid == RECORD_PID_COMMAND && rec_set_pid(r, r->child, 1) < 0)
		goto cleanup;
	rec_take_time_pair(r, &r->start_wall_ns, &r->start_trace_ns);
	if (meta_write_info(r) < 0)
		goto cleanup;
	uint64_t info_end = ftz_writer_bytes(r->w);
	if (meta_write_start_files(r) < 0 || segs_start(r, info_end) < 0)
		goto cleanup;
	if (capture_open(r) < 0)
		goto cleanup;
	if (!o->kernel_ring) {
		if (capture_start(r) < 0)
			goto cleanup;
		capture_list_threads(r);
	}
	meta_read_stats(r, 0);
	rec_take_time_pair(r, &r->start_wall_ns, &r->start_trace_ns);
	if (rec_tracing_on(r, 1) < 0) {
		fprintf(stderr, "ftrec: cannot switch tracing on in %s\n", r->dir);
		goto cleanup;
	}
	tracing = 1;
	if (o->function_profile && profiler_start(r) < 0)
		goto cleanup;
	write_start_marker(r);
	if (!o->quiet)
		fprintf(stderr, "ftrec: recording %zu event types%s into %s%s (instance %s)%s%s; Ctrl-C%s to stop\n",
			r->nr_events, o->tracer ? " and a tracer" :
			o->function_profile ? " and the function profiler" : "", o->output,
			o->kernel_ring ? " from the kernel ring (overwrite mode, drained at the stop)" : "",
			r->top_level ? "top level" : r->name, o->trigger ? "; stops at --trigger " : "",
			o->trigger ? o->trigger : "", o->kernel_ring || o->trigger ? " or SIGUSR1" : "");
	if (release_fd >= 0) {
		if (write(release_fd, "g", 1) != 1)
			fprintf(stderr, "ftrec: cannot start the command\n");
		close(release_fd);
		release_fd = -1;
	}
	r->stop_reason = wait_for_stop(r);
	ok = 1;

cleanup:
	if (tracing && r->profiler_on && ok && snapshot_round(r) < 0)
		ok = 0; /* the last round: counts up to the stop */
	if (tracing)
		rec_tracing_on(r, 0);
	rec_take_time_pair(r, &r->end_wall_ns, &r->end_trace_ns);
	if (release_fd >= 0)
		close(release_fd); /* the command never starts: it exits 126 */
	if (o->kernel_ring && tracing) {
		/* Only now the readers start, and only to drain the whole ring. */
		atomic_store(&r->stop, 1);
		if (capture_start(r) < 0)
			ok = 0;
		capture_list_threads(r);
	}
	capture_stop(r);
	if (segs_finish(r) < 0)
		ok = 0;
	if (r->cpus && tracing)
		meta_read_stats(r, 1);
	if (ok && !atomic_load(&r->write_failed) && meta_write_end(r) < 0)
		ok = 0;
	end_command(r);
	if (r->w) {
		int werr = ftz_writer_error(r->w);
		if (ok)
			summary_print(r);
		int cerr = ftz_writer_close(r->w);
		if (werr || cerr) {
			fprintf(stderr, "ftrec: %s: write failed: %s\n", r->out_path, strerror(-(werr ? werr : cerr)));
			ok = 0;
		}
		r->w = NULL;
		if (!tracing) { /* nothing was recorded: leave no half file */
			unlink(r->out_path);
			segs_abandon(r);
		}
	}
	capture_close(r);
	if (undo_finish(r->undo) > 0) {
		fprintf(stderr, "ftrec: some tracefs settings could not be restored: run 'ftrec reset'\n");
		ok = 0;
	}
	free_rec(r);
	/* Signals stay blocked: a second Ctrl-C must not kill us after the cleanup. */
	return ok ? FTREC_EXIT_OK : FTREC_EXIT_ERROR;
}
