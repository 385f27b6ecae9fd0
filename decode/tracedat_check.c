// SPDX-License-Identifier: MIT
/*
 * tracedat_check.c - a trace.dat v7's declared sizes and offsets, checked before
 * libtracecmd reads the file (tracedat_check.h: what is refused, and why).
 *
 * What libtracecmd 1.3 (trace-cmd 3.1) does with a v7 file, so what is walked here:
 *  - tracecmd_alloc_fd reads the header (version, byte order, page size, compression
 *    name and version, the first options section's offset), then every section
 *    from there to the end of the file, one header after the next, decompressing
 *    each STRINGS section (read_metadata_strings);
 *  - read_headers follows the options sections (each one's DONE option names the
 *    next: handle_options recurses, so a loop never ends), then reads the sections
 *    the options name (header info, formats, kallsyms, printk, cmdlines). A
 *    compressed section is decompressed whole into a malloc of the size it declares
 *    (tracecmd_uncompress_block);
 *  - tracecmd_init_data takes the top buffer's CPUs from its BUFFER option (arrays
 *    of highest CPU + 1 entries) and, when compressed, each CPU's chunk table: a
 *    count, then per chunk its compressed and uncompressed sizes and data. A chunk
 *    is decompressed whole into a malloc of its declared size when one of its pages
 *    is read, and 1.3 frees none before the handle closes (free_zpage's range test
 *    is never true): all the chunks' declared sizes end up in memory at once.
 *
 * The walk reads headers, option data and chunk tables, never compressed data
 * (but a compressed options section, decompressed within the metadata bound to
 * read its options). Where trace-cmd's own files always are (those of 3.1 and 3.3
 * were checked) it is stricter than libtracecmd, so that what it checked is what
 * libtracecmd will read: the sections tile the file from the header to its end, a
 * compressed section is its compression header and data, options end with DONE
 * inside their section, each options section comes after the one naming it, and
 * each CPU's data and chunk table lie inside its buffer's section.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <trace-cmd/trace-cmd.h>

#include "common/msg.h"
#include "decode/decode_int.h"
#include "decode/tracedat_check.h"

/* trace-cmd's option and section ids (trace-cmd-private.h, which Debian does not ship) */
enum {
	OPT_DONE = 0, OPT_DATE = 1, OPT_CPUSTAT = 2, OPT_BUFFER = 3, OPT_UNAME = 5,
	OPT_HOOK = 6, OPT_OFFSET = 7, OPT_CPUCOUNT = 8, OPT_VERSION = 9, OPT_PROCMAPS = 10,
	OPT_TIME_SHIFT = 12, OPT_GUEST = 13, OPT_STRINGS = 15, OPT_HEADER_INFO = 16,
	OPT_CMDLINES = 21, OPT_BUFFER_TEXT = 22,
};
#define NR_NAMED (OPT_CMDLINES - OPT_HEADER_INFO + 1) /* sections options point to */
#define COMPRESSED TRACECMD_SEC_FL_COMPRESS

#define MAGIC_LEN 10       /* "\x17\x08\x44tracing" */
#define SEC_HEADER 16      /* id 2, flags 2, description 4, size 8 */
#define BLOCK_HEADER 8     /* compressed size 4, uncompressed size 4 */
#define CPU_ENTRY 20       /* a BUFFER option's cpu 4, offset 8, size 8 */
/* zstd's densest block is 3 header bytes and one RLE byte for ZSTD_BLOCKSIZE_MAX
 * bytes; no compressor libtracecmd has expands more per byte (zlib: ~1032). */
#define MAX_RATIO (ZSTD_BLOCKSIZE_MAX / 4)
/* libtracecmd's read_string writes a byte past a string of BUFSIZ bytes or more */
#define STRING_MAX (BUFSIZ - 1)
#define WINDOW (64 << 10)  /* file bytes read at once: headers come in runs */
/*
 * Chunks libtracecmd holds: 1.3 frees no decompressed chunk before the file is
 * closed (free_zpage looks the chunk up at the wrong offset; fixed upstream in
 * trace-cmd 3.2, commit 1571b67c), so reading a v7 file costs all its flyrecord
 * data, uncompressed, in memory at once. trace-cmd's chunks (10 pages) of real
 * captures expand 5-30 fold; a small file may not cost more than HELD_SLACK.
 */
#define HELD_SLACK_MIB 64
#define HELD_RATIO 64

struct tdc_walk {
	struct dec *d;
	int fd;
	int err;               /* EBADMSG (why, at), or a read's or malloc's errno */
	uint64_t size;         /* the file's */
	bool big;              /* its byte order */
	bool compressed;       /* its compression is not "none" */
	char algorithm[32];
	uint64_t first;        /* the first section's offset */
	uint64_t meta;         /* metadata libtracecmd holds, against DEC_MAX_FILE_BYTES */
	uint64_t held;         /* chunks it holds until close, against held_max() */
	uint64_t named[NR_NAMED]; /* sections the options name (last one wins, as there) */
	bool has_named[NR_NAMED];
	uint64_t at;           /* where the problem is */
	char why[200];
	uint64_t win_off;      /* the file's bytes at win_off, win_len of them */
	size_t win_len;
	uint8_t win[WINDOW];
};

struct section {
	uint64_t off, end;     /* its header, the end of its data */
	unsigned id, flags;
};

static int bad(struct tdc_walk *w, uint64_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(struct tdc_walk *w, uint64_t at, const char *fmt, ...)
{
	va_list ap;

	w->err = EBADMSG;
	w->at = at;
	va_start(ap, fmt);
	vsnprintf(w->why, sizeof(w->why), fmt, ap);
	va_end(ap);
	return -1;
}

static uint64_t num(const struct tdc_walk *w, const uint8_t *p, int size)
{
	return dec_load_uint(p, size, w->big);
}

/* LEN (at most WINDOW) bytes of the file at OFF; NULL when the file ends before
 * (w->err 0) or cannot be read (w->err set). */
static const uint8_t *bytes_at(struct tdc_walk *w, uint64_t off, size_t len)
{
	if (off > w->size || len > w->size - off)
		return NULL;
	if (off < w->win_off || off - w->win_off + len > w->win_len) {
		size_t want = w->size - off < WINDOW ? w->size - off : WINDOW;
		ssize_t n = pread(w->fd, w->win, want, (off_t)off);

		w->win_len = 0;
		if (n < (ssize_t)len) {
			w->err = n < 0 ? errno : EIO;
			return NULL;
		}
		w->win_off = off;
		w->win_len = (size_t)n;
	}
	return w->win + (off - w->win_off);
}

/* The section whose header is at OFF, its data inside the file. */
static int section_at(struct tdc_walk *w, uint64_t off, struct section *s)
{
	const uint8_t *h = bytes_at(w, off, SEC_HEADER);
	uint64_t size;

	if (!h)
		return w->err ? -1 : bad(w, off, "a section header cut by the end of the file");
	s->off = off;
	s->id = num(w, h, 2);
	s->flags = num(w, h + 2, 2);
	size = num(w, h + 8, 8);
	if (size > w->size - off - SEC_HEADER)
		return bad(w, off, "section %u of %llu bytes runs past the end of the file (%llu "
			   "bytes)", s->id, (unsigned long long)size, (unsigned long long)w->size);
	s->end = off + SEC_HEADER + size;
	/* libtracecmd then reads the compression header's sizes as data */
	if ((s->flags & COMPRESSED) && !w->compressed)
		return bad(w, off, "section %u is flagged compressed in a file compressed with \"none\"",
			   s->id);
	return 0;
}

/* Metadata libtracecmd holds once read: strings, options, formats, kallsyms... */
static int keep(struct tdc_walk *w, uint64_t at, uint64_t bytes)
{
	w->meta += bytes;
	if (w->meta > DEC_MAX_FILE_BYTES)
		return bad(w, at, "metadata sections over " DEC_STR(DEC_MAX_FILE_MIB) " MiB in total");
	return 0;
}

/* A compressed block (section or chunk) at AT declaring RAW bytes from CSIZE: within
 * one block's bound, what CSIZE bytes can hold, and the capture set's budget. */
static int charge(struct tdc_walk *w, uint64_t at, const char *what, uint32_t csize, uint32_t raw)
{
	if (raw > DEC_MAX_BATCH_BYTES)
		return bad(w, at, "%s declares %u bytes, over the " DEC_STR(DEC_MAX_BATCH_MIB)
			   " MiB one block may expand to", what, raw);
	if (raw > (uint64_t)csize * MAX_RATIO)
		return bad(w, at, "%s declares %u bytes from %u compressed, more than zstd can "
			   "produce", what, raw, csize);
	w->d->scan_raw_bytes += raw;
	if (dec_over_budget(w->d))
		return bad(w, at, "compressed sections and chunks expand to over "
			   DEC_STR(DEC_MAX_EXPANSION) " times the file's size");
	return 0;
}

/*
 * A section libtracecmd reads whole (strings, options, what the options name):
 * kept, and when compressed its header checked and charged. *csize its compressed
 * bytes (0: not compressed), *raw its size once read.
 */
static int whole_section(struct tdc_walk *w, const struct section *s, const char *what,
			 uint32_t *csize, uint64_t *raw)
{
	uint64_t data = s->off + SEC_HEADER;
	const uint8_t *h;

	*csize = 0;
	*raw = s->end - data;
	if (!(s->flags & COMPRESSED))
		return keep(w, s->off, *raw);
	if (s->end - data < BLOCK_HEADER || !(h = bytes_at(w, data, BLOCK_HEADER)))
		return w->err ? -1 : bad(w, s->off, "%s shorter than its compression header", what);
	*csize = num(w, h, 4);
	*raw = num(w, h + 4, 4);
	/* libtracecmd reads on after csize bytes, not after the section */
	if (BLOCK_HEADER + (uint64_t)*csize != s->end - data)
		return bad(w, s->off, "%s holds %llu bytes but says %u are compressed", what,
			   (unsigned long long)(s->end - data - BLOCK_HEADER), *csize);
	if (charge(w, s->off, what, *csize, (uint32_t)*raw) < 0)
		return -1;
	/* libtracecmd mallocs the larger of the two */
	return keep(w, s->off, *raw > *csize ? *raw : *csize);
}

/* LEN bytes at OFF into a new buffer (LEN within the file: the caller checked). */
static uint8_t *read_alloc(struct tdc_walk *w, uint64_t off, size_t len)
{
	uint8_t *buf = malloc(len ? len : 1);
	size_t done = 0;

	if (!buf) {
		w->err = ENOMEM;
		return NULL;
	}
	while (done < len) {
		ssize_t n = pread(w->fd, buf + done, len - done, (off_t)(off + done));

		if (n <= 0) {
			w->err = n < 0 ? errno : EIO;
			free(buf);
			return NULL;
		}
		done += (size_t)n;
	}
	return buf;
}

/* An options section's data as libtracecmd reads it: decompressed if it is. */
static uint8_t *options_data(struct tdc_walk *w, const struct section *s, size_t *len)
{
	uint64_t raw;
	uint32_t csize;
	uint8_t *in, *out;
	size_t cap, n;

	if (whole_section(w, s, "an options section", &csize, &raw) < 0)
		return NULL;
	if (!(s->flags & COMPRESSED)) {
		*len = raw;
		return read_alloc(w, s->off + SEC_HEADER, raw);
	}
	if (strcmp(w->algorithm, "zstd")) {
		bad(w, s->off, "options compressed with \"%s\", which ftana cannot check",
		    w->algorithm);
		return NULL;
	}
	in = read_alloc(w, s->off + SEC_HEADER + BLOCK_HEADER, csize);
	cap = raw > csize ? raw : csize;
	out = in ? malloc(cap ? cap : 1) : NULL;
	if (in && !out)
		w->err = ENOMEM;
	n = out ? ZSTD_decompress(out, cap, in, csize) : 0;
	free(in);
	if (out && ZSTD_isError(n)) {
		bad(w, s->off, "an options section does not decompress (%s)", ZSTD_getErrorName(n));
		free(out);
		return NULL;
	}
	*len = n;
	return out;
}

static uint64_t held_max(const struct tdc_walk *w)
{
	return ((uint64_t)HELD_SLACK_MIB << 20) + HELD_RATIO * w->size;
}

/* A table of compressed chunks at OFF, inside section S (a CPU's flyrecord data, or
 * latency text): each chunk charged. */
static int chunks(struct tdc_walk *w, const struct section *s, uint64_t off)
{
	const uint8_t *p = s->end - off >= 4 ? bytes_at(w, off, 4) : NULL;
	uint64_t pos = off + 4;
	uint32_t count;

	if (!p)
		return w->err ? -1 : bad(w, off, "a chunk count cut by the end of its section");
	count = num(w, p, 4);
	if (count > (s->end - pos) / BLOCK_HEADER)
		return bad(w, off, "%u chunks declared where their section has room for %llu",
			   count, (unsigned long long)((s->end - pos) / BLOCK_HEADER));
	for (uint32_t i = 0; i < count; i++) {
		uint32_t csize;

		p = s->end - pos >= BLOCK_HEADER ? bytes_at(w, pos, BLOCK_HEADER) : NULL;
		if (!p)
			return w->err ? -1 : bad(w, pos, "chunk %u of %u cut by the end of its section",
						 i + 1, count);
		csize = num(w, p, 4);
		if (csize > s->end - pos - BLOCK_HEADER)
			return bad(w, pos, "chunk %u of %u: %u compressed bytes run past its section",
				   i + 1, count, csize);
		if (charge(w, pos, "a flyrecord chunk", csize, num(w, p + 4, 4)) < 0)
			return -1;
		w->held += num(w, p + 4, 4);
		if (w->held > held_max(w))
			return bad(w, pos, "its chunks expand to over %llu bytes, which libtracecmd "
				   "holds at once (" DEC_STR(HELD_SLACK_MIB) " MiB + "
				   DEC_STR(HELD_RATIO) " times the file's size)",
				   (unsigned long long)held_max(w));
		pos += BLOCK_HEADER + csize;
	}
	return 0;
}

/* A NUL-terminated string at *q in option O (LEN bytes); *q moves past it. */
static bool option_string(const uint8_t *o, size_t len, size_t *q)
{
	const uint8_t *nul = *q < len ? memchr(o + *q, 0, len - *q) : NULL;

	if (nul)
		*q = (size_t)(nul - o) + 1;
	return nul;
}

/* A BUFFER or BUFFER_TEXT option (handle_buffer_option), then the data it names. */
static int buffer_option(struct tdc_walk *w, uint64_t at, unsigned id, const uint8_t *o, size_t len)
{
	struct section s;
	size_t q = 8;
	uint32_t cpus;

	if (len < 8 || !option_string(o, len, &q) || !option_string(o, len, &q))
		return bad(w, at, "a buffer option without its offset, name and clock");
	if (section_at(w, num(w, o, 8), &s) < 0)
		return -1;
	if (id == OPT_BUFFER_TEXT) /* latency text: its chunks follow the section header */
		return s.flags & COMPRESSED ? chunks(w, &s, s.off + SEC_HEADER) : 0;
	if (len - q < 8)
		return bad(w, at, "a buffer option without its page size and CPU count");
	cpus = num(w, o + q + 4, 4);
	q += 8;
	/* libtracecmd callocs that many entries before it reads one */
	if (cpus > DEC_MAX_CPUS || (uint64_t)cpus * CPU_ENTRY > len - q)
		return bad(w, at, "a buffer option lists %u CPUs in %zu bytes (at most "
			   DEC_STR(DEC_MAX_CPUS) ")", cpus, len - q);
	for (uint32_t i = 0; i < cpus; i++, q += CPU_ENTRY) {
		uint32_t cpu = num(w, o + q, 4);
		uint64_t off = num(w, o + q + 4, 8), size = num(w, o + q + 12, 8);

		/* ... and then arrays of the highest CPU + 1 */
		if (cpu >= DEC_MAX_CPUS)
			return bad(w, at, "a buffer option names CPU %u (at most "
				   DEC_STR(DEC_MAX_CPUS) " CPUs)", cpu);
		if (!size)
			continue; /* an empty CPU: libtracecmd reads nothing of it */
		if (off < s.off + SEC_HEADER || off > s.end || size > s.end - off)
			return bad(w, at, "CPU %u's data (%llu bytes at offset %llu) is outside its "
				   "buffer's section", cpu, (unsigned long long)size,
				   (unsigned long long)off);
		if ((s.flags & COMPRESSED) && chunks(w, &s, off) < 0)
			return -1;
	}
	return 0;
}

/* TIME_SHIFT (tsync_cpu_offsets_load): per CPU a count, then three arrays of that
 * many 8-byte numbers; each count is calloc'ed before its arrays are read. */
static int time_shift_option(struct tdc_walk *w, uint64_t at, const uint8_t *o, size_t len)
{
	size_t q = 16;
	uint32_t cpus;

	if (len < 16)
		return 0; /* ignored there */
	cpus = num(w, o + 12, 4);
	if (cpus > (len - q) / 4)
		return bad(w, at, "a time shift option for %u CPUs in %zu bytes", cpus, len);
	for (uint32_t i = 0; i < cpus; i++) {
		uint32_t n = len - q >= 4 ? num(w, o + q, 4) : 0;

		if (len - q < 4 || n > (len - q - 4) / 24)
			return bad(w, at, "a time shift option with more samples than bytes");
		q += 4 + (size_t)n * 24;
	}
	return 0;
}

/* GUEST (trace_guest_load): a name, a trace id, a CPU count calloc'ed, the CPUs. */
static int guest_option(struct tdc_walk *w, uint64_t at, const uint8_t *o, size_t len)
{
	size_t q = 0;

	/* without its NUL, libtracecmd's size left goes negative and it reads on */
	if (!option_string(o, len, &q))
		return bad(w, at, "a guest option whose name is not NUL-terminated");
	if (len - q < 12)
		return 0; /* refused there before its count is used */
	if (num(w, o + q + 8, 4) > (len - q - 12) / 8)
		return bad(w, at, "a guest option with more CPUs than bytes");
	return 0;
}

/* PROCMAPS (trace_pid_map_load): "PID COUNT NAME" in hex, then COUNT lines,
 * calloc'ed before they are read. */
static int procmaps_option(struct tdc_walk *w, uint64_t at, const uint8_t *o, size_t len)
{
	unsigned pid, count, lines = 0;

	if (!len)
		return bad(w, at, "an empty process map option"); /* its byte before is read */
	if (o[len - 1] || sscanf((const char *)o, "%x %x", &pid, &count) != 2)
		return 0; /* ignored there */
	for (const uint8_t *p = o; (p = memchr(p, '\n', len - (size_t)(p - o))); p++)
		lines++;
	if (count > lines)
		return bad(w, at, "a process map option promising %u maps in %u lines", count, lines);
	return 0;
}

/* One option of the options section at AT. */
static int option(struct tdc_walk *w, uint64_t at, unsigned id, const uint8_t *o, size_t len)
{
	switch (id) {
	case OPT_BUFFER:
	case OPT_BUFFER_TEXT:
		return buffer_option(w, at, id, o, len);
	case OPT_CPUCOUNT: /* read as 4 bytes whatever its size */
		if (len < 4 || num(w, o, 4) > DEC_MAX_CPUS)
			return bad(w, at, "a CPU count option over " DEC_STR(DEC_MAX_CPUS) " CPUs");
		return 0;
	case OPT_CPUSTAT: /* its last byte is overwritten */
		return len ? 0 : bad(w, at, "an empty CPU statistics option");
	case OPT_DATE:
	case OPT_OFFSET:
	case OPT_UNAME:
	case OPT_VERSION:
	case OPT_HOOK: /* read as C strings */
		return memchr(o, 0, len) ? 0 : bad(w, at, "option %u is not NUL-terminated", id);
	case OPT_TIME_SHIFT:
		return time_shift_option(w, at, o, len);
	case OPT_GUEST:
		return guest_option(w, at, o, len);
	case OPT_PROCMAPS:
		return procmaps_option(w, at, o, len);
	}
	if (id >= OPT_HEADER_INFO && id <= OPT_CMDLINES && len >= 8) {
		w->named[id - OPT_HEADER_INFO] = num(w, o, 8);
		w->has_named[id - OPT_HEADER_INFO] = true;
	}
	return 0;
}

/* The options of section S (LEN bytes at P), up to DONE: *next its offset. */
static int options(struct tdc_walk *w, const struct section *s, const uint8_t *p, size_t len,
		   uint64_t *next)
{
	for (size_t q = 0;;) {
		unsigned id;
		uint32_t size;

		if (len - q < 6)
			return bad(w, s->off, "an options section that does not end with DONE");
		id = num(w, p + q, 2);
		size = num(w, p + q + 2, 4);
		q += 6;
		if (size > len - q)
			return bad(w, s->off, "option %u of %u bytes runs past its section", id, size);
		if (id == OPT_DONE) {
			if (size < 8)
				return bad(w, s->off, "a DONE option of %u bytes", size);
			*next = num(w, p + q, 8);
			return 0;
		}
		if (option(w, s->off, id, p + q, size) < 0)
			return -1;
		q += size;
	}
}

/* The options sections from OFF on, each DONE naming the next (0: none). */
static int walk_options(struct tdc_walk *w, uint64_t off)
{
	uint64_t prev = 0;

	while (off) {
		struct section s;
		uint8_t *data;
		size_t len;
		int rc;

		/* forward only: trace-cmd appends each next one; a chain going back may loop */
		if (off < w->first || off <= prev)
			return bad(w, prev, "the options sections %s (next at offset %llu)",
				   prev ? "go back" : "start in the header", (unsigned long long)off);
		if (section_at(w, off, &s) < 0)
			return -1;
		if (s.id != OPT_DONE)
			return bad(w, off, "section %u where options were expected", s.id);
		data = options_data(w, &s, &len);
		if (!data)
			return -1;
		prev = off;
		rc = options(w, &s, data, len, &off);
		free(data);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* The sections the options name, each read whole by libtracecmd. */
static int named_sections(struct tdc_walk *w)
{
	for (int i = 0; i < NR_NAMED; i++) {
		struct section s;
		uint64_t raw;
		uint32_t csize;

		if (!w->has_named[i])
			continue;
		if (section_at(w, w->named[i], &s) < 0)
			return -1;
		if (s.id != (unsigned)(OPT_HEADER_INFO + i))
			return bad(w, s.off, "section %u where an option names section %d", s.id,
				   OPT_HEADER_INFO + i);
		if (whole_section(w, &s, "a metadata section", &csize, &raw) < 0)
			return -1;
	}
	return 0;
}

/* Every section from the header to the end of the file, as read_metadata_strings
 * walks them: each within the file, the strings sections charged. */
static int walk_sections(struct tdc_walk *w)
{
	for (uint64_t off = w->first; off < w->size;) {
		struct section s;
		uint64_t raw;
		uint32_t csize;

		if (section_at(w, off, &s) < 0)
			return -1;
		if (s.id == OPT_STRINGS &&
		    whole_section(w, &s, "a strings section", &csize, &raw) < 0)
			return -1;
		off = s.end;
	}
	return 0;
}

/* A header string at *q (LEN bytes of header at H): shorter than STRING_MAX. 1: cut. */
static int header_string(struct tdc_walk *w, const uint8_t *h, size_t len, size_t *q,
			 const char *what)
{
	size_t room = len - *q < STRING_MAX + 1 ? len - *q : STRING_MAX + 1;
	const uint8_t *nul = memchr(h + *q, 0, room);

	if (nul) {
		*q = (size_t)(nul - h) + 1;
		return 0;
	}
	if (room > STRING_MAX)
		return bad(w, *q, "its %s runs over " DEC_STR(STRING_MAX) " bytes", what);
	return 1;
}

/*
 * The header, as tracecmd_alloc_fd reads it: 1 when the file is not sectioned
 * (libtracecmd takes a version of at most 7 as an unsigned int, sections from 7
 * on as an unsigned long), or cut before its version is known (libtracecmd says so).
 */
static int header(struct tdc_walk *w, uint64_t *options_at)
{
	size_t len = w->size < WINDOW ? w->size : WINDOW, q = MAGIC_LEN;
	const uint8_t *h = bytes_at(w, 0, len);
	const char *version, *algorithm;
	uint32_t page;
	long v;
	int rc;

	if (!h || len <= MAGIC_LEN)
		return h || !w->err ? 1 : -1;
	version = (const char *)h + q;
	rc = header_string(w, h, len, &q, "version string");
	if (rc)
		return rc;
	v = strtol(version, NULL, 10); /* as libtracecmd reads it, and compares it: */
	if ((unsigned int)v > 7 || (unsigned long)v < 7)
		return 1;
	if (len - q < 6)
		return bad(w, q, "the header is cut");
	if (h[q] > 1) /* libtraceevent would take any other value as "not this host's" */
		return bad(w, q, "byte order flag %u, neither 0 (little) nor 1 (big endian)", h[q]);
	w->big = h[q];
	page = num(w, h + q + 2, 4);
	/* libtracecmd divides by it and aligns to it */
	if (!page || (page & (page - 1)))
		return bad(w, q + 2, "page size %u is not a power of two", page);
	q += 6;
	algorithm = (const char *)h + q;
	if ((rc = header_string(w, h, len, &q, "compression name")) ||
	    (rc = header_string(w, h, len, &q, "compression version")))
		return rc > 0 ? bad(w, q, "the header is cut") : -1;
	if (len - q < 8)
		return bad(w, q, "the header is cut");
	snprintf(w->algorithm, sizeof(w->algorithm), "%s", algorithm);
	w->compressed = strcmp(algorithm, "none") != 0;
	*options_at = num(w, h + q, 8);
	w->first = q + 8;
	return 0;
}

int tracedat_check(struct dec *d, const char *version)
{
	struct tdc_walk *w = calloc(1, sizeof(*w));
	struct stat st;
	uint64_t first_options = 0;
	int rc = -1, err;

	if (!w) {
		msg_error("%s: out of memory", d->path);
		errno = ENOMEM;
		return -1;
	}
	w->d = d;
	w->fd = open(d->path, O_RDONLY | O_CLOEXEC);
	if (w->fd >= 0 && fstat(w->fd, &st) == 0) {
		w->size = (uint64_t)st.st_size;
		d->scan_file_bytes += w->size; /* the set's budget grows with its files */
		rc = header(w, &first_options);
		if (rc == 0 && (walk_sections(w) < 0 || walk_options(w, first_options) < 0 ||
				named_sections(w) < 0))
			rc = -1;
	} else {
		w->err = errno;
	}
	if (w->fd >= 0)
		close(w->fd);
	err = w->err ? w->err : EIO;
	if (rc < 0 && err == EBADMSG)
		msg_error("%s: damaged trace.dat (v%s) at offset %llu: %s", d->path, version,
			  (unsigned long long)w->at, w->why);
	else if (rc < 0 && err == ENOMEM)
		msg_error("%s: out of memory", d->path);
	else if (rc < 0)
		msg_error_errno(err, "%s: cannot read it", d->path);
	free(w);
	errno = err;
	return rc < 0 ? -1 : 0;
}
