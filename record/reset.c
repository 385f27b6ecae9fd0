/* SPDX-License-Identifier: MIT */
/*
 * reset.c - `ftrec reset`: undo what killed ftrec processes left behind.
 * Replays the undo state files of dead ftrec processes (top-level changes,
 * kprobes, kptr_restrict, their instance), then removes any instance named
 * ftrec-<pid> whose pid is not a live ftrec. Live recordings are not touched,
 * even where their pid is not ours to see (state file locks, and the kernel's
 * EBUSY for an instance whose buffer a reader holds).
 * What it did is its output (stdout, a line each); what failed, msg_error.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cmd.h"
#include "common/msg.h"
#include "record/rec_int.h"
#include "record/tfs.h"

static int replay_dir(const char *dir, int *done, int *failed)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));) {
		int pid;
		char tail[16], path[PATH_MAX];
		if (sscanf(e->d_name, "ftrec-%d.%15s", &pid, tail) != 2 || strcmp(tail, "undo"))
			continue;
		if (undo_pid_is_live_ftrec(pid)) {
			printf("ftrec reset: pid %d is still recording: left alone\n", pid);
			continue;
		}
		tfs_path(path, "%s/%s", dir, e->d_name);
		int ret = undo_replay_file(path);
		if (ret == 0) {
			printf("ftrec reset: undid the changes of dead ftrec %d (%s)\n", pid, path);
			(*done)++;
		} else {
			msg_error("%s: %d step(s) failed", path, ret < 0 ? 1 : ret);
			(*failed)++;
		}
	}
	closedir(d);
	return 0;
}

/*
 * An instance of a dead ftrec: removed (the kernel disables its events with it).
 * Nothing is written into it first: the kernel refuses the rmdir (EBUSY) while a
 * reader has its buffer open, which is how a live recording we cannot see (its
 * pid in another PID namespace, its state file elsewhere) is told apart, and it
 * must be left recording. Returns 1 removed, 0 left alone, -1 failed.
 */
static int remove_instance(const char *root, const char *name)
{
	char p[PATH_MAX];
	if (rmdir(tfs_path(p, "%s/instances/%s", root, name)) == 0) {
		printf("ftrec reset: removed instance %s\n", name);
		return 1;
	}
	if (errno == ENOENT)
		return 0;
	if (errno == EBUSY) {
		printf("ftrec reset: instance %s is in use (a recording this process cannot see, in another PID namespace?): left alone\n",
		       name);
		return 0;
	}
	return msg_error_errno(errno, "rmdir %s", p);
}

static void remove_dead_instances(const char *root, int *done, int *failed)
{
	char p[PATH_MAX];
	DIR *d = opendir(tfs_path(p, "%s/instances", root));
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		int pid;
		char extra;
		if (sscanf(e->d_name, "ftrec-%d%c", &pid, &extra) != 1 || undo_pid_is_live_ftrec(pid))
			continue;
		int ret = remove_instance(root, e->d_name);
		if (ret > 0)
			(*done)++;
		else if (ret < 0)
			(*failed)++;
	}
	closedir(d);
}

int cmd_reset(int argc, char **argv)
{
	if (cmd_wants_help(argc, argv))
		return cmd_usage("usage: ftrec reset\n  undo what killed ftrec processes left in tracefs\n", true);
	if (argc > 1) {
		msg_error("unexpected argument '%s'", argv[1]);
		return CMD_EXIT_ERROR;
	}
	struct record_opts o;
	record_opts_init(&o, "reset", argc, argv);
	struct rec r = { .o = &o };
	if (instance_find_tracefs(&r) < 0)
		return CMD_EXIT_ERROR;
	int done = 0, failed = 0;
	const char *over = getenv("FTREC_STATE_DIR");
	if (over && *over)
		replay_dir(over, &done, &failed);
	else
		for (int i = 0; undo_state_dirs[i]; i++)
			replay_dir(undo_state_dirs[i], &done, &failed);
	remove_dead_instances(r.root, &done, &failed);
	if (!done && !failed)
		printf("ftrec reset: nothing to do\n");
	return failed ? CMD_EXIT_ERROR : CMD_EXIT_OK;
}
