/* SPDX-License-Identifier: MIT */
/*
 * summary.c - the one summary ftrec prints at exit (on stderr, as it is: not a
 * message; a loss also gives a msg_warn). Loss is never silent: it
 * shows the kernel's own counters (overrun, commit overrun, dropped events:
 * deltas between the START and END stats) and the sub-buffers that carry the
 * missed-events flag. Events are counted by the readers with kbuffer, page by
 * page, so "events" is what the file holds.
 */
#include <stdio.h>
#include <sys/wait.h>

#include "common/msg.h"
#include "record/rec_int.h"

static uint64_t delta(uint64_t end, uint64_t start)
{
	return end >= start ? end - start : 0;
}

static double mib(uint64_t b)
{
	return (double)b / (1024.0 * 1024.0);
}

void summary_print(struct rec *r)
{
	uint64_t t_pages = 0, t_events = 0, t_lost = 0, t_missed = 0, t_kread = 0, t_unread = 0;
	double secs = (double)delta(r->end_wall_ns, r->start_wall_ns) / 1e9;
	fprintf(stderr, "ftrec: stopped (%s) after %.1f s; %s, instance %s, clock %s\n",
		r->stop_reason ? r->stop_reason : "?", secs, r->o->output,
		r->top_level ? "(top level)" : r->name, r->clock);
	/* kernel-read and unread are the kernel's own counters (stats "read events" delta, "entries"). */
	fprintf(stderr, "  cpu      pages     events  kernel-read   unread  lost(kernel)  missed-flag-pages\n");
	for (int i = 0; r->cpus && i < r->nr_cpus; i++) {
		const struct cpu_capture *c = &r->cpus[i];
		uint64_t lost = 0, kread = 0;
		if (c->start.valid && c->end.valid)
			kread = delta(c->end.read_events, c->start.read_events);
		if (c->start.valid && c->end.valid)
			lost = delta(c->end.overrun, c->start.overrun) +
			       delta(c->end.commit_overrun, c->start.commit_overrun) +
			       delta(c->end.dropped, c->start.dropped);
		fprintf(stderr, "  %3d %10llu %10llu %12llu %8llu %13llu %18llu%s\n", i,
			(unsigned long long)c->pages, (unsigned long long)c->events,
			(unsigned long long)kread, (unsigned long long)c->end.entries,
			(unsigned long long)lost, (unsigned long long)c->missed_pages,
			c->error ? "  (read error)" : "");
		t_pages += c->pages;
		t_events += c->events;
		t_lost += lost;
		t_kread += kread;
		t_unread += c->end.entries;
		t_missed += c->missed_pages;
	}
	uint64_t raw = 0, stored = 0, file = r->w ? ftz_writer_bytes(r->w) : 0;
	if (r->w)
		ftz_writer_page_bytes(r->w, &raw, &stored);
	segs_page_bytes(r, &raw, &stored, &file); /* a ring's segments, a series' earlier files */
	fprintf(stderr, "  all %10llu %10llu %12llu %8llu %13llu %18llu\n", (unsigned long long)t_pages,
		(unsigned long long)t_events, (unsigned long long)t_kread,
		(unsigned long long)t_unread, (unsigned long long)t_lost,
		(unsigned long long)t_missed);
	fprintf(stderr, "  pages: %.2f MiB raw -> %.2f MiB compressed (%.1fx); %s %.2f MiB\n",
		mib(raw), mib(stored), stored ? (double)raw / (double)stored : 0.0,
		r->segs ? "files written" : "file", mib(file));
	segs_summary(r);
	if (r->snap_rounds)
		fprintf(stderr, "  function profiler: %u rounds of %zu per-CPU tables stored\n",
			r->snap_rounds, r->snap_files.n);
	if (r->o->kernel_ring && (t_lost || t_missed))
		/* Overwriting is what the ring is for: the file keeps the newest -b KB per CPU. */
		fprintf(stderr, "  kernel ring: %llu older events overwritten; the file holds the newest %llu\n",
			(unsigned long long)t_lost, (unsigned long long)t_events);
	else if (t_lost || t_missed)
		msg_warn("events were LOST (%llu counted by the kernel, %llu pages flagged): use a larger -b, fewer events or a filter",
			 (unsigned long long)t_lost, (unsigned long long)t_missed);
	if (r->child_reaped) {
		if (WIFEXITED(r->child_status))
			fprintf(stderr, "  command exited with status %d\n", WEXITSTATUS(r->child_status));
		else if (WIFSIGNALED(r->child_status))
			fprintf(stderr, "  command killed by signal %d\n", WTERMSIG(r->child_status));
	}
}
