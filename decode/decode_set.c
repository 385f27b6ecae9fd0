// SPDX-License-Identifier: MIT
/*
 * decode_set.c - a ring or series (capture_set.h) decoded as one capture: the
 * files after the first are scanned into the same per-CPU index (each section
 * remembers its file), their readers kept open for the cursors, and what each
 * file held is counted as the events go out, for `ftana info`'s per-file lines.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "decode/capture_set.h"
#include "decode/decode_int.h"

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * Every member stays open while the capture is read (one fd each): a set larger than
 * the open-file limit would fail at some member, which must not pass for damage there.
 * The soft limit is raised to the hard one when that makes room; else one line says
 * what to raise. FD_MARGIN: the database, its journal, the prefetch threads, stdio.
 */
#define FD_MARGIN 64

static int fd_room(struct dec *d, const struct cset *cs)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    cs->n + FD_MARGIN <= rl.rlim_cur)
		return 0;
	if (rl.rlim_max == RLIM_INFINITY || cs->n + FD_MARGIN <= rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? cs->n + FD_MARGIN : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
			return 0;
	}
	return dec_fail(d, "%s: %zu files in this capture, more than the open-file limit "
			"allows (ulimit -n %llu; ftana keeps each open, and needs %d more): raise it",
			cs->paths[0], cs->n, (unsigned long long)rl.rlim_max, FD_MARGIN);
}

int decode_set_scan_rest(struct dec *d, const struct cset *cs)
{
	if (cs->n < 2 && !cs->ring)
		return 0;
	if (fd_room(d, cs) < 0)
		return -1;
	d->files_in = calloc(cs->n, sizeof(*d->files_in));
	/* after END's keys (later keys win): what is on disk now, also after a crash */
	d->set_keys = strdup(cs->keys);
	if (!d->files_in || !d->set_keys)
		return dec_fail(d, "%s: out of memory", cs->paths[0]);
	d->nr_files_in = cs->n;
	for (size_t i = 0; i < cs->n; i++) {
		d->files_in[i].name = strdup(base_name(cs->paths[i]));
		if (!d->files_in[i].name)
			return dec_fail(d, "%s: out of memory", cs->paths[i]);
	}
	d->files_in[0].r = d->r;
	/* Nothing after damage is trusted: a damaged file ends the capture there. */
	for (size_t i = 1; i < cs->n && !d->damaged; i++) {
		char why[200];
		struct ftz_reader *r = ftz_reader_open(cs->paths[i], why, sizeof(why));

		d->cur_file = (uint32_t)i;
		if (!r) {
			d->damaged = true;
			d->damage_offset = 0;
			snprintf(d->damage_reason, sizeof(d->damage_reason), "%.150s", why);
			break;
		}
		d->files_in[i].r = r;
		if (dec_scan(d, r) < 0)
			return -1;
		d->stats.file_size += ftz_reader_file_size(r);
		ftz_reader_trim(r);
		if (d->damaged) {
			char reason[sizeof(d->damage_reason)];

			snprintf(reason, sizeof(reason), "in %.60s: %.90s", d->files_in[i].name,
				 d->damage_reason);
			memcpy(d->damage_reason, reason, sizeof(reason));
		}
	}
	d->cur_file = 0;
	return 0;
}

struct ftz_reader *decode_set_reader(struct dec *d, uint32_t file)
{
	return d->files_in && file < d->nr_files_in ? d->files_in[file].r : d->r;
}

void decode_set_count(struct dec *d, uint32_t file, const struct dec_event *ev)
{
	struct dec_member *m = &d->files_in[file];

	if (!m->events || ev->ts < m->first_ts)
		m->first_ts = ev->ts;
	if (!m->events || ev->ts > m->last_ts)
		m->last_ts = ev->ts;
	m->events++;
	if (ev->missed) {
		m->lost_pages++;
		if (ev->missed > 0)
			m->lost_events += (uint64_t)ev->missed;
	}
}

const char *decode_set_end_text(struct dec *d)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return d->end ? d->end : "";
	fputs(d->end ? d->end : "", f);
	fputs(d->set_keys, f);
	/* file 0 of a ring is its head: it holds no pages */
	for (size_t i = 0; i < d->nr_files_in; i++) {
		const struct dec_member *m = &d->files_in[i];

		if (!m->r)
			break; /* not read: after damage */
		fprintf(f, "segment_stats_%zu=%s events %" PRIu64 " first_ts %" PRIu64 " last_ts %" PRIu64
			" lost_pages %" PRIu64 " lost_events %" PRIu64 "\n", i, m->name, m->events,
			m->first_ts, m->last_ts, m->lost_pages, m->lost_events);
	}
	if (fclose(f) != 0) {
		free(text);
		return d->end ? d->end : "";
	}
	free(d->end_set);
	d->end_set = text;
	return text;
}

void decode_set_free(struct dec *d)
{
	for (size_t i = 0; d->files_in && i < d->nr_files_in; i++) {
		if (i && d->files_in[i].r)
			ftz_reader_close(d->files_in[i].r);
		free(d->files_in[i].name);
	}
	free(d->files_in);
	free(d->end_set);
	free(d->set_keys);
	d->files_in = NULL;
}
