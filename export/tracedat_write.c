// SPDX-License-Identifier: MIT
/*
 * tracedat_write.c - `ftana convert`: a .ftz written as trace-cmd's trace.dat,
 * version 6 (man 5 trace-cmd.dat.v6), so that trace-cmd report and KernelShark
 * open our captures.
 *
 * Written here rather than through libtracecmd: Debian 12's libtracecmd (3.1.6)
 * installs no output API in its header (tracecmd_output_* are exported symbols
 * of its private header only), and that API reads the formats, kallsyms and
 * cmdlines from a live tracefs directory, where ours are in the capture. Version 6
 * is the layout every trace-cmd reads, and it is simple: the capture's own
 * metadata files in order, then each CPU's sub-buffers, unchanged, one run per
 * CPU at a page-aligned offset. The sub-buffers stay in the traced kernel's byte
 * order and so does every number of the file (its endian byte says which).
 *
 * The .ftz interleaves CPUs; trace.dat wants each CPU's pages in one run. A first
 * pass reads every section (so damage anywhere, a bad zstd frame included, is
 * known before anything is written) and lists each CPU's batches; the second
 * writes CPU after CPU, re-reading only the listed batches. Memory stays one batch.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/out_file.h"
#include "decode/capture_set.h"
#include "decode/decode.h"
#include "decode/tep_guard.h"
#include "export/export.h"
#include "export/tracedat_comms.h"
#include "export/tracedat_guard.h"
#include "format/ftz.h"


/* trace.dat v6 option ids (trace-cmd's enum; readers skip ids they do not know). */
enum { OPT_DONE = 0, OPT_CPUSTAT = 2, OPT_TRACECLOCK = 4, OPT_UNAME = 5 };

struct cpu_batches {
	uint64_t *offsets; /* PAGES sections of this CPU, in file order */
	size_t nr, cap;
};

struct tdw {
	const char *in;
	struct dec *dec;
	struct ftz_reader *r;
	FILE *f;
	bool big_endian;
	int long_size;
	uint32_t page_size;          /* sub-buffer size: trace.dat's "page size" */
	unsigned nr_cpus;
	struct cpu_batches *cpus;
	bool damaged;
	uint64_t damage_offset;
	char damage_reason[160];
	struct tdg *guard;           /* event types printing crashes (tracedat_guard.c) */
	char *cmdlines;              /* saved_cmdlines to write (tracedat_comms.c) */
	size_t cmdlines_len;
	uint8_t *batch;              /* the second pass's one batch */
	size_t batch_cap;
};

/* --- numbers in the file's byte order --- */

static void put_uint(struct tdw *w, uint64_t v, int size)
{
	uint8_t b[8];

	for (int i = 0; i < size; i++)
		b[w->big_endian ? size - 1 - i : i] = (uint8_t)(v >> (8 * i));
	fwrite(b, 1, size, w->f);
}

static void put_u16(struct tdw *w, uint16_t v) { put_uint(w, v, 2); }
static void put_u32(struct tdw *w, uint32_t v) { put_uint(w, v, 4); }
static void put_u64(struct tdw *w, uint64_t v) { put_uint(w, v, 8); }

static void put_bytes(struct tdw *w, const void *p, size_t len)
{
	if (len)
		fwrite(p, 1, len, w->f);
}

/* A file of the capture: its size in SIZE_BYTES bytes, then its data ("" when absent). */
static void put_file(struct tdw *w, const char *name, int size_bytes)
{
	size_t len = 0;
	const char *data = dec_file(w->dec, name, -1, &len);

	if (!data)
		len = 0;
	put_uint(w, len, size_bytes);
	put_bytes(w, data, len);
}

/* --- the metadata --- */

static bool is_system(const char *name, const char *sys, size_t sys_len)
{
	size_t len;
	const char *s = tdg_format_system(name, &len);

	return s && len == sys_len && !memcmp(s, sys, len);
}

/* Formats of system SYS (its first file at index FIRST), as count + (size, text)... */
static void put_system_formats(struct tdw *w, size_t first, const char *sys, size_t sys_len,
			       int count_bytes)
{
	size_t n = dec_nr_files(w->dec), count = 0, len;
	const char *text;
	char *owned = NULL;

	for (size_t i = first; i < n; i++) {
		const struct dec_file *f = dec_file_at(w->dec, i);

		if (is_system(f->name, sys, sys_len) && tdg_format_to_write(w->guard, f, &text, &len, &owned))
			count++;
		free(owned);
		owned = NULL;
	}
	put_uint(w, count, count_bytes);
	for (size_t i = first; i < n; i++) {
		const struct dec_file *f = dec_file_at(w->dec, i);

		if (is_system(f->name, sys, sys_len) && tdg_format_to_write(w->guard, f, &text, &len, &owned)) {
			put_u64(w, len);
			put_bytes(w, text, len);
		}
		free(owned);
		owned = NULL;
	}
}

/* The ftrace system's formats, then every other system's, each system once. */
static void put_formats(struct tdw *w)
{
	size_t n = dec_nr_files(w->dec), nr_systems = 0;

	put_system_formats(w, 0, "ftrace", 6, 4);
	/* a system is counted and written at its first format file */
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			put_u32(w, (uint32_t)nr_systems);
		for (size_t i = 0; i < n; i++) {
			const struct dec_file *f = dec_file_at(w->dec, i);
			size_t len;
			const char *sys = tdg_format_system(f->name, &len);
			bool first = sys && !(len == 6 && !memcmp(sys, "ftrace", 6));

			for (size_t j = 0; first && j < i; j++)
				first = !is_system(dec_file_at(w->dec, j)->name, sys, len);
			if (!first)
				continue;
			if (!pass) {
				nr_systems++;
				continue;
			}
			put_bytes(w, sys, len);
			put_bytes(w, "", 1);
			put_system_formats(w, i, sys, len, 4);
		}
	}
}

static void put_option(struct tdw *w, uint16_t id, const char *data, size_t len)
{
	put_u16(w, id);
	put_u32(w, (uint32_t)len);
	put_bytes(w, data, len);
}

/* Options trace-cmd shows: the clock (so it prints timestamps as that clock's), the
 * kernel (uname), and each CPU's kernel counters at the end (report --stat). */
static void put_options(struct tdw *w)
{
	const char *info = dec_info_text(w->dec);
	char clock[64], text[1024], name[64];
	char *s = NULL;
	int n;

	put_bytes(w, "options  ", 10);
	if (ftz_kv_get(info, strlen(info), "clock", clock, sizeof(clock)) > 0) {
		n = snprintf(text, sizeof(text), "[%s]\n", clock);
		put_option(w, OPT_TRACECLOCK, text, (size_t)n + 1);
	}
	n = 0;
	for (const char *const *k = (const char *const[]){ "uname_sysname", "hostname",
		"uname_release", "uname_version", "uname_machine", NULL }; *k; k++) {
		char v[256];

		if (ftz_kv_get(info, strlen(info), *k, v, sizeof(v)) < 0)
			v[0] = 0;
		/* each value after a space; the first space is left out below */
		n += snprintf(text + n, sizeof(text) - (size_t)n, " %s", v);
		if ((size_t)n >= sizeof(text))
			n = sizeof(text) - 1;
	}
	put_option(w, OPT_UNAME, text + 1, strlen(text + 1) + 1);
	for (unsigned cpu = 0; cpu < w->nr_cpus; cpu++) {
		size_t len;
		const char *stats;

		snprintf(name, sizeof(name), "per_cpu/cpu%u/stats", cpu);
		stats = dec_file(w->dec, name, FTZ_PHASE_END, &len);
		if (!stats || asprintf(&s, "CPU: %u\n%.*s", cpu, (int)len, stats) < 0)
			continue;
		put_option(w, OPT_CPUSTAT, s, strlen(s) + 1);
		free(s);
	}
	put_u16(w, OPT_DONE);
}

static void put_header(struct tdw *w)
{
	put_bytes(w, "\x17\x08\x44tracing6", 12); /* the version is "6\\0" */
	put_bytes(w, (const uint8_t[]){ w->big_endian, (uint8_t)w->long_size }, 2);
	put_u32(w, w->page_size);
	put_bytes(w, "header_page", 12);
	put_file(w, "events/header_page", 8);
	put_bytes(w, "header_event", 13);
	put_file(w, "events/header_event", 8);
	put_formats(w);
	put_file(w, "/proc/kallsyms", 4);
	put_file(w, "printk_formats", 4);
	put_u64(w, w->cmdlines_len);
	put_bytes(w, w->cmdlines, w->cmdlines_len);
	put_u32(w, w->nr_cpus);
	put_options(w);
	put_bytes(w, "flyrecord", 10);
}

/* --- the pages --- */

static void set_damage(struct tdw *w, uint64_t offset, const char *why)
{
	if (w->damaged)
		return;
	w->damaged = true;
	w->damage_offset = offset;
	snprintf(w->damage_reason, sizeof(w->damage_reason), "%.150s", why ? why : "damaged");
}

static int add_batch(struct tdw *w, const struct ftz_section *sec, const struct ftz_pages *p)
{
	struct cpu_batches *c = &w->cpus[p->cpu];

	if (c->nr == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		uint64_t *n = realloc(c->offsets, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->offsets = n;
		c->cap = cap;
	}
	c->offsets[c->nr++] = sec->offset;
	return 0;
}

/* First pass: every section read (decompressed and checked), each CPU's batches
 * listed, up to the first damage (ours, or the decoder's: it also bounds sizes). */
static int index_batches(struct tdw *w)
{
	uint64_t dec_damage_at = UINT64_MAX;
	const char *why = NULL;
	struct ftz_section sec;
	int st;

	if (dec_damage(w->dec, &dec_damage_at, &why))
		set_damage(w, dec_damage_at, why);
	while ((st = ftz_reader_next(w->r, &sec, true)) == FTZ_READ_OK) {
		struct ftz_pages p;

		if (sec.offset >= dec_damage_at)
			break;
		if (sec.type != FTZ_SEC_PAGES || !sec.data)
			continue;
		if (ftz_parse_pages(&sec, &p) < 0 || p.cpu >= w->nr_cpus) {
			set_damage(w, sec.offset, "PAGES section unreadable");
			break;
		}
		if (w->page_size && p.page_size != w->page_size) {
			/* trace.dat has one page size for all CPUs */
			set_damage(w, sec.offset, "sub-buffer size changes inside the capture");
			break;
		}
		w->page_size = p.page_size;
		if (add_batch(w, &sec, &p) < 0) {
			msg_error("out of memory");
			return -1;
		}
	}
	if (st == FTZ_READ_DAMAGE) {
		uint64_t at = ftz_reader_damage(w->r, &why);

		set_damage(w, at, why);
	}
	return 0;
}

/* Is the page's commit field possible? trace-cmd's kbuffer trusts it. */
static bool page_ok(const struct tdw *w, const uint8_t *page)
{
	uint64_t commit = 0;
	unsigned hdr = 8 + (unsigned)w->long_size;

	if (w->page_size < hdr)
		return false;
	for (int i = 0; i < w->long_size; i++)
		commit |= (uint64_t)page[8 + (w->big_endian ? w->long_size - 1 - i : i)] << (8 * i);
	return (commit & FTZ_RB_COMMIT_MASK) <= w->page_size - hdr;
}

/* One CPU's pages, from the current (page-aligned) position; their byte count in *size. */
static int put_cpu_pages(struct tdw *w, unsigned cpu, uint64_t *size, uint64_t *bad_pages)
{
	const struct cpu_batches *c = &w->cpus[cpu];

	*size = 0;
	for (size_t i = 0; i < c->nr; i++) {
		struct ftz_section sec;
		struct ftz_pages p;
		const char *why = NULL;

		if (ftz_reader_read_at(w->r, c->offsets[i], &sec, &w->batch, &w->batch_cap,
				       &why) != FTZ_READ_OK || ftz_parse_pages(&sec, &p) < 0) {
			/* it was read in the first pass: the file changed under us */
			msg_error("%s: changed while being read (%s)", w->in, why ? why : "PAGES");
			return -1;
		}
		for (uint32_t pg = 0; pg < p.nr_pages; pg++) {
			const uint8_t *page = p.pages + (size_t)pg * p.page_size;

			if (!page_ok(w, page)) {
				(*bad_pages)++;
				continue;
			}
			put_bytes(w, page, p.page_size);
			*size += p.page_size;
		}
	}
	return 0;
}

/* The flyrecord table (offset, size per CPU) is written as zeros, then filled in. */
static int put_cpu_data(struct tdw *w)
{
	long table = ftell(w->f);
	uint64_t bad_pages = 0;

	for (unsigned cpu = 0; cpu < w->nr_cpus; cpu++) {
		put_u64(w, 0);
		put_u64(w, 0);
	}
	for (unsigned cpu = 0; cpu < w->nr_cpus; cpu++) {
		long at = ftell(w->f), aligned;
		uint64_t size;

		if (at < 0)
			return -1;
		aligned = (at + (long)w->page_size - 1) / (long)w->page_size * (long)w->page_size;
		while (at++ < aligned)
			fputc(0, w->f);
		if (put_cpu_pages(w, cpu, &size, &bad_pages) < 0)
			return -1;
		if (fseek(w->f, table + 16L * cpu, SEEK_SET) < 0)
			return -1;
		put_u64(w, size ? (uint64_t)aligned : 0);
		put_u64(w, size);
		if (fseek(w->f, 0, SEEK_END) < 0)
			return -1;
	}
	if (bad_pages)
		msg_warn_at(w->in, "%llu sub-buffer%s with an impossible size left out",
			     (unsigned long long)bad_pages, bad_pages == 1 ? "" : "s");
	return 0;
}

/* --- the command's work --- */

/* 0, or -1 after an error (*damaged: the capture is damaged before anything). */
static int open_input(struct tdw *w, bool *damaged)
{
	char err[512], v[16];
	const char *info;

	w->r = ftz_reader_open(w->in, err, sizeof(err));
	if (!w->r) {
		return msg_error("%s", err);
	}
	w->dec = dec_open(w->in);
	if (!w->dec) { /* it said why */
		*damaged = errno == EBADMSG;
		return -1;
	}
	/* the probe (tracedat_guard.c) forks while this decoder is walked: no thread of
	 * it may hold a lock the child needs (convert hung so in CI: the read-ahead thread
	 * held ASan's allocator lock at the fork, the child waited for it forever) */
	dec_single_thread(w->dec);
	info = dec_info_text(w->dec);
	/* a ring's head holds no pages: its events are in the segments beside it, which
	 * this writer does not read (an empty trace.dat and exit 0 was what it gave) */
	if (ftz_kv_get(info, strlen(info), "ring_prefix", v, sizeof(v)) > 0)
		return msg_error("%s: the head of a flight-recorder ring: its events are in its "
				 "segments, which convert does not join (one .ftz file only; 'ftana db' "
				 "and the reports read the ring)", w->in);
	w->big_endian = ftz_kv_get(info, strlen(info), "endian", v, sizeof(v)) > 0 &&
			!strcmp(v, "big");
	w->long_size = dec_long_size(w->dec);
	w->nr_cpus = dec_stats(w->dec)->nr_cpus;
	w->cpus = calloc(w->nr_cpus ? w->nr_cpus : 1, sizeof(*w->cpus));
	if (!w->cpus) {
		return msg_error("out of memory");
	}
	return 0;
}

static void close_input(struct tdw *w)
{
	for (unsigned cpu = 0; w->cpus && cpu < w->nr_cpus; cpu++)
		free(w->cpus[cpu].offsets);
	free(w->cpus);
	free(w->batch);
	free(w->cmdlines);
	tdg_free(w->guard);
	if (w->dec)
		dec_close(w->dec);
	if (w->r)
		ftz_reader_close(w->r);
}

int tracedat_convert(const char *in, const char *out, bool *damaged)
{
	struct tdw w = { .in = in };
	struct out_file o;
	bool db_warned = false;
	int rc;

	*damaged = false;
	if (cset_check_regular(in) < 0) /* (a FIFO would block the sniff below) */
		return -1;
	if (dec_path_is_tracedat(in))
		return msg_error("%s: is a trace-cmd trace.dat already: nothing to convert", in);
	rc = open_input(&w, damaged);
	if (rc == 0 && index_batches(&w) < 0)
		rc = -1;
	if (rc == 0 && !w.page_size) {
		char v[32];
		const char *info = dec_info_text(w.dec);

		/* no pages: the recorded sub-buffer size, for a file trace-cmd still opens */
		w.page_size = ftz_kv_get(info, strlen(info), "subbuf_size", v, sizeof(v)) > 0 ?
			      (uint32_t)strtoul(v, NULL, 10) : 4096;
		if (w.page_size < 64 || w.page_size > (1u << 24))
			w.page_size = 4096;
	}
	if (rc == 0 &&
	    !(w.cmdlines = tracedat_cmdlines(w.dec, in, &w.cmdlines_len, &db_warned))) {
		msg_error("out of memory");
		rc = -1;
	}
	/* after the comms: the database is built (or found) first, so that a capture too
	 * hostile to import fails there, before every event is printed here */
	if (rc == 0 && !(w.guard = tdg_probe(w.dec, w.page_size, in)))
		rc = -1;
	if (rc == 0 && out_open(&o, out, in) < 0)
		rc = -1;
	if (out_is_stdout(out))
		out = "standard output"; /* (what the messages below call it) */
	if (rc == 0) {
		w.f = o.f;
		put_header(&w);
		if (put_cpu_data(&w) < 0 || ferror(w.f)) {
			if (ferror(w.f))
				msg_error("%s: cannot write: %s", out, strerror(errno));
			out_abort(&o);
			rc = -1;
		} else if (out_commit(&o) < 0) {
			rc = -1;
		}
	}
	if (rc == 0 && w.damaged) {
		/* one warning: the database's, when it found the damage too */
		if (!db_warned)
			msg_warn_at(in, "damaged at offset %llu (%s): %s holds what came before",
				     (unsigned long long)w.damage_offset, w.damage_reason, out);
		*damaged = true;
	}
	close_input(&w);
	return rc;
}
