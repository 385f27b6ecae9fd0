/* SPDX-License-Identifier: MIT */
/* report_util.c - helpers shared by iolat, tpoint and stacks (see report_util.h). */
#include <getopt.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/ftana.h"
#include "analyze/text_escape.h"
#include "reports/report_func.h"
#include "reports/report_util.h"
#include "reports/sched_common.h"
#include "reports/snoop.h"

static const char *input_file;

void report_set_file(const char *path)
{
	input_file = path;
}

const char *report_file(void)
{
	return input_file;
}

bool ru_event_recorded(sqlite3 *db, const char *system, const char *event)
{
	sqlite3_stmt *st;
	bool found;

	if (!rf_has_table(db, "event_types") ||
	    sqlite3_prepare_v2(db, "SELECT 1 FROM event_types WHERE system = ?1 AND name = ?2",
			       -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, system, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, event, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

sqlite3_stmt *ru_prepare(sqlite3 *db, const char *report, const char *sql)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "ftana report %s: %s\n", report, sqlite3_errmsg(db));
		return NULL;
	}
	return st;
}

int ru_each_row(sqlite3 *db, const char *report, const char *sql, int64_t param,
		ru_row_fn fn, void *ctx)
{
	sqlite3_stmt *st = ru_prepare(db, report, sql);
	int step, rc = 0;

	if (!st)
		return -1;
	if (sqlite3_bind_parameter_count(st))
		sqlite3_bind_int64(st, 1, param);
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
		rc = fn(st, ctx);
	if (!rc && step != SQLITE_DONE) {
		fprintf(stderr, "ftana report %s: %s\n", report, sqlite3_errmsg(db));
		rc = -1;
	}
	sqlite3_finalize(st);
	return rc ? -1 : 0;
}

int ru_exec(sqlite3 *db, const char *report, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "ftana report %s: %s\n", report, err ? err : "SQL error");
		sqlite3_free(err);
		return -1;
	}
	return 0;
}

int ru_stand_in(sqlite3 *db, const char *name, const char *columns)
{
	if (rf_has_table(db, name))
		return 0;
	char *sql = sqlite3_mprintf("CREATE TEMP TABLE \"%w\"(%s)", name, columns);
	int rc = ru_exec(db, "setup", sql);

	sqlite3_free(sql);
	return rc;
}

/* How many of the listed losses to show by time before summing up the rest. */
#define LOST_SHOWN 4

/*
 * A disk ring or series with files missing between the ones present (ftrec
 * --ring/--rotate, decode/capture_set.h): their events are lost and no page
 * flags it. The list is digits, commas and dashes as ftana writes it.
 */
static bool warn_set_gaps(sqlite3 *db, FILE *out)
{
	sqlite3_stmt *st;
	bool shown = false;

	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'segment_gaps' AND value <> ''",
			       -1, &st, NULL) != SQLITE_OK)
		return false;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *gaps = (const char *)sqlite3_column_text(st, 0);
		bool plain = gaps && strlen(gaps) < 200 && strspn(gaps, "0123456789,-") == strlen(gaps);

		fprintf(out, "WARNING: files %s of this capture (a ring's segments or a series' files) "
			"are missing: their events are lost (ftana info lists each file and its "
			"losses)", plain ? gaps : "(?)");
		shown = true;
	}
	sqlite3_finalize(st);
	return shown;
}

/* Is the capture a ring or a series (its files' stats in meta)? Then its views
 * (schema/info_segments.sql) are made, before any statement runs. */
static bool set_views(sqlite3 *db)
{
	sqlite3_stmt *st;
	bool set;

	if (!rf_has_table(db, "meta") || sqlite3_prepare_v2(db, "SELECT 1 FROM meta WHERE key GLOB "
			"'segment_stats_[0-9]*' LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return false;
	set = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return set && ftana_exec_sql_file(db, "schema/info_segments.sql") == 0;
}

/*
 * A ring or series whose losses (in [t0, t1], FILTER as the caller's) lie in more
 * than one file: " (100 in a-0002.ftz, 20 in a-0003.ftz)", each file's counted
 * losses ("?" for a file whose losses are all of unknown size). Nothing otherwise.
 * When the range holds every loss, each file's own count (decode's segment_stats)
 * is exact; a part of the capture is split by the time of each loss, which is
 * approximate where two files' CPUs overlap in time (schema/info_segments.sql).
 */
static void warn_lost_per_file(sqlite3 *db, int64_t t0, int64_t t1, const char *filter, FILE *out)
{
	sqlite3_stmt *st;
	char *sql = sqlite3_mprintf(
		"WITH whole(yes) AS (SELECT (SELECT count(*) FROM lost_events l WHERE 1 %s) = "
		"	(SELECT count(*) FROM lost_events l WHERE ts BETWEEN ?1 AND ?2 %s)), "
		"by_time(n, file, counted, unknown) AS ("
		"	SELECT l.n, ifnull(l.file, '(unknown file)'), "
		"	       sum(CASE WHEN count > 0 THEN count ELSE 0 END), sum(count IS NULL OR count < 0) "
		"	FROM set_lost_file l WHERE ts BETWEEN ?1 AND ?2 %s GROUP BY l.n), "
		"by_file(n, file, counted, unknown) AS ("
		"	SELECT n, file, lost_events, lost_events = 0 FROM info_set_members WHERE lost_pages > 0), "
		"chosen AS (SELECT * FROM by_file WHERE (SELECT yes FROM whole) "
		"	UNION ALL SELECT * FROM by_time WHERE NOT (SELECT yes FROM whole)) "
		"SELECT file, counted, unknown, count(*) OVER () FROM chosen ORDER BY n",
		filter, filter, filter);

	st = sql ? ru_prepare(db, "lost events", sql) : NULL;
	sqlite3_free(sql);
	if (!st)
		return;
	sqlite3_bind_int64(st, 1, t0);
	sqlite3_bind_int64(st, 2, t1);
	for (int i = 0; sqlite3_step(st) == SQLITE_ROW; i++) {
		if (sqlite3_column_int64(st, 3) < 2)
			break; /* one file: the line says enough */
		/* a file's name may hold anything: escaped, so the warning stays one line */
		char *name = text_escaped((const char *)sqlite3_column_text(st, 0));
		int64_t counted = sqlite3_column_int64(st, 1);

		fputs(i ? ", " : " (", out);
		if (counted || !sqlite3_column_int64(st, 2))
			fprintf(out, "%lld in %s", (long long)counted, name ? name : "?");
		else
			fprintf(out, "? in %s", name ? name : "?");
		if (sqlite3_column_int64(st, 3) == i + 1)
			fputc(')', out);
		free(name);
	}
	sqlite3_finalize(st);
}

int ru_warn_lost_in(sqlite3 *db, const char *range_sql, int64_t since, int64_t until, FILE *out)
{
	sqlite3_stmt *range, *st;
	int64_t t0, t1;
	int shown = 0;

	if (!rf_has_table(db, "lost_events"))
		return 0;
	/* one line: the gap first, then the losses the pages flag */
	bool gap = warn_set_gaps(db, out);
	range = ru_prepare(db, "lost events", range_sql);
	if (!range)
		return -1;
	bool have = sqlite3_step(range) == SQLITE_ROW &&
		    sqlite3_column_type(range, 0) != SQLITE_NULL;
	t0 = sqlite3_column_int64(range, 0);
	t1 = sqlite3_column_int64(range, 1);
	sqlite3_finalize(range);
	if (t0 < since)
		t0 = since;
	if (t1 >= until)
		t1 = until - 1;
	if (!have || t1 < t0)
		return gap ? fputc('\n', out), 0 : 0;

	/* The kernel may only know that events were lost, not how many (count < 0). */
	/* --kernel-ring: the loss flagged at a CPU's first event is the ring
	 * overwriting older events by design, not a gap in the data */
	int64_t ring = 0;
	bool skip_ring = rf_meta_int(db, "kernel_ring", &ring) && ring == 1 &&
			 rf_has_table(db, "events");

	/* (the events view is named only when needed: a hand-made .db may lack it) */
	bool per_file = set_views(db);
	const char *filter = skip_ring ? "AND l.ts > (SELECT min(ts) FROM events e WHERE e.cpu = l.cpu)" : "";
	char *sql = sqlite3_mprintf(
		"SELECT cpu, ts, count, count(*) OVER (), "
		"       sum(CASE WHEN count > 0 THEN count ELSE 0 END) OVER (), "
		"       sum(count IS NULL OR count < 0) OVER () "
		"FROM lost_events l WHERE ts BETWEEN ?1 AND ?2 %s ORDER BY ts", filter);
	st = sql ? ru_prepare(db, "lost events", sql) : NULL;
	sqlite3_free(sql);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, t0);
	sqlite3_bind_int64(st, 2, t1);
	for (int i = 0; sqlite3_step(st) == SQLITE_ROW; i++, shown++) {
		if (i == 0) {
			int64_t unknown = sqlite3_column_int64(st, 5);

			fprintf(out, "%s the capture lost %lld events", gap ? ";" : "WARNING:",
				(long long)sqlite3_column_int64(st, 4));
			if (unknown)
				fprintf(out, " (and %lld losses of unknown size)", (long long)unknown);
			if (per_file)
				warn_lost_per_file(db, t0, t1, filter, out);
			fprintf(out, " in this report's time range; results near these times "
				"may be incomplete:");
		}
		if (i < LOST_SHOWN) {
			fprintf(out, " CPU %d before %.6f s", sqlite3_column_int(st, 0),
				sqlite3_column_int64(st, 1) / 1e9);
			if (sqlite3_column_int64(st, 2) > 0)
				fprintf(out, " (%lld)", (long long)sqlite3_column_int64(st, 2));
			fputc(';', out);
		} else if (i == LOST_SHOWN) {
			fprintf(out, " and %lld more losses;",
				(long long)sqlite3_column_int64(st, 3) - LOST_SHOWN);
		}
	}
	if (shown || gap)
		fputc('\n', out);
	sqlite3_finalize(st);
	return 0;
}

char *ru_event_table(sqlite3 *db, const char *report, const char *spec)
{
	const char *colon = strchr(spec, ':');
	const char *name = colon ? colon + 1 : spec;
	char *table = NULL;
	int found = 0;

	if (!rf_has_table(db, "event_types")) {
		if (rf_has_table(db, name))
			return strdup(name);
	} else {
		sqlite3_stmt *st = ru_prepare(db, report,
			"SELECT table_name FROM event_types WHERE table_name IS NOT NULL "
			"AND name = ?1 AND (?2 IS NULL OR system = ?2)");
		if (!st)
			return NULL;
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (colon)
			sqlite3_bind_text(st, 2, spec, colon - spec, SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW && ++found == 1)
			table = strdup((const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
		if (found == 1)
			return table;
		free(table);
	}
	if (found > 1)
		fprintf(stderr, "ftana report %s: several systems have an event '%s': "
			"give SYSTEM:%s\n", report, name, name);
	else
		fprintf(stderr, "ftana report %s: this capture has no '%s' events "
			"(see 'ftana info FILE')\n", report, spec);
	return NULL;
}

void report_sql_views(sqlite3 *db)
{
	if (rf_has_table(db, "block_rq_issue") && rf_has_table(db, "block_rq_complete"))
		iolat_views(db);
	if (rf_has_table(db, "funcgraph_entry") && rf_has_table(db, "funcgraph_exit"))
		funcgraph_views(db); /* `calls`: one walk over every function_graph event */
	if (rf_has_table(db, "funcgraph_exit"))
		funcslower_views(db); /* `slow_calls` */
	funccount_views(db); /* func_counts..., when the capture has function counts */
	kprobe_views(db);    /* probe_hits (empty without probes) */
	stacks_views(db);    /* stack_folded, when the capture has stacks */
	snoop_views(db);     /* execs, opens, kills, io_sizes, syscall_calls (reports/snoop.c) */
	sched_views(db);     /* oncpu, runq_waits, offcpu (reports/sched_common.c) */
}

static void regexp_free(void *p)
{
	regfree(p);
	free(p);
}

/* SQLite calls regexp(PATTERN, STRING) for `STRING REGEXP PATTERN`. */
static void regexp_func(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *pattern = (const char *)sqlite3_value_text(argv[0]);
	const char *text = (const char *)sqlite3_value_text(argv[1]);
	regex_t *re = sqlite3_get_auxdata(ctx, 0);
	bool compiled = false;

	if (!pattern || !text)
		return; /* NULL */
	if (!re) {
		re = malloc(sizeof(*re));
		if (!re || regcomp(re, pattern, REG_EXTENDED | REG_NOSUB)) {
			free(re);
			sqlite3_result_error(ctx, "bad regular expression", -1);
			return;
		}
		compiled = true;
	}
	sqlite3_result_int(ctx, regexec(re, text, 0, NULL, 0) == 0);
	/* Kept for the next rows of the statement; SQLite may free it at once. */
	if (compiled)
		sqlite3_set_auxdata(ctx, 0, re, regexp_free);
}

int ru_add_regexp(sqlite3 *db)
{
	return sqlite3_create_function(db, "regexp", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
				       NULL, regexp_func, NULL, NULL) == SQLITE_OK ? 0 : -1;
}
