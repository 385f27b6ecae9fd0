/* SPDX-License-Identifier: MIT */
/*
 * analyze_fixture.h - turn a raw trace_pipe_raw capture directory into a .ftz with
 * the format library's writer, for the analyze tests (tests/test_analyze_*.c).
 * Layout of DIR, as in schedviz's test data:
 *   DIR/formats/header_page, DIR/formats/<system>/<event>/format, DIR/traces/cpuN
 * (each cpuN a sequence of whole sub-buffers in the host's byte order).
 */
#ifndef ANALYZE_FIXTURE_H
#define ANALYZE_FIXTURE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/ftz.h"

static char *fx_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 65536 > cap) {
			char *nb = realloc(buf, cap = 2 * cap + 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Sub-buffer size from header_page's "data" field: offset + size. */
static unsigned fx_page_size(const char *header_page)
{
	const char *d = strstr(header_page, "char data;");
	unsigned off, size;

	if (d && sscanf(d, "char data;\toffset:%u;\tsize:%u;", &off, &size) == 2)
		return off + size;
	return 4096;
}

static int fx_write_formats(struct ftz_writer *w, const char *dir)
{
	char path[4096], name[4096];
	DIR *sd = opendir(dir);
	struct dirent *s;
	int rc = 0;

	if (!sd)
		return -1;
	while (!rc && (s = readdir(sd))) {
		DIR *ed;
		struct dirent *e;

		if (s->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, s->d_name) >= (int)sizeof(path))
			continue;
		ed = opendir(path);
		if (!ed)
			continue; /* header_page and other plain files */
		while (!rc && (e = readdir(ed))) {
			size_t len;
			char *text;

			if (e->d_name[0] == '.')
				continue;
			if (snprintf(path, sizeof(path), "%s/%s/%s/format", dir, s->d_name,
				     e->d_name) >= (int)sizeof(path))
				continue;
			text = fx_slurp(path, &len);
			if (!text)
				continue;
			if (snprintf(name, sizeof(name), "events/%s/%s/format", s->d_name,
				     e->d_name) >= (int)sizeof(name)) {
				free(text);
				continue;
			}
			rc = ftz_write_file(w, FTZ_PHASE_START, name, text, len);
			free(text);
		}
		closedir(ed);
	}
	closedir(sd);
	return rc;
}

/* Write DIR as OUT.ftz: INFO, header_page and formats, PAGES in batches of
 * `batch` sub-buffers per CPU (CPUs interleaved as a recorder would), END. */
static int fx_wrap_raw_dir(const char *dir, const char *out, unsigned batch)
{
	char path[4096], info[512];
	struct ftz_writer *w;
	char err[256], *hp, *cpus[64] = { 0 };
	size_t hp_len, lens[64] = { 0 }, pos[64] = { 0 };
	unsigned nr_cpus = 0, ps;
	int rc = -1;
	bool more = true;

	snprintf(path, sizeof(path), "%s/formats/header_page", dir);
	hp = fx_slurp(path, &hp_len);
	if (!hp)
		return -1;
	ps = fx_page_size(hp);
	for (; nr_cpus < 64; nr_cpus++) {
		snprintf(path, sizeof(path), "%s/traces/cpu%u", dir, nr_cpus);
		cpus[nr_cpus] = fx_slurp(path, &lens[nr_cpus]);
		if (!cpus[nr_cpus])
			break;
	}
	w = ftz_writer_create(out, err, sizeof(err));
	if (!w)
		goto out;
	snprintf(info, sizeof(info), "ftz_version=1.0\nhostname=fixture\nuname_sysname=Linux\n"
		 "long_size=%zu\nendian=little\nclock=local\nnr_cpus=%u\nsubbuf_size=%u\n"
		 "page_size=4096\ncmdline=fx_wrap_raw_dir %s\n", sizeof(long), nr_cpus, ps, dir);
	snprintf(path, sizeof(path), "%s/formats", dir);
	if (ftz_write_info(w, FTZ_SEC_INFO, info) ||
	    ftz_write_file(w, FTZ_PHASE_START, "events/header_page", hp, hp_len) ||
	    fx_write_formats(w, path))
		goto close;
	while (more) {
		more = false;
		for (unsigned c = 0; c < nr_cpus; c++) {
			size_t n = (lens[c] - pos[c]) / ps;

			if (n > batch)
				n = batch;
			if (!n)
				continue;
			if (ftz_write_pages(w, c, ps, cpus[c] + pos[c], n))
				goto close;
			pos[c] += n * ps;
			more = true;
		}
	}
	rc = ftz_write_info(w, FTZ_SEC_END, "stop_reason=fixture\n");
close:
	if (ftz_writer_close(w))
		rc = -1;
out:
	free(hp);
	for (unsigned c = 0; c < nr_cpus; c++)
		free(cpus[c]);
	return rc;
}

#endif
