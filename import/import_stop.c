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
 * difference, never a stop (STOPIF_MAX_NS there). Made again whenever the events
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

/* The created table of SYSTEM:NAME SPEC, with the columns of its fields lat and pid. */
static const struct etable *stop_table(struct importer *im, const char *spec,
				       const char **lat, const char **pid)
{
	for (int i = 0; i < im->nr_tables; i++) {
		const struct etable *t = &im->tables[i];
		struct tep_format_field **f;
		size_t sys_len;

		if (!t->created || !t->event->system || !t->event->name)
			continue;
		sys_len = strlen(t->event->system);
		if (strncmp(spec, t->event->system, sys_len) || spec[sys_len] != ':' ||
		    strcmp(spec + sys_len + 1, t->event->name))
			continue;
		f = tep_event_fields(t->event);
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
	return NULL;
}

int stop_view(struct importer *im)
{
	const char *info = dec_info_text(im->dec);
	const struct etable *t = NULL;
	const char *lat = NULL, *pid = NULL;
	char spec[256], cond[512];
	char *sql;
	int rc;

	if (info && ftz_kv_get(info, strlen(info), "stop_if", cond, sizeof(cond)) > 0 &&
	    ftz_kv_get(info, strlen(info), "trigger_event", spec, sizeof(spec)) > 0)
		t = stop_table(im, spec, &lat, &pid);
	if (t)
		sql = sqlite3_mprintf(
			"DROP VIEW IF EXISTS capture_stop; CREATE VIEW capture_stop AS "
			"WITH m AS (SELECT (SELECT value FROM meta WHERE key = 'stop_if') AS cond, "
			"(SELECT value FROM meta WHERE key = 'stop_kind') AS kind, "
			"(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'stop_threshold_ns') AS thr) "
			"SELECT m.cond AS condition, m.kind AS kind, m.thr AS threshold_ns, s.ts AS ts, "
			"s.\"%w\" AS lat_ns, CASE WHEN m.kind = 'io' THEN NULL ELSE s.\"%w\" END AS tid, "
			"CASE WHEN m.kind = 'io' THEN NULL ELSE "
			"(SELECT comm FROM tasks WHERE tasks.pid = s.\"%w\") END AS comm "
			"FROM \"%w\" s, m WHERE s.\"%w\" > m.thr AND s.\"%w\" < " STOP_MAX_NS " "
			"ORDER BY s.ts LIMIT 1", lat, pid, pid, t->name, lat, lat);
	else
		sql = sqlite3_mprintf(
			"DROP VIEW IF EXISTS capture_stop; CREATE VIEW capture_stop AS "
			"SELECT NULL AS condition, NULL AS kind, NULL AS threshold_ns, NULL AS ts, "
			"NULL AS lat_ns, NULL AS tid, NULL AS comm WHERE 0");
	if (!sql)
		return -ENOMEM;
	rc = im_exec(im, sql);
	sqlite3_free(sql);
	return rc;
}
