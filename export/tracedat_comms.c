// SPDX-License-Identifier: MIT
/*
 * tracedat_comms.c - the pid-to-comm lines `ftana convert` writes as trace.dat's
 * saved_cmdlines: the same names ftana's own reports print. The kernel's
 * saved_cmdlines was read when recording started (and ended): tasks born in
 * between are missing from it, and trace-cmd would print them as "<...>". The
 * database's tasks table also has the comms the events themselves carried
 * (sched_switch's next_comm, ...), as report tpoint registers them: the file's own
 * lines first, then a line for each pid they lack.
 */
#include <stdlib.h>
#include <string.h>

#include "decode/decode.h"
#include "export/tracedat_comms.h"
#include "import/dbcache.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The pids of "PID COMM" lines, sorted, for lookups. */
static int *listed_pids(const char *text, size_t len, size_t *nr)
{
	size_t cap = 0, n = 0;
	int *pids = NULL;

	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char *stop;
		long pid = strtol(p, &stop, 10);

		if (stop != p && pid >= 0 && pid <= 0x7fffffff) {
			if (n == cap) {
				int *grown = realloc(pids, (cap = cap ? 2 * cap : 256) * sizeof(*pids));

				if (!grown) {
					free(pids);
					return NULL;
				}
				pids = grown;
			}
			pids[n++] = (int)pid;
		}
		p = nl ? nl + 1 : end;
	}
	if (n)
		qsort(pids, n, sizeof(*pids), cmp_int);
	*nr = n;
	return pids;
}

char *tracedat_cmdlines(const struct dec *d, const char *in, size_t *len, bool *damaged)
{
	size_t file_len = 0, nr = 0, size = 0;
	const char *raw = dec_file(d, "saved_cmdlines", -1, NULL);
	/* the names cut as ftana's reports print them: trace-cmd would print a 16 MiB
	 * one on each of its task's lines */
	char *file = raw ? dec_cmdlines_capped(raw) : NULL;
	sqlite3_stmt *st = NULL;
	char *text = NULL;
	int *pids = NULL;
	FILE *out = NULL;
	sqlite3 *db;

	if ((raw && !file) || !(out = open_memstream(&text, &size))) {
		free(file);
		return NULL;
	}
	if (file) {
		file_len = strlen(file);
		fwrite(file, 1, file_len, out);
	}
	if (file_len && file[file_len - 1] != '\n')
		fputc('\n', out);
	/* the database (cached beside IN; a damaged IN gives what came before, and
	 * ftana_open has said so) */
	*damaged = false;
	db = dbcache_open(in, &import_types_none, damaged); /* its tasks only */
	if (db && (pids = listed_pids(file ? file : "", file_len, &nr), !file_len || pids) &&
	    sqlite3_prepare_v2(db, "SELECT pid, comm FROM tasks WHERE comm IS NOT NULL ORDER BY pid",
			       -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			int pid = sqlite3_column_int(st, 0);
			const char *comm = (const char *)sqlite3_column_text(st, 1);

			/* a comm holding a newline would make two lines of one */
			if (!comm || !*comm || strchr(comm, '\n') ||
			    (nr && bsearch(&pid, pids, nr, sizeof(*pids), cmp_int)))
				continue;
			fprintf(out, "%d %s\n", pid, comm);
		}
	}
	sqlite3_finalize(st);
	if (db)
		sqlite3_close(db);
	free(pids);
	free(file);
	if (fclose(out)) {
		free(text);
		return NULL;
	}
	*len = size;
	return text;
}
