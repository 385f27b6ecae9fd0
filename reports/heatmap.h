/* SPDX-License-Identifier: MIT */
/*
 * heatmap.h - a latency heat map as one SVG: x is time in columns of a fixed width,
 * y the latency in log2 buckets (bcc biolatency's: 0-1 us, 2-3 us, 4-7 us, ...,
 * the shortest at the bottom), a cell's colour the number of events (I/Os, calls)
 * that started in that column with a latency in that bucket. Axes, a colour legend,
 * each row's total on the right, each column's as a bar above the plot and the
 * grand total in the title; hovering a cell or bar shows its time range, bucket and
 * count.
 *
 * Each cell is <rect class="c" data-n="COUNT" ...><title>...</title></rect>, each
 * column total <rect class="t" data-n="COUNT" ...>, and the
 * #heatmap group carries data-total, data-columns and data-col-ns, so tests and
 * scripts can read the numbers back.
 */
#ifndef HEATMAP_H
#define HEATMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct report_ctx;

struct heatmap_style {
	const char *title;
	const char *what;    /* what a count counts: "I/Os", "calls" */
	const char *y_name;  /* "latency", "duration" */
	const char *x_name;  /* what places an event in time: "I/O start", "return" */
};

struct heatmap;

struct heatmap *heatmap_new(void);
void heatmap_free(struct heatmap *hm);

/* One event at TS (ns, trace clock) with latency LAT_NS (negative counts as 0).
 * 0, or -1 out of memory. */
int heatmap_add(struct heatmap *hm, int64_t ts, int64_t lat_ns);

/*
 * Write the heat map of the time the report covers (the slice within the capture's
 * first and last event, widened to hold every event added) in columns of COL_ARG
 * seconds (NULL: a round width giving at most 100 columns) to OUT (NULL or "-":
 * stdout); x labels count seconds from the capture's first event. Refuses more
 * than 5000 columns. 0, or -1 after a one-line error (OUT then left as it was).
 */
int heatmap_report(struct report_ctx *ctx, struct heatmap *hm, const struct heatmap_style *style,
		   const char *col_arg, const char *out);

/* A report's check() for --heatmap/-o/--col: -o and --col need --heatmap, which
 * excludes --csv/--json and the view CONFLICT names (NULL: none); -o may not be
 * the capture; --col a number of seconds (1 us .. 10^8 s). 0, or -1 after an error. */
int heatmap_check(struct report_ctx *ctx, bool heatmap, const char *conflict, const char *out,
		  const char *col_arg);

/* The options every heat map report offers with its --heatmap (struct report_option). */
#define HEATMAP_OPTION_OUT                                                                   \
	{ "output", 'o', "OUT", "--heatmap: write to OUT (through a temp file beside it,\n"  \
	  "renamed when complete); default: standard output" }
#define HEATMAP_OPTION_COL                                                                   \
	{ "col", 0, "SECS", "--heatmap: column width (default: a round width giving\n"       \
	  "at most 100 columns; at most 5000 columns)" }

#endif
