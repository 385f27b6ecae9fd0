/* SPDX-License-Identifier: MIT */
/*
 * ftz.h - the .ftz container: an append-only stream of checksummed sections.
 *
 * The header the programs include from format/ (record/, and ftana: decode/, import/; only
 * store/trust.c also reads the section header layout from ftz_int.h, to digest it).
 * The byte layout is specified in format/FORMAT.md; keep the two in step.
 *
 * Conventions: functions return 0 (or a count) on success and a negative errno on
 * failure unless stated otherwise; error text is written to a caller buffer where
 * one is taken, as one line naming the file and the problem.
 */
#ifndef FTZ_H
#define FTZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FTZ_VERSION_MAJOR 1 /* readers refuse a higher major */
#define FTZ_VERSION_MINOR 1 /* readers accept any minor, skipping unknown sections */

/* Section types. Readers skip types they do not know (forward compatibility). */
enum ftz_section_type {
	FTZ_SEC_INFO  = 1, /* "key=value\n" text: host, kernel, clock, sizes, command line, start time */
	FTZ_SEC_FILE  = 2, /* a snapshot of one tracefs or /proc file, see struct ftz_file */
	FTZ_SEC_PAGES = 3, /* whole raw ring-buffer sub-buffers of one CPU, see struct ftz_pages */
	FTZ_SEC_END   = 4, /* "key=value\n" text written at a clean stop: stop reason, end time, totals */
	FTZ_SEC_SNAPSHOT = 5, /* a file read while tracing, with the time it was read (minor 1) */
};

/* Section flags (header field "flags"). */
#define FTZ_FLAG_ZSTD 0x1u /* payload is one zstd frame; raw_len is its decompressed size */

/* FTZ_SEC_FILE: which moment of the recording a file snapshot belongs to. */
enum ftz_phase {
	FTZ_PHASE_START = 0, /* taken before tracing was switched on */
	FTZ_PHASE_END   = 1, /* taken after tracing was switched off and buffers drained */
};

/* ---------------------------------------------------------------- writer */

struct ftz_writer;

/*
 * When a SNAPSHOT was taken. Every file read in one round (e.g. the profiler's
 * trace_stat/function0..N every second) shares the round number and times.
 */
struct ftz_snapshot_time {
	uint64_t mono_ns;  /* CLOCK_MONOTONIC when the round began */
	uint64_t wall_ns;  /* CLOCK_REALTIME at the same moment */
	uint32_t round;    /* 0 for the first round of the recording, then +1 each */
};

/* Create (truncate) PATH and write the file header. NULL on failure with errbuf set. */
struct ftz_writer *ftz_writer_create(const char *path, char *errbuf, size_t errlen);

/*
 * Append one section. With compress, the payload is zstd-compressed (level from
 * ftz_writer_set_level, default 3) unless that does not make it smaller.
 * Thread-safe: compression happens outside the writer's lock, the append under it,
 * so per-CPU reader threads may call this concurrently. Each section reaches the
 * file with a single write() so a crash leaves at most one incomplete section.
 * A payload over 1 GiB is refused (-EINVAL, not sticky). On a failed or short
 * write the file is cut back to its last complete section and the error sticks.
 */
int ftz_write_section(struct ftz_writer *w, uint32_t type, const void *payload,
		      size_t len, bool compress);

/* Convenience wrappers that build the payloads defined below. */
int ftz_write_info(struct ftz_writer *w, uint32_t type /* INFO or END */,
		   const char *kv_text);
int ftz_write_file(struct ftz_writer *w, enum ftz_phase phase, const char *name,
		   const void *data, size_t len);
int ftz_write_pages(struct ftz_writer *w, uint32_t cpu, uint32_t page_size,
		    const void *pages, uint32_t nr_pages);
int ftz_write_snapshot(struct ftz_writer *w, const struct ftz_snapshot_time *t,
		       const char *name, const void *data, size_t len);

/*
 * Append BYTES, which must be whole sections as another writer wrote them (a
 * series' next file repeats the first file's START sections: ftrec --rotate).
 * Same crash rule as ftz_write_section: one write, cut back on failure.
 */
int ftz_write_raw_sections(struct ftz_writer *w, const void *bytes, size_t len);

void ftz_writer_set_level(struct ftz_writer *w, int zstd_level);
/* Bytes appended so far (file header included); used for --max-size. */
uint64_t ftz_writer_bytes(struct ftz_writer *w);
/* Sum of payload bytes before / after compression, per section type PAGES. */
void ftz_writer_page_bytes(struct ftz_writer *w, uint64_t *raw, uint64_t *stored);
/* First write error seen (negative errno), 0 if none. Sticky: later writes fail too. */
int ftz_writer_error(struct ftz_writer *w);
/* fsync and close. Returns the first error seen, if any. Frees w. */
int ftz_writer_close(struct ftz_writer *w);

/* ---------------------------------------------------------------- reader */

struct ftz_reader;

struct ftz_section {
	uint32_t type;
	uint32_t flags;
	uint64_t offset;      /* file offset of the section header */
	uint64_t stored_len;  /* payload bytes in the file */
	uint64_t raw_len;     /* payload bytes after decompression */
	const uint8_t *data;  /* payload, decompressed; valid until the next reader call;
			       * data[len] is a NUL so text payloads are C strings.
			       * NULL (and len 0) when not decoded: see ftz_reader_next */
	size_t len;           /* == raw_len */
	/* A PAGES payload not decoded (ftz_reader_next without want_pages): its first
	 * FTZ_PAGES_HEAD bytes, the fixed header (ftz_parse_pages_head), when the
	 * reader could read them without decoding the pages; head_len 0 otherwise. */
	uint8_t head[16];
	size_t head_len;
};
#define FTZ_PAGES_HEAD 16

enum ftz_read_status {
	FTZ_READ_OK     = 1, /* *sec filled */
	FTZ_READ_END    = 0, /* clean end of file at a section boundary */
	FTZ_READ_DAMAGE = -1, /* damage: truncated or corrupt; see ftz_reader_damage() */
};

/*
 * Largest payload a reader decodes (INFO, FILE, PAGES, END, SNAPSHOT), before or
 * after decompression. A known section over it is damage (FORMAT.md 3, "Limits"):
 * this bounds the memory a file can make a reader take, whatever it declares.
 * ftrec's largest sections are /proc/kallsyms (~5-30 MiB) and PAGES batches of
 * 64 sub-buffers (256 KiB with 4 KiB sub-buffers, 32 MiB with the kernel's
 * largest, 512 KiB, on 4 KiB pages).
 */
#define FTZ_READ_MAX_PAYLOAD (64u << 20)

/* Open PATH, check magic and major version. NULL with errbuf set ("not an .ftz file", ...). */
struct ftz_reader *ftz_reader_open(const char *path, char *errbuf, size_t errlen);
/* What a file that is not a regular one is ("a FIFO", "a directory", "a device", "a
 * socket"), for the refusal ftz_reader_open and ftana's inputs share. */
const char *ftz_not_regular_kind(mode_t mode);

/*
 * Next section, in file order. Unknown types and sections with unknown flag bits
 * are returned too (callers skip them); their payload is checksummed, never
 * decompressed (data is NULL). Sections of type PAGES are decompressed only when
 * want_pages is true (a fast metadata scan passes false: data is NULL).
 * Payload checksums are verified either way, so both scans stop at the same damage.
 * After an END section the next call returns FTZ_READ_END: END is the last section
 * of a recording, and what follows it is not read (FORMAT.md 6.2).
 */
int ftz_reader_next(struct ftz_reader *r, struct ftz_section *sec, bool want_pages);

/* Reposition to a section offset previously returned in sec->offset. */
int ftz_reader_seek(struct ftz_reader *r, uint64_t offset);

/*
 * Read and decode the section at OFFSET (a sec->offset from an earlier scan) into
 * a buffer the caller owns: *buf of *cap bytes, grown with realloc, released with
 * free(); sec->data points into it. Same checks as ftz_reader_next; neither the
 * reader's position nor its damage state changes. FTZ_READ_OK, or FTZ_READ_DAMAGE
 * with *why set to a one-line reason. This lets many cursors (one per CPU) share
 * one reader and its one file descriptor, each keeping its own payload.
 */
int ftz_reader_read_at(struct ftz_reader *r, uint64_t offset, struct ftz_section *sec,
		       uint8_t **buf, size_t *cap, const char **why);

/*
 * The same from another thread: ftz_reader_read_at uses the reader's own scratch
 * buffer and zstd context, so a thread reading sections at the same time as the
 * reader's owner brings its own (ftz_read_ctx_new). Only sections a scan of r
 * already found whole are read this way (the file's size is not looked at again).
 */
struct ftz_read_ctx;
struct ftz_read_ctx *ftz_read_ctx_new(void);
void ftz_read_ctx_free(struct ftz_read_ctx *ctx);
int ftz_reader_read_at_ctx(struct ftz_reader *r, struct ftz_read_ctx *ctx, uint64_t offset,
			   struct ftz_section *sec, uint8_t **buf, size_t *cap, const char **why);

/*
 * Free the buffers the reader keeps between calls (they grow to the largest
 * payload read, /proc/kallsyms say): for a reader kept open after a scan, to serve
 * ftz_reader_read_at with only what each call needs. Data returned earlier by
 * ftz_reader_next becomes invalid.
 */
void ftz_reader_trim(struct ftz_reader *r);

/* After FTZ_READ_DAMAGE: offset where reading stopped and a one-line reason. */
uint64_t ftz_reader_damage(const struct ftz_reader *r, const char **reason);
uint64_t ftz_reader_file_size(const struct ftz_reader *r);
void ftz_reader_version(const struct ftz_reader *r, unsigned *major, unsigned *minor);
void ftz_reader_close(struct ftz_reader *r);

/* ---------------------------------------------------------------- payloads */

/* Parsed FTZ_SEC_FILE payload (points into sec->data). */
struct ftz_file {
	enum ftz_phase phase;
	const char *name;   /* NUL-terminated copy, valid until the next ftz_parse_file
			     * call in the same thread (a thread-local buffer) */
	const uint8_t *data;
	size_t len;
};
int ftz_parse_file(const struct ftz_section *sec, struct ftz_file *out);

/* Parsed FTZ_SEC_PAGES payload (points into sec->data). */
struct ftz_pages {
	uint32_t cpu;
	uint32_t page_size; /* sub-buffer size in bytes */
	uint32_t nr_pages;
	const uint8_t *pages; /* nr_pages * page_size bytes, page i at pages + i * page_size */
};
int ftz_parse_pages(const struct ftz_section *sec, struct ftz_pages *out);
/* The same from a PAGES section's head alone (pages NULL); its length from raw_len. */
int ftz_parse_pages_head(const struct ftz_section *sec, struct ftz_pages *out);

/*
 * FORMAT.md 4.3.1: a sub-buffer's commit field holds the size of its data in the low
 * 30 bits; the bits above are the kernel's loss flags.
 */
#define FTZ_RB_COMMIT_MASK 0x3fffffffull

/*
 * FORMAT.md 2: do the N bytes at BUF (a file's first bytes, N may be under 8 for a
 * file cut inside its header) begin a .ftz? A cut header is damage for the reader
 * to report, so any non-empty prefix of the magic counts.
 */
bool ftz_sniff(const void *buf, size_t n);

/*
 * FORMAT.md 4.3.1: true when every record of a sub-buffer's data (SIZE bytes: the
 * commit field's size, already checked to fit the page) lies wholly inside it, so
 * that libtraceevent's kbuffer, which trusts what it reads, can walk it. A page
 * that fails is dropped whole and counted as a bad page.
 */
bool ftz_page_records_ok(const uint8_t *data, uint64_t size, bool big_endian);

/* Parsed FTZ_SEC_SNAPSHOT payload (name as in struct ftz_file, shares its buffer). */
struct ftz_snapshot {
	struct ftz_snapshot_time time;
	const char *name;
	const uint8_t *data;
	size_t len;
};
int ftz_parse_snapshot(const struct ftz_section *sec, struct ftz_snapshot *out);

/*
 * Look up KEY in "key=value\n" text (INFO / END payloads) of at most LEN bytes;
 * the text ends at its first NUL byte if it has one (FORMAT.md 4.1), so no byte
 * past either is read. Copies the value into buf (NUL-terminated) and returns its
 * length, or -ENOENT. Like snprintf, a value longer than buflen - 1 is truncated
 * and its full length returned.
 */
int ftz_kv_get(const char *text, size_t len, const char *key, char *buf, size_t buflen);

/* CRC-32C (Castagnoli), as used for section checksums. */
uint32_t ftz_crc32c(uint32_t crc, const void *data, size_t len);

#endif /* FTZ_H */
