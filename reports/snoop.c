/* SPDX-License-Identifier: MIT */
/*
 * snoop.c - the triage reports' shared part (snoop.h). The SQL is in schema/reports/
 * (snoop_names.sql, execsnoop.sql, ...); built here in C: temp.syscall_events, because
 * its branches are the capture's syscall event tables, whose names only event_types
 * knows, and the syscall pairs under syscall_calls (import/derive_syscalls.c) when the
 * database does not hold them.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "import/derive.h"
#include "reports/args.h"
#include "reports/lost.h"
#include "reports/slice.h"
#include "reports/snoop.h"
#include "reports/views.h"
#include "store/db.h"

/* The probe fields of ftrec_exec_args: pI the pointer argv[I], aI its string. */
#define EXEC_ARG(i) ", p" #i ", a" #i
#define EXEC_ARGS_COLUMNS "id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, __probe_ip" \
	EXEC_ARG(0) EXEC_ARG(1) EXEC_ARG(2) EXEC_ARG(3) EXEC_ARG(4) EXEC_ARG(5) EXEC_ARG(6) \
	EXEC_ARG(7) EXEC_ARG(8) EXEC_ARG(9) EXEC_ARG(10) EXEC_ARG(11) EXEC_ARG(12) \
	EXEC_ARG(13) EXEC_ARG(14) EXEC_ARG(15)

/* Stand-ins: the columns each view reads, for a capture without the event. */
static const struct { const char *system, *table, *columns; } stand_ins[] = {
	{ "sched", "sched_process_exec", "id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, filename, field_pid, old_pid" },
	{ "sched", "sched_process_fork", "id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, parent_comm, parent_pid, "
					 "child_comm, child_pid" },
	{ "sched", "sched_process_exit", "id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, comm, field_pid, prio" },
	{ "signal", "signal_generate", "id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, sig, errno, code, comm, "
				      "field_pid, \"group\", result" },
	{ "block", "block_rq_issue", BLOCK_RQ_COLUMNS },
	{ "block", "block_rq_insert", BLOCK_RQ_COLUMNS },
	{ "syscalls", "sys_enter_exit_group", "id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, __syscall_nr, error_code" },
	{ "syscalls", "sys_enter_exit", "id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, __syscall_nr, error_code" },
	{ "syscalls", "sys_enter_openat", "id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, __syscall_nr, dfd, "
					 "filename, flags, mode" },
	{ "syscalls", "sys_enter_open", "id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, __syscall_nr, filename, "
				       "flags, mode" },
	{ "syscalls", "sys_enter_openat2", "id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, __syscall_nr, dfd, "
					  "filename, how, usize" },
	/* the kprobes of `ftrec triage --syscalls` (their system is ftrec_<pid>): the open's
	 * path, each exec's arguments (record/preset_triage.c) */
	{ NULL, "ftrec_open_path", "id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, __probe_ip, path" },
	{ NULL, "ftrec_exec_args", EXEC_ARGS_COLUMNS },
	{ NULL, "ftrec_execat_args", EXEC_ARGS_COLUMNS },
	{ NULL, "lost_events", "cpu, ts, count" },
};

/*
 * The views read each event by its own name. When the importer had to name the table
 * otherwise (another system has an event of that name: "sched_sched_process_exec", see
 * schema/tables.sql), a TEMP view of the event's name stands for it; when the capture
 * has no such events, an empty TEMP table. 0, or -1 after a message.
 */
static int input_table(sqlite3 *db, const char *system, const char *table, const char *columns)
{
	sqlite3_stmt *st;
	char *renamed = NULL;

	if (db_has_table(db, table))
		return 0;
	if (system && sqlite3_prepare_v2(db, "SELECT table_name FROM event_types WHERE system = ?1 "
					 "AND name = ?2 AND table_name IN (SELECT name FROM sqlite_master)", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, system, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, table, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			renamed = sqlite3_mprintf("CREATE TEMP VIEW \"%w\" AS SELECT * FROM \"%w\"", table,
						  (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	if (!renamed)
		return db_stand_in(db, table, columns);
	int rc = db_exec(db, renamed);
	sqlite3_free(renamed);
	return rc;
}

/* Does TABLE have a column COLUMN? */
static bool has_column(sqlite3 *db, const char *table, const char *column)
{
	sqlite3_stmt *st;
	bool found = false;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st,
			       NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* SQLite refuses a compound SELECT of more than 500 branches; a capture of every
 * syscall has ~700 tables: chains of at most this many, joined as subqueries. */
#define CHAIN 200

/*
 * temp.syscall_events(id, ts, cpu, pid, syscall, is_exit, ret): one branch per
 * syscalls:sys_enter_NAME / sys_exit_NAME table of the capture, syscall = NAME as the
 * kernel's format names it. A table name is quoted, NAME bound as a literal by %Q.
 */
static int syscall_events_view(sqlite3 *db)
{
	sqlite3_stmt *st;
	sqlite3_str *sql = sqlite3_str_new(db);
	int n = 0, step;

	if (sqlite3_prepare_v2(db, "SELECT name, table_name FROM event_types "
			       "WHERE system = 'syscalls' AND table_name IN (SELECT name FROM sqlite_master) "
			       "AND (name GLOB 'sys_enter_?*' OR name GLOB 'sys_exit_?*') ORDER BY type_id",
			       -1, &st, NULL) != SQLITE_OK) {
		sqlite3_free(sqlite3_str_finish(sql));
		/* a database without event_types (hand-made): no syscall events */
		return db_exec(db, "CREATE TEMP VIEW IF NOT EXISTS syscall_events AS SELECT "
			       "NULL AS id, NULL AS ts, NULL AS cpu, NULL AS pid, NULL AS syscall, "
			       "NULL AS is_exit, NULL AS ret WHERE 0");
	}
	sqlite3_str_appendall(sql, "DROP VIEW IF EXISTS temp.syscall_events;\n"
			      "CREATE TEMP VIEW syscall_events AS SELECT * FROM (");
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *table = (const char *)sqlite3_column_text(st, 1);
		bool is_exit = !strncmp(name, "sys_exit_", 9);

		if (n)
			sqlite3_str_appendall(sql, n % CHAIN ? "\nUNION ALL " : ")\nUNION ALL SELECT * FROM (");
		sqlite3_str_appendf(sql, "SELECT id, ts, cpu, pid, %Q AS syscall, %d AS is_exit, %s AS ret "
				    "FROM \"%w\"", name + (is_exit ? 9 : 10), is_exit,
				    is_exit && has_column(db, table, "ret") ? "ret" : "NULL", table);
		n++;
	}
	sqlite3_finalize(st);
	if (!n)
		sqlite3_str_appendall(sql, "SELECT NULL AS id, NULL AS ts, NULL AS cpu, NULL AS pid, "
				      "NULL AS syscall, NULL AS is_exit, NULL AS ret WHERE 0");
	sqlite3_str_appendall(sql, ")");
	char *text = sqlite3_str_finish(sql);
	int rc = step == SQLITE_DONE && text ? db_exec(db, text) : -1;

	sqlite3_free(text);
	return rc;
}

/*
 * temp.io_submitters(issue_id, insert_id): the insert of each paired request, which
 * io_sizes reads for its submitter, from io_pairs (import/derive_io.c). A database
 * ftana builds holds them once the block events are imported (import/derive.h); else
 * they are derived into TEMP when IO asks (bitesize, `ftana sql`: a second on a
 * database of millions of requests made elsewhere). Without them (no block events,
 * or not asked) the view is empty and each request the issuer's. A view either way,
 * so the views kept in the database (views_keep.c) can hold io_sizes.
 */
static int io_submitters(sqlite3 *db, bool io)
{
	bool pairs = derive_present(db, "main", "io") || derive_present(db, "temp", "io");

	if (!pairs && io && db_has_capture_table(db, "block_rq_issue") &&
	    db_has_capture_table(db, "block_rq_complete")) {
		if (derive_io(db, "temp"))
			return -1;
		pairs = true;
	}
	return db_exec(db, pairs ?
		"DROP VIEW IF EXISTS temp.io_submitters;\n"
		"CREATE TEMP VIEW io_submitters AS SELECT issue_id, insert_id FROM io_pairs "
		"WHERE status = 'ok' AND issue_id IS NOT NULL" :
		"DROP VIEW IF EXISTS temp.io_submitters;\n"
		"CREATE TEMP VIEW io_submitters AS SELECT NULL AS issue_id, NULL AS insert_id WHERE 0");
}

/* The views; with SNOOP_CALLS, the syscall pairs syscall_calls reads too (derived into
 * TEMP when the database lacks them: seconds on a capture of millions of syscalls, so
 * only for what reads them), with SNOOP_TOTALS an empty TEMP stand-in for them (the
 * report reads syscall_totals); with SNOOP_IO, the I/O pairs (io_submitters above). */
enum { SNOOP_CALLS = 1, SNOOP_IO = 2, SNOOP_TOTALS = 4 };

static int views(sqlite3 *db, unsigned derived)
{
	for (size_t i = 0; i < sizeof(stand_ins) / sizeof(stand_ins[0]); i++)
		if (input_table(db, stand_ins[i].system, stand_ins[i].table, stand_ins[i].columns))
			return -1;
	if (syscall_events_view(db) || io_submitters(db, derived & SNOOP_IO) ||
	    ((derived & SNOOP_CALLS) && !derive_present(db, "main", "syscalls") &&
	     derive_syscalls(db, "temp")) ||
	    ((derived & SNOOP_TOTALS) && !derive_present(db, "main", "syscalls") &&
	     derive_syscall_pairs_empty(db, "temp")) ||
	    db_exec_file(db, "schema/reports/snoop_names.sql") ||
	    db_exec_file(db, "schema/reports/execsnoop.sql") ||
	    db_exec_file(db, "schema/reports/killsnoop.sql") ||
	    db_exec_file(db, "schema/reports/syscount.sql") ||
	    db_exec_file(db, "schema/reports/opensnoop.sql") ||
	    db_exec_file(db, "schema/reports/bitesize.sql"))
		return -1;
	return 0;
}

int snoop_views(sqlite3 *db)
{
	return views(db, SNOOP_CALLS | SNOOP_IO);
}

const struct report_views views_snoop = { "snoop", snoop_views, false };

static int prepare(struct report_ctx *ctx, const char *const *events, size_t nr_events,
		   const char *hint, const char *range_sql, unsigned derived)
{
	bool recorded = false;

	for (size_t i = 0; i < nr_events && !recorded; i++) {
		char sys[64];
		const char *colon = strchr(events[i], ':');

		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - events[i]), events[i]);
		recorded = db_event_recorded(ctx->db, sys, colon + 1) || db_has_table(ctx->db, colon + 1);
	}
	if (nr_events && !recorded) {
		msg_error("this capture did not record %s (%s)", events[0], hint);
		return -1;
	}
	if (views(ctx->db, derived) || args_setup(ctx->db) ||
	    (range_sql && lost_warn(ctx->db, range_sql, &ctx->slice)))
		return -1;
	return 0;
}

int snoop_prepare(struct report_ctx *ctx, const char *const *events, size_t nr_events,
		  const char *hint, const char *range_sql)
{
	return prepare(ctx, events, nr_events, hint, range_sql, 0);
}

int snoop_prepare_io(struct report_ctx *ctx, const char *const *events, size_t nr_events,
		     const char *hint, const char *range_sql)
{
	return prepare(ctx, events, nr_events, hint, range_sql, SNOOP_IO);
}

int snoop_prepare_calls(struct report_ctx *ctx, const char *const *events, size_t nr_events,
			const char *hint)
{
	/* the losses over every syscall event's time, as derive_syscalls found it */
	return prepare(ctx, events, nr_events, hint, "SELECT first_ts, last_ts FROM syscall_range", SNOOP_CALLS);
}

int snoop_prepare_totals(struct report_ctx *ctx, const char *hint)
{
	return prepare(ctx, NULL, 0, hint, "SELECT first_ts, last_ts FROM syscall_range", SNOOP_TOTALS);
}

int snoop_select(struct report_ctx *ctx, const char *sql_file)
{
	return db_exec_file(ctx->db, sql_file) ? -1 : 0;
}

int snoop_print(struct report_ctx *ctx, const char *key, const char *select_sql)
{
	char *sql = sqlite3_mprintf(select_sql, slice_ts_suffix(&ctx->slice), slice_ts_suffix(&ctx->slice));
	int rc = sql ? doc_table(ctx, key, sql) : msg_error("out of memory");

	sqlite3_free(sql);
	return rc ? -1 : 0;
}
