/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for ftrec's undo log (record/undo.c); the option parser's are in
 * tests/test_record_cli.c. The undo log is exercised on ordinary files that mimic the
 * tracefs read formats, with its state file in a temporary FTREC_STATE_DIR; a
 * forked child that exits without cleanup stands in for a kill -9, and a write()
 * of our own stands in for the kernel's one-entry-per-write list files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/record.h"
#include "record/tfs.h"
#include "record/undo.h"

static char dir[64];
#define READ_ONLY_FILE "/sys/devices/system/cpu/online"

/*
 * A stand-in for the kernel's list files: this test's write() replaces libc's for
 * record/ (symbols of the executable come first). On a file whose name starts
 * with "set_" it takes one entry per call, as the kernel's set_ftrace_filter
 * does (leading blanks, one word, the blank after it) and returns that short
 * count; the entry "refused" fails with EINVAL. A "filter" refuses "refused..."
 * but keeps it, as the kernel does. Everything else is written as is.
 */
static const char *fd_name(int fd)
{
	static char target[PATH_MAX];
	char link[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	const char *base = strrchr(target, '/');
	return base ? base + 1 : "";
}

static int list_writes; /* write() calls on list files */

ssize_t write(int fd, const void *buf, size_t len)
{
	const char *name = fd_name(fd);
	if (!strcmp(name, "filter") && len >= 7 && !memcmp(buf, "refused", 7)) {
		/* An event filter the kernel refuses: it keeps the text, the old filter is gone. */
		syscall(SYS_write, fd, buf, len);
		errno = EINVAL;
		return -1;
	}
	if (strncmp(name, "set_", 4))
		return syscall(SYS_write, fd, buf, len);
	list_writes++;
	const char *s = buf;
	size_t i = 0;
	while (i < len && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t'))
		i++;
	size_t start = i;
	while (i < len && s[i] != ' ' && s[i] != '\n' && s[i] != '\t')
		i++;
	size_t end = i;
	if (i < len)
		i++;
	if (end > start) {
		if (end - start == 7 && !memcmp(s + start, "refused", 7)) {
			errno = EINVAL;
			return -1;
		}
		char line[512];
		int n = snprintf(line, sizeof(line), "%.*s\n", (int)(end - start), s + start);
		if (syscall(SYS_write, fd, line, (size_t)n) != n)
			return -1;
	}
	return (ssize_t)i;
}

static void put(const char *name, const char *text)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "w"); /* tfs_write never creates files: tracefs files exist */
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static char *get(const char *name)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	char *s = tfs_read_trimmed(p);
	assert_non_null(s);
	return s;
}

static void assert_file(const char *name, const char *want)
{
	char *s = get(name);
	assert_string_equal(s, want);
	free(s);
}

static char *path_of(const char *name)
{
	static char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/ftrec-undo-test-XXXXXX");
	assert_non_null(mkdtemp(dir));
	setenv("FTREC_STATE_DIR", dir, 1);
	/* Files in tracefs read formats. */
	put("trace_clock", "[local] global mono\n");
	put("buffer_size_kb", "7 (expanded: 1408)\n");
	put("filter", "none\n");
	put("set_ftrace_filter", "#### all functions enabled ####\n");
	put("set_graph_function", "#### all functions enabled ####\n");
	put("enable", "0\n");
	put("current_tracer", "nop\n");
	put("kprobe_events", "");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* Each file gets back the value that reproduces what reading it showed. */
static void test_restore_formats(void **state)
{
	(void)state;
	struct undo_log *u = undo_open();
	assert_non_null(u);
	assert_true(undo_pid_is_live_ftrec(getpid())); /* holds its state file open */
	assert_false(undo_pid_is_live_ftrec(getppid()));
	assert_int_equal(undo_write(u, path_of("trace_clock"), "mono"), 0);
	assert_int_equal(undo_write(u, path_of("buffer_size_kb"), "4096"), 0);
	assert_int_equal(undo_write(u, path_of("filter"), "bytes > 4096"), 0);
	assert_int_equal(undo_write(u, path_of("set_ftrace_filter"), "vfs_read\nvfs_write\n"), 0);
	assert_int_equal(undo_write(u, path_of("current_tracer"), "function"), 0);
	assert_file("trace_clock", "mono");
	assert_file("filter", "bytes > 4096");
	assert_file("set_ftrace_filter", "vfs_read\nvfs_write");
	assert_int_equal(undo_finish(u), 0);
	assert_file("trace_clock", "local");
	/* Never used: our write expanded it, "7" would leave a 7 KB buffer: the size it grows to. */
	assert_file("buffer_size_kb", "1408");
	assert_file("filter", "0");              /* "0" is what clears a filter */
	assert_file("set_ftrace_filter", "");    /* the comment line is not a function */
	assert_file("current_tracer", "nop");
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/ftrec-%d.undo", dir, (int)getpid());
	assert_false(tfs_exists(p));             /* clean finish: state file gone */
	assert_false(undo_pid_is_live_ftrec(getpid()));
}

/* A change that could not even open its file leaves no undo step (replaying it would fail again). */
static void test_failed_change_is_cancelled(void **state)
{
	(void)state;
	struct undo_log *u = undo_open();
	assert_non_null(u);
	assert_int_equal(undo_write(u, path_of("no/such/file"), "1"), -ENOENT);
	/* Readable but not writable, even for root (sysfs: no store method, EACCES at open). */
	assert_true(undo_write(u, READ_ONLY_FILE, "1") < 0);
	assert_true(undo_mkdir(u, path_of("no/such/dir")) < 0);
	assert_int_equal(undo_finish(u), 0);
}

/* kill -9 mid-recording: the state file alone restores everything, newest first. */
static void test_replay_after_kill(void **state)
{
	(void)state;
	put("current_tracer", "nop\n");
	put("kprobe_events", "");
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct undo_log *u = undo_open();
		if (!u || undo_mkdir(u, path_of("instance")) < 0 ||
		    undo_write(u, path_of("instance/enable"), "1") != -ENOENT || /* fails: no step */
		    undo_write(u, path_of("current_tracer"), "function\twith tab") < 0 ||
		    undo_write(u, READ_ONLY_FILE, "x") == 0 ||
		    undo_append(u, path_of("kprobe_events"), "p:ftrec_1/a vfs_read\n", "-:ftrec_1/a\n") < 0)
			_exit(1);
		_exit(0); /* no undo_finish: as if killed */
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/ftrec-%d.undo", dir, (int)pid);
	assert_true(tfs_exists(p));
	assert_true(tfs_exists(path_of("instance")));
	assert_false(undo_pid_is_live_ftrec(pid));
	assert_int_equal(undo_replay_file(p), 0);
	assert_false(tfs_exists(path_of("instance")));
	assert_file("current_tracer", "nop");
	assert_file("kprobe_events", "p:ftrec_1/a vfs_read\n-:ftrec_1/a");
	assert_false(tfs_exists(p));
}

/* A short count from a list file is the next entry's turn, not an error. */
static void test_list_written_entry_by_entry(void **state)
{
	(void)state;
	int bad = -1;
	list_writes = 0;
	assert_int_equal(tfs_write(path_of("set_ftrace_filter"), "vfs_read\nksys_*\n", false), 0);
	assert_file("set_ftrace_filter", "vfs_read\nksys_*");
	assert_int_equal(list_writes, 2);
	/* One refused entry: the others still go in, and the caller learns which. */
	assert_int_equal(tfs_write_lines(path_of("set_ftrace_filter"), "a\nrefused\nb\n", false, &bad),
			 -EINVAL);
	assert_int_equal(bad, 2);
	assert_file("set_ftrace_filter", "a\nb");
	assert_int_equal(tfs_write_lines(path_of("no/such"), "a\n", false, &bad), -ENOENT);
	assert_int_equal(bad, 0); /* not opened: nothing changed */
}

/*
 * A user's own lists come back whole, in the form the file takes: module functions
 * ("func [mod]" -> "func:mod:mod", graph files the bare name), cached module
 * commands as they read, function probes left out (truncation keeps them and
 * adding one twice fails), comments out. Also "1*" enable and "(expanded: N)".
 */
static void test_restore_user_lists(void **state)
{
	(void)state;
	put("set_ftrace_filter", "vfs_read\nnull_queue_rq [null_blk]\n*:mod:ext4\n"
				 "ksys_sync:traceoff:count=3\nvfs_fsync:stacktrace:unlimited\n");
	put("set_graph_function", "vfs_write\nnull_queue_rq [null_blk]\n");
	put("set_ftrace_notrace", "#### no functions disabled ####\n");
	put("enable", "1*\n");
	put("buffer_size_kb", "2048\n");
	struct undo_log *u = undo_open();
	assert_non_null(u);
	int line = -1;
	assert_int_equal(undo_write_list(u, path_of("set_ftrace_filter"), "ksys_read\n", &line), 0);
	assert_int_equal(line, 0);
	assert_int_equal(undo_write(u, path_of("set_graph_function"), "do_sys_open\n"), 0);
	assert_int_equal(undo_write(u, path_of("set_ftrace_notrace"), "schedule\n"), 0);
	assert_int_equal(undo_write(u, path_of("enable"), "1"), 0);
	assert_int_equal(undo_write(u, path_of("buffer_size_kb"), "4096"), 0);
	assert_file("set_ftrace_filter", "ksys_read");
	assert_int_equal(undo_finish(u), 0);
	assert_file("set_ftrace_filter", "vfs_read\nnull_queue_rq:mod:null_blk\n*:mod:ext4");
	assert_file("set_graph_function", "vfs_write\nnull_queue_rq");
	assert_file("set_ftrace_notrace", "");
	assert_file("enable", "1");
	assert_file("buffer_size_kb", "2048");
}

/* A refused entry of a list we set: the entries before it went in, so the step stays. */
static void test_partly_written_list_is_undone(void **state)
{
	(void)state;
	put("set_ftrace_filter", "user_a\nuser_b\n");
	struct undo_log *u = undo_open();
	assert_non_null(u);
	int line = 0;
	assert_int_equal(undo_write_list(u, path_of("set_ftrace_filter"), "ours\nrefused\n", &line), -EINVAL);
	assert_int_equal(line, 2);
	assert_file("set_ftrace_filter", "ours");
	assert_int_equal(undo_finish(u), 0);
	assert_file("set_ftrace_filter", "user_a\nuser_b");
}

/* A refused filter that replaced the user's in the kernel anyway: the user's comes back. */
static void test_refused_filter_is_undone(void **state)
{
	(void)state;
	put("filter", "nr_sector > 1\n");
	struct undo_log *u = undo_open();
	assert_non_null(u);
	assert_int_equal(undo_write(u, path_of("filter"), "refused_field == 1"), -EINVAL);
	assert_file("filter", "refused_field == 1");
	assert_int_equal(undo_finish(u), 0);
	assert_file("filter", "nr_sector > 1");
}

/* kill -9 with a user's multi-entry lists saved: the state file holds them whole. */
static void test_replay_lists_after_kill(void **state)
{
	(void)state;
	put("set_ftrace_filter", "vfs_read\nvfs_write\nksys_read\n");
	put("set_graph_function", "a\\b\tc\nd\n"); /* escapes survive the state file */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct undo_log *u = undo_open();
		if (!u || undo_write(u, path_of("set_ftrace_filter"), "x\ny\n") < 0 ||
		    undo_write(u, path_of("set_graph_function"), "") < 0)
			_exit(1);
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_file("set_ftrace_filter", "x\ny");
	assert_file("set_graph_function", "");
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/ftrec-%d.undo", dir, (int)pid);
	assert_int_equal(undo_replay_file(p), 0);
	assert_file("set_ftrace_filter", "vfs_read\nvfs_write\nksys_read");
	assert_file("set_graph_function", "a\\b\nc\nd"); /* the tab splits an entry, as in the kernel */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_restore_formats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_change_is_cancelled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_after_kill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_written_entry_by_entry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_user_lists, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partly_written_list_is_undone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_filter_is_undone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_lists_after_kill, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
