// SPDX-License-Identifier: MIT
/* cmd_db.c - `ftana db FILE.ftz [-o OUT.db]`: build the database (by default the
 * cache beside the .ftz, reused while up to date) and print its path. */
#include <stdio.h>
#include <string.h>

#include "analyze/dbcache.h"
#include "analyze/ftana.h"

static const char usage_text[] =
	"usage: ftana db FILE [-o OUT.db]\n"
	"Decode FILE (a .ftz, or a trace-cmd trace.dat) into an SQLite database and print its\n"
	"path: by default the cache beside FILE (its name + .db, or under $XDG_CACHE_HOME/ftana when\n"
	"that directory is not writable), reused while it provably belongs to FILE.\n"
	"  -o OUT.db   write the database to OUT.db instead\n";

static int usage(void)
{
	return ftana_usage(usage_text, false);
}

int cmd_db(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	bool damaged = false;
	sqlite3 *db;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return ftana_usage(usage_text, true);
		else if (argv[i][0] == '-' || in)
			return usage();
		else
			in = argv[i];
	}
	if (!in)
		return usage();
	if (out) {
		if (dbcache_build(in, out, &damaged) < 0)
			return damaged ? FTANA_EXIT_DAMAGED : FTANA_EXIT_ERROR;
		printf("%s\n", out);
		return damaged ? FTANA_EXIT_DAMAGED : FTANA_EXIT_OK;
	}
	db = ftana_open(in, &damaged);
	if (!db)
		return damaged ? FTANA_EXIT_DAMAGED : FTANA_EXIT_ERROR;
	printf("%s\n", sqlite3_db_filename(db, "main"));
	sqlite3_close(db);
	return damaged ? FTANA_EXIT_DAMAGED : FTANA_EXIT_OK;
}
