// SPDX-License-Identifier: MIT
/*
 * import_stop.c - the view capture_stop: what stopped a `ftrec --stop-if` recording
 * (issue 24), one row, or none when the condition never held.
 *
 * ftrec's INFO names the condition (stop_if, stop_kind, stop_threshold_ns: in meta)
 * and its synthetic event (trigger_event "synthetic:ftrec_stop_<pid>", fields lat and
 * pid), whose name differs per recording, so the view is made here, where the
 * event's table and column names are known. The stop is the first event over the
 * threshold: the kernel's traceoff trigger fires once, on it (record/stopif.c), and
 * it is in the capture. A latency of a day or more is the u64 of a negative
 * difference, never a stop (STOPIF_MAX_NS there). An io stop's task is the request's
 * issuer, found when the block events are imported (ftana info imports them). Made again whenever the events
 * view is: a report that imported other types only gets the empty view, and the
 * import that adds the synthetic event's rows makes the full one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/ftz.h"
#include "import/import_int.h"

#define STOP_MAX_NS "86400000000000"

/* The created table of SYSTEM:NAME SPEC, or NULL. */
static const struct etable *table_of(struct importer *im, const char *spec)
{
	for (int i = 0; i < im->nr_tables; i++) {
		const struct etable *t = &im->tables[i];
		size_t sys_len;

		if (!t->created || !t->event->system || !t->event->name)
			continue;
		sys_len = strlen(t->event->system);
		if (!strncmp(spec, t->event->system, sys_len) && spec[sys_len] == ':' &&
		    !strcmp(spec + sys_len + 1, t->event->name))
			return t;
	}
	return NULL;
}

/* The created table of SYSTEM:NAME SPEC, with the columns of its fields lat and pid. */
static const struct etable *stop_table(struct importer *im, const char *spec,
				       const char **lat, const char **pid)
{
	const struct etable *t = table_of(im, spec);
	struct tep_format_field **f = t ? tep_event_fields(t->event) : NULL;

	*lat = *pid = NULL;
	for (int k = 0; f && f[k] && k < t->nr_cols; k++) {
		if (!strcmp(f[k]->name, "lat"))
			*lat = t->col_names[k];
		else if (!strcmp(f[k]->name, "pid"))
			*pid = t->col_names[k];
	}
	free(f);
	return *lat && *pid ? t : NULL;
}

/*
 * io's task: the request's issuer, the block_rq_issue at the completion's time less
 * the latency (the hist trigger subtracted the two events' own timestamps), the
 * completion being the last one on the synthetic event's CPU before it. Either table
 * not imported: NULL.
 */
static char *io_issuer(struct importer *im, const char *lat)
{
	const struct etable *issue = table_of(im, "block:block_rq_issue");
	const struct etable *done = table_of(im, "block:block_rq_complete");

	if (!issue || !done)
		return sqlite3_mprintf("NULL");
	return sqlite3_mprintf("(SELECT i.pid FROM \"%w\" i WHERE i.ts = (SELECT c.ts FROM \"%w\" c "
			       "WHERE c.cpu = s.cpu AND c.ts <= s.ts ORDER BY c.ts DESC LIMIT 1) - "
			       "s.\"%w\" LIMIT 1)", issue->name, done->name, lat);
}

int stop_view(struct importer *im)
{
	const char *info = dec_info_text(im->dec);
	const struct etable *t = NULL;
	const char *lat = NULL, *pid = NULL;
	char spec[256], cond[512];
	char *sql, *issuer = NULL;
	int rc;

	if (info && ftz_kv_get(info, strlen(info), "stop_if", cond, sizeof(cond)) > 0 &&
	    ftz_kv_get(info, strlen(info), "trigger_event", spec, sizeof(spec)) > 0)
		t = stop_table(im, spec, &lat, &pid);
	if (t && !(issuer = io_issuer(im, lat)))
		return -ENOMEM;
	if (t)
		sql = sqlite3_mprintf(
			"DROP VIEW IF EXISTS capture_stop; CREATE VIEW capture_stop AS "
			"WITH m AS (SELECT (SELECT value FROM meta WHERE key = 'stop_if') AS cond, "
			"(SELECT value FROM meta WHERE key = 'stop_kind') AS kind, "
			"(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'stop_threshold_ns') AS thr), "
			"r AS (SELECT m.cond AS condition, m.kind AS kind, m.thr AS threshold_ns, s.ts AS ts, "
			"s.\"%w\" AS lat_ns, CASE WHEN m.kind = 'io' THEN %s ELSE s.\"%w\" END AS tid "
			"FROM \"%w\" s, m WHERE s.\"%w\" > m.thr AND s.\"%w\" < " STOP_MAX_NS " "
			"ORDER BY s.ts LIMIT 1) "
			"SELECT r.*, (SELECT comm FROM tasks WHERE tasks.pid = r.tid) AS comm FROM r",
			lat, issuer, pid, t->name, lat, lat);
	else
		sql = sqlite3_mprintf(
			"DROP VIEW IF EXISTS capture_stop; CREATE VIEW capture_stop AS "
			"SELECT NULL AS condition, NULL AS kind, NULL AS threshold_ns, NULL AS ts, "
			"NULL AS lat_ns, NULL AS tid, NULL AS comm WHERE 0");
	sqlite3_free(issuer);
	if (!sql)
		return -ENOMEM;
	rc = im_exec(im, sql);
	sqlite3_free(sql);
	return rc;
}
