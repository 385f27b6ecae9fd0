// SPDX-License-Identifier: MIT
/*
 * capture_set.c - which files make one capture, and are they really one
 * (capture_set.h). Only each file's INFO section is read here.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/msg.h"
#include "decode/capture_set.h"
#include "format/ftz.h"

/* The INFO keys a member must share with the head: one recording, one host, one boot. */
static const char *const same_keys[] = { "capture_id", "boot_id", "hostname", "uname_release",
					 "clock", "long_size", "endian" };

struct member {
	char *path;
	char *info;         /* its INFO text, NULL when it has none */
	unsigned long long no; /* ring_segment or series_index */
	dev_t dev;
	ino_t ino;
};

/* The INFO text of PATH (its first section), malloc'd; NULL when it has none or is not an .ftz. */
static char *read_info(const char *path)
{
	char e[256];
	struct ftz_reader *r = ftz_reader_open(path, e, sizeof(e));
	struct ftz_section sec;
	char *text = NULL;

	if (!r)
		return NULL;
	if (ftz_reader_next(r, &sec, false) == FTZ_READ_OK && sec.type == FTZ_SEC_INFO && sec.data)
		text = strndup((const char *)sec.data, sec.len);
	ftz_reader_close(r);
	return text;
}

static bool kv(const char *info, const char *key, char *buf, size_t len)
{
	return info && ftz_kv_get(info, strlen(info), key, buf, len) >= 0;
}

static bool kv_num(const char *info, const char *key, unsigned long long *v)
{
	char buf[32], *end;

	if (!kv(info, key, buf, sizeof(buf)) || !buf[0] || buf[0] == '-')
		return false;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return !errno && !*end;
}

/* Does member M belong with HEAD? 0, or -1 after an error naming what differs. */
static int check_same(const char *head_path, const char *head, const struct member *m)
{
	for (size_t i = 0; i < sizeof(same_keys) / sizeof(same_keys[0]); i++) {
		char a[256] = "", b[256] = "";
		bool ha = kv(head, same_keys[i], a, sizeof(a)), hb = kv(m->info, same_keys[i], b, sizeof(b));

		if (ha != hb || strcmp(a, b))
			return msg_error("%s: not part of the capture %s (%s differs: '%.60s' against '%.60s')",
					 m->path, head_path, same_keys[i], hb ? b : "(none)", ha ? a : "(none)");
	}
	return 0;
}

static int by_number(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	return x->no < y->no ? -1 : x->no > y->no;
}

/* A gap list "5-6,9" of the numbers missing between FIRST and the members (sorted). */
static void gaps(const struct member *m, size_t n, unsigned long long first, FILE *f, bool *any)
{
	unsigned long long expect = first;

	*any = false;
	for (size_t i = 0; i < n; i++) {
		if (m[i].no > expect) {
			fprintf(f, "%s%llu", *any ? "," : "", expect);
			if (m[i].no - 1 > expect)
				fprintf(f, "-%llu", m[i].no - 1);
			*any = true;
		}
		expect = m[i].no + 1;
	}
}

static void free_members(struct member *m, size_t n)
{
	for (size_t i = 0; m && i < n; i++) {
		free(m[i].path);
		free(m[i].info);
	}
	free(m);
}

static int add_member(struct member **m, size_t *n, size_t *cap, const char *path)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		struct member *x = realloc(*m, c * sizeof(*x));

		if (!x)
			return -1;
		*m = x;
		*cap = c;
	}
	(*m)[*n] = (struct member){ .path = strdup(path) };
	if (!(*m)[*n].path)
		return -1;
	(*n)++;
	return 0;
}

/* A ring segment's name: PREFIX, 6 or more digits (a number from 1), ".ftz"; its number in *no. */
static bool segment_name(const char *name, const char *prefix, unsigned long long *no)
{
	size_t pl = strlen(prefix), digits;
	const char *d = name + pl;

	if (strncmp(name, prefix, pl))
		return false;
	digits = strspn(d, "0123456789");
	if (digits < 6 || digits > 18 || strcmp(d + digits, ".ftz"))
		return false;
	*no = strtoull(d, NULL, 10);
	return *no >= 1; /* ftrec numbers from 1: a 0 would make every ring_trimmed_segments wrap */
}

static int set_paths(struct cset *cs, struct member *m, size_t n, const char *head)
{
	cs->paths = calloc(n + 1, sizeof(*cs->paths));
	if (!cs->paths)
		return -1;
	if (head && !(cs->paths[cs->n++] = strdup(head)))
		return -1;
	for (size_t i = 0; i < n; i++) {
		cs->paths[cs->n++] = m[i].path;
		m[i].path = NULL;
	}
	return 0;
}

/* The segments of a ring whose ring_prefix is PREFIX, in DIR: regular files only. 0 or -1. */
static int ring_find(const char *dir, const char *prefix, struct member **m, size_t *n)
{
	size_t cap = 0;
	DIR *d = opendir(dir);
	int rc = 0;

	if (!d)
		return msg_error_errno(errno, "%s", dir);
	for (struct dirent *e; !rc && (e = readdir(d));) {
		unsigned long long no;
		char path[PATH_MAX];
		struct stat st;

		if (!segment_name(e->d_name, prefix, &no))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path))
			continue;
		if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
			rc = msg_error("%s: not a regular file (a ring's segments are never links): refused",
				       path);
		else if (add_member(m, n, &cap, path) < 0)
			rc = msg_error("%s: out of memory", path);
		else
			(*m)[*n - 1].no = no;
	}
	closedir(d);
	return rc;
}

/* Each segment, in number order, is of the head's capture and says its own number. */
static int ring_check(const char *head_path, const char *head, struct member *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned long long own;

		m[i].info = read_info(m[i].path);
		if (!m[i].info)
			return msg_error("%s: a ring segment without an INFO section (not written by "
					 "ftrec, or cut at its start)", m[i].path);
		if (check_same(head_path, head, &m[i]) < 0)
			return -1;
		if (!kv_num(m[i].info, "ring_segment", &own) || own != m[i].no)
			return msg_error("%s: its INFO says it is not segment %llu (renamed?): refused",
					 m[i].path, m[i].no);
	}
	return 0;
}

/* The set's keys of a ring (decode.h: segments, what was trimmed, the gaps): malloc'd. */
static char *ring_keys(const struct member *m, size_t n)
{
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);

	if (!f)
		return NULL;
	fprintf(f, "segments=%zu\n", n);
	if (n) {
		unsigned long long v;
		bool any;

		fprintf(f, "segment_first=%llu\nsegment_last=%llu\n", m[0].no, m[n - 1].no);
		/* Everything before the oldest kept segment was trimmed by the ring, by design. */
		fprintf(f, "ring_trimmed_segments=%llu\n", m[0].no - 1);
		if (kv_num(m[0].info, "ring_before_pages", &v))
			fprintf(f, "ring_trimmed_pages=%llu\n", v);
		if (kv_num(m[0].info, "ring_before_events", &v))
			fprintf(f, "ring_trimmed_events=%llu\n", v);
		if (kv_num(m[0].info, "ring_before_bytes", &v))
			fprintf(f, "ring_trimmed_bytes=%llu\n", v);
		fputs("segment_gaps=", f);
		gaps(m, n, m[0].no, f, &any);
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		free(mem);
		return NULL;
	}
	return mem;
}

/* The head of a disk ring: its segments, from its own directory only. */
static int open_ring(const char *head_path, const char *head, struct cset *cs)
{
	char prefix[256], *copy = strdup(head_path);
	struct member *m = NULL;
	size_t n = 0;
	int rc = -1;

	if (!copy)
		return msg_error("%s: out of memory", head_path);
	kv(head, "ring_prefix", prefix, sizeof(prefix));
	/* The prefix comes from the file: a plain name in this directory, nothing else. */
	if (!prefix[0] || prefix[0] == '.' || strchr(prefix, '/') || strlen(prefix) > 200)
		msg_error("%s: ring_prefix '%.60s' is not a plain file name: refused", head_path, prefix);
	else if (!ring_find(dirname(copy), prefix, &m, &n)) {
		if (n) /* no segment beside the head: qsort(NULL, 0) is undefined */
			qsort(m, n, sizeof(*m), by_number);
		if (!ring_check(head_path, head, m, n)) {
			cs->keys = ring_keys(m, n);
			cs->ring = true;
			if (!cs->keys || set_paths(cs, m, n, head_path) < 0)
				msg_error("%s: out of memory", head_path);
			else
				rc = 0;
		}
	}
	free(copy);
	free_members(m, n);
	return rc;
}

/* Several files given together: one --rotate series, in its order. */
static int open_series(const char *const *args, size_t nargs, struct cset *cs)
{
	struct member *m = calloc(nargs, sizeof(*m));
	size_t n = 0, len = 0;
	char *mem = NULL;
	FILE *f;
	int rc = -1;
	bool any;

	if (!m)
		goto nomem;
	for (size_t i = 0; i < nargs; i++) {
		struct stat st;
		struct member *x = &m[n];
		bool dup = false;

		if (stat(args[i], &st) < 0) {
			msg_error_errno(errno, "%s", args[i]);
			goto out;
		}
		for (size_t j = 0; j < n; j++)
			dup |= m[j].dev == st.st_dev && m[j].ino == st.st_ino;
		if (dup)
			continue; /* the same file twice is the same part once */
		*x = (struct member){ .path = strdup(args[i]), .info = read_info(args[i]),
				      .dev = st.st_dev, .ino = st.st_ino };
		n++;
		if (!x->path)
			goto nomem;
		if (!x->info) {
			msg_error("%s: not an .ftz recording (no INFO section): cannot be joined", x->path);
			goto out;
		}
		if (kv(x->info, "ring_prefix", (char[8]){ 0 }, 8)) {
			msg_error("%s: a disk ring or one of its segments: open the ring's head alone", x->path);
			goto out;
		}
		if (!kv_num(x->info, "series_index", &x->no) || x->no < 1) {
			msg_error("%s: not a file of an ftrec --rotate series (no series_index from 1 up): cannot be joined", x->path);
			goto out;
		}
		if (n > 1 && check_same(m[0].path, m[0].info, x) < 0)
			goto out;
	}
	qsort(m, n, sizeof(*m), by_number);
	for (size_t i = 1; i < n; i++)
		if (m[i].no == m[i - 1].no) {
			msg_error("%s: file %llu of the series, like %s: refused (which one is right?)",
				  m[i].path, m[i].no, m[i - 1].path);
			goto out;
		}
	f = open_memstream(&mem, &len);
	if (!f)
		goto nomem;
	fprintf(f, "segments=%zu\nsegment_first=%llu\nsegment_last=%llu\nsegment_gaps=", n, m[0].no,
		m[n - 1].no);
	gaps(m, n, 1, f, &any); /* a series starts at file 1: missing first files are a gap too */
	fputc('\n', f);
	if (fclose(f) != 0)
		goto nomem;
	cs->keys = mem;
	mem = NULL;
	cs->series = true;
	if (set_paths(cs, m, n, NULL) < 0)
		goto nomem;
	rc = 0;
	goto out;
nomem:
	msg_error("%s: out of memory", args[0]);
out:
	free(mem);
	free_members(m, n);
	return rc;
}

/* Do the directories of A and B hold the same files (the same directory)? */
static bool same_dir_of(const char *a, const char *b)
{
	char *ca = strdup(a), *cb = strdup(b);
	struct stat sa, sb;
	bool same = ca && cb && !stat(dirname(ca), &sa) && !stat(dirname(cb), &sb) &&
		    sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;

	free(ca);
	free(cb);
	return same;
}

bool cset_ring_segment_name(const char *path, const char *head_path)
{
	char prefix[256];
	char *info = read_info(head_path);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	unsigned long long no;
	bool hit = info && kv(info, "ring_prefix", prefix, sizeof(prefix)) && prefix[0] &&
		   segment_name(base, prefix, &no) && same_dir_of(path, head_path);

	free(info);
	return hit;
}

int cset_check_regular(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return msg_error("%s: %s", path, strerror(errno));
	/* a FIFO would block the first read, a device never end: ftana reads an input
	 * more than once (its metadata, then its pages), so only a file will do */
	if (!S_ISREG(st.st_mode))
		return msg_error("%s: not a regular file (%s): give the capture file itself", path,
				 ftz_not_regular_kind(st.st_mode));
	return 0;
}

int cset_open(const char *const *args, size_t nargs, struct cset *cs)
{
	char *info;

	memset(cs, 0, sizeof(*cs));
	if (nargs == 0)
		return msg_error("no input file");
	for (size_t i = 0; i < nargs; i++)
		if (cset_check_regular(args[i]) < 0)
			return -1;
	if (nargs > 1)
		return open_series(args, nargs, cs);
	info = read_info(args[0]);
	if (info && kv(info, "ring_segment", (char[8]){ 0 }, 8)) {
		msg_error("%s: a segment of a disk ring: open the ring's head (the .ftz without .ring-N in its name)", args[0]);
		free(info);
		return -1;
	}
	if (info && kv(info, "ring_prefix", (char[8]){ 0 }, 8)) {
		int rc = open_ring(args[0], info, cs);

		free(info);
		if (rc < 0)
			cset_free(cs);
		return rc;
	}
	free(info);
	/* A plain .ftz, a trace.dat, or something the decoder will refuse in its own words. */
	cs->paths = calloc(2, sizeof(*cs->paths));
	cs->keys = strdup("");
	if (!cs->paths || !cs->keys || !(cs->paths[0] = strdup(args[0]))) {
		msg_error("%s: out of memory", args[0]);
		cset_free(cs);
		return -1;
	}
	cs->n = 1;
	return 0;
}

void cset_free(struct cset *cs)
{
	for (size_t i = 0; cs->paths && i < cs->n; i++)
		free(cs->paths[i]);
	free(cs->paths);
	free(cs->keys);
	memset(cs, 0, sizeof(*cs));
}
