// SPDX-License-Identifier: MIT
/*
 * insert_ceiling N DB - the SQLite ceiling for the decode benchmark: N narrow rows
 * (the shape of a sys_enter_getpid table: id, ts, cpu, pid, stack_id, __syscall_nr)
 * inserted through one prepared statement in one transaction, with the pragmas
 * and configuration ftana uses (import/import.c, analyze/main.c).
 * Prints "rows R seconds S rows_per_s X cpu_seconds C rows_per_cpu_s Y".
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sqlite3.h>

#include "bench/bench_clock.h"

static int exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	fprintf(stderr, "insert_ceiling: %s\n", msg);
	return -1;
}

int main(int argc, char **argv)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	long n;
	double t0;

	if (argc != 3 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: insert_ceiling N DB\n");
		return 1;
	}
	/* as ftana's main() does */
	sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	unlink(argv[2]);
	t0 = now_s();
	if (sqlite3_open_v2(argv[2], &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) ||
	    exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-16384;"
		 " PRAGMA locking_mode=EXCLUSIVE; PRAGMA temp_store=MEMORY;") ||
	    exec(db, "CREATE TABLE t (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, cpu INTEGER NOT NULL,"
		 " pid INTEGER, stack_id INTEGER, __syscall_nr INTEGER); BEGIN") ||
	    sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?,?,?,?,?,?)", -1, &st, NULL))
		return 1;
	for (long i = 1; i <= n; i++) {
		sqlite3_bind_int64(st, 1, i);
		sqlite3_bind_int64(st, 2, 1000000000000ll + 300 * i);
		sqlite3_bind_int(st, 3, i & 1);
		sqlite3_bind_int(st, 4, 4242);
		sqlite3_bind_null(st, 5);
		sqlite3_bind_int(st, 6, 39);
		if (sqlite3_step(st) != SQLITE_DONE)
			return 1;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (exec(db, "COMMIT") || sqlite3_close(db))
		return 1;
	double dt = now_s() - t0;

	printf("rows %ld seconds %.3f rows_per_s %.0f cpu_seconds %.3f rows_per_cpu_s %.0f\n",
	       n, dt, n / dt, cpu_s(), n / cpu_s());
	return 0;
}
