/* SPDX-License-Identifier: MIT */
/*
 * funcgraph_fixture.h - hand-made function_graph events for the funcgraph report tests
 * (test_report_funcgraph.c, test_report_funcgraph_views.c): the two event tables as the
 * importer makes them, four functions at known addresses, and one row per call.
 * Event id N happens at N us of the trace clock. Include after report_func_fixture.h.
 */
#ifndef FUNCGRAPH_FIXTURE_H
#define FUNCGRAPH_FIXTURE_H

enum { A = 0x1000, B = 0x2000, C = 0x3000, D = 0x4000 }; /* function addresses */

static __attribute__((unused)) void add_entry(sqlite3 *db, int id, int cpu, int pid, int64_t func,
					       int depth)
{
	fx_exec(db, "INSERT INTO funcgraph_entry VALUES (%d, %d, %d, %d, NULL, %lld, %d)",
		id, id * 1000, cpu, pid, (long long)func, depth);
}

/* The kernel's calltime/rettime: the duration is rettime - calltime. */
static __attribute__((unused)) void add_exit(sqlite3 *db, int id, int cpu, int pid, int64_t func,
					      int depth, int64_t dur)
{
	fx_exec(db, "INSERT INTO funcgraph_exit VALUES (%d, %d, %d, %d, NULL, %lld, %d, 0, %lld, %lld)",
		id, id * 1000, cpu, pid, (long long)func, depth, 5000000LL, 5000000LL + dur);
}

static __attribute__((unused)) sqlite3 *graph_db(void)
{
	sqlite3 *db = fx_open();

	fx_exec(db, "CREATE TABLE funcgraph_entry(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, func, depth)");
	fx_exec(db, "CREATE TABLE funcgraph_exit(id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id, func, depth, "
		"overrun, calltime, rettime)");
	/* as schema/tables.sql makes it: every event (the lost-events warning reads it) */
	fx_exec(db, "CREATE VIEW events AS SELECT id, ts, cpu, pid FROM funcgraph_entry "
		"UNION ALL SELECT id, ts, cpu, pid FROM funcgraph_exit");
	fx_exec(db, "INSERT INTO symbols VALUES (%d, 'ksys_read', 'T', NULL), (%d, 'vfs_read', 'T', NULL), "
		"(%d, 'rw_verify_area', 't', NULL), (%d, 'fsnotify', 'T', NULL)", A, B, C, D);
	return db;
}

#endif
