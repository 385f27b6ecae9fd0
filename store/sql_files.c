// SPDX-License-Identifier: MIT
/* sql_files.c - look up the SQL files of schema/, embedded by tools/embed.c. */
#include <string.h>

#include "store/sql_files.h"

const char *sql_file_text(const char *path)
{
	for (const struct sql_file *f = sql_files; f->path; f++)
		if (!strcmp(f->path, path))
			return f->text;
	return NULL;
}
