/* sql_files.h - the SQL files under schema/, embedded at build time by tools/embed.c. */
#ifndef SQL_FILES_H
#define SQL_FILES_H

struct sql_file {
	const char *path; /* as in the source tree, e.g. "schema/reports/iolat.sql" */
	const char *text;
};

/* Terminated by an entry with path == NULL. */
extern const struct sql_file sql_files[];

/* The text of PATH, or NULL. */
const char *sql_file_text(const char *path);

#endif
