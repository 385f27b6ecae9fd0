/* SPDX-License-Identifier: MIT */
/*
 * decode.h - events of a .ftz in global time order, decoded by libtraceevent.
 *
 * dec_open() reads the metadata (INFO, END, FILE sections) into a tep handle --
 * the file's own header_page, every events/<sys>/<ev>/format, kallsyms,
 * printk_formats, saved_cmdlines -- and indexes the PAGES sections per CPU.
 * dec_next() then merges the CPUs by timestamp (k-way merge over one cursor per
 * CPU; each cursor holds one decompressed batch, so memory does not grow with the
 * trace). The ring-buffer pages are walked by libtraceevent's kbuffer only.
 *
 * Whatever a file declares, memory stays bounded (FORMAT.md 6.1): at most 64 MiB
 * per section decoded, 128 MiB of FILE data kept, 1 GiB of batches held by all
 * cursors together, 1 GiB + 1024 x the file size decoded in all (which bounds
 * the time too); all cursors share one file descriptor. Crossing a bound is
 * damage at that section, like a bad checksum.
 *
 * A trace-cmd trace.dat (found by its magic) is read the same way through
 * libtracecmd instead (decode_tracedat.c): same events, same order, same tep.
 *
 *	struct dec *d = dec_open(path);      // NULL: the error was said (common/msg.h)
 *	struct dec_event ev;
 *	while (dec_next(d, &ev) > 0)
 *		tep_print_event(dec_tep(d), &seq, ev.record, "%s", TEP_PRINT_INFO);
 *	if (dec_damage(d, &off, &why)) ...   // damaged: what came before is good
 *	dec_close(d);
 */
#ifndef DECODE_H
#define DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <traceevent/event-parse.h>

struct dec;

struct dec_event {
	struct tep_event *event;    /* NULL when the file carries no format for type_id */
	struct tep_record *record;  /* cpu, ts, data, size; valid until the next dec_next */
	int type_id;                /* common_type */
	int cpu;
	unsigned long long ts;      /* trace clock, ns (same as record->ts) */
	/*
	 * Loss reported by the sub-buffer this event is the FIRST event of
	 * (read from the page at the kernel's width): 0 none, > 0 events lost before this page,
	 * -1 lost but the kernel did not store how many. 0 for later events of the page.
	 */
	int64_t missed;
	uint64_t section_offset;    /* file offset of the PAGES section holding the event */
	/*
	 * The event's number among the events of the counted types (dec_select) in
	 * merged order over the whole capture, 1 for the first; for an event of a type
	 * not counted, the number of the last counted event before it. The same for an
	 * event whatever dec_select delivers.
	 */
	uint64_t seq;
	uint64_t cpu_prev_seq;      /* seq of the last counted event before it on its CPU, 0 none */
	bool prev_skipped;          /* ... and that event was not handed out */
};

/* Totals known right after dec_open (from the section index). */
struct dec_stats {
	unsigned nr_cpus;           /* highest PAGES cpu + 1 (at least INFO nr_cpus) */
	uint64_t nr_sections;       /* PAGES sections */
	uint64_t nr_pages;          /* sub-buffers in them */
	uint64_t raw_bytes;         /* their decompressed size */
	uint64_t stored_bytes;      /* their size in the file */
	uint64_t file_size;
	uint32_t page_size;
	bool end_seen;              /* an END section (clean stop) */
	uint64_t bad_pages;         /* pages whose commit field or records are impossible
				     * (FORMAT.md 4.3.1): dropped whole (grows during
				     * dec_next) */
};

/*
 * Open PATH and load its metadata. NULL after a one-line error naming the file
 * (common/msg.h: "not an .ftz file", missing header_page, ...); errno is then
 * EBADMSG when that is because the file is damaged before its metadata is
 * complete (the error says where), another value otherwise. A file damaged later
 * opens fine: dec_damage() tells where reading will stop.
 */
struct dec *dec_open(const char *path);
/*
 * The same for a capture made of several files: a ring's head (dec_open finds its
 * segments itself) or the files of a --rotate series given together (capture_set.h
 * checks they are one capture). Their pages are merged as one; INFO is the first
 * file's, END the last one's with the set's keys after it (segments, segment_gaps,
 * ring_trimmed_*) and segment_stats_N per file once dec_next is done; damage in
 * one file ends the capture there (its reason names the file).
 */
struct dec *dec_open_set(const char *const *paths, size_t n);
/* Do the first LEN bytes of a file say trace-cmd's trace.dat? */
bool dec_is_tracedat(const void *head, size_t len);
/* Does the file PATH say so? (false when it cannot be read) */
bool dec_path_is_tracedat(const char *path);
/*
 * Decode on the calling thread only, from now on (no read-ahead threads, prefetch.c;
 * any running end): for a process that forks while it decodes. A child of a process
 * with other threads may find a lock one of them held (the allocator's, under ASan)
 * taken forever.
 */
void dec_single_thread(struct dec *d);
void dec_close(struct dec *d);

/* Next event in global time order (ties: lower CPU first). 1: *ev filled,
 * 0: no more events (clean end, or damage reached: see dec_damage). */
int dec_next(struct dec *d, struct dec_event *ev);

/*
 * Which events dec_next hands out, as bitmaps of 65536 bits indexed by type id
 * (DEC_TYPE_SET / DEC_TYPE_HAS), before the first dec_next:
 *   DELIVER  the types handed out (NULL: every event, the default);
 *   COUNT    the types ev->seq numbers (NULL: none).
 * Every event is still merged and counted, so a pass over a few types numbers
 * events as a pass over all of them does; the ones not handed out cost reading
 * their record header, not their fields. Handed out whatever their type: an event
 * carrying a loss (ev->missed != 0), and a kernel_stack event (the stacks of
 * skipped events included: ev->prev_skipped says). The bitmaps must live until
 * dec_close.
 */
#define DEC_TYPE_WORDS (65536 / 64)
#define DEC_TYPE_SET(map, id) ((map)[(id) >> 6] |= 1ull << ((id) & 63))
#define DEC_TYPE_HAS(map, id) (((map)[(id) >> 6] >> ((id) & 63)) & 1)
void dec_select(struct dec *d, const uint64_t *deliver, const uint64_t *count);
/* Events merged so far per type id (handed out or not): 65536 counts. */
const uint64_t *dec_type_counts(const struct dec *d);
/* The counted events merged so far; the time of the first of them and of the last
 * event merged (of any type). */
uint64_t dec_span(const struct dec *d, uint64_t *first_ts, uint64_t *last_ts);
/* The same for one CPU: its counted events merged so far, its first and last. */
uint64_t dec_cpu_span(const struct dec *d, unsigned cpu, uint64_t *first_ts, uint64_t *last_ts);

/* Pages consumed so far by dec_next (for progress output). */
uint64_t dec_pages_done(const struct dec *d);

/* True when the file is damaged; *offset and *reason (may be NULL) say where/why.
 * Damage is found by dec_open's index pass, which checks and decompresses every
 * section, so no event of a section after it is handed out (FORMAT.md 6); dec_next
 * adds only the batch memory limit. A corrupt page is not damage: it is dropped
 * and counted in dec_stats' bad_pages. */
bool dec_damage(const struct dec *d, uint64_t *offset, const char **reason);

struct tep_handle *dec_tep(const struct dec *d);
const struct dec_stats *dec_stats(const struct dec *d);
int dec_long_size(const struct dec *d);

/* INFO / END "key=value\n" text ("" when absent). */
const char *dec_info_text(const struct dec *d);
const char *dec_end_text(struct dec *d); /* not const: a set builds it */

/* FILE snapshots, in file order (a later one of the same name and phase replaces
 * an earlier one). dec_file returns the data of NAME in PHASE (0 START, 1 END,
 * -1 either of those, END preferred), or NULL; a hash lookup. The data is len bytes, may
 * hold NULs, and has a NUL after them; it stays valid until dec_close. */
struct dec_file {
	int phase;
	const char *name;
	const char *data;
	size_t len;
};
size_t dec_nr_files(const struct dec *d);
const struct dec_file *dec_file_at(const struct dec *d, size_t i);
const char *dec_file(const struct dec *d, const char *name, int phase, size_t *len);
/* saved_cmdlines TEXT ("PID COMM" lines, up to its first NUL) with each COMM cut at 64
 * bytes (the kernel's have 15): what ftana gives libtraceevent, from a .ftz or a
 * trace.dat, and writes into a trace.dat. malloc'd; NULL out of memory. */
char *dec_cmdlines_capped(const char *text);

/*
 * SNAPSHOT sections (files read while tracing: the function profiler's tables),
 * in file order up to any damage. They are read again from the file here rather
 * than kept since dec_open, as a long profile holds many rounds. Stops at the first
 * non-zero return of fn and returns it; -errno if the file cannot be read again.
 */
struct ftz_snapshot;
typedef int (*dec_snapshot_fn)(void *ctx, const struct ftz_snapshot *snap);
int dec_for_each_snapshot(struct dec *d, dec_snapshot_fn fn, void *ctx);

#endif /* DECODE_H */
