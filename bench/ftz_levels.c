// SPDX-License-Identifier: MIT
/*
 * ftz_levels FILE.ftz TMP LEVEL... - rewrite the PAGES sections of FILE.ftz,
 * section for section, through the real writer at each zstd LEVEL into TMP
 * (deleted afterwards) and print "level L ratio R cpu_s C": what a different
 * ftz_writer_set_level would cost and gain on this very recording.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "format/ftz.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int rewrite(const char *in, const char *tmp, int level)
{
	char err[512];
	struct ftz_reader *r = ftz_reader_open(in, err, sizeof(err));
	struct ftz_writer *w = r ? ftz_writer_create(tmp, err, sizeof(err)) : NULL;
	struct ftz_section s;
	struct ftz_pages p;
	uint64_t raw, stored;
	double cpu = 0;
	int rc = 0;

	if (!w) {
		fprintf(stderr, "ftz_levels: %s\n", err);
		ftz_reader_close(r);
		return 1;
	}
	ftz_writer_set_level(w, level);
	while (rc == 0 && ftz_reader_next(r, &s, true) == FTZ_READ_OK) {
		if (s.type != FTZ_SEC_PAGES || ftz_parse_pages(&s, &p) < 0)
			continue;
		double t0 = cpu_now(); /* the write only, not the decompression */
		rc = ftz_write_pages(w, p.cpu, p.page_size, p.pages, p.nr_pages);
		cpu += cpu_now() - t0;
	}
	ftz_writer_page_bytes(w, &raw, &stored);
	rc |= ftz_writer_close(w);
	ftz_reader_close(r);
	unlink(tmp);
	if (rc || !stored) {
		fprintf(stderr, "ftz_levels: rewriting at level %d failed\n", level);
		return 1;
	}
	printf("level %d ratio %.1f cpu_s %.3f\n", level, (double)raw / stored, cpu);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: ftz_levels FILE.ftz TMP LEVEL...\n");
		return 1;
	}
	for (int i = 3; i < argc; i++)
		rc |= rewrite(argv[1], argv[2], atoi(argv[i]));
	return rc;
}
