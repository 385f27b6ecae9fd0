// SPDX-License-Identifier: MIT
/*
 * decode_only FILE.ftz [--print] - the decode layer alone (decode/decode.h), no
 * SQLite: every event in time order, optionally printed as kernel-like text with
 * tep_print_event into a discarded buffer (the work `trace-cmd report` does).
 * Prints "events E seconds S events_per_s X".
 */
#include <stdio.h>
#include <string.h>
#include <traceevent/trace-seq.h>

#include "common/msg.h"
#include "decode/decode.h"
#include "bench/bench_clock.h"

int main(int argc, char **argv)
{
	bool print = argc > 2 && !strcmp(argv[2], "--print");
	double t0 = now_s();
	struct dec *d;
	struct dec_event ev;
	struct trace_seq s;
	unsigned long long n = 0, bytes = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: decode_only FILE.ftz [--print]\n");
		return 1;
	}
	msg_set_program("decode_only"); /* the decoder's errors: "decode_only: ..." */
	d = dec_open(argv[1]);
	if (!d)
		return 1;
	trace_seq_init(&s);
	while (dec_next(d, &ev) > 0) {
		n++;
		if (!print)
			continue;
		trace_seq_reset(&s);
		tep_print_event(dec_tep(d), &s, ev.record, "%16s-%-7d [%03d] %d: %s: %s\n",
				TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU, TEP_PRINT_TIME,
				TEP_PRINT_NAME, TEP_PRINT_INFO);
		bytes += s.len;
	}
	trace_seq_destroy(&s);
	dec_close(d);
	double dt = now_s() - t0;

	printf("events %llu seconds %.3f events_per_s %.0f events_per_cpu_s %.0f%s\n", n, dt,
	       n / dt, n / cpu_s(), print ? " (printed)" : "");
	return 0;
}
