/* SPDX-License-Identifier: MIT */
/*
 * heatmap.c - latency heat maps (see heatmap.h): the events are kept as points, the
 * grid is made when the time range and column width are known.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/heatmap.h"
#include "reports/report.h"
#include "reports/svg.h"

#define NR_BUCKETS 64     /* log2 of an int64 of us: every latency has a bucket */
#define MAX_COLUMNS 5000  /* 5000 columns of 0.2 px: finer is no longer a picture */
#define AUTO_COLUMNS 100  /* the default column width gives at most this many */
/* Geometry in px */
#define PLOT_X 90         /* left of the plot: the y labels */
#define PLOT_W 960
#define ROW_H 18
#define TOP 110           /* title, subtitle, the column totals' strip */
#define STRIP_H 40        /* the tallest column total's bar */
#define RIGHT 150         /* row totals, legend */
#define BOTTOM 60         /* x labels, axis name */

struct point {
	int64_t ts, lat_ns;
};

struct heatmap {
	struct point *points;
	size_t nr, cap;
};

struct heatmap *heatmap_new(void)
{
	return calloc(1, sizeof(struct heatmap));
}

void heatmap_free(struct heatmap *hm)
{
	if (hm)
		free(hm->points);
	free(hm);
}

int heatmap_add(struct heatmap *hm, int64_t ts, int64_t lat_ns)
{
	if (hm->nr == hm->cap) {
		size_t cap = hm->cap ? 2 * hm->cap : 1024;
		struct point *p = realloc(hm->points, cap * sizeof(*p));

		if (!p)
			return -1;
		hm->points = p;
		hm->cap = cap;
	}
	hm->points[hm->nr++] = (struct point){ ts, lat_ns > 0 ? lat_ns : 0 };
	return 0;
}

/* bcc's log2 buckets of microseconds: 0 holds 0-1 us, k >= 1 holds [2^k, 2^(k+1)). */
static int bucket_of(int64_t lat_ns)
{
	uint64_t us = (uint64_t)lat_ns / 1000;

	return us < 2 ? 0 : 63 - __builtin_clzll(us);
}

static uint64_t bucket_low_us(int b)
{
	return b == 0 ? 0 : (uint64_t)1 << b;
}

/* A round column width (1, 2 or 5 times a power of ten, in ns, 1 us at least)
 * giving at most AUTO_COLUMNS columns over SPAN ns. */
static int64_t auto_column(int64_t span)
{
	for (int64_t unit = 1000; unit <= INT64_MAX / 10; unit *= 10)
		for (int m = 1; m <= 5; m += m == 1 ? 1 : 3)
			if (span / (unit * m) < AUTO_COLUMNS)
				return unit * m;
	return INT64_MAX / 2;
}

/* The grid: counts[col * NR_BUCKETS + bucket]. */
struct grid {
	int64_t t0, col_ns;
	size_t cols;
	int64_t *counts, row_total[NR_BUCKETS], max, total;
	int lo, hi; /* the buckets drawn */
};

static int make_grid(struct heatmap *hm, struct grid *g)
{
	g->counts = calloc(g->cols * NR_BUCKETS, sizeof(*g->counts));
	if (!g->counts)
		return -1;
	g->lo = NR_BUCKETS - 1;
	g->hi = 0;
	for (size_t i = 0; i < hm->nr; i++) {
		size_t col = (size_t)(((uint64_t)hm->points[i].ts - (uint64_t)g->t0) / (uint64_t)g->col_ns);
		int b = bucket_of(hm->points[i].lat_ns);
		int64_t *c = &g->counts[col * NR_BUCKETS + b];

		if (++*c > g->max)
			g->max = *c;
		g->row_total[b]++;
		g->total++;
		if (b < g->lo)
			g->lo = b;
		if (b > g->hi)
			g->hi = b;
	}
	if (g->lo > g->hi) /* no events: one empty row */
		g->lo = g->hi = 0;
	return 0;
}

/* Light yellow (a count of 1) to dark red (the largest cell) through orange-red,
 * linear in the count: any non-empty cell is visibly coloured, empty ones stay white. */
static void cell_colour(int64_t n, int64_t max, int rgb[3])
{
	static const int stops[3][3] = { { 255, 237, 160 }, { 240, 59, 32 }, { 128, 0, 38 } };
	double f = max > 1 ? (double)(n - 1) / (double)(max - 1) : 0;
	int i = f < 0.5 ? 0 : 1;
	double t = f < 0.5 ? f * 2 : (f - 0.5) * 2;

	for (int k = 0; k < 3; k++)
		rgb[k] = (int)(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * t + 0.5);
}

/* A bucket's low bound as its row label: whole microseconds as biolatency prints
 * them, seconds from 2^20 us on. */
static void bucket_label(char *buf, size_t size, int b)
{
	uint64_t us = bucket_low_us(b);

	if (us < (1u << 20))
		snprintf(buf, size, "%llu us", (unsigned long long)us);
	else
		snprintf(buf, size, "%.4g s", us / 1e6);
}

/* A bucket's range as biolatency prints it: "64 - 127 us" (whole us of the latency). */
/* Column COL's start in seconds since ORIGIN: in double, the times being a .db's own
 * (int64 arithmetic on them could overflow). */
static double col_start_s(const struct grid *g, int64_t origin, size_t col)
{
	return ((double)g->t0 - (double)origin + (double)col * (double)g->col_ns) / 1e9;
}

static void bucket_text(char *buf, size_t size, int b)
{
	snprintf(buf, size, "%llu - %llu us", (unsigned long long)bucket_low_us(b),
		 b >= 62 ? (unsigned long long)INT64_MAX : (unsigned long long)bucket_low_us(b + 1) - 1);
}

static void write_cells(FILE *f, const struct grid *g, const struct heatmap_style *st,
			int64_t origin, double cell_w)
{
	int rows = g->hi - g->lo + 1;

	fputs("<g id=\"cells\">\n", f);
	for (size_t col = 0; col < g->cols; col++)
		for (int b = g->lo; b <= g->hi; b++) {
			int64_t n = g->counts[col * NR_BUCKETS + b];
			char range[80];
			int rgb[3];

			if (!n)
				continue;
			cell_colour(n, g->max, rgb);
			bucket_text(range, sizeof(range), b);
			double start = col_start_s(g, origin, col);

			fprintf(f, "<rect class=\"c\" data-n=\"%lld\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
				"height=\"%d\" fill=\"rgb(%d,%d,%d)\"><title>%.6f - %.6f s, %s: %lld %s"
				"</title></rect>\n", (long long)n, PLOT_X + col * cell_w,
				TOP + (rows - 1 - (b - g->lo)) * ROW_H, cell_w, ROW_H, rgb[0], rgb[1], rgb[2],
				start, start + g->col_ns / 1e9, range, (long long)n, st->what);
		}
	fputs("</g>\n", f);
}

/* Above the plot: each column's total as a bar (the rate over time at a glance). */
static void write_column_totals(FILE *f, const struct grid *g, const struct heatmap_style *st,
				int64_t origin, double cell_w)
{
	int64_t max = 0;
	char text[64];

	for (size_t col = 0; col < g->cols; col++) {
		int64_t n = 0;

		for (int b = g->lo; b <= g->hi; b++)
			n += g->counts[col * NR_BUCKETS + b];
		if (n > max)
			max = n;
	}
	snprintf(text, sizeof(text), "max %lld", (long long)max);
	svg_text(f, PLOT_X - 6, TOP - 6 - STRIP_H + 10, "class=\"ylabel\"", text, 0);
	svg_text(f, PLOT_X - 6, TOP - 6, "class=\"ylabel\"", "per column", 0);
	fputs("<g id=\"column-totals\">\n", f);
	for (size_t col = 0; col < g->cols && max; col++) {
		int64_t n = 0;

		for (int b = g->lo; b <= g->hi; b++)
			n += g->counts[col * NR_BUCKETS + b];
		if (!n)
			continue;
		double h = STRIP_H * (double)n / (double)max;
		double start = col_start_s(g, origin, col);

		fprintf(f, "<rect class=\"t\" data-n=\"%lld\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
			"height=\"%.2f\" fill=\"#a0a0a0\"><title>%.6f - %.6f s: %lld %s</title></rect>\n",
			(long long)n, PLOT_X + col * cell_w, TOP - 6 - h, cell_w, h, start,
			start + g->col_ns / 1e9, (long long)n, st->what);
	}
	fputs("</g>\n", f);
}

static void write_axes(FILE *f, const struct grid *g, const struct heatmap_style *st,
		       int64_t origin, double cell_w)
{
	int rows = g->hi - g->lo + 1, bottom = TOP + rows * ROW_H;
	char text[160];

	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		"stroke=\"#808080\"/>\n", PLOT_X, TOP, PLOT_W, rows * ROW_H);
	/* y: each bucket's range, its total on the right */
	for (int b = g->lo; b <= g->hi; b++) {
		double y = TOP + (rows - 1 - (b - g->lo)) * ROW_H + ROW_H - 5;

		bucket_label(text, sizeof(text), b);
		svg_text(f, PLOT_X - 6, y, "class=\"ylabel\"", text, 0);
		snprintf(text, sizeof(text), "%lld", (long long)g->row_total[b]);
		svg_text(f, PLOT_X + PLOT_W + 6, y, "class=\"total\"", text, 0);
	}
	svg_text(f, PLOT_X + PLOT_W + 6, TOP - 6, "class=\"total\"", "total", 0);
	/* x: about ten labels, on column edges */
	size_t every = g->cols > 10 ? (g->cols + 9) / 10 : 1;

	for (size_t col = 0; col <= g->cols; col += every) {
		double x = PLOT_X + col * cell_w;

		fprintf(f, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#808080\"/>\n",
			x, bottom, x, bottom + 4);
		snprintf(text, sizeof(text), "%.6g", col_start_s(g, origin, col));
		svg_text(f, x, bottom + 16, "class=\"xlabel\"", text, 0);
	}
	char col[32];

	svg_duration(col, sizeof(col), (double)g->col_ns);
	snprintf(text, sizeof(text), "time of the %s, s since the first event (columns of %s)",
		 st->x_name, col);
	svg_text(f, PLOT_X + PLOT_W / 2.0, bottom + 38, "class=\"xlabel\"", text, 0);
	snprintf(text, sizeof(text), "%s (log2)", st->y_name);
	fprintf(f, "<g transform=\"translate(16,%d) rotate(-90)\">", TOP + rows * ROW_H / 2);
	svg_text(f, 0, 0, "class=\"xlabel\"", text, 0);
	fputs("</g>\n", f);
}

/* Colour scale: five swatches from 1 to the largest cell count. */
static void write_legend(FILE *f, const struct grid *g, const struct heatmap_style *st)
{
	int x = PLOT_X + PLOT_W + 60;
	char text[64];

	snprintf(text, sizeof(text), "%s per cell", st->what);
	svg_text(f, x, TOP - 6, "", text, 0);
	int64_t last = 0;

	for (int i = 0, row = 0; i < 5; i++) {
		int64_t n = 1 + (int64_t)llround(i / 4.0 * (double)(g->max > 1 ? g->max - 1 : 0));
		int rgb[3];

		if (n == last) /* fewer than five different counts */
			continue;
		last = n;

		cell_colour(n, g->max, rgb);
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"rgb(%d,%d,%d)\" "
			"stroke=\"#808080\"/>\n", x, TOP + row * 18, rgb[0], rgb[1], rgb[2]);
		snprintf(text, sizeof(text), "%lld", (long long)n);
		svg_text(f, x + 20, TOP + row * 18 + 12, "", text, 0);
		row++;
	}
}

static const char css[] =
	"text { font-family: Verdana, sans-serif; font-size: 11px; fill: #000; }\n"
	"#title { text-anchor: middle; font-size: 17px; }\n"
	"#subtitle { text-anchor: middle; fill: #606060; }\n"
	".ylabel { text-anchor: end; }\n"
	".xlabel { text-anchor: middle; }\n"
	".total { fill: #404040; }\n"
	".c:hover { stroke: #000; stroke-width: 1; }\n";

static void write_svg(FILE *f, const struct grid *g, const struct heatmap_style *st,
		      const char *subtitle, int64_t origin)
{
	int rows = g->hi - g->lo + 1, width = PLOT_X + PLOT_W + RIGHT;
	int height = TOP + rows * ROW_H + BOTTOM + (rows < 6 ? (6 - rows) * 18 : 0);
	double cell_w = (double)PLOT_W / (double)g->cols;
	char title[256];

	svg_begin(f, width, height, css);
	fprintf(f, "<g id=\"heatmap\" data-total=\"%lld\" data-columns=\"%zu\" data-col-ns=\"%lld\">\n",
		(long long)g->total, g->cols, (long long)g->col_ns);
	snprintf(title, sizeof(title), "%s: %lld %s", st->title, (long long)g->total, st->what);
	svg_text(f, width / 2.0, 24, "id=\"title\"", title, 0);
	svg_text(f, width / 2.0, 46, "id=\"subtitle\"", subtitle ? subtitle : "", 0);
	write_cells(f, g, st, origin, cell_w);
	write_column_totals(f, g, st, origin, cell_w);
	write_axes(f, g, st, origin, cell_w);
	write_legend(f, g, st);
	fputs("</g>\n", f);
	svg_end(f);
}

static int parse_col(struct report_ctx *ctx, const char *arg, int64_t *col_ns)
{
	double secs;

	if (front_number("--col", arg, 1e-6, &secs))
		return -1;
	if (secs > 1e8)
		return msg_error("bad --col '%s' (at most 100000000 s)", arg);
	*col_ns = (int64_t)(secs * 1e9 + 0.5);
	return 0;
}

int heatmap_check(struct report_ctx *ctx, bool heatmap, const char *conflict, const char *out,
		  const char *col_arg)
{
	int64_t col_ns;

	if (!heatmap)
		return out ? msg_error("-o writes the heat map: give --heatmap") :
		       col_arg ? msg_error("--col shapes the heat map: give --heatmap") : 0;
	if (ctx->fmt != OUT_TEXT)
		return msg_error("--heatmap is a picture: --csv/--json give the numbers");
	if (conflict)
		return msg_error("--heatmap and %s are different views: give one", conflict);
	if (col_arg && parse_col(ctx, col_arg, &col_ns))
		return -1;
	return svg_out_check(ctx, out);
}

int heatmap_report(struct report_ctx *ctx, struct heatmap *hm, const struct heatmap_style *style,
		   const char *col_arg, const char *out)
{
	const struct slice *s = &ctx->slice;
	/* the time the report covers: the slice within the capture's first and last event */
	int64_t origin = s->first_ts, t0 = s->since_ns > s->first_ts ? s->since_ns : s->first_ts;
	int64_t t_end = s->until_ns - 1 < s->last_ts ? s->until_ns - 1 : s->last_ts;
	struct grid g = { 0 };

	for (size_t i = 0; i < hm->nr; i++) { /* every event inside the picture */
		if (hm->points[i].ts < t0)
			t0 = hm->points[i].ts;
		if (hm->points[i].ts > t_end)
			t_end = hm->points[i].ts;
	}
	if (t_end < t0)
		t_end = t0;
	uint64_t span = (uint64_t)t_end - (uint64_t)t0;

	if (col_arg ? parse_col(ctx, col_arg, &g.col_ns) : 0)
		return -1;
	if (!col_arg)
		g.col_ns = auto_column(span > INT64_MAX ? INT64_MAX : (int64_t)span);
	if (span / (uint64_t)g.col_ns >= MAX_COLUMNS)
		return msg_error("--col: %llu columns in the %.3f s this report covers: at most "
				    "%d (a wider --col, or --since/--until)",
				    (unsigned long long)(span / (uint64_t)g.col_ns + 1), span / 1e9, MAX_COLUMNS);
	g.t0 = t0;
	g.cols = (size_t)(span / (uint64_t)g.col_ns) + 1;
	if (make_grid(hm, &g))
		return msg_error("out of memory");
	if (!g.total)
		msg_warn("no %s in this slice: the heat map is empty", style->what);
	struct svg_out so;
	char *subtitle = svg_subtitle(ctx);
	int rc = svg_out_open(ctx, out, &so);

	if (!rc) {
		write_svg(so.f, &g, style, subtitle, origin);
		rc = svg_out_close(ctx, &so, true);
	}
	free(subtitle);
	free(g.counts);
	return rc;
}
