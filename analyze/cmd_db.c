// SPDX-License-Identifier: MIT
/* cmd_db.c - `ftana db FILE.ftz [-o OUT.db]`: build the database (by default the
 * cache beside the .ftz, reused while up to date) and print its path; -o - writes
 * the database itself to stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cmd.h"
#include "common/out_file.h"
#include "import/dbcache.h"

static const char usage_text[] =
	"usage: ftana db FILE [FILE...] [-o OUT.db]\n"
	"Decode FILE (a .ftz, or a trace-cmd trace.dat) into an SQLite database and print its\n"
	"path: by default the cache beside FILE (its name + .db, or under $XDG_CACHE_HOME/ftana when\n"
	"that directory is not writable), reused while it provably belongs to FILE.\n"
	"A disk ring (ftrec --ring) is opened by its NAME.ftz: its segments are found beside it.\n"
	"Several FILEs are the files of one ftrec --rotate series, joined into one capture\n"
	"(cache FILE.join-HASH.db); files of different captures are refused.\n"
	"  -o OUT.db   write the database to OUT.db instead (- for standard output: the\n"
	"              database's bytes, nothing else)\n";

static int usage(void)
{
	return cmd_usage(usage_text, false);
}

/* Build the database of IN into OUT (a file name or "-"). 0, or -1 after an error. */
static int build_out(const char **in, size_t n, const char *out, bool *damaged)
{
	struct out_file o;
	int rc;

	*damaged = false;
	if (!out_is_stdout(out)) {
		rc = dbcache_build_set(in, n, out, damaged);
		if (!rc)
			printf("%s\n", out);
		return rc;
	}
	/* a database is made by name: built over the temp file, which is then copied */
	if (out_open(&o, out, NULL) < 0)
		return -1;
	fclose(o.f);
	o.f = NULL;
	rc = dbcache_build_set(in, n, o.tmp, damaged);
	if (rc < 0) {
		out_abort(&o);
		return -1;
	}
	return out_commit(&o);
}

int cmd_db(int argc, char **argv)
{
	const char *out = NULL;
	const char **in = calloc((size_t)argc, sizeof(*in));
	size_t n = 0;
	bool damaged = false;
	sqlite3 *db;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return free(in), cmd_usage(usage_text, true);
		else if (argv[i][0] == '-' || !in)
			return free(in), usage();
		else
			in[n++] = argv[i];
	}
	if (!n)
		return free(in), usage();
	if (out) {
		/* the database is renamed over OUT: never over a device, a link or an input */
		for (size_t i = 0; i < n; i++)
			if (out_check(out, in[i]) < 0)
				return free(in), CMD_EXIT_ERROR;
		int rc = build_out(in, n, out, &damaged);

		free(in);
		if (rc < 0)
			return damaged ? CMD_EXIT_DAMAGED : CMD_EXIT_ERROR;
		return damaged ? CMD_EXIT_DAMAGED : CMD_EXIT_OK;
	}
	db = dbcache_open_set(in, n, NULL, &damaged); /* every type and derivation */
	free(in);
	if (!db)
		return damaged ? CMD_EXIT_DAMAGED : CMD_EXIT_ERROR;
	printf("%s\n", sqlite3_db_filename(db, "main"));
	sqlite3_close(db);
	return damaged ? CMD_EXIT_DAMAGED : CMD_EXIT_OK;
}
