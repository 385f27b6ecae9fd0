/* SPDX-License-Identifier: MIT */
/*
 * undo.h - every change ftrec makes to tracefs or /proc/sys goes through here.
 *
 * Each change first pushes the step that reverts it (old value saved before the
 * write), both in memory and appended to a state file under /run/ftrec (or
 * /tmp/ftrec), so cleanup -- also after a failure half-way -- and `ftrec reset`
 * after a kill -9 replay the same steps, newest first.
 */
#ifndef RECORD_UNDO_H
#define RECORD_UNDO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct undo_log;

/* Create the log for this process (state file <dir>/ftrec-<pid>.undo). NULL after a msg_error. */
struct undo_log *undo_open(void);

/*
 * Write VALUE to PATH (truncating), after saving the old value and pushing the
 * step that restores it. An empty value clears the file (set_event_pid, filters).
 * The old value is saved in the form the file takes back (read and write formats
 * differ: "7 (expanded: 1408)", "[local] global", "func [mod]", probes ...), and
 * whole: every entry of a list.
 * Returns 0 or -errno (nothing pushed when reading the old value failed).
 */
int undo_write(struct undo_log *u, const char *path, const char *value);

/*
 * undo_write, telling which line of VALUE a list file (set_*, *_events) refused:
 * those take one entry per write and each line is written on its own, so the
 * others still go in (and come out again at undo). *refused_line: from 1, 0 if none.
 */
int undo_write_list(struct undo_log *u, const char *path, const char *value, int *refused_line);

/* Append VALUE to PATH (kprobe_events); UNDO_VALUE is appended at replay. */
int undo_append(struct undo_log *u, const char *path, const char *value,
		const char *undo_value);

/* mkdir PATH (a tracefs instance); replay removes it. -errno on failure. */
int undo_mkdir(struct undo_log *u, const char *path);

/*
 * Replay every step newest first, keep going past failures (each is a msg_error
 * naming the file), delete the state file and free u. Returns the number of
 * steps that failed.
 */
int undo_finish(struct undo_log *u);

/* State files of all ftrec processes, for `ftrec reset`: directories to scan. */
extern const char *const undo_state_dirs[];

/* Replay a state file left by a dead ftrec and delete it. Returns failed steps or -errno. */
int undo_replay_file(const char *state_file);

/* Is pid a live ftrec process? (it holds its state file open and locked: safe against
 * pid reuse, and against an owner in another PID namespace that shares the state dir) */
bool undo_pid_is_live_ftrec(pid_t pid);

#endif /* RECORD_UNDO_H */
