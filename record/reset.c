/* SPDX-License-Identifier: MIT */
/*
 * reset.c - `ftrec reset`: undo what killed ftrec processes left behind.
 * Replays the undo state files of dead ftrec processes (top-level changes,
 * kprobes, kptr_restrict, their instance), then removes any instance named
 * ftrec-<pid> whose pid is not a live ftrec. Live recordings are not touched.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
			fprintf(stderr, "ftrec reset: %s: %d step(s) failed\n", path, ret < 0 ? 1 : ret);
			(*failed)++;
		}
	}
	closedir(d);
	return 0;
}

/* An instance of a dead ftrec: stop it, then remove it (its events go with it). */
static int remove_instance(const char *root, const char *name)
{
	char p[PATH_MAX];
	tfs_write(tfs_path(p, "%s/instances/%s/tracing_on", root, name), "0", false);
	tfs_write(tfs_path(p, "%s/instances/%s/events/enable", root, name), "0", false);
	if (rmdir(tfs_path(p, "%s/instances/%s", root, name)) < 0 && errno != ENOENT) {
		fprintf(stderr, "ftrec reset: rmdir %s: %s\n", p, strerror(errno));
		return -1;
	}
	printf("ftrec reset: removed instance %s\n", name);
	return 0;
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
		if (remove_instance(root, e->d_name) == 0)
			(*done)++;
		else
			(*failed)++;
	}
	closedir(d);
}

int cmd_reset(int argc, char **argv)
{
	if (argc > 1) {
		if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			printf("usage: ftrec reset\n  undo what killed ftrec processes left in tracefs\n");
			return FTREC_EXIT_OK;
		}
		fprintf(stderr, "ftrec reset: unexpected argument '%s'\n", argv[1]);
		return FTREC_EXIT_ERROR;
	}
	struct record_opts o;
	record_opts_init(&o, "reset", argc, argv);
	struct rec r = { .o = &o };
	if (rec_find_tracefs(&r) < 0)
		return FTREC_EXIT_ERROR;
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
	return failed ? FTREC_EXIT_ERROR : FTREC_EXIT_OK;
}
