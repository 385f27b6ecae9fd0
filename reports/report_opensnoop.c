/* SPDX-License-Identifier: MIT */
/*
 * report_opensnoop.c - `ftana report opensnoop`: every open()/openat() with its flags
 * and its fd or errno (perf-tools' / bcc's opensnoop), from syscall events ('ftrec
 * triage --syscalls'), the path from that capture's kprobe ftrec_open_path. SQL: schema/reports/opensnoop.sql (the `opens` view, over
 * syscount.sql's pairing), opensnoop_report.sql (the slice).
 */
#include "reports/args.h"
#include "reports/report.h"
#include "reports/snoop.h"
#include "reports/views.h"

struct opensnoop_opts {
	bool failed; /* -x */
};

static const struct report_option options[] = {
	{ "failed", 'x', NULL, "only the opens that failed (as opensnoop -x)" },
	{ 0 }
};

static int option(struct report_ctx *ctx, int index, const char *arg)
{
	struct opensnoop_opts *o = ctx->opts;

	(void)index;
	(void)arg;
	o->failed = true;
	return 0;
}

static int run(struct report_ctx *ctx)
{
	static const char *const events[] = { "syscalls:sys_enter_openat", "syscalls:sys_enter_open",
					      "syscalls:sys_enter_openat2" };
	const struct opensnoop_opts *o = ctx->opts;
	int rc = snoop_prepare_calls(ctx, events, 3, "record with 'ftrec triage --syscalls'");

	if (rc)
		return rc;
	if (args_set(ctx->db, "opensnoop_failed", o->failed) ||
	    snoop_select(ctx, "schema/reports/opensnoop_report.sql"))
		return -1;
	/* path NULL: neither the syscall event nor the probe ftrec_open_path held it (opensnoop.sql) */
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(ctx->db, "SELECT count(*) FROM opensnoop_sel WHERE path IS NULL",
			       -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_int64(st, 0) > 0)
		msg_warn("%lld opens without a path: the syscall events record the file "
			    "name's user-space address only (filename_addr), and no ftrec_open_path "
			    "probe hit gives it (the probe 'ftrec triage --syscalls' adds on a kernel "
			    "with kprobes; none for a call whose exit is not in the capture)",
			    (long long)sqlite3_column_int64(st, 0));
	sqlite3_finalize(st);
	return snoop_print(ctx, "rows",
			   "SELECT report_ts(ts) AS time%s, pid, tid, comm, syscall, dirfd, path, "
			   "filename_addr, flags, fd, error, dur_ns / 1e3 AS dur_us "
			   "FROM opensnoop_sel ORDER BY id");
}

const struct report_def report_opensnoop_def = {
	.name = "opensnoop",
	.summary = "every open(): path, flags, fd or errno, per process (opensnoop)",
	.options = options,
	.opts_size = sizeof(struct opensnoop_opts),
	.option = option,
	.run = run,
	.details =
	"from syscalls sys_enter/sys_exit_openat, _openat2 and _open ('ftrec triage\n"
	"--syscalls'), the path from its kprobe ftrec_open_path (a kernel with kprobes);\n"
	"an open belongs to the slice by its entry (time, CPU, thread).\n"
	"columns: time_s (time_wall with --wall), pid, tid, comm, syscall (openat, open,\n"
	"  openat2), dirfd (AT_FDCWD or the fd), path (null when the capture holds only its\n"
	"  address: a warning says so), filename_addr (that address, hex), flags (O_* names\n"
	"  of the argument; hex on architectures with other values; null for openat2,\n"
	"  whose flags are in its struct open_how), fd (null when it\n"
	"  failed), error (ENOENT, ... or \"errno N\"; null when it succeeded), dur_us\n"
	"  (null: the call's exit is not in the capture)\n"
	"SQL: `ftana sql FILE 'select * from opens'` (docs/SQL.md).\n",
	.views = &views_snoop,
	/* every syscall, not the opens alone: an open pairs with its exit only when no
	 * other syscall event of its thread comes between (syscall_pairing.c) */
	.needs = (const char *const[]){ "syscalls:sys_enter_*", "syscalls:sys_exit_*", "*:ftrec_open_path", NULL },
	.derive = (const char *const[]){ "syscalls", NULL },
};
