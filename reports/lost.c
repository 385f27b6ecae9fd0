/* SPDX-License-Identifier: MIT */
/*
 * lost.c - the one-line warning every report gives first when the events it covers
 * are incomplete: losses the kernel flagged on the pages, and the files of a ring
 * or series that are missing (lost.h).
 */
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/text_escape.h"
#include "reports/lost.h"
#include "reports/slice.h"
#include "store/db.h"

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

		fprintf(out, "files %s of this capture (a ring's segments or a series' files) "
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

	if (!db_has_table(db, "meta") || sqlite3_prepare_v2(db, "SELECT 1 FROM meta WHERE key GLOB "
			"'segment_stats_[0-9]*' LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return false;
	set = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return set && db_exec_file(db, "schema/info_segments.sql") == 0;
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

	st = sql ? db_prepare(db, sql) : NULL;
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

/*
 * The kernel cannot always say on a page how many events it overwrote before it (the
 * count needs room at the page's end): "lost 0 events (and 1 loss of unknown size)"
 * understates a loss the kernel counted (seen: 6414 events overwritten while ftrec was
 * stopped). For each CPU whose every loss lies in [t0, t1] and has one of unknown size,
 * its overrun counter over the recording (cpu_stats_delta) less the counted losses is
 * what those lost: *extra events, for *resolved of the unknown losses. Not for a ring
 * or series (the counters span files no longer there) or --kernel-ring (overwriting
 * is its design), nor when the database has no counters.
 */
static void lost_by_counter(sqlite3 *db, int64_t t0, int64_t t1, int64_t *extra, int64_t *resolved)
{
	sqlite3_stmt *st;

	*extra = *resolved = 0;
	if (sqlite3_prepare_v2(db,
		"WITH l AS (SELECT cpu, count(*) AS n, sum(ts BETWEEN ?1 AND ?2) AS inside, "
		"	sum(CASE WHEN count > 0 THEN count ELSE 0 END) AS known, "
		"	sum(count IS NULL OR count < 0) AS unknown FROM lost_events GROUP BY cpu) "
		"SELECT sum(d.overrun - l.known), sum(l.unknown) FROM l JOIN cpu_stats_delta d USING (cpu) "
		"WHERE l.unknown > 0 AND l.inside = l.n AND typeof(d.overrun) = 'integer' "
		"AND d.overrun > l.known", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, t0);
	sqlite3_bind_int64(st, 2, t1);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*extra = sqlite3_column_int64(st, 0);
		*resolved = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
}

int lost_describe(sqlite3 *db, const char *range_sql, int64_t since, int64_t until, FILE *out)
{
	sqlite3_stmt *range, *st;
	int64_t t0, t1;
	int shown = 0;

	if (!db_has_table(db, "lost_events"))
		return 0;
	/* one line: the gap first, then the losses the pages flag */
	bool gap = warn_set_gaps(db, out);
	bool have;

	if (!range_sql && db_meta_int(db, "first_ts", &t0) && db_meta_int(db, "last_ts", &t1)) {
		have = true; /* the whole capture, every type imported or not */
	} else {
		range = db_prepare(db, range_sql ? range_sql : "SELECT min(ts), max(ts) FROM events");
		if (!range)
			return -1;
		have = sqlite3_step(range) == SQLITE_ROW && sqlite3_column_type(range, 0) != SQLITE_NULL;
		t0 = sqlite3_column_int64(range, 0);
		t1 = sqlite3_column_int64(range, 1);
		sqlite3_finalize(range);
	}
	if (t0 < since)
		t0 = since;
	if (t1 >= until)
		t1 = until - 1;
	if (!have || t1 < t0)
		return 0;

	/* The kernel may only know that events were lost, not how many (count < 0). */
	/* --kernel-ring: the loss flagged at a CPU's first event is the ring
	 * overwriting older events by design, not a gap in the data */
	int64_t ring = 0;
	bool spans = db_has_table(db, "cpu_spans");
	bool skip_ring = db_meta_int(db, "kernel_ring", &ring) && ring == 1 &&
			 (spans || db_has_table(db, "events"));

	/* (the events view is named only when needed: a hand-made .db may lack it) */
	bool per_file = set_views(db);
	/* each CPU's first event: cpu_spans (every type), or in a .db without it the events */
	const char *filter = !skip_ring ? "" : spans ?
		"AND l.ts > (SELECT first_ts FROM cpu_spans e WHERE e.cpu = l.cpu)" :
		"AND l.ts > (SELECT min(ts) FROM events e WHERE e.cpu = l.cpu)";
	char *sql = sqlite3_mprintf(
		"SELECT cpu, ts, count, count(*) OVER (), "
		"       sum(CASE WHEN count > 0 THEN count ELSE 0 END) OVER (), "
		"       sum(count IS NULL OR count < 0) OVER () "
		"FROM lost_events l WHERE ts BETWEEN ?1 AND ?2 %s ORDER BY ts", filter);
	st = sql ? db_prepare(db, sql) : NULL;
	sqlite3_free(sql);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, t0);
	sqlite3_bind_int64(st, 2, t1);
	for (int i = 0; sqlite3_step(st) == SQLITE_ROW; i++, shown++) {
		if (i == 0) {
			int64_t unknown = sqlite3_column_int64(st, 5), extra = 0, resolved = 0;

			if (unknown && !per_file && !skip_ring)
				lost_by_counter(db, t0, t1, &extra, &resolved);
			int64_t known = sqlite3_column_int64(st, 4) + extra, left = unknown - resolved;
			const char *losses = left == 1 ? "loss" : "losses";

			if (!known && left > 0) { /* not "lost 0 events": how many is not known */
				fprintf(out, "%sthe capture lost events (%lld %s of unknown size)", gap ? "; " : "",
					(long long)left, losses);
			} else {
				fprintf(out, "%sthe capture lost %lld events", gap ? "; " : "", (long long)known);
				if (resolved)
					fprintf(out, " (%lld of them by the kernel's overrun counter: %lld "
						"%s did not say how many)", (long long)extra, (long long)resolved,
						resolved == 1 ? "page" : "pages");
				if (left > 0)
					fprintf(out, " (and %lld %s of unknown size)", (long long)left, losses);
			}
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
	sqlite3_finalize(st);
	return 0;
}

int lost_warn(sqlite3 *db, const char *range_sql, const struct slice *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int rc;

	if (!mem)
		return msg_error("out of memory");
	rc = lost_describe(db, range_sql, s->since_ns, s->until_ns, mem);
	if (fclose(mem) != 0)
		rc = msg_error("out of memory");
	if (!rc && len)
		msg_warn("%s", text);
	free(text);
	return rc;
}

