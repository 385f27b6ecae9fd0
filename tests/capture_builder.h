/* SPDX-License-Identifier: MIT */
/*
 * capture_builder.h - write small synthetic .ftz captures for tests: event formats
 * given as text (any names, any field layout, hostile ones included) and records
 * given as bytes, packed into ring-buffer sub-buffers by hand, independently of
 * the decoder under test (layout: the kernel's ring_buffer.c, 64-bit longs,
 * little-endian host).
 *
 *   struct cb_capture *c = cb_open("/tmp/x.ftz");
 *   cb_format(c, "sched", "my_event", text);            one per event type
 *   uint8_t *r = cb_record(c, 100, 4242, 24);            common_type, common_pid, size
 *   ... fill r[8..23] ...
 *   cb_lose(c, 5000000007);        the next record opens a page flagged with that loss
 *   cb_close(c);                                         0 on success
 */
#ifndef CAPTURE_BUILDER_H
#define CAPTURE_BUILDER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/ftz.h"

#define CB_PAGE 4096
#define CB_PAGE_HDR 16 /* u64 timestamp, local_t commit */

static const char cb_header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

/* The four common fields every format starts with; common_pid's size varies. */
#define CB_COMMON(pid_size) \
	"format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:" pid_size ";\tsigned:1;\n\n"

struct cb_capture {
	struct ftz_writer *w;
	uint8_t *pages;         /* CPU 0's sub-buffers, written at close */
	size_t nr_pages;
	size_t used;            /* bytes of event data in the last page */
	uint64_t ts;
	int failed;
	uint64_t lost_flags;    /* the last page's loss bits (commit bits 31/30) */
	uint64_t lost_count;    /* ... and the count stored after its data */
	int lose_next;          /* cb_lose: the next record starts a flagged page */
	uint64_t lose_count;
	int lose_stored;
};

/* The kernel's loss flags in a sub-buffer's commit (ring_buffer.c). */
#define CB_MISSED_EVENTS (1ull << 31)
#define CB_MISSED_STORED (1ull << 30)

static __attribute__((unused)) struct cb_capture *cb_open(const char *path)
{
	struct cb_capture *c = calloc(1, sizeof(*c));
	char err[256];

	if (!c)
		return NULL;
	c->w = ftz_writer_create(path, err, sizeof(err));
	c->ts = 1000000;
	if (!c->w || ftz_write_info(c->w, FTZ_SEC_INFO,
				    "ftz_version=1.0\nhostname=builder\nuname_sysname=Linux\n"
				    "long_size=8\nendian=little\nclock=local\nnr_cpus=1\n"
				    "subbuf_size=4096\npage_size=4096\ncmdline=capture_builder\n") ||
	    ftz_write_file(c->w, FTZ_PHASE_START, "events/header_page", cb_header_page,
			   strlen(cb_header_page))) {
		if (c->w)
			ftz_writer_close(c->w);
		free(c);
		return NULL;
	}
	return c;
}

/* The format file of SYSTEM:DIR (DIR: the event's directory; its name is in TEXT). */
static void cb_format(struct cb_capture *c, const char *system, const char *dir, const char *text)
{
	size_t len = strlen(system) + strlen(dir) + 32;
	char *name = malloc(len);

	snprintf(name, len, "events/%s/%s/format", system, dir);
	c->failed |= ftz_write_file(c->w, FTZ_PHASE_START, name, text, strlen(text)) != 0;
	free(name);
}

static void cb_finish_page(struct cb_capture *c)
{
	uint8_t *p = c->pages + (c->nr_pages - 1) * CB_PAGE;
	uint64_t commit = c->used | c->lost_flags;

	memcpy(p + 8, &commit, 8);
	/* the count goes right after the data, an unsigned long wide (8 bytes here) */
	if (c->lost_flags & CB_MISSED_STORED)
		memcpy(p + CB_PAGE_HDR + c->used, &c->lost_count, 8);
}

/* Events were lost before the next record: it opens a new page whose commit says so,
 * with COUNT stored after the page's data (count < 0: flagged, no count stored). */
static __attribute__((unused)) void cb_lose(struct cb_capture *c, int64_t count)
{
	c->lose_next = 1;
	c->lose_stored = count >= 0;
	c->lose_count = count >= 0 ? (uint64_t)count : 0;
}

/*
 * A record of SIZE bytes (a multiple of 4, at most 112: one header word, no
 * extended length) with common_type TYPE and a 4-byte common_pid PID, 1 us after
 * the last one. Returns its bytes for the caller to fill past offset 8.
 */
static uint8_t *cb_record(struct cb_capture *c, uint16_t type, int32_t pid, uint32_t size)
{
	static uint8_t junk[112]; /* returned after a failure: the caller may still write */
	uint32_t header = size / 4 | 1000u << 5; /* type_len = size / 4, time_delta 1000 ns */
	uint8_t *p;

	if (size % 4 || size > 112 || size < 8) {
		c->failed = 1;
		return junk;
	}
	/* a page that stores a lost count keeps 8 bytes for it after the data */
	size_t room = CB_PAGE - CB_PAGE_HDR - ((c->lost_flags & CB_MISSED_STORED) ? 8 : 0);

	if (!c->nr_pages || c->lose_next || c->used + 4 + size > room) {
		uint8_t *n;

		if (c->nr_pages)
			cb_finish_page(c);
		n = realloc(c->pages, (c->nr_pages + 1) * CB_PAGE);
		if (!n) {
			c->failed = 1;
			return junk;
		}
		c->pages = n;
		memset(c->pages + c->nr_pages * CB_PAGE, 0, CB_PAGE);
		memcpy(c->pages + c->nr_pages * CB_PAGE, &c->ts, 8);
		c->nr_pages++;
		c->used = 0;
		c->lost_flags = c->lose_next ? CB_MISSED_EVENTS | (c->lose_stored ? CB_MISSED_STORED : 0) : 0;
		c->lost_count = c->lose_count;
		c->lose_next = 0;
	}
	c->ts += 1000;
	p = c->pages + (c->nr_pages - 1) * CB_PAGE + CB_PAGE_HDR + c->used;
	memcpy(p, &header, 4);
	memcpy(p + 4, &type, 2);
	memcpy(p + 8, &pid, 4);
	c->used += 4 + size;
	return p + 4;
}

/* Write the pages and END, close. 0, or -1 when anything failed. */
static __attribute__((unused)) int cb_close(struct cb_capture *c)
{
	int rc = c->failed ? -1 : 0;

	if (c->nr_pages) {
		cb_finish_page(c);
		if (ftz_write_pages(c->w, 0, CB_PAGE, c->pages, (uint32_t)c->nr_pages))
			rc = -1;
	}
	if (ftz_write_info(c->w, FTZ_SEC_END, "stop_reason=builder\n"))
		rc = -1;
	if (ftz_writer_close(c->w))
		rc = -1;
	free(c->pages);
	free(c);
	return rc;
}

#endif
