/* SPDX-License-Identifier: MIT */
/* decode_int.h - internals shared by decode.c (index, cursors, merge) and
 * decode_meta.c (metadata into libtraceevent). Not for other modules. */
#ifndef DECODE_INT_H
#define DECODE_INT_H

#include <traceevent/kbuffer.h>

#include "analyze/decode.h"
#include "ftz.h"

struct sec_ref {
	uint64_t offset;
	uint32_t nr_pages;
};

/* One CPU's position: a batch (PAGES section) decompressed by its own reader,
 * a page inside it loaded into its own kbuffer, an event inside that. */
struct cursor {
	int cpu;
	struct ftz_reader *r;   /* opened on first use: the batch it returns stays valid */
	struct sec_ref *secs;
	size_t nr_secs, cap_secs, next_sec;
	const uint8_t *pages;
	uint32_t nr_pages, page, page_size;
	uint64_t sec_offset;
	struct kbuffer *kbuf;
	void *ev;               /* current event data, NULL when exhausted */
	unsigned long long ts;
	int missed;             /* loss flagged on the page the current event opens */
	struct tep_record rec;
};

struct dat; /* trace.dat backend state (decode_tracedat.c); NULL for a .ftz */

struct dec {
	char *path;
	struct dat *dat;
	int long_size;
	bool big_endian;
	char *info, *end;
	struct dec_file *files;
	size_t nr_files;
	uint64_t *snapshots;    /* file offsets of SNAPSHOT sections */
	size_t nr_snapshots;
	struct tep_handle *tep;
	struct dec_stats stats;
	struct cursor *cpus;    /* stats.nr_cpus entries */
	int *heap;              /* cursor indexes, min-heap on (ts, cpu) */
	int heap_len;
	bool started;
	uint64_t pages_done;
	bool damaged;
	uint64_t damage_offset;
	char damage_reason[160];
};

int dmeta_add_file(struct dec *d, const struct ftz_file *f);
int dmeta_add_snapshot(struct dec *d, uint64_t offset);
int dmeta_load_tep(struct dec *d, char *err, size_t errlen);
void dmeta_free(struct dec *d);

/* decode_tracedat.c: dat_open returns 1 when d->path is not a trace.dat, 0 when it
 * opened it, -errno (err set, errno EBADMSG when damaged) when it failed. */
int dat_open(struct dec *d, char *err, size_t errlen);
int dat_next(struct dec *d, struct dec_event *ev);
void dat_close(struct dec *d);

#endif
