// SPDX-License-Identifier: MIT
/*
 * decode.c - index a .ftz's PAGES sections per CPU, then merge the CPUs' events
 * in time order. Pages are walked by libtraceevent's kbuffer (time extends,
 * absolute timestamps, padding, missed-events flags); see decode.h for the API.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "decode/capture_set.h"
#include "decode/decode_int.h"

#define RB_MISSED_EVENTS (1ull << 31) /* events were lost before this page */
#define RB_MISSED_STORED (1ull << 30) /* ... and their count follows the data */

static void set_damage(struct dec *d, uint64_t offset, const char *reason)
{
	if (d->damaged)
		return;
	d->damaged = true;
	d->damage_offset = offset;
	snprintf(d->damage_reason, sizeof(d->damage_reason), "%.150s", reason ? reason : "damaged");
}

static int add_section(struct dec *d, const struct ftz_section *sec, const struct ftz_pages *p)
{
	struct cursor *c;

	if (p->cpu >= d->cap_cpus) { /* doubling: CPUs may come one by one, 65536 of them */
		size_t cap = p->cpu + 1 > 2 * d->cap_cpus ? p->cpu + 1 : 2 * d->cap_cpus;
		struct cursor *n = realloc(d->cpus, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		memset(n + d->cap_cpus, 0, (cap - d->cap_cpus) * sizeof(*n));
		d->cpus = n;
		d->cap_cpus = cap;
	}
	if (p->cpu >= d->stats.nr_cpus)
		d->stats.nr_cpus = p->cpu + 1;
	c = &d->cpus[p->cpu];
	if (c->nr_secs == c->cap_secs) {
		size_t cap = c->cap_secs ? 2 * c->cap_secs : 16;
		struct sec_ref *n = realloc(c->secs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->secs = n;
		c->cap_secs = cap;
	}
	c->secs[c->nr_secs++] = (struct sec_ref){ sec->offset, p->nr_pages, (uint32_t)sec->raw_len,
						  d->cur_file };
	d->stats.nr_sections++;
	d->stats.nr_pages += p->nr_pages;
	d->stats.raw_bytes += sec->raw_len;
	d->stats.stored_bytes += sec->stored_len;
	if (!d->stats.page_size)
		d->stats.page_size = p->page_size;
	return 0;
}

/* INFO/END text as a C string. It may hold NUL bytes: the text ends at the first,
 * for ftz_kv_get as for every reader of dec_info_text. */
static char *copy_text(const struct ftz_section *sec)
{
	char *t = malloc(sec->len + 1);

	if (t) {
		memcpy(t, sec->data, sec->len);
		t[sec->len] = '\0';
	}
	return t;
}

/* The first INFO only (FORMAT.md 6.2): a later one cannot change how the pages
 * already indexed are read. long_size 8 and little-endian when the keys are absent. */
static void take_info(struct dec *d, const struct ftz_section *sec)
{
	char v[32];

	d->info = copy_text(sec);
	if (!d->info)
		return;
	if (ftz_kv_get(d->info, sec->len, "long_size", v, sizeof(v)) >= 0)
		d->long_size = strcmp(v, "4") == 0 ? 4 : strcmp(v, "8") == 0 ? 8 : -1;
	if (ftz_kv_get(d->info, sec->len, "endian", v, sizeof(v)) >= 0) {
		d->big_endian = !strcmp(v, "big");
		d->bad_endian = !d->big_endian && strcmp(v, "little");
	}
	if (ftz_kv_get(d->info, sec->len, "nr_cpus", v, sizeof(v)) > 0) {
		long n = atol(v);

		if (n > 0 && n <= DEC_MAX_CPUS && !d->cpus) {
			d->cpus = calloc(n, sizeof(*d->cpus));
			d->stats.nr_cpus = d->cap_cpus = d->cpus ? n : 0;
		}
	}
}

#define PAGES_LENGTH_BAD "invalid PAGES payload (length is not 16 + nr_pages * page_size)"

/* A PAGES section whose fixed header the reader could not take from the frame's first
 * block (another writer's frame, or damage): read whole. NULL, or why it is damaged. */
static const char *pages_whole(struct ftz_reader *r, uint64_t offset, struct ftz_pages *p)
{
	struct ftz_section sec;
	uint8_t *buf = NULL;
	size_t cap = 0;
	const char *why = NULL;
	int rc = ftz_reader_read_at(r, offset, &sec, &buf, &cap, &why);

	if (rc != FTZ_READ_OK)
		why = why ? why : "cannot read PAGES section";
	else if (ftz_parse_pages(&sec, p) < 0)
		why = PAGES_LENGTH_BAD;
	p->pages = NULL; /* only its cpu, page size and count are kept */
	free(buf);
	return why;
}

/*
 * One pass over the file: metadata kept, PAGES indexed per CPU. A PAGES payload is
 * not decompressed here, only checked (checksum, one zstd frame of its declared
 * size) and its fixed header read (the frame's first block: ftrec ends it there):
 * a bad frame must stop the file at its offset before any event is merged, or
 * events of later sections of other CPUs would already be out (FORMAT.md 6).
 */
int dec_scan(struct dec *d, struct ftz_reader *r)
{
	struct ftz_section sec;
	int rc;

	/* one budget for the whole capture set: a ring of many small files, each within
	 * a limit of its own, must not add up to gigabytes of decompression */
	d->scan_file_bytes += ftz_reader_file_size(r);
	while ((rc = ftz_reader_next(r, &sec, false)) == FTZ_READ_OK) {
		struct ftz_pages p;
		struct ftz_file f;
		struct ftz_snapshot snap;
		d->scan_raw_bytes += sec.raw_len;
		if (dec_over_budget(d)) {
			set_damage(d, sec.offset, "sections expand to over "
				   DEC_STR(DEC_MAX_EXPANSION) " times the capture's size");
			return 0;
		}

		if (!d->info && (sec.type != FTZ_SEC_INFO || !sec.data))
			return dec_fail(d, "%s: the first section is not INFO: not a recording",
					d->path);
		if (sec.type == FTZ_SEC_PAGES && (sec.flags & ~FTZ_FLAG_ZSTD) == 0) {
			const char *why = sec.head_len ? NULL : pages_whole(r, sec.offset, &p);

			if (why || (sec.head_len && ftz_parse_pages_head(&sec, &p) < 0)) {
				set_damage(d, sec.offset, why ? why : PAGES_LENGTH_BAD);
				return 0;
			}
			if (p.cpu >= DEC_MAX_CPUS || p.page_size < 16) {
				set_damage(d, sec.offset, "PAGES section with an impossible cpu or page size");
				return 0;
			}
			if (add_section(d, &sec, &p) < 0)
				goto nomem;
			continue;
		}
		if (!sec.data)
			continue; /* unknown type or flags */
		switch (sec.type) {
		case FTZ_SEC_INFO:
			if (!d->info)
				take_info(d, &sec);
			if (!d->info)
				goto nomem;
			break;
		case FTZ_SEC_END:
			free(d->end);
			d->end = copy_text(&sec);
			d->stats.end_seen = true;
			if (!d->end)
				goto nomem;
			break;
		case FTZ_SEC_FILE:
			if (ftz_parse_file(&sec, &f) < 0) {
				set_damage(d, sec.offset, "invalid FILE payload (name length runs past it, or a NUL in the name)");
				return 0;
			}
			if (d->cur_file && f.phase == FTZ_PHASE_START)
				break; /* a series' later files repeat the first one's START files */
			rc = dmeta_add_file(d, &f);
			if (rc == -E2BIG) {
				set_damage(d, sec.offset, "FILE sections over "
					   DEC_STR(DEC_MAX_FILE_MIB) " MiB in total");
				return 0;
			}
			if (rc < 0)
				goto nomem;
			break;
		case FTZ_SEC_SNAPSHOT:
			if (ftz_parse_snapshot(&sec, &snap) < 0) {
				set_damage(d, sec.offset, "invalid SNAPSHOT payload (name length runs past it, or a NUL in the name)");
				return 0;
			}
			if (dmeta_add_snapshot(d, sec.offset) < 0)
				goto nomem;
			break;
		}
	}
	if (rc == FTZ_READ_DAMAGE) {
		const char *why = NULL;
		uint64_t off = ftz_reader_damage(r, &why);

		set_damage(d, off, why);
	}
	return 0;
nomem:
	return dec_fail(d, "%s: out of memory", d->path);
}

int dec_fail(struct dec *d, const char *fmt, ...)
{
	va_list ap;

	if (d->damaged)
		return -1;
	va_start(ap, fmt);
	msg_verror(fmt, ap);
	va_end(ap);
	return -1;
}

/* Every event handed out until dec_select says otherwise; the stack type known. 0 or -1. */
static int select_init(struct dec *d)
{
	struct tep_event *ks = tep_find_event_by_name(d->tep, "ftrace", "kernel_stack");

	struct tep_event **all = tep_list_events(d->tep, TEP_EVENT_SORT_ID);

	d->stack_type = ks ? ks->id : -1;
	/* each type's event by its id: one load per event, not tep_find_event's search */
	d->event_of = calloc(65536, sizeof(*d->event_of));
	for (int i = 0; all && d->event_of && all[i]; i++)
		if (all[i]->id >= 0 && all[i]->id < 65536 && !d->event_of[all[i]->id])
			d->event_of[all[i]->id] = tep_find_event(d->tep, all[i]->id);
	d->cpu_skipped = calloc(d->stats.nr_cpus + 1, 1);
	d->cpu_last_seq = calloc(d->stats.nr_cpus + 1, sizeof(*d->cpu_last_seq));
	d->type_counts = calloc(65536, sizeof(*d->type_counts));
	d->cpu_spans = calloc(d->stats.nr_cpus + 1, sizeof(*d->cpu_spans));
	return d->cpu_skipped && d->cpu_last_seq && d->type_counts && d->cpu_spans && d->event_of ?
	       0 : -1;
}

struct dec *dec_open(const char *path)
{
	return dec_open_set(&path, 1);
}

struct dec *dec_open_set(const char *const *paths, size_t n)
{
	struct dec *d = calloc(1, sizeof(*d));
	struct ftz_reader *r;
	struct cset cs;
	char err[512];
	const char *path;
	int rc;

	if (cset_open(paths, n, &cs) < 0) {
		free(d);
		errno = EINVAL;
		return NULL;
	}
	if (d)
		d->path = strdup(cs.paths[0]);
	if (!d || !d->path) {
		msg_error("%s: out of memory", cs.paths[0]);
		cset_free(&cs);
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	path = d->path; /* lives until dec_close, unlike cs */
	d->long_size = 8;
	rc = dat_open(d);
	if (rc <= 0) { /* a trace.dat: opened by libtracecmd, or failed */
		int e = errno;

		cset_free(&cs);
		if (rc == 0 && select_init(d) == 0)
			return d;
		if (rc == 0)
			msg_error("%s: out of memory", path);
		dec_close(d);
		errno = e;
		return NULL;
	}
	/* One reader for the whole life of d: the scan, then every CPU's cursor and
	 * the snapshots, so file descriptors do not grow with the number of CPUs. */
	r = d->r = ftz_reader_open(path, err, sizeof(err)); /* format/: libftz's own errbuf */
	if (!r) {
		msg_error("%s", err);
		cset_free(&cs);
		dec_close(d);
		errno = EINVAL;
		return NULL;
	}
	if (dec_scan(d, r) < 0)
		goto fail;
	d->stats.file_size = ftz_reader_file_size(r);
	ftz_reader_trim(r); /* the scan's largest payload (kallsyms) is copied already */
	if (decode_set_scan_rest(d, &cs) < 0) /* a ring's segments, a series' files */
		goto fail;
	if (!d->info && !d->damaged) {
		dec_fail(d, "%s: no INFO section: not a recording", path);
		goto fail;
	}
	if (d->long_size != 4 && d->long_size != 8) {
		dec_fail(d, "%s: INFO long_size is not 4 or 8", path);
		goto fail;
	}
	if (d->bad_endian) {
		dec_fail(d, "%s: INFO endian is not little or big", path);
		goto fail;
	}
	if (!d->stats.page_size)
		d->stats.page_size = 4096;
	if (dmeta_load_tep(d) < 0)
		goto fail;
	d->heap = calloc(d->stats.nr_cpus + 1, sizeof(*d->heap));
	if (!d->heap || select_init(d) < 0) {
		dec_fail(d, "%s: out of memory", path);
		goto fail;
	}
	cset_free(&cs);
	return d;
fail:
	if (d->damaged) {
		/* say why the metadata is missing: the file is cut or corrupt before it
		 * (the error found meanwhile was not said: dec_fail) */
		msg_error("%s: damaged at offset %llu (%s) before its metadata was complete",
			  path, (unsigned long long)d->damage_offset, d->damage_reason);
		cset_free(&cs);
		dec_close(d);
		errno = EBADMSG;
		return NULL;
	}
	cset_free(&cs);
	dec_close(d);
	errno = EINVAL;
	return NULL;
}

void dec_single_thread(struct dec *d)
{
	d->single_thread = true;
	prefetch_stop(d);
}

void dec_close(struct dec *d)
{
	if (!d)
		return;
	prefetch_stop(d);
	dat_close(d);
	for (unsigned i = 0; d->cpus && i < d->stats.nr_cpus; i++) {
		struct cursor *c = &d->cpus[i];

		free(c->batch);
		if (c->kbuf)
			kbuffer_free(c->kbuf);
		free(c->secs);
	}
	free(d->cpus);
	free(d->heap);
	free(d->cpu_skipped);
	free(d->cpu_last_seq);
	free(d->type_counts);
	free(d->cpu_spans);
	free(d->event_of);
	ftz_reader_close(d->r);
	decode_set_free(d);
	dmeta_free(d);
	free(d->info);
	free(d->end);
	free(d->path);
	free(d);
}

static void cursor_free_batch(struct dec *d, struct cursor *c)
{
	d->batch_bytes -= c->batch_cap;
	free(c->batch);
	c->batch = NULL;
	c->batch_cap = 0;
	c->pages = NULL;
	c->nr_pages = 0;
}

/* Next batch of cursor c into its buffer; false at its end or on damage. At its
 * end the buffer is freed: a CPU that is done holds no memory. */
static bool cursor_next_batch(struct dec *d, struct cursor *c)
{
	const struct sec_ref *ref;
	struct ftz_section sec = { 0 };
	struct ftz_pages p;
	const char *why = NULL;
	size_t cap_before = c->batch_cap;
	int rc;

	rc = prefetch_next(d, c, &ref, &sec, &why);
	if (rc == 0) {
		cursor_free_batch(d, c);
		return false;
	}
	c->sec_offset = ref->offset;
	if (rc != PREFETCH_READ_IT) {
		/* read ahead (or failed) by the prefetch thread */
	} else if ((uint64_t)ref->raw_len + 1 > c->batch_cap &&
	    d->batch_bytes - c->batch_cap + ref->raw_len + 1 > DEC_MAX_BATCH_BYTES) {
		cursor_free_batch(d, c);
		rc = FTZ_READ_DAMAGE;
		why = "PAGES batches held at once for all CPUs over " DEC_STR(DEC_MAX_BATCH_MIB) " MiB";
	} else {
		rc = ftz_reader_read_at(decode_set_reader(d, ref->file), c->sec_offset, &sec, &c->batch, &c->batch_cap, &why);
		d->batch_bytes += c->batch_cap - cap_before;
	}
	if (rc != FTZ_READ_OK || !sec.data || ftz_parse_pages(&sec, &p) < 0) {
		if (rc == FTZ_READ_OK || !why)
			why = "cannot read PAGES section";
		set_damage(d, c->sec_offset, why);
		/* nothing at or after the damage is trusted, on any CPU (FORMAT.md 6) */
		prefetch_cut(d, ref);
		c->next_sec = c->nr_secs;
		return false;
	}
	c->pages = p.pages;
	c->nr_pages = p.nr_pages;
	c->page_size = p.page_size;
	c->page = 0;
	return true;
}

/*
 * Events lost before this page: 0 none, -1 lost but not counted, else the count
 * the kernel stored after the page's data, read at its real width (an unsigned
 * long: 8 bytes on a 64-bit kernel). libtraceevent's kbuffer_missed_events()
 * returns an int, which cut 5,000,000,007 to 705,032,711. A count that does not
 * fit in the page, or above INT64_MAX, is a loss of unknown size.
 */
static int64_t page_missed_events(const struct dec *d, const uint8_t *page, uint32_t ps)
{
	uint64_t commit = dec_load_uint(page + 8, d->long_size, d->big_endian);
	uint64_t size = commit & FTZ_RB_COMMIT_MASK, at = 8 + d->long_size + size;

	if (!(commit & RB_MISSED_EVENTS))
		return 0;
	if (!(commit & RB_MISSED_STORED) || at + d->long_size > ps)
		return -1;
	uint64_t count = dec_load_uint(page + at, d->long_size, d->big_endian);

	return count > INT64_MAX ? -1 : (int64_t)count;
}

/*
 * The records of a sub-buffer, walked as libtraceevent's kbuffer walks them
 * (kbuffer-parse.c, translate_data: the same arithmetic, in one inlined loop
 * rather than two indirect calls per record): type_len 29 is padding, 30 a time
 * extend, 31 an absolute time stamp (its top 5 bits kept from the running time),
 * 0 a record with a length word, 1-28 a record of 4 x type_len bytes. The page's
 * records were checked to lie inside it (ftz_page_records_ok), which kbuffer
 * relies on too.
 */
#define TS_SHIFT 27
#define TS_MSB (0xf8ull << 56)

static uint32_t walk_u32(const struct dec *d, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return d->swap ? __builtin_bswap32(v) : v;
}

/* The event at or after w->next, or NULL at the end of the page; c->ts follows it. */
static inline void *walk_event(struct dec *d, struct cursor *c)
{
	struct walk *w = &c->walk;

	while (w->next < w->size) {
		uint32_t word = walk_u32(d, w->data + w->next);
		uint32_t type_len = d->big_endian ? word >> 27 : word & 31;
		uint64_t delta = d->big_endian ? word & ((1u << 27) - 1) : word >> 5;

		w->cur = w->next;
		switch (type_len) {
		case 29: /* padding */
			c->ts += delta;
			w->next = w->cur + 4 + walk_u32(d, w->data + w->cur + 4);
			continue;
		case 30: /* time extend */
		case 31: /* absolute time stamp */
			delta += (uint64_t)walk_u32(d, w->data + w->cur + 4) << TS_SHIFT;
			c->ts = type_len == 31 ? delta | (c->ts & TS_MSB) : c->ts + delta;
			w->next = w->cur + 8;
			continue;
		case 0:
			w->index = w->cur + 8;
			w->next = w->index + ((walk_u32(d, w->data + w->cur + 4) - 4 + 3) & ~3u);
			break;
		default:
			w->index = w->cur + 4;
			w->next = w->index + 4 * type_len;
			break;
		}
		c->ts += delta;
		return (void *)(w->data + w->index);
	}
	return NULL;
}

/* Load pages until one yields an event. The commit field and the records are
 * checked first because the walk (and kbuffer) trust them. */
static bool cursor_next_page(struct dec *d, struct cursor *c)
{
	unsigned hdr = 8 + d->long_size;

	for (;;) {
		uint8_t *page;
		uint32_t ps;
		int64_t missed;

		while (c->page >= c->nr_pages)
			if (!cursor_next_batch(d, c))
				return false;
		ps = c->page_size;
		page = (uint8_t *)c->pages + (size_t)c->page++ * ps;
		d->pages_done++;
		uint64_t size = ps < hdr ? 0 :
				dec_load_uint(page + 8, d->long_size, d->big_endian) & FTZ_RB_COMMIT_MASK;

		if (ps < hdr || size > ps - hdr ||
		    (!c->kbuf && !ftz_page_records_ok(page + hdr, size, d->big_endian)) ||
		    (c->kbuf && kbuffer_load_subbuffer(c->kbuf, page) < 0)) {
			d->stats.bad_pages++;
			continue;
		}
		missed = page_missed_events(d, page, ps);
		if (missed && c->missed >= 0)
			c->missed = missed < 0 ? -1 : missed > INT64_MAX - c->missed ? INT64_MAX :
				    c->missed + missed;
		if (c->kbuf) {
			c->ev = kbuffer_read_event(c->kbuf, &c->ts);
		} else {
			c->walk = (struct walk){ .data = page + hdr, .size = (uint32_t)size };
			c->ts = dec_load_uint(page, 8, d->big_endian);
			c->ev = walk_event(d, c);
		}
		if (c->ev)
			return true;
	}
}

/* Is c->ev whole inside its page? If not, the page is abandoned (a bad page). */
static inline bool cursor_check(struct dec *d, struct cursor *c)
{
	int size = c->kbuf ? kbuffer_event_size(c->kbuf) : (int)(c->walk.next - c->walk.index);
	const uint8_t *page = c->pages + (size_t)(c->page - 1) * c->page_size;

	if (size < 2 || (uint8_t *)c->ev + size > page + c->page_size) {
		d->stats.bad_pages++;
		return false;
	}
	return true;
}

/* c->rec for c->ev, which is handed out (checked by cursor_check). */
static void cursor_fill(struct cursor *c)
{
	c->rec.ts = c->ts;
	c->rec.cpu = c->cpu;
	c->rec.data = c->ev;
	c->rec.size = c->kbuf ? kbuffer_event_size(c->kbuf) : (int)(c->walk.next - c->walk.index);
	c->rec.record_size = c->kbuf ? kbuffer_curr_size(c->kbuf) : (int)(c->walk.next - c->walk.cur);
	c->rec.offset = c->sec_offset;
	c->rec.missed_events = c->missed > INT_MAX ? INT_MAX : (int)c->missed; /* libtraceevent: int */
}

/* Advance cursor c to its next event; false when it has none left. */
static inline bool cursor_advance(struct dec *d, struct cursor *c, bool first)
{
	if (!first) {
		c->missed = 0;
		c->ev = c->kbuf ? kbuffer_next_event(c->kbuf, &c->ts) : walk_event(d, c);
	}
	for (;;) {
		if (!c->ev && !cursor_next_page(d, c))
			return false;
		if (cursor_check(d, c))
			return true;
		c->ev = NULL;
	}
}

static inline bool before(const struct dec *d, int a, int b)
{
	const struct cursor *x = &d->cpus[a], *y = &d->cpus[b];

	return x->ts < y->ts || (x->ts == y->ts && a < b);
}

static void sift_down(struct dec *d, int i)
{
	for (;;) {
		int l = 2 * i + 1, m = i;

		if (l < d->heap_len && before(d, d->heap[l], d->heap[m]))
			m = l;
		if (l + 1 < d->heap_len && before(d, d->heap[l + 1], d->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		int t = d->heap[i];

		d->heap[i] = d->heap[m];
		d->heap[m] = t;
		i = m;
	}
}

static int start(struct dec *d)
{
	const uint16_t one = 1;

	d->started = true;
	d->swap = (*(const uint8_t *)&one == 1) == d->big_endian;
	for (unsigned i = 0; i < d->stats.nr_cpus; i++) {
		struct cursor *c = &d->cpus[i];

		c->cpu = i;
		if (!c->nr_secs)
			continue;
		/* the first ring buffer's format (2.6.30 and before): kbuffer's old walk */
		if (tep_is_old_format(d->tep)) {
			c->kbuf = kbuffer_alloc(d->long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
						d->big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
			if (!c->kbuf)
				return -ENOMEM;
			kbuffer_set_old_format(c->kbuf);
		}
		if (cursor_advance(d, c, true))
			d->heap[d->heap_len++] = i;
	}
	for (int i = d->heap_len / 2 - 1; i >= 0; i--)
		sift_down(d, i);
	if (!d->single_thread)
		prefetch_start(d);
	return 0;
}

/* Move the merge on from the event at its top; false when no event is left. */
static inline bool merge_advance(struct dec *d)
{
	struct cursor *c = &d->cpus[d->heap[0]];

	if (!cursor_advance(d, c, false))
		d->heap[0] = d->heap[--d->heap_len];
	else if (d->heap_len == 1 || (before(d, d->heap[0], d->heap[1]) &&
				      (d->heap_len == 2 || before(d, d->heap[0], d->heap[2]))))
		return true; /* still the first: most events, as a CPU's run is long */
	sift_down(d, 0);
	return d->heap_len > 0;
}

/* A type id's counts; true when the event is handed out. */
static inline bool dec_account(struct dec *d, unsigned cpu, uint64_t ts, int type_id, int64_t missed)
{
	bool known = type_id >= 0 && type_id < 65536;
	bool counted = known && d->count && DEC_TYPE_HAS(d->count, type_id);
	bool out = !d->deliver || (known && DEC_TYPE_HAS(d->deliver, type_id)) || missed ||
		   type_id == d->stack_type;

	if (known)
		d->type_counts[type_id]++;
	d->out_prev_seq = d->cpu_last_seq[cpu];
	d->out_prev_skipped = d->cpu_skipped[cpu];
	if (counted) {
		struct cpu_span *cs = &d->cpu_spans[cpu];

		if (!cs->events++)
			cs->first_ts = ts;
		cs->last_ts = ts;
		if (!d->seq++)
			d->first_ts = ts;
		d->cpu_last_seq[cpu] = d->seq;
		d->cpu_skipped[cpu] = !out;
	}
	d->last_ts = ts;
	return out;
}

/* The merge's next event that is handed out; the others are counted on the way
 * (dec_select), at the cost of a page walk: no record, no heap move while one
 * CPU's run lasts (issue 23: 3 k I/Os asked among 20 M syscalls). */
static int merge_next(struct dec *d, struct dec_event *ev)
{
	if (!d->started) {
		if (start(d) < 0)
			return 0;
	} else if (d->heap_len) {
		merge_advance(d); /* the event handed out last time */
	}
	while (d->heap_len) {
		struct cursor *c = &d->cpus[d->heap[0]];
		const uint8_t *e = c->ev;
		int type_id = (int)(d->big_endian ? (unsigned)e[0] << 8 | e[1] : (unsigned)e[1] << 8 | e[0]);

		if (d->files_in) {
			ev->ts = c->ts;
			ev->missed = c->missed;
			decode_set_count(d, c->secs[c->next_sec - 1].file, ev);
		}
		if (dec_account(d, (unsigned)c->cpu, c->ts, type_id, c->missed)) {
			cursor_fill(c);
			ev->record = &c->rec;
			ev->cpu = c->cpu;
			ev->ts = c->ts;
			ev->missed = c->missed;
			ev->section_offset = c->sec_offset;
			ev->type_id = type_id;
			return 1;
		}
		merge_advance(d);
	}
	return 0;
}

void dec_select(struct dec *d, const uint64_t *deliver, const uint64_t *count)
{
	d->deliver = deliver;
	d->count = count;
}

const uint64_t *dec_type_counts(const struct dec *d)
{
	return d->type_counts;
}

uint64_t dec_span(const struct dec *d, uint64_t *first_ts, uint64_t *last_ts)
{
	*first_ts = d->first_ts;
	*last_ts = d->last_ts;
	return d->seq;
}

uint64_t dec_cpu_span(const struct dec *d, unsigned cpu, uint64_t *first_ts, uint64_t *last_ts)
{
	const struct cpu_span *cs = cpu < d->stats.nr_cpus ? &d->cpu_spans[cpu] : NULL;

	*first_ts = cs ? cs->first_ts : 0;
	*last_ts = cs ? cs->last_ts : 0;
	return cs ? cs->events : 0;
}

int dec_next(struct dec *d, struct dec_event *ev)
{
	int rc;

	if (!d->dat)
		rc = merge_next(d, ev);
	else /* a trace.dat: libtracecmd's merge, every event */
		while ((rc = dat_next(d, ev)) > 0 && !dec_account(d, (unsigned)ev->cpu, ev->ts, ev->type_id, ev->missed))
			;
	if (rc <= 0)
		return rc;
	ev->cpu_prev_seq = d->out_prev_seq;
	ev->prev_skipped = d->out_prev_skipped;
	ev->seq = d->seq;
	ev->event = ev->type_id >= 0 && ev->type_id < 65536 ? d->event_of[ev->type_id] : NULL;
	return 1;
}

uint64_t dec_pages_done(const struct dec *d)
{
	return d->pages_done;
}

bool dec_damage(const struct dec *d, uint64_t *offset, const char **reason)
{
	if (d->damaged) {
		if (offset)
			*offset = d->damage_offset;
		if (reason)
			*reason = d->damage_reason;
	}
	return d->damaged;
}

struct tep_handle *dec_tep(const struct dec *d)
{
	return d->tep;
}

const struct dec_stats *dec_stats(const struct dec *d)
{
	return &d->stats;
}

int dec_long_size(const struct dec *d)
{
	return d->long_size;
}

const char *dec_info_text(const struct dec *d)
{
	return d->info ? d->info : "";
}

const char *dec_end_text(struct dec *d)
{
	if (d->files_in)
		return decode_set_end_text(d);
	return d->end ? d->end : "";
}
