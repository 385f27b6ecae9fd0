/* SPDX-License-Identifier: MIT */
/*
 * rec_int.h - the state of one recording, shared by the files of record_run():
 * instance.c (tracefs setup through the undo log), capture.c (per-CPU readers),
 * metadata.c (INFO / FILE / END sections), summary.c, run.c (the sequence).
 * Each function's prefix is its file's. They return 0, or -1 after a msg_error,
 * unless a comment says "-errno": then a negative errno (also after a message,
 * unless it says it prints nothing).
 */
#ifndef RECORD_REC_INT_H
#define RECORD_REC_INT_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "format/ftz.h"
#include "record/record.h"
#include "record/undo.h"

#define BATCH_PAGES 64 /* sub-buffers per PAGES section (one CPU per section) */

/* per_cpu/cpuN/stats, the kernel's own counters (ground truth for losses). */
struct cpu_stats {
	uint64_t entries, overrun, commit_overrun, bytes, dropped, read_events;
	int valid;
};

struct rec;

struct cpu_capture {
	struct rec *rec;
	int cpu;
	int fd;                 /* per_cpu/cpuN/trace_pipe_raw */
	struct tracefs_cpu *tcpu;
	pthread_t thread;
	atomic_int tid;         /* the reader thread's id, set when it starts */
	int started;
	int error;              /* -errno of the first read / write failure */
	/* capture_tick (main thread) asks, the reader answers: the partial page flush */
	atomic_int flush_asked;
	_Atomic uint64_t last_write_ns; /* CLOCK_MONOTONIC: the reader's last write or flush */
	/* written by the reader thread only; read after it was joined */
	uint64_t pages, events, missed_pages, missed_known;
	struct cpu_stats start, end;
};

/* One event that gets enabled: "system" / "event" directory names and its filter. */
struct rec_event {
	char *system, *event;
	const char *filter; /* points into the options, or NULL */
};

struct rec {
	const struct record_opts *o;
	char root[PATH_MAX];  /* tracefs mount point */
	char dir[PATH_MAX];   /* our instance, or == root at the top level */
	char name[64];        /* "ftrec-PID", or "" at the top level */
	int top_level;
	int hold_fd;          /* a file of our instance held open: instance.c, -1 none */
	struct undo_log *undo;
	struct ftz_writer *w;
	int nr_cpus;
	uint32_t subbuf_size;
	char clock[32];
	char kprobe_group[32];
	char self_tids[4096];     /* "tid tid ...": ftrec's own threads (END ftrec_tids) */
	struct rec_event *events;
	size_t nr_events;
	struct cpu_capture *cpus;
	struct segs *segs;        /* --ring / --rotate (segs.c), else NULL */
	char out_path[PATH_MAX];  /* the file r->w writes: -o, or the series' current file */
	char *info_text;          /* the INFO written last (a ring's segments repeat it) */

	atomic_int stop;          /* readers: drain and finish */
	atomic_int max_size_hit;
	atomic_int write_failed;
	pthread_t main_thread;

	/* SNAPSHOT rounds (function profiler): the files read each round */
	struct strlist snap_files; /* names relative to root, e.g. "trace_stat/function0" */
	uint32_t snap_rounds;     /* rounds written so far */
	int profiler_on;

	const char *stop_reason;
	uint64_t start_wall_ns, start_trace_ns, end_wall_ns, end_trace_ns;
	uint64_t file_from_trace_ns; /* tracing on, or this series file's start: END traced_from */
	uint64_t trigger_wall_ns, trigger_trace_ns; /* when ftrec saw the --trigger had fired */
	pid_t child;
	int child_status;         /* wait status, valid when child_reaped */
	int child_reaped;
};

/* instance.c */
/* The tracefs mount point into r->root (mounting it if needed; FTREC_TRACEFS overrides). */
int instance_find_tracefs(struct rec *r);
/* Our instance (or the top level) with every option, event, probe, trigger, tracer. */
int instance_setup(struct rec *r);
/* Close the file of our instance held open since its creation (before it is removed). */
void instance_release(struct rec *r);
/* The instance's tracing_on (not through the undo log). 0 or -errno; prints nothing. */
int instance_tracing_on(struct rec *r, int on);
/* Top level: trace every CPU while recording (the user's tracing_cpumask back at exit). */
int instance_cpumask_all(struct rec *r);
/* Limit events (and the function tracers) to pid; with_children: and its future children. */
int instance_set_pid(struct rec *r, pid_t pid, int with_children);
/* Write DIR/NAME through the undo log; a refusal is printed with the kernel's reason. 0 or -errno. */
int instance_write(struct rec *r, const char *dir, const char *name, const char *value);
/* The same for a list file (set_ftrace_filter ...): one line per entry, nothing when empty. 0 or -errno. */
int instance_write_list(struct rec *r, const char *dir, const char *name, const struct strlist *l);
/* The error_log a refused write to PATH is explained in, read now (NULL: none). */
char *instance_error_log(const struct rec *r, const char *path);
/* Add one event (directory names) to r->events unless it is there already. */
int instance_add_event(struct rec *r, const char *sys, const char *ev, const char *filter);
/* The kernel's explanation (error_log entry not in LOG_BEFORE) of a refused write to PATH, malloc'd, or NULL. */
char *instance_kernel_reason(const struct rec *r, const char *path, const char *log_before);

/* trigger.c: --kernel-ring, --trigger */
/* Options that cannot go together, checked once the preset filled the options. */
int trigger_check_options(const struct record_opts *o);
/* Check the --trigger event exists in the instance and add it to the recorded events. */
int trigger_add_event(struct rec *r);
/* Write the traceoff trigger (after the events are enabled). */
int trigger_install(struct rec *r);
/* 1 when the instance's tracing_on went to 0: the kernel's traceoff trigger fired. */
int trigger_fired(struct rec *r);

/* stopif.c: --stop-if (the kernel measures a latency; the synthetic event is the --trigger) */
/* Before anything is changed: the kernel has synthetic events, hist triggers, the events. */
int stopif_check(struct rec *r);
/* The synthetic event, first in the undo log (removed after the instance). */
int stopif_define(struct rec *r);
/* The hist triggers in the instance (after its events are enabled, before the traceoff). */
int stopif_install(struct rec *r);
/* The condition's two events are recorded too (their timestamps are right only then). */
int stopif_add_events(struct rec *r);
/* "runq", "io", "syscall" (INFO stop_kind). */
const char *stopif_kind_name(int kind);

/* capture.c */
/* Opens every CPU's trace_pipe_raw (r->cpus); no thread yet. */
int capture_open(struct rec *r);
/* Starts one reader per CPU (capture_open first); returns once each has its thread id set. */
int capture_start(struct rec *r);
/* ftrec's own thread ids ("main reader reader ...") into r->self_tids. */
void capture_list_threads(struct rec *r);
void capture_stop(struct rec *r);
/*
 * Every reader that has written nothing for CAPTURE_FLUSH_NS is asked to write the
 * page the kernel is writing (capture.c): call at least every CAPTURE_FLUSH_NS while
 * the readers run, so that an event is in the file within 2 x CAPTURE_FLUSH_NS.
 */
#define CAPTURE_FLUSH_NS 500000000ull
void capture_tick(struct rec *r);
void capture_close(struct rec *r);

/* metadata.c: each write returns 0 or -errno (after a message), into r->w */
int metadata_write_info(struct rec *r);
int metadata_write_start_files(struct rec *r);
int metadata_write_end(struct rec *r);
/* The per-CPU stats files as FILE sections of PHASE. */
int metadata_write_stats(struct rec *r, enum ftz_phase phase);
/* The per-CPU stats now, into r->cpus[].start (END: .end). */
void metadata_read_stats(struct rec *r, int end);

/* segs.c: --ring (disk ring of segments) and --rotate (numbered series) */
int segs_check_options(const struct record_opts *o);
bool segs_active(const struct rec *r);
/* Before the output is created: names, ids; r->out_path is the first file. */
int segs_open(struct rec *r);
/* The INFO keys of a ring or series (capture_id, boot_id, ring_* / series_*). */
void segs_info_keys(struct rec *r, FILE *f);
/* After INFO (which ended at INFO_END) and the START files: first segment / keep the preamble. */
int segs_start(struct rec *r, uint64_t info_end);
/* A reader's batch into the current segment or file; rotates the ring. 0 or -errno. */
int segs_write_pages(struct rec *r, int cpu, const void *pages, uint32_t nr, uint64_t events,
		     uint64_t missed_pages);
/* The series rotates on the main thread: does it need polling, and poll. */
bool segs_polls(const struct rec *r);
int segs_poll(struct rec *r);
/* Pages, events, flagged pages of CPU in the file being ended (the whole recording without a series). */
void segs_cpu_counts(const struct rec *r, int cpu, uint64_t *pages, uint64_t *events,
		     uint64_t *missed);
void segs_end_keys(struct rec *r, FILE *f);
/* After the readers are joined: the ring's last segment complete; -1 also for an earlier write error. */
int segs_finish(struct rec *r);
/* Add the page bytes (raw, compressed) and file bytes of a ring's segments and a series'
 * closed files (the head or current file is the caller's). */
void segs_page_bytes(const struct rec *r, uint64_t *raw, uint64_t *stored, uint64_t *file);
void segs_summary(const struct rec *r);
void segs_abandon(struct rec *r);
void segs_free(struct rec *r);

/* profiler.c */
/* At setup: the profiler exists and is free; the top level's set_ftrace_filter. */
int profiler_prepare(struct rec *r);
/* Right after tracing is switched on: enable it (resets its counts), round 0. */
int profiler_start(struct rec *r);
/* One SNAPSHOT round of every profiler file. 0 or -errno (after a message). */
int profiler_snapshot(struct rec *r);
void profiler_free(struct rec *r);

/* summary.c */
void summary_print(struct rec *r);

/* run.c */
/* Create (replace) a .ftz at PATH at the recording's compression level. NULL after a message. */
struct ftz_writer *run_create_output(const struct rec *r, const char *path);
/* Now on CLK, in ns. */
uint64_t run_now_ns(clockid_t clk);
/* CLOCK_REALTIME and the trace clock (0 if user space cannot read it), now. */
void run_time_pair(struct rec *r, uint64_t *wall, uint64_t *trace);

#endif /* RECORD_REC_INT_H */
