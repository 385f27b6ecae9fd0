// SPDX-License-Identifier: MIT
/*
 * test_decode_hostile.c - the .ftz reader and decoder against files that lie:
 * NUL bytes in INFO and FILE payloads, FILE names running past their payload,
 * zstd bombs (tiny frames declaring or producing huge payloads), FILE sections
 * of 1 GiB, 3000 CPUs, 250,000 FILE sections. Each must end in events or a
 * one-line damage report, with memory and file descriptors bounded.
 *
 * The files are built here: valid parts with the format library's writer, the
 * hostile parts as raw sections (header checksums from crc32c) and zstd frames
 * assembled by hand (RFC 8878: RLE blocks of 128 KiB cost 4 bytes each). The
 * ground truth is what the test put in: which CPU holds which event, the bytes
 * of each FILE. Memory is measured as peak RSS growth in a forked child.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "decode/decode.h"
#include "format/ftz.h"
#include "ftz_int.h"

#define MIB (1l << 20)
#define GIB (1ull << 30)
#define PAGE 4096
#define EV_ID 100

static char path[64];

/*
 * ASan keeps freed blocks in a quarantine (256 MiB by default) that counts in
 * the RSS measured below: keep it small here so the figures are the decoder's.
 * ASAN_OPTIONS from the environment still wins for anything it sets.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "quarantine_size_mb=16";
}

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

static const char ev_format[] =
	"name: ev\nID: 100\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"x=%d\", REC->x\n";

static int setup(void **state)
{
	int fd;

	strcpy(path, "/tmp/test_decode_hostile.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	unlink(path);
	return 0;
}

/* ---------------------------------------------------------------- building files */

/* A writer with INFO (nr_cpus CPUs, then extra text), header_page and ev's format. */
static struct ftz_writer *begin(unsigned nr_cpus, const char *info_tail, size_t tail_len)
{
	char err[256] = "", info[512];
	struct ftz_writer *w = ftz_writer_create(path, err, sizeof(err));
	int n;

	if (!w)
		fail_msg("create: %s", err);
	n = snprintf(info, sizeof(info), "long_size=8\nendian=little\nsubbuf_size=%d\nnr_cpus=%u\n",
		     PAGE, nr_cpus);
	assert_true(n + tail_len < sizeof(info));
	memcpy(info + n, info_tail, tail_len);
	assert_int_equal(ftz_write_section(w, FTZ_SEC_INFO, info, n + tail_len, false), 0);
	assert_int_equal(ftz_write_file(w, FTZ_PHASE_START, "events/header_page", header_page,
					strlen(header_page)), 0);
	assert_int_equal(ftz_write_file(w, FTZ_PHASE_START, "events/test/ev/format", ev_format,
					strlen(ev_format)), 0);
	return w;
}

static void event_page(uint8_t page[PAGE], uint64_t ts, int32_t x);

/* One sub-buffer holding one ev event with x = X at time TS. */
static void write_event_page(struct ftz_writer *w, uint32_t cpu, uint64_t ts, int32_t x)
{
	static uint8_t page[PAGE];

	event_page(page, ts, x);
	assert_int_equal(ftz_write_pages(w, cpu, PAGE, page, 1), 0);
}

static void finish(struct ftz_writer *w)
{
	assert_int_equal(ftz_write_info(w, FTZ_SEC_END, "stop_reason=test\n"), 0);
	assert_int_equal(ftz_writer_close(w), 0);
}

/* Append a section with any header values, checksums made valid. */
static void append_section(uint32_t type, uint32_t flags, const void *payload, size_t stored_len,
			   uint64_t raw_len)
{
	struct ftz_sec_hdr h = { .type = type, .flags = flags, .stored_len = stored_len,
				 .raw_len = raw_len, .payload_crc = ftz_crc32c(0, payload, stored_len) };
	uint8_t hdr[FTZ_SEC_HDR_LEN];
	int fd = open(path, O_WRONLY | O_APPEND);

	assert_true(fd >= 0);
	ftz_sec_hdr_encode(&h, hdr);
	assert_int_equal(write(fd, hdr, sizeof(hdr)), sizeof(hdr));
	assert_int_equal(write(fd, payload, stored_len), (ssize_t)stored_len);
	close(fd);
}

/*
 * A zstd frame decompressing to PREFIX then FILL_LEN bytes of FILL: frame header
 * with an 8-byte content size (single segment), a raw block for the prefix, RLE
 * blocks of 128 KiB for the fill. 1 GiB costs 32 KiB. Caller frees; *len set.
 */
static uint8_t *bomb_frame(const void *prefix, size_t prefix_len, uint64_t fill_len, uint8_t fill,
			   size_t *len)
{
	size_t cap = 16 + 3 + prefix_len + (fill_len / (128 * 1024) + 1) * 4;
	uint8_t *f = malloc(cap), *p = f;
	uint64_t left = fill_len;

	assert_non_null(f);
	put_le32(p, 0xFD2FB528);
	p[4] = 0xE0; /* content size field of 8 bytes, single segment */
	put_le64(p + 5, prefix_len + fill_len);
	p += 13;
	if (prefix_len) {
		uint32_t bh = (left ? 0 : 1) | 0 << 1 | (uint32_t)prefix_len << 3;

		p[0] = bh; p[1] = bh >> 8; p[2] = bh >> 16;
		memcpy(p + 3, prefix, prefix_len);
		p += 3 + prefix_len;
	}
	while (left) {
		uint32_t n = left < 128 * 1024 ? left : 128 * 1024;
		uint32_t bh = (left == n) | 1 << 1 | n << 3;

		p[0] = bh; p[1] = bh >> 8; p[2] = bh >> 16; p[3] = fill;
		p += 4;
		left -= n;
	}
	*len = p - f;
	return f;
}

/* The sub-buffer write_event_page writes: one ev event with x = X at time TS
 * (the kernel's layout: u64 timestamp, 8-byte commit, then a 4-byte event header
 * and 12 bytes of data). */
static void event_page(uint8_t page[PAGE], uint64_t ts, int32_t x)
{
	uint32_t header = 12 / 4; /* type_len 3: 12 bytes of data, time delta 0 */
	uint16_t type = EV_ID;
	int32_t pid = 1000 + x;

	memset(page, 0, PAGE);
	put_le64(page, ts);
	put_le64(page + 8, 4 + 12);
	memcpy(page + 16, &header, 4);
	memcpy(page + 20, &type, 2);
	memcpy(page + 24, &pid, 4);
	memcpy(page + 28, &x, 4);
}

/*
 * A compressed PAGES section of nr_pages pages for CPU, as a bomb: zero-filled
 * (empty pages), or with_event: the first page holds an event with x = cpu, so
 * the decoder has to keep the batch while that event waits in the merge.
 */
static void append_pages_bomb(uint32_t cpu, uint32_t nr_pages, uint64_t declared_raw,
			      bool with_event)
{
	uint8_t prefix[FTZ_PAGES_FIXED_LEN + PAGE];
	size_t len, prefix_len = FTZ_PAGES_FIXED_LEN + (with_event ? PAGE : 0);
	uint8_t *frame;

	put_le32(prefix, cpu);
	put_le32(prefix + 4, PAGE);
	put_le32(prefix + 8, nr_pages);
	put_le32(prefix + 12, 0);
	if (with_event)
		event_page(prefix + FTZ_PAGES_FIXED_LEN, 5000 + cpu, cpu);
	frame = bomb_frame(prefix, prefix_len,
			   (uint64_t)nr_pages * PAGE - (prefix_len - FTZ_PAGES_FIXED_LEN), 0, &len);
	append_section(FTZ_SEC_PAGES, FTZ_FLAG_ZSTD, frame, len, declared_raw);
	free(frame);
}

/* A compressed FILE section NAME of data_len bytes of FILL. */
static void append_file_bomb(const char *name, uint64_t data_len, uint8_t fill)
{
	uint8_t fixed[FTZ_FILE_FIXED_LEN + 64] = { FTZ_PHASE_START, 0 };
	size_t name_len = strlen(name), len;
	uint8_t *frame;

	put_le16(fixed + 2, name_len);
	memcpy(fixed + 4, name, name_len);
	frame = bomb_frame(fixed, 4 + name_len, data_len, fill, &len);
	append_section(FTZ_SEC_FILE, FTZ_FLAG_ZSTD, frame, len, 4 + name_len + data_len);
	free(frame);
}

/* ---------------------------------------------------------------- decoding */

struct outcome {
	unsigned long events;
	unsigned long per_cpu_ok;  /* events whose x equals their CPU, pid 1000 + x */
	bool damaged;
	uint64_t damage_offset;
	char reason[160];
};

/* Open path and drain it; fails the test when dec_open refuses the file. */
static void decode_all(struct outcome *o)
{
	struct dec *d = dec_open(path);
	struct dec_event ev;
	const char *why = NULL;
	unsigned long long last_ts = 0;

	memset(o, 0, sizeof(*o));
	if (!d)
		fail_msg("dec_open refused the file (the error is on stderr)");
	while (dec_next(d, &ev) > 0) {
		int32_t x, pid;

		assert_true(ev.ts >= last_ts);
		last_ts = ev.ts;
		assert_int_equal(ev.record->size, 12);
		memcpy(&pid, (const uint8_t *)ev.record->data + 4, 4);
		memcpy(&x, (const uint8_t *)ev.record->data + 8, 4);
		o->events++;
		if (ev.event && !strcmp(ev.event->name, "ev") && x == ev.cpu && pid == 1000 + x)
			o->per_cpu_ok++;
	}
	o->damaged = dec_damage(d, &o->damage_offset, &why);
	if (o->damaged)
		snprintf(o->reason, sizeof(o->reason), "%s", why);
	dec_close(d);
}

/*
 * Run fn in a child; return the growth of its peak RSS in MiB over the RSS it had
 * before fn, and fail the test if the child failed. Under ASan the figures include
 * its shadow memory, so bounds are generous against the gigabytes they guard.
 */
static long rss_growth_mib(void (*fn)(void *), void *arg)
{
	int fds[2];
	pid_t pid;
	long growth = -1;
	int status;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rusage before, after;

		close(fds[0]);
		getrusage(RUSAGE_SELF, &before);
		fn(arg);
		getrusage(RUSAGE_SELF, &after);
		growth = (after.ru_maxrss - before.ru_maxrss) / 1024;
		if (write(fds[1], &growth, sizeof(growth)) != sizeof(growth))
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &growth, sizeof(growth)) != sizeof(growth))
		growth = -1;
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("child failed (status 0x%x)", status);
	assert_true(growth >= 0);
	return growth;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* ---------------------------------------------------------------- tests */

/* Key lookup reads no byte past the length it is given, and stops at a NUL. */
static void test_kv_length_delimited(void **state)
{
	static const char text[] = "a=1\nkey=value\0b=2\n";
	char *exact = malloc(7), buf[16];

	memcpy(exact, "k=v\nz=", 6); /* no NUL terminator: ASan catches any over-read */
	exact[6] = 'q';
	assert_int_equal(ftz_kv_get(exact, 7, "k", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "v");
	assert_int_equal(ftz_kv_get(exact, 7, "z", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "q");
	assert_int_equal(ftz_kv_get(exact, 5, "z", buf, sizeof(buf)), -ENOENT);
	free(exact);
	assert_int_equal(ftz_kv_get(text, sizeof(text) - 1, "key", buf, sizeof(buf)), 5);
	assert_string_equal(buf, "value");
	assert_int_equal(ftz_kv_get(text, sizeof(text) - 1, "b", buf, sizeof(buf)), -ENOENT);
}

/*
 * A NUL inside an INFO value (the 16 KB file that crashed take_info), NULs in FILE
 * data: decoding works, the text ends at the NUL for every reader, FILE data
 * keeps its full length.
 */
static void test_nul_in_info_and_file(void **state)
{
	static const char tail[] = "hostname=ab\0cd\nzz=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
	static const char cmdlines[] = "4242 ev\0il\n4243 ok\n";
	struct ftz_writer *w = begin(2, tail, sizeof(tail) - 1);
	struct dec *d;
	struct outcome o;
	size_t len = 0;
	const char *data;

	assert_int_equal(ftz_write_file(w, FTZ_PHASE_END, "saved_cmdlines", cmdlines,
					sizeof(cmdlines) - 1), 0);
	write_event_page(w, 0, 1000, 0);
	write_event_page(w, 1, 2000, 1);
	finish(w);

	decode_all(&o);
	assert_int_equal(o.events, 2);
	assert_int_equal(o.per_cpu_ok, 2);
	assert_false(o.damaged);
	d = dec_open(path);
	assert_non_null(d);
	assert_non_null(strstr(dec_info_text(d), "nr_cpus=2\nhostname=ab"));
	assert_null(strstr(dec_info_text(d), "zz="));
	data = dec_file(d, "saved_cmdlines", -1, &len);
	assert_non_null(data);
	assert_int_equal(len, sizeof(cmdlines) - 1);
	assert_memory_equal(data, cmdlines, len);
	dec_close(d);
}

/* A FILE whose name_len runs past its payload, after the events: damage there, the
 * events before it decoded. Same for a SNAPSHOT. */
static void test_file_name_past_payload(void **state)
{
	uint8_t bad[FTZ_FILE_FIXED_LEN + 3] = { FTZ_PHASE_END, 0 };
	uint8_t bad_snap[FTZ_SNAPSHOT_FIXED_LEN + 2] = { 0 };
	struct ftz_writer *w;
	struct outcome o;
	struct stat_like { uint64_t size; } before;
	FILE *f;

	for (int snap = 0; snap < 2; snap++) {
		w = begin(1, "", 0);
		write_event_page(w, 0, 1000, 0);
		assert_int_equal(ftz_writer_close(w), 0);
		f = fopen(path, "rb");
		fseek(f, 0, SEEK_END);
		before.size = ftell(f);
		fclose(f);
		if (snap) {
			put_le16(bad_snap + 20, 60000);
			append_section(FTZ_SEC_SNAPSHOT, 0, bad_snap, sizeof(bad_snap), sizeof(bad_snap));
		} else {
			put_le16(bad + 2, 60000); /* 3 bytes follow, not 60000 */
			memcpy(bad + 4, "abc", 3);
			append_section(FTZ_SEC_FILE, 0, bad, sizeof(bad), sizeof(bad));
		}
		decode_all(&o);
		assert_int_equal(o.events, 1);
		assert_true(o.damaged);
		assert_int_equal(o.damage_offset, before.size);
		assert_non_null(strstr(o.reason, snap ? "SNAPSHOT" : "FILE"));
	}
}

/* A phase that is neither START nor END (found by the fuzzer): kept under its own
 * number, found by it, and not taken for either when asked for "either". */
static void test_file_unknown_phase(void **state)
{
	uint8_t odd[FTZ_FILE_FIXED_LEN + 8] = { 7, 0 };
	struct ftz_writer *w = begin(1, "", 0);
	struct dec *d;
	size_t len = 0;
	const char *data;

	write_event_page(w, 0, 1000, 0);
	assert_int_equal(ftz_write_file(w, FTZ_PHASE_START, "junk/x", "start", 5), 0);
	assert_int_equal(ftz_writer_close(w), 0);
	put_le16(odd + 2, 6);
	memcpy(odd + 4, "junk/xAB", 8);
	append_section(FTZ_SEC_FILE, 0, odd, sizeof(odd), sizeof(odd));
	d = dec_open(path);
	assert_non_null(d);
	data = dec_file(d, "junk/x", 7, &len);
	assert_non_null(data);
	assert_int_equal(len, 2);
	assert_memory_equal(data, "AB", 2);
	assert_string_equal(dec_file(d, "junk/x", -1, NULL), "start");
	assert_null(dec_file(d, "junk/x", FTZ_PHASE_END, NULL));
	dec_close(d);
}

static void drain(void *unused)
{
	struct outcome o;

	decode_all(&o);
}

/* Three CPUs of PAGES declaring 1 GiB each, in a file of ~100 KB: refused at the
 * first, with the limit named; the events before it are decoded. */
static void test_zstd_bomb_declared(void **state)
{
	struct ftz_writer *w = begin(3, "", 0);
	struct outcome o;
	uint64_t first_bomb;
	long mib;
	FILE *f;

	write_event_page(w, 0, 1000, 0);
	write_event_page(w, 1, 2000, 1);
	assert_int_equal(ftz_writer_close(w), 0);
	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	first_bomb = ftell(f);
	fclose(f);
	for (uint32_t cpu = 0; cpu < 3; cpu++)
		append_pages_bomb(cpu, (GIB - 16) / PAGE, 16 + (GIB - 16) / PAGE * PAGE, false);

	mib = rss_growth_mib(drain, NULL);
	print_message("zstd bombs declaring 1 GiB x 3: peak RSS +%ld MiB\n", mib);
	assert_true(mib < 64);
	decode_all(&o);
	assert_int_equal(o.events, 2);
	assert_int_equal(o.per_cpu_ok, 2);
	assert_true(o.damaged);
	assert_int_equal(o.damage_offset, first_bomb);
	assert_non_null(strstr(o.reason, "64 MiB limit"));
}

/* A bomb that claims less than it produces (raw_len small, frame says 1 GiB):
 * zstd never writes past the declared size. */
static void test_zstd_bomb_understated(void **state)
{
	struct ftz_writer *w = begin(1, "", 0);
	struct outcome o;
	long mib;

	write_event_page(w, 0, 1000, 0);
	assert_int_equal(ftz_writer_close(w), 0);
	append_pages_bomb(0, (GIB - 16) / PAGE, 16 + PAGE, false);
	mib = rss_growth_mib(drain, NULL);
	assert_true(mib < 64);
	decode_all(&o);
	assert_int_equal(o.events, 1);
	assert_true(o.damaged);
	assert_non_null(strstr(o.reason, "zstd"));
}

/*
 * A frame whose header declares the section's raw length but whose blocks
 * produce less: the index (which reads only the first bytes) takes it, the
 * decode finds it, and the events before it on other CPUs still come out.
 */
static void test_zstd_frame_short(void **state)
{
	uint8_t fixed[FTZ_PAGES_FIXED_LEN];
	uint32_t claimed = 256, produced = 100;
	uint64_t raw = 16 + (uint64_t)claimed * PAGE, bad_offset;
	struct ftz_writer *w = begin(2, "", 0);
	struct outcome o;
	uint8_t *frame;
	size_t len;
	FILE *f;

	write_event_page(w, 1, 1000, 1);
	assert_int_equal(ftz_writer_close(w), 0);
	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	bad_offset = ftell(f);
	fclose(f);
	put_le32(fixed, 0);
	put_le32(fixed + 4, PAGE);
	put_le32(fixed + 8, claimed);
	put_le32(fixed + 12, 0);
	frame = bomb_frame(fixed, sizeof(fixed), (uint64_t)produced * PAGE, 0, &len);
	put_le64(frame + 5, raw); /* the frame header's content size */
	append_section(FTZ_SEC_PAGES, FTZ_FLAG_ZSTD, frame, len, raw);
	free(frame);

	decode_all(&o);
	assert_int_equal(o.events, 1);
	assert_int_equal(o.per_cpu_ok, 1);
	assert_true(o.damaged);
	assert_int_equal(o.damage_offset, bad_offset);
	assert_non_null(strstr(o.reason, "zstd"));
}

/* Bombs just under the limit on 3 CPUs: they are valid (empty pages, no events);
 * memory stays near one batch per CPU at most, not the 3 GB the issue saw. */
static void test_zstd_bomb_at_limit(void **state)
{
	struct ftz_writer *w = begin(3, "", 0);
	uint32_t nr = (FTZ_READ_MAX_PAYLOAD - 16) / PAGE;
	struct outcome o;
	long mib;

	for (uint32_t cpu = 0; cpu < 3; cpu++)
		write_event_page(w, cpu, 1000 + cpu, cpu);
	assert_int_equal(ftz_writer_close(w), 0);
	for (uint32_t cpu = 0; cpu < 3; cpu++)
		append_pages_bomb(cpu, nr, 16 + (uint64_t)nr * PAGE, false);
	mib = rss_growth_mib(drain, NULL);
	print_message("zstd bombs of 64 MiB x 3: peak RSS +%ld MiB\n", mib);
	/* The index reads only each batch's first bytes; a CPU done frees its batch. */
	assert_true(mib < 2 * (long)FTZ_READ_MAX_PAYLOAD / MIB);
	decode_all(&o);
	assert_int_equal(o.events, 3);
	assert_int_equal(o.per_cpu_ok, 3);
	assert_false(o.damaged);
}

/*
 * 64 MiB bombs on 20 CPUs, each with an event in its first page, so every CPU
 * must hold its batch at once: the decoder stops at 1 GiB of batches (16 of
 * them, the 17th is damage) instead of following the file to 1.25 GiB, or to
 * 64 GB with a thousand CPUs.
 */
static void test_zstd_bombs_many_cpus(void **state)
{
	uint32_t nr = (FTZ_READ_MAX_PAYLOAD - 16) / PAGE, cpus = 20;
	struct ftz_writer *w = begin(cpus, "", 0);
	struct outcome o;
	long mib;

	assert_int_equal(ftz_writer_close(w), 0);
	/* 1 MiB of an unknown section type (skipped): the file is large enough that
	 * the expansion bound (test_zstd_bombs_expansion) is not what stops this one. */
	uint8_t *pad = calloc(1, MIB);
	append_section(99, 0, pad, MIB, MIB);
	free(pad);
	for (uint32_t cpu = 0; cpu < cpus; cpu++)
		append_pages_bomb(cpu, nr, 16 + (uint64_t)nr * PAGE, true);
	mib = rss_growth_mib(drain, NULL);
	print_message("zstd bombs of 64 MiB x 20 CPUs, all held: peak RSS +%ld MiB\n", mib);
	assert_true(mib < 1024 + 3 * (long)FTZ_READ_MAX_PAYLOAD / MIB + 64);
	decode_all(&o);
	assert_int_equal(o.events, 16);
	assert_int_equal(o.per_cpu_ok, 16);
	assert_true(o.damaged);
	assert_non_null(strstr(o.reason, "1024 MiB"));
}

/*
 * Twenty 64 MiB bombs on one CPU in ~60 KB: each alone is within every limit and
 * the CPU holds one at a time, but decompressing them all is 1.25 GiB of work
 * from nothing. The decoder stops where the sections expand to over 1 GiB plus
 * 1024 times the capture's size.
 */
static void test_zstd_bombs_expansion(void **state)
{
	uint32_t nr = (FTZ_READ_MAX_PAYLOAD - 16) / PAGE;
	struct ftz_writer *w = begin(1, "", 0);
	struct outcome o;

	write_event_page(w, 0, 1000, 0);
	assert_int_equal(ftz_writer_close(w), 0);
	for (int i = 0; i < 20; i++)
		append_pages_bomb(0, nr, 16 + (uint64_t)nr * PAGE, false);
	decode_all(&o);
	assert_int_equal(o.events, 1);
	assert_true(o.damaged);
	assert_non_null(strstr(o.reason, "1024 times the capture's size"));
}

/*
 * The same budget holds for a capture set, not per file: a series of three files of 12
 * bombs each (768 MiB apiece, each within the limit alone) stops in its third file,
 * where the set's sections pass 1 GiB plus 1024 times the three files' size.
 */
static void test_zstd_bombs_expansion_set(void **state)
{
	uint32_t nr = (FTZ_READ_MAX_PAYLOAD - 16) / PAGE;
	char names[3][128], saved[sizeof(path)];
	const char *files[3];
	const char *why = NULL;
	struct dec_event ev;
	unsigned long events = 0;

	(void)state;
	memcpy(saved, path, sizeof(path));
	for (int i = 0; i < 3; i++) {
		char tail[160];
		int n = snprintf(tail, sizeof(tail), "hostname=h\nboot_id=b\ncapture_id=c1\n"
				 "series_prefix=s-\nseries_index=%d\n", i + 1);

		snprintf(names[i], sizeof(names[i]), "%s.s-%04d.ftz", saved, i + 1);
		snprintf(path, sizeof(path), "%s", names[i]);
		struct ftz_writer *w = begin(1, tail, (size_t)n);

		write_event_page(w, 0, 1000 + i, 0);
		assert_int_equal(ftz_writer_close(w), 0);
		for (int b = 0; b < 12; b++)
			append_pages_bomb(0, nr, 16 + (uint64_t)nr * PAGE, false);
		files[i] = names[i];
	}
	memcpy(path, saved, sizeof(path));
	struct dec *d = dec_open_set(files, 3);

	assert_non_null(d);
	while (dec_next(d, &ev) > 0)
		events++;
	assert_true(dec_damage(d, NULL, &why));
	assert_non_null(strstr(why, "1024 times the capture's size"));
	assert_true(events >= 2 && events <= 3);
	dec_close(d);
	for (int i = 0; i < 3; i++)
		unlink(names[i]);
}

/* Three FILE sections of 1 GiB: refused at the first (the issue saw 4 GB). */
static void test_file_bombs_1g(void **state)
{
	struct ftz_writer *w = begin(1, "", 0);
	struct outcome o;
	long mib;

	write_event_page(w, 0, 1000, 0);
	assert_int_equal(ftz_writer_close(w), 0);
	append_file_bomb("junk/a", GIB - 64, 'A');
	append_file_bomb("/proc/kallsyms", GIB - 64, 'B');
	append_file_bomb("saved_cmdlines", GIB - 64, 'C');
	mib = rss_growth_mib(drain, NULL);
	print_message("FILE bombs of 1 GiB x 3: peak RSS +%ld MiB\n", mib);
	assert_true(mib < 64);
	decode_all(&o);
	assert_int_equal(o.events, 1);
	assert_true(o.damaged);
	assert_non_null(strstr(o.reason, "64 MiB limit"));
}

/* FILE sections under the per-section limit: the same name again replaces (only
 * the latest copy is kept, its bytes are the last ones written), new names add up
 * to the total limit and are refused past it. */
static void test_file_copies_bounded(void **state)
{
	uint64_t size = FTZ_READ_MAX_PAYLOAD - 4096;
	struct ftz_writer *w = begin(1, "", 0);
	struct outcome o;
	struct dec *d;
	const char *data;
	size_t len = 0;
	long mib;

	write_event_page(w, 0, 1000, 0);
	assert_int_equal(ftz_writer_close(w), 0);
	for (int i = 0; i < 3; i++)
		append_file_bomb("junk/same", size, 'A' + i);
	mib = rss_growth_mib(drain, NULL);
	print_message("FILE of 64 MiB x 3, same name: peak RSS +%ld MiB\n", mib);
	assert_true(mib < 3 * (long)FTZ_READ_MAX_PAYLOAD / MIB + 32);
	d = dec_open(path);
	assert_non_null(d);
	assert_false(dec_damage(d, NULL, NULL));
	data = dec_file(d, "junk/same", -1, &len);
	assert_int_equal(len, size);
	assert_int_equal(data[0], 'C');
	assert_int_equal(data[len - 1], 'C');
	dec_close(d);

	for (int i = 0; i < 3; i++) { /* 3 more names: 4 x 64 MiB > the 128 MiB total */
		char name[32];

		snprintf(name, sizeof(name), "junk/%d", i);
		append_file_bomb(name, size, 'a' + i);
	}
	decode_all(&o);
	assert_int_equal(o.events, 1);
	assert_true(o.damaged);
	assert_non_null(strstr(o.reason, "in total"));
}

struct many_cpus { unsigned nr; };

static void decode_many_cpus(void *arg)
{
	const struct many_cpus *m = arg;
	struct rlimit lim = { 64, 64 };
	struct outcome o;

	/* Few descriptors: one per CPU (the old cursors) would run out at once. */
	if (setrlimit(RLIMIT_NOFILE, &lim) < 0)
		_exit(3);
	decode_all(&o);
	if (o.damaged || o.events != m->nr / 10 || o.per_cpu_ok != o.events)
		_exit(4);
}

/* A valid file with 3000 CPUs, every tenth with an event, decoded under a limit
 * of 64 open files: every event, in time order, no damage. */
static void test_3000_cpus(void **state)
{
	struct many_cpus m = { 3000 };
	struct ftz_writer *w = begin(m.nr, "", 0);
	struct outcome o;

	/* Later CPUs first in time, so the merge has to order them. */
	for (uint32_t cpu = 0; cpu < m.nr; cpu += 10)
		write_event_page(w, cpu, 1000000 - cpu, cpu);
	finish(w);
	rss_growth_mib(decode_many_cpus, &m);
	decode_all(&o);
	assert_int_equal(o.events, m.nr / 10);
	assert_int_equal(o.per_cpu_ok, m.nr / 10);
	assert_false(o.damaged);
}

/*
 * CPUs 0..65535 one by one, empty pages but for the last CPU's event: the CPU
 * table grows without a copy per CPU and the decode completes; CPU 65536 is
 * past the decoder's bound, damage.
 */
static void test_65536_cpus(void **state)
{
	static uint8_t empty[PAGE];
	struct ftz_writer *w = begin(1, "", 0);
	struct outcome o;
	double t0;

	for (uint32_t cpu = 0; cpu < 65535; cpu++)
		assert_int_equal(ftz_write_pages(w, cpu, PAGE, empty, 1), 0);
	write_event_page(w, 65535, 1000, 65535);
	write_event_page(w, 65536, 2000, 65536);
	finish(w);
	t0 = now_s();
	decode_all(&o);
	print_message("65536 CPUs: decoded in %.2f s\n", now_s() - t0);
	assert_int_equal(o.events, 1);
	assert_int_equal(o.per_cpu_ok, 1);
	assert_true(o.damaged);
	assert_non_null(strstr(o.reason, "impossible cpu"));
}

/* 250,000 empty FILE sections of distinct names (114 s with a linear lookup):
 * the decode completes, the events and the files are all there. */
static void test_250k_file_sections(void **state)
{
	struct ftz_writer *w = begin(1, "", 0);
	char name[32];
	struct outcome o;
	struct dec *d;
	double t0;
	size_t len = 1;

	write_event_page(w, 0, 1000, 0);
	for (int i = 0; i < 250000; i++) {
		snprintf(name, sizeof(name), "f/%d", i);
		assert_int_equal(ftz_write_file(w, FTZ_PHASE_START, name, "", 0), 0);
	}
	finish(w);
	t0 = now_s();
	decode_all(&o);
	print_message("250k FILE sections: decoded in %.2f s\n", now_s() - t0);
	assert_int_equal(o.events, 1);
	assert_false(o.damaged);
	d = dec_open(path);
	assert_non_null(d);
	assert_int_equal(dec_nr_files(d), 250000 + 2);
	assert_non_null(dec_file(d, "f/123456", FTZ_PHASE_START, &len));
	assert_int_equal(len, 0);
	assert_null(dec_file(d, "f/123456", FTZ_PHASE_END, NULL));
	assert_null(dec_file(d, "f/250000", -1, NULL));
	dec_close(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kv_length_delimited),
		cmocka_unit_test_setup_teardown(test_nul_in_info_and_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_name_past_payload, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_unknown_phase, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zstd_bomb_declared, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zstd_bomb_understated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zstd_frame_short, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zstd_bomb_at_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zstd_bombs_many_cpus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zstd_bombs_expansion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zstd_bombs_expansion_set, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_bombs_1g, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_copies_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_3000_cpus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_65536_cpus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_250k_file_sections, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
