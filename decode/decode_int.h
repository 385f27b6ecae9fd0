/* SPDX-License-Identifier: MIT */
/* decode_int.h - internals shared by decode.c (index, cursors, merge) and
 * decode_meta.c (metadata into libtraceevent). Not for other modules. */
#ifndef DECODE_INT_H
#define DECODE_INT_H

#include <traceevent/kbuffer.h>

#include "decode/decode.h"
#include "format/ftz.h"

struct sec_ref {
	uint64_t offset;
	uint32_t nr_pages;
	uint32_t raw_len;       /* payload size decoded: at most FTZ_READ_MAX_PAYLOAD */
	uint32_t file;          /* index in dec.files_in (a ring or series: capture_set.h) */
};

/* What dec_next saw of one file of a ring or series. */
struct dec_member {
	struct ftz_reader *r;
	char *name;             /* its base name */
	uint64_t events, first_ts, last_ts, lost_pages, lost_events;
};

/* One CPU's position: a batch (PAGES section) decompressed into its own buffer
 * through the one shared reader, a page inside it loaded into its own kbuffer, an
 * event inside that. The buffer is freed when the CPU has no batch left. */
struct cursor {
	int cpu;
	uint8_t *batch;         /* the current batch's payload (ftz_reader_read_at) */
	size_t batch_cap;
	struct sec_ref *secs;
	size_t nr_secs, cap_secs, next_sec;
	const uint8_t *pages;
	uint32_t nr_pages, page, page_size;
	uint64_t sec_offset;
	struct kbuffer *kbuf;   /* the 2.6.30 ring-buffer format only; else the walk: */
	struct walk {           /* decode.c: the records of one checked sub-buffer */
		const uint8_t *data; /* its records, `size` bytes */
		uint32_t size, cur, index, next; /* the current record: header, data, end */
	} walk;
	void *ev;               /* current event data, NULL when exhausted */
	unsigned long long ts;
	int64_t missed;         /* loss flagged on the page the current event opens */
	struct tep_record rec;
	/* prefetch.c: the next batch, read ahead (under its lock) */
	uint8_t *ahead;
	size_t ahead_cap, ahead_idx; /* ahead_idx: its index in secs */
	int ahead_state;
	struct ftz_section ahead_sec;
	const char *ahead_why;
};

struct dat; /* trace.dat backend state (decode_tracedat.c); NULL for a .ftz */

/*
 * Bounds on what a file can make decode keep, whatever it declares (on top of the
 * reader's FTZ_READ_MAX_PAYLOAD per section). Recordings hold a few MiB of FILE
 * sections (kallsyms, formats) and at most a few thousand CPUs.
 */
#define DEC_MAX_FILE_MIB 128 /* FILE data + names kept at once */
#define DEC_MAX_FILE_BYTES ((uint64_t)DEC_MAX_FILE_MIB << 20)
#define DEC_STR_(x) #x
#define DEC_STR(x) DEC_STR_(x)
#define DEC_MAX_CPUS 65536
/*
 * Decoded PAGES batches held at once by all cursors: one per CPU is what a merge
 * needs, but 64 MiB bombs on a thousand CPUs would be 64 GB from a 2 MB file.
 * ftrec's batches are 256 KiB (4 KiB sub-buffers): 4096 CPUs fit.
 */
/*
 * What all sections may expand to, against the file's size: decompression time
 * follows raw bytes, and zstd's RLE blocks expand 32768-fold (1 GiB from 32 KiB).
 * ftrec's files expand ~27-fold (full pages of events); the slack covers small
 * files with a large kallsyms.
 */
#define DEC_MAX_EXPANSION 1024 /* raw bytes per file byte, over a whole capture set */
#define DEC_EXPANSION_SLACK_MIB 1024
#define DEC_MAX_BATCH_MIB 1024
#define DEC_MAX_BATCH_BYTES ((uint64_t)DEC_MAX_BATCH_MIB << 20)

struct dec {
	char *path;
	struct dat *dat;
	struct ftz_reader *r;   /* the .ftz, open from dec_open to dec_close: one fd */
	struct dec_member *files_in; /* a ring or series: every file (files_in[0].r == r), one fd each */
	size_t nr_files_in;
	uint32_t cur_file;      /* the file being scanned */
	char *set_keys;         /* capture_set.h's keys: segments, gaps, ring_trimmed_* */
	uint64_t scan_file_bytes, scan_raw_bytes; /* dec_scan so far, every file of the set */
	char *end_set;          /* END text + set keys + per-file figures (dec_end_text of a set) */
	int long_size;
	bool big_endian;
	bool swap;              /* the file's byte order is not this host's */
	bool bad_endian;        /* INFO endian neither little nor big: refused */
	char *info, *end;
	struct dec_file *files; /* in file order of first appearance */
	size_t nr_files, cap_files;
	size_t *file_index;     /* hash of (name, phase): files[] index + 1, 0 empty */
	size_t file_index_cap;  /* a power of two, at least twice nr_files */
	uint64_t file_bytes;    /* data and names of files[], against DEC_MAX_FILE_BYTES */
	uint64_t *snapshots;    /* file offsets of SNAPSHOT sections */
	size_t nr_snapshots, cap_snapshots;
	struct tep_handle *tep;
	struct dec_stats stats;
	struct cursor *cpus;    /* stats.nr_cpus entries (cap_cpus allocated, zeroed) */
	size_t cap_cpus;
	uint64_t batch_bytes;   /* sum of the cursors' batch_cap, against DEC_MAX_BATCH_BYTES */
	int *heap;              /* cursor indexes, min-heap on (ts, cpu) */
	struct prefetch *prefetch; /* prefetch.c's thread, or NULL */
	bool single_thread;     /* dec_single_thread: never one */
	const uint64_t *deliver, *count; /* dec_select's type bitmaps */
	int stack_type;         /* ftrace:kernel_stack's type id, -1 none */
	uint64_t seq;           /* counted events merged so far */
	uint64_t *cpu_last_seq; /* per CPU: seq of its last counted event */
	struct cpu_span { uint64_t events, first_ts, last_ts; } *cpu_spans; /* dec_cpu_span */
	uint8_t *cpu_skipped;   /* per CPU: ... and it was not handed out */
	uint64_t out_prev_seq;  /* the event being handed out: its CPU's previous ... */
	bool out_prev_skipped;  /* ... counted event, and whether that one was skipped */
	uint64_t *type_counts;  /* events merged per type id (65536) */
	struct tep_event **event_of; /* the event of each type id, NULL none (65536) */
	uint64_t first_ts, last_ts; /* dec_span */
	int heap_len;
	bool started;
	uint64_t pages_done;
	bool damaged;
	uint64_t damage_offset;
	char damage_reason[160];
};

/* The set's raw bytes so far over what its files' size allows (DEC_MAX_EXPANSION):
 * a .ftz's sections (dec_scan), a trace.dat v7's declared sizes (tracedat_check.c). */
static inline bool dec_over_budget(const struct dec *d)
{
	return d->scan_raw_bytes > ((uint64_t)DEC_EXPANSION_SLACK_MIB << 20) +
				   DEC_MAX_EXPANSION * d->scan_file_bytes;
}

/* An unsigned number of SIZE bytes (at most 8) in the given byte order. */
static inline uint64_t dec_load_uint(const uint8_t *p, int size, bool big_endian)
{
	uint64_t v = 0;

	for (int i = 0; i < size; i++)
		v |= (uint64_t)p[big_endian ? size - 1 - i : i] << (8 * i);
	return v;
}

/*
 * decode.c: an error while opening d, said (common/msg.h) unless d is damaged:
 * then dec_open says the damage instead, as the reason its metadata is incomplete
 * (one line either way). Returns -1. dec_scan, decode_set_scan_rest and
 * dmeta_load_tep fail through it: 0, or -1 after it.
 */
int dec_fail(struct dec *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* decode.c: one file's sections into d (metadata kept, PAGES indexed under d->cur_file;
 * damage is kept in d, not an error). */
struct cset;
int dec_scan(struct dec *d, struct ftz_reader *r);

/* decode_set.c: the files after the first of a ring or series (capture_set.h); a file
 * that cannot be read is damage there. */
int decode_set_scan_rest(struct dec *d, const struct cset *cs);
struct ftz_reader *decode_set_reader(struct dec *d, uint32_t file);
void decode_set_count(struct dec *d, uint32_t file, const struct dec_event *ev);
const char *decode_set_end_text(struct dec *d);
void decode_set_free(struct dec *d);

/* 0, -ENOMEM, or -E2BIG when the files would exceed DEC_MAX_FILE_BYTES. */
int dmeta_add_file(struct dec *d, const struct ftz_file *f);
int dmeta_add_snapshot(struct dec *d, uint64_t offset);
/* The metadata into a new tep handle (d->tep). */
int dmeta_load_tep(struct dec *d);
void dmeta_free(struct dec *d);

/* prefetch.c: a thread reading each cursor's next batch ahead (none on one core).
 * prefetch_next claims a cursor's next section: 0 none left, FTZ_READ_OK (the
 * batch in c->batch, *sec its section), FTZ_READ_DAMAGE (*why), or PREFETCH_READ_IT. */
#define PREFETCH_READ_IT 2
void prefetch_start(struct dec *d);
void prefetch_stop(struct dec *d);
int prefetch_next(struct dec *d, struct cursor *c, const struct sec_ref **ref,
		  struct ftz_section *sec, const char **why);
/* Damage found in the walk at section ref: no cursor starts a section at or after
 * it in the file (or a later file of the set); the batches being walked finish. */
void prefetch_cut(struct dec *d, const struct sec_ref *at);

/* decode_tracedat.c: dat_open returns 1 when d->path is not a trace.dat, 0 when it
 * opened it, -errno after a one-line error (common/msg.h) when it failed (errno set
 * too: EBADMSG when the file is damaged). Not through dec_fail: the error is said
 * even when d is damaged, as it says the damage itself. */
int dat_open(struct dec *d);
int dat_next(struct dec *d, struct dec_event *ev);
void dat_close(struct dec *d);

#endif
