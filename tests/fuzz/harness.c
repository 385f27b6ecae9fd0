// SPDX-License-Identifier: MIT
/* harness.c - see harness.h. */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sanitizer/common_interface_defs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "decode/decode.h"
#include "format/ftz.h"
#include "import/import.h"
#include "analyze/commands.h"
#include "reports/lost.h"
#include "reports/report.h"
#include "tests/fuzz/harness.h"

/* Not in a header: cmd_report.c declares its reports from its REPORTS table. */

static char workdir[PATH_MAX];

static void remove_workdir(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", workdir);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz: cannot remove %s\n", workdir);
}

static void setup_once(void)
{
	if (workdir[0])
		return;
	/* As ftana's main() does, before any other SQLite call. */
	sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	const char *base = getenv("FUZZ_TMPDIR") ? getenv("FUZZ_TMPDIR") : "/dev/shm";

	snprintf(workdir, sizeof(workdir), "%s/ftana-fuzz.XXXXXX", base);
	if (!mkdtemp(workdir)) {
		snprintf(workdir, sizeof(workdir), "/tmp/ftana-fuzz.XXXXXX");
		if (!mkdtemp(workdir))
			abort();
	}
	atexit(remove_workdir);
	/* Reports print to stdout: not the fuzzer's terminal (-close_fd_mask=1 does it
	 * too, but a replay of one input should stay readable). */
	int null = open("/dev/null", O_WRONLY);
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		close(null);
	}
}

static bool write_file(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	bool ok = f && fwrite(data, 1, size, f) == size;

	if (f && fclose(f) != 0)
		ok = false;
	return ok;
}

/* Does decoding PATH end normally in a child? (See harness.h.) */
static bool library_survives(const char *path)
{
	int status;
	pid_t pid = fork();

	/* No child (ENOMEM: this process's mappings, a few GB under ASan, did not fit the
	 * kernel's overcommit guess on a machine busy with other work): the input is not
	 * decoded in-process untried, nor is the run stopped for what is not its finding. */
	if (pid < 0)
		return false;
	if (pid == 0) {
		struct dec_event ev;
		struct dec *d;
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) { /* the library's crash is not our finding */
			dup2(null, STDERR_FILENO);
			/* libFuzzer's -close_fd_mask gives ASan a report fd of its own */
			__sanitizer_set_report_fd((void *)(intptr_t)null);
		}
		/* ...nor libFuzzer's: it must not save this child's death as a crash */
		__sanitizer_set_death_callback(NULL);
		static const int deadly[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
		for (size_t i = 0; i < sizeof(deadly) / sizeof(deadly[0]); i++)
			signal(deadly[i], SIG_DFL);
		d = dec_open(path);
		while (d && dec_next(d, &ev) > 0)
			;
		_exit(0); /* no cleanup: a leak here is the library's, not a finding */
	}
	while (waitpid(pid, &status, 0) < 0)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void run(const uint8_t *data, size_t size, const char *suffix, bool library_first)
{
	char in[PATH_MAX + 32], db[PATH_MAX + 32];
	struct import_result res;

	setup_once();
	snprintf(in, sizeof(in), "%s/input%s", workdir, suffix);
	snprintf(db, sizeof(db), "%s/input.db", workdir);
	unlink(db);
	if (!write_file(in, data, size))
		abort(); /* the harness's own failure, not the input's */
	if (library_first && !library_survives(in)) {
		unlink(in);
		return;
	}

	/* first the way a first `report syscount` imports: the base pass with the syscall
	 * totals streamed from the decoded events (import/import_stream.c), no rows */
	static const char *const totals[] = { "syscall_totals", NULL };
	const struct import_types lean = { .derive = totals };
	const char *one = in;

	import_capture(&one, 1, db, IMPORT_NEW, &lean, false, &res);
	unlink(db);
	/* then as `report syscount --since/--cpu` makes them again over a window
	 * (import/dbcache_window.c): CPU 0, a window open at both ends but at 0 */
	static const uint64_t cpu0 = 1;
	const struct import_window window = { 0, INT64_MAX, &cpu0, 1 };
	const struct import_types windowed = { .derive = totals, .window = &window };

	import_capture(&one, 1, db, IMPORT_WINDOW, &windowed, false, &res);
	unlink(db);
	if (import_ftz(in, db, false, &res) == 0) {
		char *info_argv[] = { "info", db, NULL };
		char *sql_argv[] = { "sql", db, "select * from events limit 50; "
			"select * from event_types; select * from tasks limit 20; "
			"select * from syscall_pairs limit 20; select * from syscall_lone_exits limit 20", NULL };

		cmd_info(2, info_argv);
		cmd_sql(3, sql_argv);

		sqlite3 *h = NULL;
		if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
			char *tp_argv[] = { "tpoint", NULL };

			/* through the front end, as `ftana report tpoint`: it re-decodes IN */
			front_run_db(report_find("tpoint"), h, in, 1, tp_argv);
		}
		sqlite3_close(h);
	}
	fflush(stdout);
	unlink(db);
	unlink(in);
}

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/* Section header (FORMAT.md 3): type, flags, stored_len, raw_len, payload crc, header crc. */
void fuzz_resign(uint8_t *buf, size_t size)
{
	size_t off = 16;

	while (size - off >= 32 && off < size) {
		uint8_t *h = buf + off;
		uint64_t stored = get_le(h + 8, 8);
		uint32_t flags = (uint32_t)get_le(h + 4, 4);
		bool whole = stored <= size - off - 32;

		if (whole) {
			if (!(flags & 1))
				put_le(h + 16, stored, 8);
			put_le(h + 24, ftz_crc32c(0, h + 32, stored), 4);
		}
		put_le(h + 28, ftz_crc32c(0, h, 28), 4);
		if (!whole)
			break;
		off += 32 + stored;
	}
}

void fuzz_run_ftana_set(const uint8_t *data, size_t size)
{
	char paths[FUZZ_SET_MAX][PATH_MAX + 64], db[PATH_MAX + 32];
	const char *inputs[FUZZ_SET_MAX];
	const size_t sep = strlen(FUZZ_SET_SEP);
	struct import_result res;
	size_t n = 0, at = 1;

	if (size < 1)
		return;
	setup_once();
	bool ring = data[0] & 1;

	while (n < FUZZ_SET_MAX && at <= size) {
		const uint8_t *end = memmem(data + at, size - at, FUZZ_SET_SEP, sep);
		size_t len = end ? (size_t)(end - data) - at : size - at;
		uint8_t *member = malloc(len ? len : 1);

		if (!member)
			abort();
		memcpy(member, data + at, len);
		fuzz_resign(member, len);
		if (ring && !n)
			snprintf(paths[n], sizeof(paths[n]), "%s/r.ftz", workdir); /* the seeds' ring_prefix: r.ring- */
		else if (ring)
			snprintf(paths[n], sizeof(paths[n]), "%s/r.ring-%06zu.ftz", workdir, n);
		else
			snprintf(paths[n], sizeof(paths[n]), "%s/c-%04zu.ftz", workdir, n + 1);
		if (!write_file(paths[n], member, len))
			abort(); /* the harness's own failure, not the input's */
		free(member);
		inputs[n] = paths[n];
		n++;
		if (!end)
			break;
		at = (size_t)(end - data) + sep;
	}
	snprintf(db, sizeof(db), "%s/set.db", workdir);
	unlink(db);
	/* a ring is named by its head alone: the segments are found beside it */
	if (import_capture(inputs, ring ? 1 : n, db, IMPORT_NEW, NULL, false, &res) == 0) {
		char *info_argv[] = { "info", db, NULL };
		char *sql_argv[] = { "sql", db, "select * from events limit 20; select * from meta", NULL };

		cmd_info(2, info_argv);
		cmd_sql(3, sql_argv);
	}
	fflush(stdout);
	unlink(db);
	for (size_t i = 0; i < n; i++)
		unlink(paths[i]);
}

void fuzz_run_ftana(const uint8_t *data, size_t size, const char *suffix)
{
	run(data, size, suffix, false);
}

void fuzz_run_ftana_library_first(const uint8_t *data, size_t size, const char *suffix)
{
	run(data, size, suffix, true);
}

void fuzz_run_ftana_db(const uint8_t *data, size_t size)
{
	/* each report's own view families and SQL over the file's tables */
	static const char *const reports[][3] = {
		{ "summary" }, { "iolat" }, { "iolat", "--summary" }, { "iolat", "--hist" },
		{ "iolatency" }, { "bitesize" }, { "syscount" }, { "execsnoop" }, { "opensnoop" },
		{ "killsnoop" }, { "runqlat" }, { "offcpu" }, { "cpudist" }, { "funccount" },
		{ "funcgraph" }, { "funcgraph", "--tree" }, { "funcslower" }, { "funclatency", "-f", "vfs_read" },
		{ "kprobe" }, { "stacks" }, { "tpoint" },
	};
	char db[PATH_MAX + 32];

	/* Anything else is a capture to ftana (fuzz_ftz's), imported in a child process
	 * that would exit into the fuzzer: only SQLite's own files here. */
	if (size < 16 || memcmp(data, "SQLite format 3", 16))
		return;
	setup_once();
	snprintf(db, sizeof(db), "%s/input.db", workdir);
	if (!write_file(db, data, size))
		abort(); /* the harness's own failure, not the input's */
	char *info_argv[] = { "info", db, NULL };
	char *sql_argv[] = { "sql", db, "select * from events limit 20; select * from io limit 20", NULL };

	/*
	 * One report per input, chosen by its size: a view that never ends costs each
	 * command the whole budget ftana gives a small database (2^28 VM steps, seconds
	 * under ASan), and every report on every input would pass libFuzzer's timeout.
	 */
	size_t i = size % (sizeof(reports) / sizeof(reports[0]));

	cmd_info(2, info_argv);
	cmd_sql(3, sql_argv);
	{
		char *argv[6] = { "report", (char *)reports[i][0] };
		int argc = 2;

		for (int k = 1; k < 3 && reports[i][k]; k++)
			argv[argc++] = (char *)reports[i][k];
		argv[argc++] = db;
		argv[argc] = NULL;
		cmd_report(argc, argv);
	}
	fflush(stdout);
	unlink(db);
}
