/* SPDX-License-Identifier: MIT */
/*
 * flame.h - a flame graph as one self-contained interactive SVG (the layout Brendan
 * Gregg's FlameGraph made familiar): the root "all" at the bottom, each frame above
 * its caller, a frame's width proportional to its value (samples, or time), frames
 * of one caller in alphabetical order. Hover shows name, value and percent; click
 * zooms into a frame; Search (or Ctrl-F) highlights the frames whose name matches a
 * regular expression and shows the share of the total they cover; Esc resets.
 *
 * Each frame is <g class="f" data-v="VALUE"><title>NAME (VALUE, P%)</title><rect/>
 * <text/></g> (VALUE an integer: samples or ns), listed in pre-order (a caller
 * before its callees, callees in order), so tests and scripts can read the tree back;
 * the <svg> element carries data-total and data-omitted (the value of frames too
 * narrow to draw, min_width px, left out with everything above them).
 */
#ifndef FLAME_H
#define FLAME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum flame_mode {
	FLAME_SELF,      /* a path's value is its own (stack samples): a frame's width is
	                    its value plus its callees' */
	FLAME_INCLUSIVE, /* a path's value already holds its callees' (call time): a
	                    frame's width is that value, at least its callees' sum */
};

struct flame_style {
	const char *title;
	const char *subtitle;   /* may be NULL */
	int time;               /* values are ns: shown as durations */
	const char *unit;       /* else the unit of a count: "samples" */
	double min_width;       /* px: narrower frames are left out (FlameGraph's 0.1) */
};

struct flame;

struct flame *flame_new(enum flame_mode mode);
void flame_free(struct flame *fl);

/* One path (frames from the outermost, separated by SEP) with its VALUE (negative
 * counts as 0) and number of calls (0: not shown). The same path twice adds up.
 * 0, or -1 out of memory. */
int flame_add(struct flame *fl, const char *path, char sep, int64_t value, int64_t calls);

/*
 * A differential flame graph (`ftana diff --svg`): the BEFORE side's paths are added
 * with flame_add_before, the AFTER side's with flame_add. Widths stay AFTER's; each
 * frame's colour is the change of its value per second of each side's window
 * (flame_set_diff: red grown, blue shrunk, grey the same), its title and data-b hold
 * BEFORE's value too. A frame only BEFORE has (AFTER's width 0) is not drawn: the
 * picture with the sides swapped shows it. 0, or -1 out of memory.
 */
int flame_add_before(struct flame *fl, const char *path, char sep, int64_t value);
void flame_set_diff(struct flame *fl, double before_s, double after_s);

/* The SVG document to f. 0, or -1 out of memory. */
int flame_write_svg(struct flame *fl, FILE *f, const struct flame_style *style);

/* --- a report's flame graph (stacks, funcgraph) --- */
struct report_ctx;

/*
 * A report's check() for its --svg/-o/--min-width: -o and --min-width need --svg;
 * --svg excludes --csv/--json and the text view CONFLICT names (NULL: none); -o
 * may not be the capture. 0, or -1 after a one-line error.
 */
int flame_check(struct report_ctx *ctx, bool svg, const char *conflict, const char *out,
		const char *min_width);

/* Write fl to OUT (NULL: stdout) with the slice as subtitle; min_width as given
 * (NULL: 0.1 px). 0, or -1 after a one-line error (OUT then left as it was). */
int flame_report(struct report_ctx *ctx, struct flame *fl, struct flame_style *style,
		 const char *out, const char *min_width);

#endif
