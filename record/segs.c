/* SPDX-License-Identifier: MIT */
/*
 * segs.c - the disk ring (--ring SIZE) and the numbered series (--rotate).
 *
 * Disk ring, -o NAME.ftz --ring SIZE (FORMAT.md 9):
 *   NAME.ftz               the ring's metadata, kept once: INFO, START files
 *                          (kallsyms, formats), and at a clean stop END files + END.
 *   NAME.ring-000001.ftz   segments: their own INFO (the head's, plus the segment's
 *   NAME.ring-000002.ftz   number and what came before it), then PAGES only.
 * Segments are cut at a fraction of SIZE; after a new segment exists, the oldest
 * complete ones are deleted while the complete ones hold more than SIZE. So the
 * disk holds at most SIZE of complete segments, the current one, and the head.
 * A segment appears under its final name only with its INFO complete (written
 * under a hidden temporary name, then renamed), and the oldest is deleted only
 * after its successor exists: a crash at any moment leaves a readable set, the
 * newest segment possibly cut inside its last section (damage at its end).
 * What a deleted segment held is carried in every later segment's INFO
 * (ring_before_*), so the count of what the ring trimmed survives a kill -9.
 *
 * Series, -o NAME.ftz --rotate SIZE|SECS: NAME-0001.ftz, NAME-0002.ftz, ... each a
 * complete capture (INFO, the START files repeated byte for byte from the first
 * file, fresh per-CPU stats, PAGES, END files, END). The main thread switches
 * files (segs_poll, every 0.1 s at most); the readers write through segs_write_pages
 * under the lock, so every batch lands whole in one file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/msg.h"
#include "record/rec_int.h"
#include "record/tfs.h"

#define RING_MIN_SEGMENT (128u << 10) /* a segment is at least two full 64-page batches compressed */
#define RING_SEGMENTS 8               /* SIZE / this = segment size */

struct kept_seg {
	uint32_t no;
	uint64_t bytes, pages, events;
};

struct cpu_counts {
	uint64_t pages, events, missed;
};

struct segs {
	pthread_mutex_t lock;
	char dir[PATH_MAX - NAME_MAX - 64]; /* directory of the output */
	char stem[NAME_MAX - 32];/* the output's name without .ftz; with a suffix, a name fits NAME_MAX */
	char capture_id[33], boot_id[40];
	int error;              /* first write error, sticky */
	/* ring */
	uint64_t seg_size;
	struct ftz_writer *cur;
	uint32_t cur_no;
	uint64_t cur_pages, cur_events;
	struct kept_seg *kept;  /* complete segments, oldest first */
	size_t nr_kept, cap_kept;
	uint64_t kept_bytes;
	uint64_t before_pages, before_events, before_bytes; /* all segments before cur */
	uint64_t trimmed_segments, trimmed_pages, trimmed_events, trimmed_bytes;
	uint64_t closed_raw, closed_stored, closed_bytes; /* page bytes and file bytes of closed files */
	/* series */
	uint32_t file_no;
	uint64_t file_start_ns;
	uint64_t file_meta_end; /* bytes of the current file before its first PAGES: --rotate SIZE counts the rest */
	uint8_t *preamble;      /* the first file's START sections, repeated in each file */
	size_t preamble_len;
	struct cpu_counts *counts, *end_counts; /* this file's; the file being ended */
};

static bool ring_mode(const struct rec *r)
{
	return r->o->ring_size > 0;
}

bool segs_active(const struct rec *r)
{
	return r->o->ring_size || r->o->rotate_size || r->o->rotate_secs > 0;
}

int segs_check_options(const struct record_opts *o)
{
	const char *mode = o->ring_size ? "--ring" : "--rotate";

	if (!o->ring_size && !o->rotate_size && !(o->rotate_secs > 0))
		return 0;
	if (o->ring_size && (o->rotate_size || o->rotate_secs > 0))
		return msg_error("--ring and --rotate cannot go together (a ring keeps the newest, a series keeps all)");
	if (o->kernel_ring)
		return msg_error("%s cannot go with --kernel-ring: the kernel ring already bounds what is kept (-b per CPU) and writes nothing before the stop", mode);
	if (o->max_size)
		return msg_error("%s cannot go with --max-size: %s bounds the files itself", mode, mode);
	if (o->function_profile)
		return msg_error("%s records events; --profile records none", mode);
	return 0;
}

static void read_boot_id(char *out, size_t len)
{
	char *id = tfs_read_trimmed("/proc/sys/kernel/random/boot_id");

	snprintf(out, len, "%s", id ? id : "unknown");
	free(id);
}

static int new_capture_id(char *out)
{
	uint8_t b[16];

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
		return -1;
	for (int i = 0; i < 16; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	return 0;
}

/* NAME.ftz -> directory and stem. The output must end in .ftz: the segment names are made from it. */
static int split_output(struct rec *r, struct segs *s)
{
	const char *out = r->o->output;
	size_t len = strlen(out);
	char *copy = strdup(out), *copy2 = strdup(out);
	int rc = 0;

	if (!copy || !copy2) {
		rc = msg_error("%s: out of memory", out);
	} else if (len < 5 || strcmp(out + len - 4, ".ftz")) {
		rc = msg_error("%s: with --ring or --rotate the output name must end in .ftz (the other files are named after it)", out);
	} else {
		const char *dir = dirname(copy);
		char *base = basename(copy2);
		if (strlen(base) - 4 >= sizeof(s->stem) || strlen(dir) >= sizeof(s->dir)) {
			rc = msg_error("%s: name too long for --ring/--rotate", out);
		} else {
			snprintf(s->dir, sizeof(s->dir), "%s", dir);
			snprintf(s->stem, sizeof(s->stem), "%.*s", (int)(strlen(base) - 4), base);
		}
	}
	free(copy);
	free(copy2);
	return rc;
}

static void seg_path(const struct segs *s, char *out, size_t len, uint32_t no, bool tmp)
{
	snprintf(out, len, "%s/%s%s.ring-%06" PRIu32 ".ftz%s", s->dir, tmp ? "." : "", s->stem, no,
		 tmp ? ".tmp" : "");
}

static void series_path(const struct segs *s, char *out, size_t len, uint32_t no, bool tmp)
{
	snprintf(out, len, "%s/%s%s-%04" PRIu32 ".ftz%s", s->dir, tmp ? "." : "", s->stem, no,
		 tmp ? ".tmp" : "");
}

/* Did ftrec write PATH as a ring segment / series file (its INFO has KEY)? */
static bool written_as(const char *path, const char *key)
{
	char e[256], v[32];
	struct ftz_reader *rd = ftz_reader_open(path, e, sizeof(e));
	struct ftz_section sec;
	bool yes = false;

	if (!rd)
		return false;
	if (ftz_reader_next(rd, &sec, false) == FTZ_READ_OK && sec.type == FTZ_SEC_INFO && sec.data)
		yes = ftz_kv_get((const char *)sec.data, sec.len, key, v, sizeof(v)) >= 0;
	ftz_reader_close(rd);
	return yes;
}

/*
 * The files an earlier ring or series of the same name left (NAME.ring-NNNNNN.ftz,
 * NAME-NNNN.ftz): the output replaces them as it replaces NAME.ftz. Left there,
 * a reader would find segments of another capture beside the new head (and
 * refuse the ring) or a series that mixes two recordings.
 */
static void remove_stale(const struct segs *s, bool ring)
{
	char prefix[NAME_MAX + 16], p[PATH_MAX];
	DIR *d = opendir(s->dir);
	unsigned removed = 0;

	if (!d)
		return;
	snprintf(prefix, sizeof(prefix), "%s%s", s->stem, ring ? ".ring-" : "-");
	for (struct dirent *e; (e = readdir(d));) {
		size_t pl = strlen(prefix), digits;
		struct stat st;

		if (strncmp(e->d_name, prefix, pl))
			continue;
		digits = strspn(e->d_name + pl, "0123456789");
		if (digits < (ring ? 6u : 4u) || strcmp(e->d_name + pl + digits, ".ftz"))
			continue;
		snprintf(p, sizeof(p), "%s/%s", s->dir, e->d_name);
		/* only what ftrec wrote as such: a user's own trace-2024.ftz stays */
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) &&
		    written_as(p, ring ? "ring_segment" : "series_index") && unlink(p) == 0)
			removed++;
	}
	closedir(d);
	if (removed)
		msg_note("removed %u %s of an earlier recording to %s/%s.ftz", removed,
			 ring ? "segments" : "series files", s->dir, s->stem);
}

int segs_open(struct rec *r)
{
	struct segs *s;

	snprintf(r->out_path, sizeof(r->out_path), "%s", r->o->output);
	if (!segs_active(r))
		return 0;
	s = r->segs = calloc(1, sizeof(*s));
	if (s && split_output(r, s) < 0)
		return -1;
	if (!s || new_capture_id(s->capture_id) < 0)
		return msg_error("%s: cannot set up --ring/--rotate", r->o->output);
	pthread_mutex_init(&s->lock, NULL);
	read_boot_id(s->boot_id, sizeof(s->boot_id));
	remove_stale(s, ring_mode(r));
	if (ring_mode(r)) {
		s->seg_size = r->o->ring_size / RING_SEGMENTS;
		if (s->seg_size < RING_MIN_SEGMENT)
			s->seg_size = RING_MIN_SEGMENT;
	} else {
		s->file_no = 1;
		series_path(s, r->out_path, sizeof(r->out_path), 1, false);
	}
	return 0;
}

void segs_info_keys(struct rec *r, FILE *f)
{
	struct segs *s = r->segs;

	if (!s)
		return;
	fprintf(f, "capture_id=%s\nboot_id=%s\n", s->capture_id, s->boot_id);
	if (ring_mode(r)) {
		fprintf(f, "ring_size=%" PRIu64 "\nring_segment_size=%" PRIu64 "\nring_prefix=%s.ring-\n",
			r->o->ring_size, s->seg_size, s->stem);
		return;
	}
	fprintf(f, "series_prefix=%s-\nseries_index=%" PRIu32 "\n", s->stem, s->file_no);
	if (r->o->rotate_size)
		fprintf(f, "rotate_size=%" PRIu64 "\n", r->o->rotate_size);
	if (r->o->rotate_secs > 0)
		fprintf(f, "rotate_ns=%" PRIu64 "\n", (uint64_t)(r->o->rotate_secs * 1e9));
}

/* ------------------------------------------------------------------ ring */

/* Create segment NO under a hidden name, write its INFO, rename it into place. Lock held. */
static int ring_new_segment(struct rec *r, uint32_t no)
{
	struct segs *s = r->segs;
	char tmp[PATH_MAX], final[PATH_MAX], *text = NULL;
	struct ftz_writer *w;
	int rc;

	seg_path(s, tmp, sizeof(tmp), no, true);
	seg_path(s, final, sizeof(final), no, false);
	w = run_create_output(r, tmp);
	if (!w)
		return -EIO;
	if (asprintf(&text, "%sring_segment=%" PRIu32 "\nring_before_pages=%" PRIu64
		     "\nring_before_events=%" PRIu64 "\nring_before_bytes=%" PRIu64 "\n",
		     r->info_text ? r->info_text : "", no, s->before_pages, s->before_events,
		     s->before_bytes) < 0)
		text = NULL;
	rc = text ? ftz_write_info(w, FTZ_SEC_INFO, text) : -ENOMEM;
	free(text);
	if (!rc && rename(tmp, final) < 0)
		rc = -errno;
	if (rc) {
		msg_error_errno(rc, "%s", final);
		ftz_writer_close(w);
		unlink(tmp);
		return rc;
	}
	s->cur = w;
	s->cur_no = no;
	s->cur_pages = s->cur_events = 0;
	return 0;
}

/*
 * A segment's write failed: said here, since run.c checks only the head's writer.
 * Returns RC (-errno). Lock held.
 */
static int ring_write_error(const struct segs *s, int rc)
{
	char p[PATH_MAX];

	seg_path(s, p, sizeof(p), s->cur_no, false);
	msg_error("%s: write failed: %s", p, strerror(-rc));
	return rc;
}

/* A file about to be closed: its page bytes count in ftrec's end summary. */
static void segs_count_closed(struct segs *s, struct ftz_writer *w)
{
	uint64_t raw = 0, stored = 0;

	ftz_writer_page_bytes(w, &raw, &stored);
	s->closed_raw += raw;
	s->closed_stored += stored;
	s->closed_bytes += ftz_writer_bytes(w);
}

void segs_page_bytes(const struct rec *r, uint64_t *raw, uint64_t *stored, uint64_t *file)
{
	const struct segs *s = r->segs;

	if (!s)
		return;
	*raw += s->closed_raw;
	*stored += s->closed_stored;
	*file += s->closed_bytes;
	if (s->cur && ring_mode(r)) {
		uint64_t a = 0, b = 0;

		ftz_writer_page_bytes(s->cur, &a, &b);
		*raw += a;
		*stored += b;
		*file += ftz_writer_bytes(s->cur);
	}
}

/* Close the current segment (it becomes the newest complete one). 0 or -errno. Lock held. */
static int ring_close_current(struct segs *s)
{
	uint64_t bytes = ftz_writer_bytes(s->cur);

	segs_count_closed(s, s->cur);
	int rc = ftz_writer_close(s->cur);

	s->cur = NULL;
	if (rc && !s->error) /* an earlier write's error was said then */
		ring_write_error(s, rc);
	if (s->nr_kept == s->cap_kept) {
		size_t cap = s->cap_kept ? 2 * s->cap_kept : 16;
		struct kept_seg *n = realloc(s->kept, cap * sizeof(*n));
		if (!n) {
			msg_error("out of memory");
			return -ENOMEM;
		}
		s->kept = n;
		s->cap_kept = cap;
	}
	s->kept[s->nr_kept++] = (struct kept_seg){ s->cur_no, bytes, s->cur_pages, s->cur_events };
	s->kept_bytes += bytes;
	s->before_pages += s->cur_pages;
	s->before_events += s->cur_events;
	s->before_bytes += bytes;
	return rc;
}

/* Delete the oldest complete segments while they hold more than SIZE. Lock held. */
static void ring_trim(struct rec *r)
{
	struct segs *s = r->segs;
	size_t drop = 0;
	char p[PATH_MAX];

	while (drop < s->nr_kept && s->kept_bytes > r->o->ring_size) {
		const struct kept_seg *k = &s->kept[drop++];
		seg_path(s, p, sizeof(p), k->no, false);
		if (unlink(p) < 0 && errno != ENOENT)
			msg_warn("cannot delete %s: %s", p, strerror(errno));
		s->kept_bytes -= k->bytes;
		s->trimmed_segments++;
		s->trimmed_pages += k->pages;
		s->trimmed_events += k->events;
		s->trimmed_bytes += k->bytes;
	}
	memmove(s->kept, s->kept + drop, (s->nr_kept - drop) * sizeof(*s->kept));
	s->nr_kept -= drop;
}

static int ring_rotate(struct rec *r)
{
	struct segs *s = r->segs;
	uint32_t next = s->cur_no + 1;
	int rc = ring_close_current(s);

	if (!rc)
		rc = ring_new_segment(r, next);
	if (!rc)
		ring_trim(r);
	return rc;
}

/* ---------------------------------------------------------------- series */

/* The first file's START sections (after its INFO), to repeat in every file. */
static int series_keep_preamble(struct rec *r, uint64_t info_end)
{
	struct segs *s = r->segs;
	uint64_t end = ftz_writer_bytes(r->w);
	int fd = open(r->out_path, O_RDONLY | O_CLOEXEC);
	int rc = -EIO;

	if (fd < 0 || end < info_end)
		goto out;
	s->preamble_len = end - info_end;
	s->preamble = malloc(s->preamble_len ? s->preamble_len : 1);
	if (s->preamble && pread(fd, s->preamble, s->preamble_len, (off_t)info_end) ==
			   (ssize_t)s->preamble_len)
		rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc)
		msg_error("%s: cannot read back its START sections", r->out_path);
	return rc;
}

int segs_start(struct rec *r, uint64_t info_end)
{
	struct segs *s = r->segs;
	int rc;

	if (!s)
		return 0;
	s->counts = calloc((size_t)r->nr_cpus, sizeof(*s->counts));
	if (!s->counts)
		return msg_error("out of memory");
	if (!ring_mode(r)) {
		s->file_start_ns = run_now_ns(CLOCK_MONOTONIC);
		s->file_meta_end = ftz_writer_bytes(r->w);
		s->cur = r->w;
		return series_keep_preamble(r, info_end) < 0 ? -1 : 0;
	}
	pthread_mutex_lock(&s->lock);
	rc = ring_new_segment(r, 1);
	pthread_mutex_unlock(&s->lock);
	return rc < 0 ? -1 : 0;
}

int segs_write_pages(struct rec *r, int cpu, const void *pages, uint32_t nr, uint64_t events,
		     uint64_t missed_pages)
{
	struct segs *s = r->segs;
	int rc;

	pthread_mutex_lock(&s->lock);
	rc = s->error;
	if (!rc && !s->cur)
		rc = -EIO;
	if (!rc) {
		rc = ftz_write_pages(s->cur, (uint32_t)cpu, r->subbuf_size, pages, nr);
		if (rc && ring_mode(r))
			ring_write_error(s, rc);
	}
	if (!rc) {
		s->cur_pages += nr;
		s->cur_events += events;
		s->counts[cpu].pages += nr;
		s->counts[cpu].events += events;
		s->counts[cpu].missed += missed_pages;
		if (ring_mode(r) && ftz_writer_bytes(s->cur) >= s->seg_size)
			rc = ring_rotate(r);
	}
	if (rc && !s->error)
		s->error = rc;
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/*
 * Open file NO of the series with its INFO, the START sections and fresh stats,
 * under its name FINAL (PATH_MAX bytes). NULL after a message.
 */
static struct ftz_writer *series_new_file(struct rec *r, uint32_t no, char *final)
{
	struct segs *s = r->segs;
	char tmp[PATH_MAX];
	struct ftz_writer *w, *old = r->w;
	int rc;

	series_path(s, tmp, sizeof(tmp), no, true);
	series_path(s, final, PATH_MAX, no, false);
	w = run_create_output(r, tmp);
	if (!w)
		return NULL;
	/* metadata_* write to r->w: the readers write through s->cur, which is still the old file */
	r->w = w;
	s->file_no = no;
	rc = metadata_write_info(r);
	if (!rc)
		rc = ftz_write_raw_sections(w, s->preamble, s->preamble_len);
	if (!rc)
		rc = metadata_write_stats(r, FTZ_PHASE_START);
	if (!rc && rename(tmp, final) < 0)
		rc = -errno;
	r->w = old;
	if (rc) {
		msg_error("%s: cannot start the next file of the series: %s", final,
			  strerror(rc < 0 ? -rc : EIO));
		ftz_writer_close(w);
		unlink(tmp);
		return NULL;
	}
	return w;
}

/* Switch to the next file of the series and end the previous one (main thread). */
static int series_rotate(struct rec *r)
{
	struct segs *s = r->segs;
	char next[PATH_MAX];
	struct cpu_counts *fresh = calloc((size_t)r->nr_cpus, sizeof(*fresh));
	struct ftz_writer *old = r->w, *w = fresh ? series_new_file(r, s->file_no + 1, next) : NULL;
	const char *reason = r->stop_reason;
	uint64_t meta_end;
	int rc;

	if (!fresh)
		msg_error("out of memory");
	if (!w) {
		free(fresh);
		return -1;
	}
	meta_end = ftz_writer_bytes(w); /* nothing but metadata yet: the readers still write to old */
	pthread_mutex_lock(&s->lock);
	s->cur = w;
	s->end_counts = s->counts;
	s->counts = fresh;
	pthread_mutex_unlock(&s->lock);
	r->stop_reason = "rotate";
	run_time_pair(r, &r->end_wall_ns, &r->end_trace_ns);
	rc = metadata_write_end(r);
	r->file_from_trace_ns = r->end_trace_ns; /* the next file's pages start here */
	r->stop_reason = reason;
	free(s->end_counts);
	s->end_counts = NULL;
	segs_count_closed(s, old);
	int cerr = ftz_writer_close(old);
	if (cerr < 0 && rc == 0) /* else its END already said why */
		rc = msg_error("%s: write failed: %s", r->out_path, strerror(-cerr));
	/* the ended file's messages named it; from now on the new one is the output */
	snprintf(r->out_path, sizeof(r->out_path), "%s", next);
	r->w = w;
	s->file_start_ns = run_now_ns(CLOCK_MONOTONIC);
	s->file_meta_end = meta_end;
	return rc < 0 ? -1 : 0;
}

bool segs_polls(const struct rec *r)
{
	return r->segs && !ring_mode(r);
}

int segs_poll(struct rec *r)
{
	struct segs *s = r->segs;
	bool due;

	if (!segs_polls(r))
		return 0;
	if (s->error)
		return -1;
	due = (r->o->rotate_size && ftz_writer_bytes(r->w) - s->file_meta_end >= r->o->rotate_size) ||
	      (r->o->rotate_secs > 0 &&
	       run_now_ns(CLOCK_MONOTONIC) - s->file_start_ns >= (uint64_t)(r->o->rotate_secs * 1e9));
	return due ? series_rotate(r) : 0;
}

/* ------------------------------------------------------------------- end */

void segs_cpu_counts(const struct rec *r, int cpu, uint64_t *pages, uint64_t *events,
		     uint64_t *missed)
{
	const struct segs *s = r->segs;
	const struct cpu_capture *c = &r->cpus[cpu];

	if (s && !ring_mode(r) && (s->end_counts || s->counts)) {
		const struct cpu_counts *k = s->end_counts ? &s->end_counts[cpu] : &s->counts[cpu];
		*pages = k->pages;
		*events = k->events;
		*missed = k->missed;
		return;
	}
	*pages = c->pages;
	*events = c->events;
	*missed = c->missed_pages;
}

void segs_end_keys(struct rec *r, FILE *f)
{
	struct segs *s = r->segs;

	if (!s || !ring_mode(r))
		return;
	pthread_mutex_lock(&s->lock);
	fprintf(f, "ring_segments=%" PRIu32 "\nring_trimmed_segments=%" PRIu64
		"\nring_trimmed_pages=%" PRIu64 "\nring_trimmed_events=%" PRIu64
		"\nring_trimmed_bytes=%" PRIu64 "\n", s->cur_no, s->trimmed_segments,
		s->trimmed_pages, s->trimmed_events, s->trimmed_bytes);
	pthread_mutex_unlock(&s->lock);
}

/* After the readers are joined: the ring's last segment is complete. */
int segs_finish(struct rec *r)
{
	struct segs *s = r->segs;
	int rc = 0;

	if (!s || !ring_mode(r) || !s->cur)
		return s && s->error ? -1 : 0;
	pthread_mutex_lock(&s->lock);
	rc = ring_close_current(s);
	/* cur_no stays: the segments written */
	pthread_mutex_unlock(&s->lock);
	return rc || s->error ? -1 : 0;
}

void segs_summary(const struct rec *r)
{
	const struct segs *s = r->segs;

	if (!s)
		return;
	if (ring_mode(r))
		fprintf(stderr, "  disk ring: %" PRIu32 " segments of ~%.2f MiB written, %zu kept "
			"(%.2f MiB) in %s/%s.ring-*.ftz; %" PRIu64 " trimmed (%" PRIu64 " events)\n",
			s->cur_no, s->seg_size / 1048576.0, s->nr_kept, s->kept_bytes / 1048576.0,
			s->dir, s->stem, s->trimmed_segments, s->trimmed_events);
	else
		fprintf(stderr, "  series: %" PRIu32 " files %s/%s-0001.ftz .. %s\n", s->file_no,
			s->dir, s->stem, r->out_path);
}

/* Nothing was recorded: remove every file made so far. */
void segs_abandon(struct rec *r)
{
	struct segs *s = r->segs;
	char p[PATH_MAX];

	if (!s)
		return;
	if (ring_mode(r))
		for (uint32_t no = 1; no <= s->cur_no; no++) {
			seg_path(s, p, sizeof(p), no, false);
			unlink(p);
		}
}

void segs_free(struct rec *r)
{
	struct segs *s = r->segs;

	if (!s)
		return;
	if (s->cur && ring_mode(r))
		ftz_writer_close(s->cur);
	free(s->kept);
	free(s->preamble);
	free(s->counts);
	free(s->end_counts);
	pthread_mutex_destroy(&s->lock);
	free(s);
	r->segs = NULL;
}
