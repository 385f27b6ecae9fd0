// SPDX-License-Identifier: MIT
/*
 * test_format.c - the .ftz container: round trips, damage at every byte,
 * version policy, concurrent writers and write errors.
 *
 * Ground truth here is what the test itself put in (payload bytes it generated)
 * plus the published CRC-32C check value; nothing is compared against output of
 * the code under test alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "format/ftz.h"
#include "ftz_int.h"

static char tmp_path[64];

static int setup(void **state)
{
	int fd;

	strcpy(tmp_path, "/tmp/test_format.XXXXXX");
	fd = mkstemp(tmp_path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	unlink(tmp_path);
	return 0;
}

/* Deterministic bytes: compressible = short repeating text, else xorshift noise. */
static void fill(uint8_t *buf, size_t len, uint32_t seed, bool compressible)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;

	for (size_t i = 0; i < len; i++) {
		if (compressible) {
			buf[i] = "sys_enter_getpid "[(i + seed) % 17];
			continue;
		}
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		buf[i] = x >> 24;
	}
}

static struct ftz_writer *create(void)
{
	char err[256] = "";
	struct ftz_writer *w = ftz_writer_create(tmp_path, err, sizeof(err));

	if (!w)
		fail_msg("create: %s", err);
	return w;
}

static struct ftz_reader *open_ok(void)
{
	char err[256] = "";
	struct ftz_reader *r = ftz_reader_open(tmp_path, err, sizeof(err));

	if (!r)
		fail_msg("open: %s", err);
	return r;
}

/* Expect ftz_reader_open to fail with an error containing want. */
static void open_fails(const char *want)
{
	char err[256] = "";
	struct ftz_reader *r = ftz_reader_open(tmp_path, err, sizeof(err));

	assert_null(r);
	if (!strstr(err, want))
		fail_msg("error \"%s\" lacks \"%s\"", err, want);
	assert_non_null(strstr(err, tmp_path)); /* the message names the file */
}

static void test_crc32c_check_value(void **state)
{
	/* The CRC-32C check value from the catalogue of parametrised CRCs / RFC 3720. */
	assert_int_equal(ftz_crc32c(0, "123456789", 9), 0xE3069283u);
	/* Chaining equals one pass, and every slicing-by-8 alignment agrees with it. */
	assert_int_equal(ftz_crc32c(ftz_crc32c(0, "1234", 4), "56789", 5), 0xE3069283u);
	/* RFC 3720 B.4: 32 bytes of zeros. */
	uint8_t zeros[32] = { 0 };
	assert_int_equal(ftz_crc32c(0, zeros, sizeof(zeros)), 0x8A9136AAu);
}

#define PAGE 4096
#define NPAGES 3

/* Write one section of every type; noise pages must end up stored raw. */
static const char fmt[] = "name: sys_enter_getpid\nID: 123\nformat:\n";
static const char stat_text[] = "  Function  Hit\n  --------  ---\n  vfs_read  42\n";
/* Values that need every byte of their fields: a swapped or short field shows. */
static const struct ftz_snapshot_time snap_time = {
	.mono_ns = 0x0102030405060708ull, .wall_ns = 0x1112131415161718ull, .round = 0x21222324,
};

static void write_all_types(struct ftz_writer *w, uint8_t *text_pages, uint8_t *noise_pages)
{

	assert_int_equal(ftz_write_info(w, FTZ_SEC_INFO, "ftz_version=1.0\nendian=little\npage_size=4096\nendian=big\n"), 0);
	assert_int_equal(ftz_write_file(w, FTZ_PHASE_START, "events/syscalls/sys_enter_getpid/format",
					fmt, strlen(fmt)), 0);
	assert_int_equal(ftz_write_file(w, FTZ_PHASE_END, "/proc/kallsyms", "", 0), 0);
	assert_int_equal(ftz_write_pages(w, 7, PAGE, text_pages, NPAGES), 0);
	assert_int_equal(ftz_write_pages(w, 1, PAGE, noise_pages, NPAGES), 0);
	assert_int_equal(ftz_write_snapshot(w, &snap_time, "trace_stat/function1", stat_text,
					    strlen(stat_text)), 0);
	assert_int_equal(ftz_write_section(w, FTZ_SEC_END, "", 0, false), 0);
}

static void next_ok(struct ftz_reader *r, struct ftz_section *s, uint32_t type, bool pages)
{
	int rc = ftz_reader_next(r, s, pages);

	if (rc != FTZ_READ_OK) {
		const char *why;
		uint64_t off = ftz_reader_damage(r, &why);

		fail_msg("next: rc %d at %llu: %s", rc, (unsigned long long)off, why);
	}
	assert_int_equal(s->type, type);
}

static void test_round_trip(void **state)
{
	static uint8_t text[PAGE * NPAGES], noise[PAGE * NPAGES];
	struct ftz_writer *w = create();
	struct ftz_section s;
	struct ftz_file f;
	struct ftz_pages p;
	uint64_t raw, stored;
	char val[64];

	fill(text, sizeof(text), 1, true);
	fill(noise, sizeof(noise), 2, false);
	write_all_types(w, text, noise);
	ftz_writer_page_bytes(w, &raw, &stored);
	assert_int_equal(raw, 2 * (16 + sizeof(text)));
	assert_true(stored < raw);
	uint64_t bytes = ftz_writer_bytes(w);
	assert_int_equal(ftz_writer_close(w), 0);

	struct stat st;
	assert_int_equal(stat(tmp_path, &st), 0);
	assert_int_equal(st.st_size, bytes);

	for (int pass = 0; pass < 2; pass++) {
		bool want_pages = pass == 0;
		struct ftz_reader *r = open_ok();
		unsigned major, minor;

		ftz_reader_version(r, &major, &minor);
		assert_int_equal(major, FTZ_VERSION_MAJOR);
		assert_int_equal(minor, FTZ_VERSION_MINOR);

		next_ok(r, &s, FTZ_SEC_INFO, want_pages);
		assert_int_equal(s.offset, 16);
		assert_int_equal(s.len, s.raw_len);
		assert_int_equal(ftz_kv_get((const char *)s.data, s.len, "endian", val, sizeof(val)), 3);
		assert_string_equal(val, "big"); /* later keys win */
		assert_int_equal(ftz_kv_get((const char *)s.data, s.len, "page_size", val, sizeof(val)), 4);
		assert_string_equal(val, "4096");
		assert_int_equal(ftz_kv_get((const char *)s.data, s.len, "page", val, sizeof(val)), -ENOENT);

		next_ok(r, &s, FTZ_SEC_FILE, want_pages);
		assert_int_equal(ftz_parse_file(&s, &f), 0);
		assert_int_equal(f.phase, FTZ_PHASE_START);
		assert_string_equal(f.name, "events/syscalls/sys_enter_getpid/format");
		assert_int_equal(f.len, sizeof(fmt) - 1);
		assert_memory_equal(f.data, fmt, f.len);

		next_ok(r, &s, FTZ_SEC_FILE, want_pages);
		assert_int_equal(ftz_parse_file(&s, &f), 0);
		assert_int_equal(f.phase, FTZ_PHASE_END);
		assert_string_equal(f.name, "/proc/kallsyms");
		assert_int_equal(f.len, 0);

		next_ok(r, &s, FTZ_SEC_PAGES, want_pages);
		assert_int_equal(s.flags, FTZ_FLAG_ZSTD);
		assert_true(s.stored_len < s.raw_len / 10);
		if (want_pages) {
			assert_int_equal(ftz_parse_pages(&s, &p), 0);
			assert_int_equal(p.cpu, 7);
			assert_int_equal(p.page_size, PAGE);
			assert_int_equal(p.nr_pages, NPAGES);
			assert_memory_equal(p.pages, text, sizeof(text));
		} else {
			assert_null(s.data);
			assert_int_equal(ftz_parse_pages(&s, &p), -EINVAL);
		}

		next_ok(r, &s, FTZ_SEC_PAGES, want_pages);
		assert_int_equal(s.flags, 0); /* noise does not shrink: stored raw */
		assert_int_equal(s.stored_len, s.raw_len);
		if (want_pages) {
			assert_int_equal(ftz_parse_pages(&s, &p), 0);
			assert_int_equal(p.cpu, 1);
			assert_memory_equal(p.pages, noise, sizeof(noise));
		}

		struct ftz_snapshot snap;
		next_ok(r, &s, FTZ_SEC_SNAPSHOT, want_pages);
		assert_int_equal(ftz_parse_snapshot(&s, &snap), 0);
		assert_string_equal(snap.name, "trace_stat/function1");
		assert_int_equal(snap.time.mono_ns, snap_time.mono_ns);
		assert_int_equal(snap.time.wall_ns, snap_time.wall_ns);
		assert_int_equal(snap.time.round, snap_time.round);
		assert_int_equal(snap.len, strlen(stat_text));
		assert_memory_equal(snap.data, stat_text, snap.len);
		assert_int_equal(ftz_parse_file(&s, &f), -EINVAL); /* not a FILE */

		next_ok(r, &s, FTZ_SEC_END, want_pages);
		assert_int_equal(s.len, 0);
		assert_int_equal(s.offset + 32, st.st_size);
		assert_int_equal(ftz_reader_next(r, &s, want_pages), FTZ_READ_END);
		assert_int_equal(ftz_reader_file_size(r), st.st_size);
		ftz_reader_close(r);
	}
}

/* A small file: its bytes and its section offsets, the file end last. */
struct small {
	uint8_t *buf;
	size_t size;
	uint64_t bounds[8];
	int nb;
};

static struct small small_file(void)
{
	struct small sm;
	uint8_t pages[2 * 256];
	struct ftz_writer *w = create();
	struct ftz_reader *r;
	struct ftz_section s;
	int fd, n = 0;

	fill(pages, 256, 3, true);
	fill(pages + 256, 256, 4, false);
	assert_int_equal(ftz_write_info(w, FTZ_SEC_INFO, "hostname=test\nnr_cpus=2\n"), 0);
	assert_int_equal(ftz_write_file(w, FTZ_PHASE_START, "saved_cmdlines", "1 init\n", 7), 0);
	assert_int_equal(ftz_write_pages(w, 0, 256, pages, 2), 0);
	assert_int_equal(ftz_write_info(w, FTZ_SEC_END, "stop_reason=command exited\n"), 0);
	assert_int_equal(ftz_writer_close(w), 0);

	r = open_ok();
	while (ftz_reader_next(r, &s, true) == FTZ_READ_OK)
		sm.bounds[n++] = s.offset;
	sm.bounds[n++] = ftz_reader_file_size(r);
	sm.nb = n;
	ftz_reader_close(r);
	assert_int_equal(n, 5);

	sm.size = sm.bounds[n - 1];
	sm.buf = malloc(sm.size);
	fd = open(tmp_path, O_RDONLY);
	assert_int_equal(read(fd, sm.buf, sm.size), (ssize_t)sm.size);
	close(fd);
	return sm;
}

static void put_file(const uint8_t *buf, size_t len)
{
	int fd = open(tmp_path, O_WRONLY | O_TRUNC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

/*
 * Read to the end; return the number of sections read and whether it ended
 * cleanly; on damage check the reported offset.
 */
static int read_all(bool *clean, uint64_t *damage_off)
{
	struct ftz_reader *r = open_ok();
	struct ftz_section s;
	int n = 0, rc;

	while ((rc = ftz_reader_next(r, &s, true)) == FTZ_READ_OK)
		n++;
	*clean = rc == FTZ_READ_END;
	if (!*clean) {
		const char *why = NULL;

		assert_int_equal(rc, FTZ_READ_DAMAGE);
		*damage_off = ftz_reader_damage(r, &why);
		assert_non_null(why);
		assert_true(strlen(why) > 0);
		/* Sticky: the reader does not go past damage. */
		assert_int_equal(ftz_reader_next(r, &s, true), FTZ_READ_DAMAGE);
	}
	ftz_reader_close(r);
	return n;
}

static void test_cut_at_every_offset(void **state)
{
	struct small sm = small_file();

	for (size_t cut = 0; cut <= sm.size; cut++) {
		int complete = 0;
		bool clean;
		uint64_t off = 0;

		put_file(sm.buf, cut);
		if (cut == 0) {
			open_fails("not an .ftz file");
			continue;
		}
		if (cut < 16) {
			open_fails("truncated .ftz file header");
			continue;
		}
		while (complete < sm.nb - 1 && sm.bounds[complete + 1] <= cut)
			complete++;
		int got = read_all(&clean, &off);
		if (got != complete)
			fail_msg("cut %zu: %d sections, want %d", cut, got, complete);
		/* A cut exactly at a boundary is a clean end (END section absent);
		 * anywhere else the torn section is reported at its own offset. */
		bool at_boundary = cut == 16;
		for (int i = 0; i < sm.nb; i++)
			at_boundary |= sm.bounds[i] == cut;
		assert_int_equal(clean, at_boundary);
		if (!clean)
			assert_int_equal(off, sm.bounds[complete]);
	}
	free(sm.buf);
}

static void test_flip_every_byte(void **state)
{
	struct small sm = small_file();

	for (size_t at = 16; at < sm.size; at++) {
		int sec = 0;
		bool clean;
		uint64_t off = 0;

		while (sm.bounds[sec + 1] <= at)
			sec++;
		sm.buf[at] ^= 0xff;
		put_file(sm.buf, sm.size);
		int got = read_all(&clean, &off);
		sm.buf[at] ^= 0xff;
		if (clean || got != sec || off != sm.bounds[sec])
			fail_msg("flip at %zu (section %d at %llu): got %d sections, clean %d, off %llu",
				 at, sec, (unsigned long long)sm.bounds[sec], got, clean,
				 (unsigned long long)off);
	}
	free(sm.buf);
}

static void test_file_header_fields(void **state)
{
	struct small sm = small_file();
	bool clean;
	uint64_t off;

	for (int at = 0; at < 8; at++) {
		sm.buf[at] ^= 0x01;
		put_file(sm.buf, sm.size);
		open_fails("not an .ftz file");
		sm.buf[at] ^= 0x01;
	}
	/* A higher minor (new section types or keys) and the reserved field are accepted. */
	put_le16(sm.buf + 10, FTZ_VERSION_MINOR + 1);
	put_le32(sm.buf + 12, 0xdeadbeef);
	put_file(sm.buf, sm.size);
	assert_int_equal(read_all(&clean, &off), sm.nb - 1);
	assert_true(clean);
	/* A higher major is refused, with both versions named. */
	put_le16(sm.buf + 8, FTZ_VERSION_MAJOR + 1);
	put_file(sm.buf, sm.size);
	char want[96];
	snprintf(want, sizeof(want), "format version %d.%d is not supported (this reader reads 1.x)",
		 FTZ_VERSION_MAJOR + 1, FTZ_VERSION_MINOR + 1);
	open_fails(want);
	free(sm.buf);
}

static void test_not_ftz(void **state)
{
	static const char text[] = "# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0\n";

	put_file((const uint8_t *)text, strlen(text));
	open_fails("not an .ftz file");
	put_file((const uint8_t *)"", 0);
	open_fails("not an .ftz file");
	unlink(tmp_path);
	open_fails("No such file or directory");
}

static void test_unknown_types_skipped(void **state)
{
	static uint8_t big[8192];
	struct ftz_writer *w = create();
	struct ftz_reader *r;
	struct ftz_section s;

	fill(big, sizeof(big), 5, true);
	assert_int_equal(ftz_write_section(w, 99, big, sizeof(big), true), 0);
	assert_int_equal(ftz_write_section(w, 0x7fff, "opaque", 6, false), 0);
	assert_int_equal(ftz_write_info(w, FTZ_SEC_INFO, "k=v\n"), 0);
	assert_int_equal(ftz_writer_close(w), 0);

	r = open_ok();
	next_ok(r, &s, 99, true);
	assert_int_equal(s.flags, FTZ_FLAG_ZSTD);
	assert_int_equal(s.raw_len, sizeof(big));
	assert_null(s.data);
	next_ok(r, &s, 0x7fff, true);
	assert_null(s.data);
	next_ok(r, &s, FTZ_SEC_INFO, true);
	assert_string_equal((const char *)s.data, "k=v\n");
	assert_int_equal(ftz_reader_next(r, &s, true), FTZ_READ_END);

	/* Seek back to a returned offset and read the same section again. */
	assert_int_equal(ftz_reader_seek(r, 16), 0);
	next_ok(r, &s, 99, true);
	ftz_reader_close(r);
}

/* A header with a valid checksum but an absurd length is damage, not a 1 TiB malloc. */
static void test_length_limit(void **state)
{
	uint8_t file[FTZ_FILE_HDR_LEN + FTZ_SEC_HDR_LEN];
	struct ftz_sec_hdr h = { .type = FTZ_SEC_INFO, .stored_len = 1ull << 40, .raw_len = 1ull << 40 };
	bool clean;
	uint64_t off;

	ftz_file_hdr_encode(file);
	ftz_sec_hdr_encode(&h, file + FTZ_FILE_HDR_LEN);
	put_file(file, sizeof(file));
	assert_int_equal(read_all(&clean, &off), 0);
	assert_false(clean);
	assert_int_equal(off, 16);

	/* Compressed, in bounds, checksummed, but the frame is not zstd. */
	uint8_t bad[FTZ_FILE_HDR_LEN + FTZ_SEC_HDR_LEN + 8] = { 0 };
	h = (struct ftz_sec_hdr){ .type = FTZ_SEC_INFO, .flags = FTZ_FLAG_ZSTD,
				  .stored_len = 8, .raw_len = 100,
				  .payload_crc = ftz_crc32c(0, bad + 48, 8) };
	ftz_file_hdr_encode(bad);
	ftz_sec_hdr_encode(&h, bad + FTZ_FILE_HDR_LEN);
	put_file(bad, sizeof(bad));
	assert_int_equal(read_all(&clean, &off), 0);
	assert_false(clean);
}

static void test_parse_rejects_malformed(void **state)
{
	uint8_t p[32] = { 0 };
	struct ftz_section s = { .type = FTZ_SEC_FILE, .data = p, .len = 10 };
	struct ftz_file f;
	struct ftz_pages pg;

	put_le16(p + 2, 7); /* name runs past the payload */
	assert_int_equal(ftz_parse_file(&s, &f), -EINVAL);
	put_le16(p + 2, 0); /* empty name */
	assert_int_equal(ftz_parse_file(&s, &f), -EINVAL);
	s = (struct ftz_section){ .type = FTZ_SEC_PAGES, .data = p, .len = 32 };
	put_le32(p + 4, 8);
	put_le32(p + 8, 3); /* 24 bytes of pages claimed, 16 present */
	assert_int_equal(ftz_parse_pages(&s, &pg), -EINVAL);
	put_le32(p + 8, 2);
	assert_int_equal(ftz_parse_pages(&s, &pg), 0);
	assert_int_equal(pg.nr_pages, 2);
	s.len = 3;
	assert_int_equal(ftz_parse_pages(&s, &pg), -EINVAL);

	struct ftz_snapshot snap;
	memset(p, 0, sizeof(p));
	s = (struct ftz_section){ .type = FTZ_SEC_SNAPSHOT, .data = p, .len = 30 };
	put_le16(p + 20, 7); /* name runs past the payload (6 bytes after the fixed 24) */
	assert_int_equal(ftz_parse_snapshot(&s, &snap), -EINVAL);
	put_le16(p + 20, 6);
	memcpy(p + 24, "abcdef", 6);
	assert_int_equal(ftz_parse_snapshot(&s, &snap), 0);
	assert_string_equal(snap.name, "abcdef");
	assert_int_equal(snap.len, 0);
	s.len = 23; /* shorter than the fixed part */
	assert_int_equal(ftz_parse_snapshot(&s, &snap), -EINVAL);
}

#define THREADS 4
#define PER_THREAD 200

struct worker { struct ftz_writer *w; uint32_t id; };

static void *worker(void *arg)
{
	struct worker *wk = arg;
	uint8_t pages[2 * 512];

	for (uint32_t i = 0; i < PER_THREAD; i++) {
		/* Sequence number in the first bytes; alternate compressible and not. */
		fill(pages, sizeof(pages), wk->id * 1000 + i, i % 2);
		memcpy(pages, &i, sizeof(i));
		if (ftz_write_pages(wk->w, wk->id, 512, pages, 2) != 0)
			return (void *)1;
	}
	return NULL;
}

static void test_concurrent_writers(void **state)
{
	struct ftz_writer *w = create();
	pthread_t th[THREADS];
	struct worker wk[THREADS];
	uint32_t next_seq[THREADS] = { 0 };
	struct ftz_reader *r;
	struct ftz_section s;
	struct ftz_pages p;
	uint8_t want[2 * 512];
	int rc;

	for (int i = 0; i < THREADS; i++) {
		wk[i] = (struct worker){ w, i };
		assert_int_equal(pthread_create(&th[i], NULL, worker, &wk[i]), 0);
	}
	for (int i = 0; i < THREADS; i++) {
		void *ret;

		pthread_join(th[i], &ret);
		assert_null(ret);
	}
	assert_int_equal(ftz_writer_close(w), 0);

	r = open_ok();
	while ((rc = ftz_reader_next(r, &s, true)) == FTZ_READ_OK) {
		assert_int_equal(ftz_parse_pages(&s, &p), 0);
		assert_true(p.cpu < THREADS);
		/* Each thread's sections appear whole and in its own order. */
		uint32_t seq = next_seq[p.cpu]++;
		fill(want, sizeof(want), p.cpu * 1000 + seq, seq % 2);
		memcpy(want, &seq, sizeof(seq));
		assert_memory_equal(p.pages, want, sizeof(want));
	}
	assert_int_equal(rc, FTZ_READ_END);
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(next_seq[i], PER_THREAD);
	ftz_reader_close(r);
}

static void test_dev_full(void **state)
{
	char err[256] = "";
	struct ftz_writer *w = ftz_writer_create("/dev/full", err, sizeof(err));

	/* The file header is written at create, so the failure shows up right away. */
	assert_null(w);
	assert_non_null(strstr(err, "/dev/full"));
	assert_non_null(strstr(err, strerror(ENOSPC)));
}

/*
 * A write that runs out of room half-way (RLIMIT_FSIZE makes the kernel do
 * exactly what a full disk does: a short write, then an error) leaves a valid
 * file of complete sections, and the error sticks.
 */
static void test_short_write_sticky(void **state)
{
	static uint8_t noise[8 * 1024];
	struct rlimit old, lim;
	struct ftz_writer *w = create();
	int written = 0, err = 0;
	bool clean;
	uint64_t off;

	fill(noise, sizeof(noise), 6, false);
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 50000; /* not a multiple of the section size */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	while (written < 100 && (err = ftz_write_section(w, FTZ_SEC_INFO, noise, sizeof(noise), false)) == 0)
		written++;
	assert_int_equal(err, -EFBIG);
	assert_int_equal(written, (50000 - 16) / (32 + sizeof(noise)));
	assert_int_equal(ftz_writer_error(w), -EFBIG);
	/* Sticky: even a write that would fit fails now. */
	assert_int_equal(ftz_write_info(w, FTZ_SEC_END, "x=1\n"), -EFBIG);
	uint64_t bytes = ftz_writer_bytes(w);
	assert_int_equal(ftz_writer_close(w), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);

	struct stat st;
	assert_int_equal(stat(tmp_path, &st), 0);
	assert_int_equal(st.st_size, bytes); /* the torn tail was cut off */
	assert_int_equal(read_all(&clean, &off), written);
	assert_true(clean);
}

/*
 * kill -9 in the middle of recording: the reader gets every section the writer
 * finished, intact, and at worst one torn section after them.
 */
static void test_kill9_mid_write(void **state)
{
	static uint8_t pages[64 * 1024];
	struct ftz_reader *r;
	struct ftz_section s;
	struct ftz_pages p;
	uint8_t *want = malloc(sizeof(pages));
	uint32_t seq = 0;
	int rc, status;
	pid_t child;

	assert_non_null(want);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct ftz_writer *w = create();

		/* Bounded, so a failing parent cannot leave it filling the disk. */
		for (uint32_t i = 0; i < 1000; i++) {
			fill(pages, sizeof(pages), i, i % 2);
			memcpy(pages, &i, sizeof(i));
			if (ftz_write_pages(w, 0, 4096, pages, sizeof(pages) / 4096) != 0)
				_exit(1);
		}
		_exit(0);
	}
	/* Let it write a few MB, then kill it wherever it is. */
	struct stat st = { 0 };
	while (waitpid(child, &status, WNOHANG) == 0 && st.st_size < 4 << 20) {
		usleep(2000);
		stat(tmp_path, &st);
	}
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	if (!WIFSIGNALED(status))
		fail_msg("writer exited with status %d before it was killed", status);

	r = open_ok();
	while ((rc = ftz_reader_next(r, &s, true)) == FTZ_READ_OK) {
		assert_int_equal(ftz_parse_pages(&s, &p), 0);
		fill(want, sizeof(pages), seq, seq % 2);
		memcpy(want, &seq, sizeof(seq));
		assert_memory_equal(p.pages, want, sizeof(pages));
		seq++;
	}
	assert_true(rc == FTZ_READ_END || rc == FTZ_READ_DAMAGE);
	assert_true(seq >= 4 * 1024 * 1024 / (32 + 16 + sizeof(pages)) - 1);
	if (rc == FTZ_READ_DAMAGE) /* the one torn section is the last thing in the file */
		assert_true(ftz_reader_damage(r, NULL) + 32 + 16 + sizeof(pages) > ftz_reader_file_size(r));
	ftz_reader_close(r);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c_check_value),
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_at_every_offset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flip_every_byte, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_header_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_ftz, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_types_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_length_limit, setup, teardown),
		cmocka_unit_test(test_parse_rejects_malformed),
		cmocka_unit_test_setup_teardown(test_concurrent_writers, setup, teardown),
		cmocka_unit_test(test_dev_full),
		cmocka_unit_test_setup_teardown(test_short_write_sticky, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kill9_mid_write, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
