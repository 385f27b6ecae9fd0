// SPDX-License-Identifier: MIT
/*
 * import_child.c - the import runs in a forked child; the parent only waits.
 *
 * Why a process and not signal handlers: the decoder hands text from the file to
 * libtraceevent and libtracecmd, which have died of SIGSEGV and SIGFPE on hostile
 * formats. A handler that runs after a SIGSEGV runs in a damaged process; a parent
 * that did not crash can always remove the half-written database, report the
 * crash in one line and go on being ftana. It also keeps a library crash on a
 * capture from reaching the analyst's terminal as a core dump. The cost is one
 * fork per import (the database is written by the child, to a file, so nothing
 * has to be passed back but an exit status).
 *
 * Exit statuses of the child: 0 built, 3 built from a damaged input, 1 error,
 * 2 the input is damaged before anything could be imported (messages printed by
 * the child). Anything else, a signal included, means no database.
 *
 * Test hook: FTANA_TEST_IMPORT_CRASH=N makes the child raise signal N after the
 * database was written (so a temporary file exists to be cleaned up);
 * FTANA_TEST_IMPORT_CRASH=hang makes it wait for a signal instead.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "import/import.h"
#include "import/import_child.h"
#include "common/msg.h"

enum child_status { CHILD_OK = 0, CHILD_ERROR = 1, CHILD_DAMAGED_EMPTY = 2, CHILD_DAMAGED = 3 };

static const int passed_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_PASSED (sizeof(passed_signals) / sizeof(passed_signals[0]))

static volatile sig_atomic_t stop_signal;
static volatile pid_t importer;

static void pass_on(int sig)
{
	stop_signal = sig;
	if (importer > 0)
		kill(importer, sig);
}

static void test_hook(void)
{
	const char *crash = getenv("FTANA_TEST_IMPORT_CRASH");

	if (!crash || !*crash)
		return;
	if (!strcmp(crash, "hang"))
		for (;;)
			pause();
	raise(atoi(crash));
}

static void remove_tmp(const char *tmp)
{
	char journal[4096];

	unlink(tmp);
	if (snprintf(journal, sizeof(journal), "%s-journal", tmp) < (int)sizeof(journal))
		unlink(journal);
}

static enum child_status child_import(const struct import_job *job, const char *tmp)
{
	const char *ftz = job->inputs[0];
	struct import_result res;
	int rc;

	prctl(PR_SET_PDEATHSIG, SIGKILL); /* a parent killed with -9 takes its import along */
	rc = import_capture(job->inputs, job->n, tmp, job->mode, job->types,
			    isatty(STDERR_FILENO), &res);
	if (rc < 0) /* it said why */
		return rc == -2 ? CHILD_DAMAGED_EMPTY : CHILD_ERROR;
	test_hook();
	if (res.damaged) {
		msg_warn_at(ftz, "damaged at offset %" PRIu64 " (%s); using the events before it",
			 res.damage_offset, res.damage_reason);
		return CHILD_DAMAGED;
	}
	return CHILD_OK;
}

int import_isolated(const char *ftz, const char *tmp, bool *damaged,
		    int (*finish)(void *arg), void *arg)
{
	struct import_job job = { .inputs = &ftz, .n = 1 };

	return import_isolated_job(&job, tmp, damaged, finish, arg);
}

int import_isolated_job(const struct import_job *job, const char *tmp, bool *damaged,
			int (*finish)(void *arg), void *arg)
{
	const char *ftz = job->inputs[0];
	struct sigaction pass = { .sa_handler = pass_on }, saved[NR_PASSED];
	sigset_t block, unblocked;
	int status = 0, rc = -1;
	pid_t pid;

	*damaged = false;
	stop_signal = 0;
	sigemptyset(&block);
	for (size_t i = 0; i < NR_PASSED; i++)
		sigaddset(&block, passed_signals[i]);
	/* Blocked from before the fork until importer is set: none is lost in between. */
	sigprocmask(SIG_BLOCK, &block, &unblocked);
	for (size_t i = 0; i < NR_PASSED; i++) {
		sigaction(passed_signals[i], NULL, &saved[i]);
		if (saved[i].sa_handler != SIG_IGN) /* nohup'ed: stay deaf */
			sigaction(passed_signals[i], &pass, NULL);
	}
	fflush(NULL); /* nothing buffered is written twice */
	pid = fork();
	if (pid == 0) {
		for (size_t i = 0; i < NR_PASSED; i++)
			sigaction(passed_signals[i], &saved[i], NULL);
		sigprocmask(SIG_SETMASK, &unblocked, NULL);
		exit(child_import(job, tmp));
	}
	importer = pid;
	sigprocmask(SIG_SETMASK, &unblocked, NULL);
	if (pid < 0) {
		msg_error("%s: cannot start the import: %s", ftz, strerror(errno));
	} else {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		importer = 0;
	}
	if (pid > 0 && WIFEXITED(status)) {
		switch (WEXITSTATUS(status)) {
		case CHILD_DAMAGED:
			*damaged = true;
			/* fall through */
		case CHILD_OK:
			rc = 0;
			break;
		case CHILD_DAMAGED_EMPTY:
			*damaged = true;
			break;
		case CHILD_ERROR:
			break; /* the child said why */
		default: /* not ours: a sanitizer's report, an exit() in a library */
			msg_error("%s: the import ended with status %d; no database was built",
				ftz, WEXITSTATUS(status));
		}
	} else if (pid > 0 && WIFSIGNALED(status) && !stop_signal) {
		msg_error("%s: decoder crashed (signal %d, %s); no database was built",
			ftz, WTERMSIG(status), strsignal(WTERMSIG(status)));
	}
	/* finish (sign, rename) runs with the signals still deferred: a Ctrl-C now
	 * leaves either the complete database or nothing. */
	if (!rc && !stop_signal && finish(arg) < 0)
		rc = -1;
	for (size_t i = 0; i < NR_PASSED; i++)
		sigaction(passed_signals[i], &saved[i], NULL);
	if (rc < 0 || stop_signal)
		remove_tmp(tmp);
	if (stop_signal) {
		/* the handler ftana had before (out_file.c's removes a temp directory the
		 * import was made in, then dies of the signal), else the default */
		raise(stop_signal);
		signal(stop_signal, SIG_DFL);
		raise(stop_signal);
	}
	return rc;
}
