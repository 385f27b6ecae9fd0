/* SPDX-License-Identifier: MIT */
/*
 * report_syscount.c - `ftana report syscount`: calls, errors and time per syscall, per
 * process, or both (perf-tools' syscount, bcc's syscount -L), named from the capture's
 * own syscall events ('ftrec triage --syscalls'). The pairs: import/derive_syscalls.c;
 * SQL: schema/reports/syscount.sql (the `syscall_calls` view over them),
 * syscount_report.sql (the slice and the groups).
 */
#include <string.h>

#include "reports/args.h"
#include "reports/report.h"
#include "reports/snoop.h"
#include "reports/views.h"

enum syscount_by { BY_SYSCALL, BY_PROCESS, BY_BOTH };

struct syscount_opts {
	enum syscount_by by;
	bool errors;
};

enum { OPT_BY, OPT_ERRORS };

static const struct report_option options[] = {
	[OPT_BY] = { "by", 0, "WHAT", "syscall (default), process, or both" },
	[OPT_ERRORS] = { "errors", 'x', NULL, "count only the calls that failed" },
	{ 0 }
};

static int option(struct report_ctx *ctx, int index, const char *arg)
{
	struct syscount_opts *o = ctx->opts;

	if (index == OPT_ERRORS) {
		o->errors = true;
		return 0;
	}
	if (!strcmp(arg, "syscall"))
		o->by = BY_SYSCALL;
	else if (!strcmp(arg, "process"))
		o->by = BY_PROCESS;
	else if (!strcmp(arg, "both"))
		o->by = BY_BOTH;
	else
		return msg_error("bad --by '%s' (syscall, process or both)", arg);
	return 0;
}

static int run(struct report_ctx *ctx)
{
	static const char *const selects[] = {
		[BY_SYSCALL] = "SELECT syscall, calls, errors, total_ms, avg_us, unpaired FROM %s",
		[BY_PROCESS] = "SELECT pid, comm, calls, errors, total_ms, avg_us, unpaired FROM %s",
		[BY_BOTH] = "SELECT syscall, pid, comm, calls, errors, total_ms, avg_us, unpaired FROM %s",
	};
	const struct syscount_opts *o = ctx->opts;
	int rc;

	/* any syscall event at all: ru_event_recorded takes no glob, so ask event_types */
	sqlite3_stmt *st;
	bool any = sqlite3_prepare_v2(ctx->db, "SELECT 1 FROM event_types WHERE system = 'syscalls' "
				      "AND name GLOB 'sys_enter_?*'", -1, &st, NULL) == SQLITE_OK &&
		   sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	if (!any) {
		msg_error("this capture did not record syscalls:sys_enter_* (record with "
			     "'ftrec triage --syscalls')");
		return -1;
	}
	bool totals = ctx->whole || ctx->window;

	rc = totals ? snoop_prepare_totals(ctx, NULL) : snoop_prepare_calls(ctx, NULL, 0, NULL);
	if (rc)
		return rc;
	if (args_set(ctx->db, "syscount_by", o->by) || args_set(ctx->db, "syscount_errors", o->errors) ||
	    args_set(ctx->db, "syscount_totals", totals) ||
	    snoop_select(ctx, "schema/reports/syscount_report.sql"))
		return -1;
	char *sql = sqlite3_mprintf(selects[o->by], "syscount_groups");

	rc = sql ? snoop_print(ctx, "rows", sql) : (msg_error("out of memory"), -1);
	sqlite3_free(sql);
	return rc;
}

/* On syscall_totals alone (derive_whole): when they stand for every call of the slice,
 * the whole capture's or those made over its window (derive_window, in TEMP). */
static bool whole_ok(struct report_ctx *ctx)
{
	sqlite3_stmt *st;
	bool ok = sqlite3_prepare_v2(ctx->db, ctx->window ? "SELECT coalesce((SELECT totals FROM temp.syscall_range), 0)" :
				     "SELECT slice_whole() AND coalesce((SELECT totals FROM syscall_range), 0)",
				     -1, &st, NULL) == SQLITE_OK &&
		  sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);

	sqlite3_finalize(st);
	return ok;
}

const struct report_def report_syscount_def = {
	.name = "syscount",
	.summary = "calls, errors and time per syscall and per process (syscount)",
	.options = options,
	.opts_size = sizeof(struct syscount_opts),
	.option = option,
	.run = run,
	.details =
	"from every syscalls:sys_enter_NAME/sys_exit_NAME event of the capture ('ftrec\n"
	"triage --syscalls'): NAME is the kernel's own. A call belongs to the slice by its\n"
	"entry (time, CPU, thread); its exit may come after --until.\n"
	"columns: syscall and/or pid, comm (--by), calls (entries), errors (returned\n"
	"  -4095..-1), total_ms (sum of entry -> exit times), avg_us (per paired call),\n"
	"  unpaired (entries without their exit: exit_group, a call running at the stop,\n"
	"  around lost events); most calls first\n"
	"SQL: `ftana sql FILE 'select * from syscall_calls'` (docs/SQL.md).\n",
	.views = &views_snoop,
	.needs = (const char *const[]){ "syscalls:sys_enter_*", "syscalls:sys_exit_*", NULL },
	.derive = (const char *const[]){ "syscalls", NULL },
	.derive_whole = (const char *const[]){ "syscall_totals", NULL },
	.whole_ok = whole_ok,
	.derive_window = true,
};
