/* SPDX-License-Identifier: MIT */
/*
 * capture_series.h - the files of synthetic rings and series for the tests of
 * decode/capture_set.c (test_capture_set.c) and of reports on them (test_report_set.c):
 * one CPU, records of one event type carrying their sequence number, so a test can
 * tell exactly which records a join kept. Built on tests/capture_builder.h.
 */
#ifndef TESTS_CAPTURE_SERIES_H
#define TESTS_CAPTURE_SERIES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/capture_builder.h"

#define CS_EVENT_TYPE 100
#define CS_BASE_INFO "ftz_version=1.1\nuname_sysname=Linux\nuname_release=6.1\nlong_size=8\n" \
		     "endian=little\nclock=local\nnr_cpus=1\nsubbuf_size=4096\npage_size=4096\n"

static const char cs_seq_format[] = "name: seq_event\nID: 100\n" CB_COMMON("4")
	"\tfield:unsigned int seq;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"seq=%u\", REC->seq\n";

/*
 * PATH: INFO text INFO, the formats when META, records FIRST..FIRST+N-1 (record i at
 * 1 ms + i us, so files numbered in time order are in time order), a loss of LOST
 * before record FIRST+N/2 (none when 0), END when END.
 */
static __attribute__((unused)) void cs_write_file(const char *path, const char *info, bool meta,
						  unsigned first, unsigned n, uint64_t lost, bool end)
{
	char err[256];
	struct cb_capture *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->w = ftz_writer_create(path, err, sizeof(err));
	assert_non_null(c->w);
	c->ts = 1000000 + (uint64_t)first * 1000;
	assert_int_equal(ftz_write_info(c->w, FTZ_SEC_INFO, info), 0);
	if (meta) {
		assert_int_equal(ftz_write_file(c->w, FTZ_PHASE_START, "events/header_page",
						cb_header_page, strlen(cb_header_page)), 0);
		cb_format(c, "test", "seq_event", cs_seq_format);
	}
	for (unsigned i = first; i < first + n; i++) {
		if (lost && i == first + n / 2)
			cb_lose(c, (int64_t)lost);
		uint8_t *r = cb_record(c, CS_EVENT_TYPE, 1, 12);

		memcpy(r + 8, &i, 4);
	}
	if (c->nr_pages) {
		cb_finish_page(c);
		assert_int_equal(ftz_write_pages(c->w, 0, CB_PAGE, c->pages, (uint32_t)c->nr_pages), 0);
	}
	if (end)
		assert_int_equal(ftz_write_info(c->w, FTZ_SEC_END, "stop_reason=builder\n"), 0);
	assert_int_equal(ftz_writer_close(c->w), 0);
	free(c->pages);
	free(c);
}

#endif
