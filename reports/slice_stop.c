// SPDX-License-Identifier: MIT
/*
 * slice_stop.c - --before-stop SECS: the last SECS seconds before what stopped a
 * `ftrec --stop-if` recording (issue 24), up to and including the stop: the
 * synthetic event whose latency met the condition (the view capture_stop,
 * import/import_stop.c). It is a time window like --since/--until, which it
 * replaces: since_arg/until_arg then describe it for the code that asks whether
 * a window was given, and are never parsed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "reports/slice.h"

int slice_parse_before_stop(struct slice *s, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !isfinite(v) || v <= 0 || v > 1e6)
		return msg_error("--before-stop '%s': expected seconds, a number above 0", arg);
	s->before_stop_arg = arg;
	s->before_stop_ns = (int64_t)(v * 1e9);
	return 0;
}

int slice_stop_window(struct slice *s, sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int64_t stop = 0;
	bool found = false;

	if (sqlite3_prepare_v2(db, "SELECT ts FROM capture_stop WHERE ts IS NOT NULL", -1, &st,
			       NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
		stop = sqlite3_column_int64(st, 0);
		found = true;
	}
	sqlite3_finalize(st);
	if (!found)
		return msg_error("--before-stop: this capture was not stopped by ftrec --stop-if "
				 "(no stop in it: see 'ftana info')");
	s->until_ns = stop < INT64_MAX ? stop + 1 : stop;
	s->since_ns = stop > INT64_MIN + s->before_stop_ns ? stop - s->before_stop_ns : INT64_MIN;
	snprintf(s->before_stop_since, sizeof(s->before_stop_since), "%.6f",
		 (double)s->since_ns / 1e9);
	snprintf(s->before_stop_until, sizeof(s->before_stop_until), "%.6f (the stop)",
		 (double)stop / 1e9);
	s->since_arg = s->before_stop_since;
	s->until_arg = s->before_stop_until;
	return 0;
}
