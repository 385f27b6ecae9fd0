// SPDX-License-Identifier: MIT
/*
 * ftzdump - list the sections of a .ftz and count its events per CPU and type.
 *
 * A debugging tool and an independent event counter for tests and benchmarks:
 * it shares only the container reader with ftana (the page walk is libtraceevent's
 * kbuffer, the type names come straight from the stored format files), so a test
 * comparing the two catches decoder bugs.
 *
 *   ftzdump [-q] FILE.ftz          sections (unless -q), then the totals
 *   ftzdump --raw PAGE_SIZE FILE   totals of a plain trace_pipe_raw dump (host layout)
 *
 * Totals are machine-readable lines:
 *   cpu N pages P events E missed M lost L bytes B
 *        (M: pages flagged "events were lost before this page", L: sum of the lost
 *         counts the kernel stored, B: raw page bytes = P * page size)
 *   event NAME COUNT                         (NAME from the format file, else "id:N")
 *   total pages P events E missed M lost L bytes B
 *   end clean|no-end-section|damaged
 * Exit: 0, 1 on errors, 3 when the file is damaged (totals cover what precedes it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <traceevent/kbuffer.h>

#include "format/ftz.h"

#define NR_IDS 65536 /* common_type is a u16 */
#define MAX_CPUS 65536 /* as ftana's decoder (DEC_MAX_CPUS) */
#define RB_FLAGS_MASK 0x3fffffffull /* commit bits above are the missed-events flags */

struct cpu_totals {
	uint64_t pages, bytes, events, missed, lost;
};

struct dump {
	int long_size;   /* of the traced kernel, from INFO */
	bool info_seen;  /* only the first INFO counts (FORMAT.md 6.2) */
	bool big_endian;
	struct kbuffer *kbuf;
	struct cpu_totals *cpus;
	unsigned nr_cpus;
	unsigned cap_cpus;     /* allocated, zeroed; grown by doubling */
	uint64_t *counts;      /* events per common_type */
	char **names;          /* event name per id, from the format files */
	uint64_t bad_pages;    /* commit larger than the page: skipped */
};

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fprintf(stderr, "ftzdump: out of memory\n");
		exit(1);
	}
	return p;
}

static uint64_t load_uint(const uint8_t *p, int size, bool big_endian)
{
	uint64_t v = 0;

	for (int i = 0; i < size; i++)
		v |= (uint64_t)p[big_endian ? size - 1 - i : i] << (8 * i);
	return v;
}

static struct cpu_totals *cpu_slot(struct dump *d, uint32_t cpu)
{
	if (cpu >= d->cap_cpus) { /* cpu < MAX_CPUS; doubling, as CPUs come one by one */
		unsigned n = cpu + 1 > 2 * d->cap_cpus ? cpu + 1 : 2 * d->cap_cpus;

		d->cpus = realloc(d->cpus, n * sizeof(*d->cpus));
		if (!d->cpus) {
			fprintf(stderr, "ftzdump: out of memory\n");
			exit(1);
		}
		memset(d->cpus + d->cap_cpus, 0, (n - d->cap_cpus) * sizeof(*d->cpus));
		d->cap_cpus = n;
	}
	if (cpu >= d->nr_cpus)
		d->nr_cpus = cpu + 1;
	return &d->cpus[cpu];
}

/* Count the events of one sub-buffer; the commit field is bounded first because
 * kbuffer trusts it. */
static void walk_page(struct dump *d, struct cpu_totals *t, uint8_t *page, uint32_t page_size)
{
	unsigned hdr = 8 + d->long_size;
	unsigned long long ts;
	int missed;

	t->pages++;
	t->bytes += page_size;
	if (page_size < hdr ||
	    (load_uint(page + 8, d->long_size, d->big_endian) & RB_FLAGS_MASK) > page_size - hdr ||
	    !ftz_page_records_ok(page + hdr, load_uint(page + 8, d->long_size, d->big_endian) &
				 RB_FLAGS_MASK, d->big_endian)) {
		d->bad_pages++; /* kbuffer would read past it, or loop (FORMAT.md 4.3.1) */
		return;
	}
	if (!d->kbuf) {
		d->kbuf = kbuffer_alloc(d->long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
					d->big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
		if (!d->kbuf) {
			fprintf(stderr, "ftzdump: kbuffer_alloc failed\n");
			exit(1);
		}
	}
	if (kbuffer_load_subbuffer(d->kbuf, page) < 0) {
		d->bad_pages++;
		return;
	}
	missed = kbuffer_missed_events(d->kbuf);
	if (missed) {
		t->missed++;
		if (missed > 0)
			t->lost += missed;
	}
	for (uint8_t *ev = kbuffer_read_event(d->kbuf, &ts); ev;
	     ev = kbuffer_next_event(d->kbuf, &ts)) {
		t->events++;
		d->counts[load_uint(ev, 2, d->big_endian)]++;
	}
}

/* "events/SYS/NAME/format": remember NAME for the "ID:" the file gives. */
static void learn_format(struct dump *d, const struct ftz_file *f)
{
	char *text = strndup((const char *)f->data, f->len), *name, *id;

	if (!text)
		return;
	name = strstr(text, "name: ");
	id = strstr(text, "\nID: ");
	if (name && id) {
		unsigned long n = strtoul(id + 5, NULL, 10);

		name += 6;
		name[strcspn(name, "\n")] = '\0';
		if (n < NR_IDS && !d->names[n])
			d->names[n] = strdup(name);
	}
	free(text);
}

static void take_info(struct dump *d, const struct ftz_section *s)
{
	char val[32];

	if (ftz_kv_get((const char *)s->data, s->len, "long_size", val, sizeof(val)) > 0)
		d->long_size = atoi(val) == 4 ? 4 : 8;
	if (ftz_kv_get((const char *)s->data, s->len, "endian", val, sizeof(val)) > 0)
		d->big_endian = strcmp(val, "big") == 0;
}

static const char *type_name(uint32_t type)
{
	static const char *names[] = { "?", "INFO", "FILE", "PAGES", "END", "SNAPSHOT" };

	return type < sizeof(names) / sizeof(*names) ? names[type] : "unknown";
}

static void list_section(const struct ftz_section *s)
{
	struct ftz_file f;
	struct ftz_pages p;
	struct ftz_snapshot snap;

	printf("section %llu %s(%u) flags 0x%x stored %llu raw %llu",
	       (unsigned long long)s->offset, type_name(s->type), s->type, s->flags,
	       (unsigned long long)s->stored_len, (unsigned long long)s->raw_len);
	if (s->type == FTZ_SEC_FILE && ftz_parse_file(s, &f) == 0)
		printf(" file %s phase %s len %zu", f.name,
		       f.phase == FTZ_PHASE_START ? "start" : "end", f.len);
	if (s->type == FTZ_SEC_PAGES && ftz_parse_pages(s, &p) == 0)
		printf(" cpu %u page_size %u nr_pages %u", p.cpu, p.page_size, p.nr_pages);
	if (s->type == FTZ_SEC_SNAPSHOT && ftz_parse_snapshot(s, &snap) == 0)
		printf(" snapshot %s round %u mono_ns %llu wall_ns %llu len %zu", snap.name,
		       snap.time.round, (unsigned long long)snap.time.mono_ns,
		       (unsigned long long)snap.time.wall_ns, snap.len);
	putchar('\n');
	if ((s->type == FTZ_SEC_INFO || s->type == FTZ_SEC_END) && s->data) {
		const char *line = (const char *)s->data;

		for (const char *nl; *line; line = nl + 1) {
			nl = strchrnul(line, '\n');
			printf("    %.*s\n", (int)(nl - line), line);
			if (!*nl)
				break;
		}
	}
}

static void print_totals(const struct dump *d)
{
	struct cpu_totals sum = { 0 };

	for (unsigned c = 0; c < d->nr_cpus; c++) {
		const struct cpu_totals *t = &d->cpus[c];

		if (!t->pages)
			continue;
		printf("cpu %u pages %llu events %llu missed %llu lost %llu bytes %llu\n", c,
		       (unsigned long long)t->pages, (unsigned long long)t->events,
		       (unsigned long long)t->missed, (unsigned long long)t->lost,
		       (unsigned long long)t->bytes);
		sum.pages += t->pages;
		sum.bytes += t->bytes;
		sum.events += t->events;
		sum.missed += t->missed;
		sum.lost += t->lost;
	}
	for (unsigned id = 0; id < NR_IDS; id++) {
		if (!d->counts[id])
			continue;
		if (d->names[id])
			printf("event %s %llu\n", d->names[id], (unsigned long long)d->counts[id]);
		else
			printf("event id:%u %llu\n", id, (unsigned long long)d->counts[id]);
	}
	if (d->bad_pages)
		printf("bad_pages %llu\n", (unsigned long long)d->bad_pages);
	printf("total pages %llu events %llu missed %llu lost %llu bytes %llu\n",
	       (unsigned long long)sum.pages, (unsigned long long)sum.events,
	       (unsigned long long)sum.missed, (unsigned long long)sum.lost,
	       (unsigned long long)sum.bytes);
}

static int dump_ftz(struct dump *d, const char *path, bool quiet)
{
	char err[512];
	struct ftz_reader *r = ftz_reader_open(path, err, sizeof(err));
	struct ftz_section s;
	bool saw_end = false;
	int rc;

	if (!r) {
		fprintf(stderr, "ftzdump: %s\n", err);
		return 1;
	}
	while ((rc = ftz_reader_next(r, &s, true)) == FTZ_READ_OK) {
		struct ftz_file f;
		struct ftz_pages p;

		if (!quiet)
			list_section(&s);
		if (s.type == FTZ_SEC_INFO && s.data && !d->info_seen) {
			take_info(d, &s);
			d->info_seen = true;
		}
		else if (s.type == FTZ_SEC_END)
			saw_end = true;
		else if (s.type == FTZ_SEC_FILE && ftz_parse_file(&s, &f) == 0 &&
			 !strncmp(f.name, "events/", 7) && strstr(f.name, "/format"))
			learn_format(d, &f);
		else if (s.type == FTZ_SEC_PAGES && ftz_parse_pages(&s, &p) == 0 &&
			 p.cpu >= MAX_CPUS) /* a per-CPU table that large is the file's lie */
			d->bad_pages += p.nr_pages;
		else if (s.type == FTZ_SEC_PAGES && ftz_parse_pages(&s, &p) == 0)
			for (uint32_t i = 0; i < p.nr_pages; i++)
				walk_page(d, cpu_slot(d, p.cpu),
					  (uint8_t *)p.pages + (size_t)i * p.page_size, p.page_size);
	}
	print_totals(d);
	if (rc == FTZ_READ_DAMAGE) {
		const char *why;
		uint64_t off = ftz_reader_damage(r, &why);

		printf("end damaged\n");
		fprintf(stderr, "ftzdump: %s: damaged at offset %llu: %s\n", path,
			(unsigned long long)off, why);
	} else {
		printf("end %s\n", saw_end ? "clean" : "no-end-section");
	}
	ftz_reader_close(r);
	return rc == FTZ_READ_DAMAGE ? 3 : 0;
}

/* A plain dump of whole sub-buffers, as trace_pipe_raw returns them on this host. */
static int dump_raw(struct dump *d, const char *path, uint32_t page_size)
{
	uint8_t *page = xcalloc(1, page_size);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		fprintf(stderr, "ftzdump: %s: %s\n", path, strerror(errno));
		free(page);
		return 1;
	}
	d->long_size = sizeof(long);
	d->big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	while ((n = read(fd, page, page_size)) == (ssize_t)page_size)
		walk_page(d, cpu_slot(d, 0), page, page_size);
	close(fd);
	free(page);
	if (n != 0) {
		fprintf(stderr, "ftzdump: %s: %s\n", path,
			n < 0 ? strerror(errno) : "size is not a multiple of the page size");
		return 1;
	}
	print_totals(d);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: ftzdump [-q] FILE.ftz\n"
			"       ftzdump --raw PAGE_SIZE FILE\n");
	exit(1);
}

int main(int argc, char **argv)
{
	struct dump d = { .long_size = sizeof(long),
			  .big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ };
	bool quiet = false;
	int rc;

	d.counts = xcalloc(NR_IDS, sizeof(*d.counts));
	d.names = xcalloc(NR_IDS, sizeof(*d.names));
	if (argc == 4 && !strcmp(argv[1], "--raw")) {
		long ps = atol(argv[2]);

		if (ps < 64 || ps > (1 << 24)) {
			fprintf(stderr, "ftzdump: --raw: bad page size '%s'\n", argv[2]);
			return 1;
		}
		rc = dump_raw(&d, argv[3], ps);
	} else {
		if (argc == 3 && !strcmp(argv[1], "-q")) {
			quiet = true;
			argv++, argc--;
		}
		if (argc != 2 || argv[1][0] == '-')
			usage();
		rc = dump_ftz(&d, argv[1], quiet);
	}
	if (d.kbuf)
		kbuffer_free(d.kbuf);
	for (unsigned id = 0; id < NR_IDS; id++)
		free(d.names[id]);
	free(d.names);
	free(d.counts);
	free(d.cpus);
	return rc;
}
