/* SPDX-License-Identifier: MIT */
/*
 * svg.h - what the pictures (flame graphs: flame.c, heat maps: heatmap.c) share:
 * the output file and the escaping of text from the capture.
 *
 * The output: `-o OUT` is written to a temp file beside OUT and renamed over it
 * only when the whole picture is written, so a reader never sees half an SVG and
 * a failed run leaves OUT as it was; no -o (or "-o -") writes to stdout. OUT may not
 * be the capture or its cached database.
 *
 * Text: every name from the capture is someone else's bytes. It goes through
 * text_escape (control bytes and invalid UTF-8 as \xHH, as the text reports print
 * it, so a frame reads the same in the picture and in `report stacks`), then XML's
 * five special characters become entities and the code points XML 1.0 forbids
 * (U+FFFE, U+FFFF) become \xHH too: the file is always well-formed XML.
 */
#ifndef SVG_H
#define SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct report_ctx;

#include "common/out_file.h"

struct svg_out {
	FILE *f;              /* stdout, or file.f */
	struct out_file file; /* the temp file beside OUT while writing (out_file.h) */
};

/* -o's argument (NULL or "-": stdout): refused as out_check() refuses, e.g. the
 * capture, its cached database, anything but a regular file. Call after FILE is
 * known (a report's check()). 0, or -1 after an error. */
int svg_out_check(struct report_ctx *ctx, const char *path);

/* Open the output (path NULL or "-": stdout). 0, or -1 after a one-line error. */
int svg_out_open(struct report_ctx *ctx, const char *path, struct svg_out *out);

/* Finish: ok, the temp file is flushed and renamed over OUT; not ok (or a write
 * error), removed. 0, or -1 after a one-line error. */
int svg_out_close(struct report_ctx *ctx, struct svg_out *out, bool ok);

/* TEXT escaped for XML text and attribute values (see above); at most MAX_CHARS
 * characters of it (0: all), cut ones ending in "..". NULL writes "?". */
void svg_put(FILE *f, const char *text, size_t max_chars);

/* The number of characters svg_put would show of TEXT (before any cut). */
size_t svg_chars(const char *text);

/* The document's start: XML declaration, <svg> of WIDTH x HEIGHT px, a white
 * background, and CSS (may be NULL) in a <style> element. */
void svg_begin(FILE *f, int width, int height, const char *css);
void svg_end(FILE *f);

/* "<text x y ATTRS>" + TEXT via svg_put (max_chars as there) + "</text>". */
void svg_text(FILE *f, double x, double y, const char *attrs, const char *text, size_t max_chars);

/* "FILE" and the slice options given ("FILE, --since 1 -p 42"), for a picture's
 * subtitle: a picture says what it shows. malloc'd, NULL out of memory. */
char *svg_subtitle(const struct report_ctx *ctx);

/* A duration in ns as people read it: "812 ns", "3.25 us", "1.50 ms", "2.004 s". */
void svg_duration(char *buf, size_t size, double ns);

#endif
