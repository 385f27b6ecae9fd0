/* SPDX-License-Identifier: MIT */
/*
 * flame.c - flame graph layout and its SVG (see flame.h).
 *
 * The paths are sorted frame by frame, so paths sharing a prefix are neighbours and
 * the tree is built in one pass with the current path as a stack (no per-node
 * search), its nodes in pre-order: a parent before its children, siblings in
 * alphabetical order. Widths then come from one backward pass (children before
 * parents), positions from one forward pass.
 */
#include <stdlib.h>
#include <string.h>

#include "reports/flame.h"
#include "reports/report.h"
#include "reports/svg.h"

/* Geometry in px, as FlameGraph's defaults: a reader's eye knows them. */
#define WIDTH 1200
#define XPAD 10
#define FRAME_H 16
#define FONT 12
#define FONT_W 0.59 /* average glyph width / font size, to fit labels */

struct path_row {
	char **frames;
	size_t n;
	int64_t value, calls, before;
};

struct node {
	const char *name;
	int parent, depth;
	int64_t own, calls, total, child_sum, x, cursor;
	int64_t own_b, total_b, child_sum_b; /* the BEFORE side's (a differential graph) */
	bool drawn;
};

struct flame {
	enum flame_mode mode;
	bool diff;
	double before_s, after_s; /* the sides' windows (s), for the change per second */
	struct path_row *rows;
	size_t nr_rows, cap_rows;
	char **strings; /* the copied paths, frames point into them */
	size_t nr_strings;
	struct node *nodes;
	size_t nr_nodes, cap_nodes;
};

static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t s;

	return __builtin_add_overflow(a, b, &s) ? INT64_MAX : s;
}

struct flame *flame_new(enum flame_mode mode)
{
	struct flame *fl = calloc(1, sizeof(*fl));

	if (fl)
		fl->mode = mode;
	return fl;
}

void flame_free(struct flame *fl)
{
	if (!fl)
		return;
	for (size_t i = 0; i < fl->nr_rows; i++)
		free(fl->rows[i].frames);
	for (size_t i = 0; i < fl->nr_strings; i++)
		free(fl->strings[i]);
	free(fl->rows);
	free(fl->strings);
	free(fl->nodes);
	free(fl);
}

static int add(struct flame *fl, const char *path, char sep, int64_t value, int64_t calls,
	       int64_t before)
{
	if (fl->nr_rows == fl->cap_rows) {
		size_t cap = fl->cap_rows ? 2 * fl->cap_rows : 256;
		struct path_row *rows = realloc(fl->rows, cap * sizeof(*rows));
		char **strings = realloc(fl->strings, cap * sizeof(*strings));

		if (rows)
			fl->rows = rows;
		if (strings)
			fl->strings = strings;
		if (!rows || !strings)
			return -1;
		fl->cap_rows = cap;
	}
	char *copy = strdup(path ? path : "");
	size_t n = 1;

	if (!copy)
		return -1;
	for (const char *p = copy; *p; p++)
		n += *p == sep;
	char **frames = malloc(n * sizeof(*frames));

	if (!frames) {
		free(copy);
		return -1;
	}
	frames[0] = copy;
	n = 1;
	for (char *p = copy; *p; p++)
		if (*p == sep) {
			*p = '\0';
			frames[n++] = p + 1;
		}
	fl->strings[fl->nr_strings++] = copy;
	fl->rows[fl->nr_rows++] = (struct path_row){ frames, n, value > 0 ? value : 0,
						     calls > 0 ? calls : 0, before > 0 ? before : 0 };
	return 0;
}

int flame_add(struct flame *fl, const char *path, char sep, int64_t value, int64_t calls)
{
	return add(fl, path, sep, value, calls, 0);
}

int flame_add_before(struct flame *fl, const char *path, char sep, int64_t value)
{
	return add(fl, path, sep, 0, 0, value);
}

void flame_set_diff(struct flame *fl, double before_s, double after_s)
{
	fl->diff = true;
	fl->before_s = before_s;
	fl->after_s = after_s;
}

static int row_cmp(const void *a, const void *b)
{
	const struct path_row *x = a, *y = b;

	for (size_t i = 0; i < x->n && i < y->n; i++) {
		int c = strcmp(x->frames[i], y->frames[i]);

		if (c)
			return c;
	}
	return (x->n > y->n) - (x->n < y->n);
}

static int new_node(struct flame *fl, const char *name, int parent, int depth)
{
	if (fl->nr_nodes == fl->cap_nodes) {
		size_t cap = fl->cap_nodes ? 2 * fl->cap_nodes : 1024;
		struct node *nodes = realloc(fl->nodes, cap * sizeof(*nodes));

		if (!nodes)
			return -1;
		fl->nodes = nodes;
		fl->cap_nodes = cap;
	}
	fl->nodes[fl->nr_nodes] = (struct node){ .name = name, .parent = parent, .depth = depth };
	return (int)fl->nr_nodes++;
}

/* The tree of the sorted paths, node 0 the root "all". */
static int build_tree(struct flame *fl)
{
	size_t max_n = 0;

	if (fl->nr_rows)
		qsort(fl->rows, fl->nr_rows, sizeof(*fl->rows), row_cmp);
	for (size_t i = 0; i < fl->nr_rows; i++)
		if (fl->rows[i].n > max_n)
			max_n = fl->rows[i].n;
	int *path = malloc((max_n + 1) * sizeof(*path)); /* path[d]: the node at depth d */
	size_t len = 1;

	if (!path || new_node(fl, "all", -1, 0) < 0 || max_n > INT32_MAX - 1) {
		free(path);
		return -1;
	}
	path[0] = 0;
	for (size_t r = 0; r < fl->nr_rows; r++) {
		const struct path_row *row = &fl->rows[r];
		size_t k = 0;

		while (k < row->n && k + 1 < len && !strcmp(fl->nodes[path[k + 1]].name, row->frames[k]))
			k++;
		len = k + 1;
		for (; k < row->n; k++) {
			int id = new_node(fl, row->frames[k], path[k], (int)k + 1);

			if (id < 0) {
				free(path);
				return -1;
			}
			path[len++] = id;
		}
		struct node *leaf = &fl->nodes[path[row->n]];

		leaf->own = sat_add(leaf->own, row->value);
		leaf->calls = sat_add(leaf->calls, row->calls);
		leaf->own_b = sat_add(leaf->own_b, row->before);
	}
	free(path);
	/* widths: children come after their parent */
	for (size_t i = fl->nr_nodes; i-- > 0;) {
		struct node *nd = &fl->nodes[i];

		if (fl->mode == FLAME_SELF || i == 0) {
			nd->total = sat_add(nd->own, nd->child_sum);
			nd->total_b = sat_add(nd->own_b, nd->child_sum_b);
		} else {
			nd->total = nd->own > nd->child_sum ? nd->own : nd->child_sum;
			nd->total_b = nd->own_b > nd->child_sum_b ? nd->own_b : nd->child_sum_b;
		}
		if (nd->parent >= 0) {
			struct node *p = &fl->nodes[nd->parent];

			p->child_sum = sat_add(p->child_sum, nd->total);
			p->child_sum_b = sat_add(p->child_sum_b, nd->total_b);
		}
	}
	/* positions (in value units): siblings side by side from their parent's start */
	for (size_t i = 1; i < fl->nr_nodes; i++) {
		struct node *nd = &fl->nodes[i], *p = &fl->nodes[nd->parent];

		nd->x = nd->cursor = p->cursor;
		p->cursor = sat_add(p->cursor, nd->total);
	}
	return 0;
}

/* FlameGraph's "hot" palette, from a hash of the name: the same function keeps its
 * colour from one run to the next (regenerated pictures differ only where data do). */
static void frame_colour(const char *name, int rgb[3])
{
	uint32_t h = 2166136261u;

	for (const unsigned char *s = (const unsigned char *)name; *s; s++)
		h = (h ^ *s) * 16777619u;
	double v1 = (h & 0xff) / 255.0, v2 = (h >> 8 & 0xff) / 255.0, v3 = (h >> 16 & 0xff) / 255.0;

	rgb[0] = 205 + (int)(50 * v3);
	rgb[1] = (int)(230 * v1);
	rgb[2] = (int)(55 * v2);
}

/*
 * A differential frame's colour: the change of its value per second, relative to
 * the larger of the two rates (-1 gone .. +1 new), as red (grown) or blue (shrunk),
 * the deeper the larger; grey within 1%. *change: that fraction.
 */
static void diff_colour(const struct flame *fl, const struct node *nd, int rgb[3], double *change)
{
	double ra = fl->after_s > 0 ? nd->total / fl->after_s : 0;
	double rb = fl->before_s > 0 ? nd->total_b / fl->before_s : 0;
	double top = ra > rb ? ra : rb, d = top > 0 ? (ra - rb) / top : 0;
	int pale = (int)(230 - 200 * (d < 0 ? -d : d));

	*change = d;
	if (d > -0.01 && d < 0.01) {
		rgb[0] = rgb[1] = rgb[2] = 225;
	} else if (d > 0) {
		rgb[0] = 255;
		rgb[1] = rgb[2] = pale;
	} else {
		rgb[0] = rgb[1] = pale;
		rgb[2] = 255;
	}
}

static void value_text(char *buf, size_t size, const struct flame_style *st, int64_t v)
{
	if (st->time)
		svg_duration(buf, size, (double)v);
	else
		snprintf(buf, size, "%lld %s", (long long)v, st->unit ? st->unit : "samples");
}

static const char css[] =
	"text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
	"#title { text-anchor: middle; font-size: 17px; }\n"
	"#subtitle { text-anchor: middle; fill: #606060; }\n"
	"#unzoom, #search { cursor: pointer; }\n"
	"#search { opacity: 0.5; } #search:hover { opacity: 1; }\n"
	"#frames > g:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	"#frames > g { cursor: pointer; }\n"
	".hide { display: none; }\n"
	".parent { opacity: 0.5; }\n";

/*
 * Zoom, search and details. Each frame keeps its drawn geometry (_x, _w, _y) and its
 * name (its <title> up to the last " (", which the values never contain).
 */
static const char script[] =
	"var frames = [], details, matched, unzoomBtn, searchBtn, searching = false;\n"
	"function name_of(g) { var t = g.querySelector('title').textContent;\n"
	"  return t.substring(0, t.lastIndexOf(' (')); }\n"
	"function label(g, w) { var n = Math.floor(w / (FS * FW)), s = g._name;\n"
	"  g.querySelector('text').textContent = n < 3 ? '' :\n"
	"    (s.length <= n ? s : s.substring(0, n - 2) + '..'); }\n"
	"function place(g, x, w) { var r = g.querySelector('rect'), t = g.querySelector('text');\n"
	"  r.setAttribute('x', x.toFixed(2)); r.setAttribute('width', w.toFixed(2));\n"
	"  t.setAttribute('x', (x + 3).toFixed(2)); label(g, w); }\n"
	"function zoom(z) { var s = (W - 2 * XP) / z._w, e = 1e-6;\n"
	"  frames.forEach(function (g) {\n"
	"    if (g._y > z._y && g._x <= z._x + e && g._x + g._w >= z._x + z._w - e) {\n"
	"      g.classList.remove('hide'); g.classList.add('parent'); place(g, XP, W - 2 * XP);\n"
	"    } else if (g._y <= z._y && g._x >= z._x - e && g._x + g._w <= z._x + z._w + e) {\n"
	"      g.classList.remove('hide'); g.classList.remove('parent');\n"
	"      place(g, XP + (g._x - z._x) * s, g._w * s);\n"
	"    } else { g.classList.add('hide'); } });\n"
	"  unzoomBtn.classList.remove('hide'); }\n"
	"function unzoom() { frames.forEach(function (g) { g.classList.remove('hide');\n"
	"    g.classList.remove('parent'); place(g, g._x, g._w); });\n"
	"  unzoomBtn.classList.add('hide'); }\n"
	"function reset_search() { frames.forEach(function (g) {\n"
	"    g.querySelector('rect').setAttribute('fill', g._fill); });\n"
	"  matched.textContent = ''; searchBtn.textContent = 'Search'; searching = false; }\n"
	"function search() { if (searching) { reset_search(); return; }\n"
	"  var text = prompt('Highlight functions matching (regular expression):', '');\n"
	"  if (!text) return;\n"
	"  var re; try { re = new RegExp(text); } catch (e) { alert(e.message); return; }\n"
	"  var spans = [];\n"
	"  frames.forEach(function (g) { if (re.test(g._name)) {\n"
	"    g.querySelector('rect').setAttribute('fill', 'rgb(230,0,230)');\n"
	"    spans.push([g._x, g._x + g._w]); } });\n"
	"  /* a match inside a matched frame is part of it: merge the spans */\n"
	"  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
	"  var sum = 0, end = -1;\n"
	"  spans.forEach(function (s) { if (s[0] >= end) { sum += s[1] - s[0]; end = s[1]; }\n"
	"    else if (s[1] > end) { sum += s[1] - end; end = s[1]; } });\n"
	"  matched.textContent = 'Matched: ' + (100 * sum / (W - 2 * XP)).toFixed(1) + '%';\n"
	"  searchBtn.textContent = 'Reset Search'; searching = true; }\n"
	"(function () {\n"
	"  details = document.getElementById('details');\n"
	"  matched = document.getElementById('matched');\n"
	"  unzoomBtn = document.getElementById('unzoom');\n"
	"  searchBtn = document.getElementById('search');\n"
	"  frames = [].slice.call(document.querySelectorAll('#frames > g'));\n"
	"  frames.forEach(function (g) { var r = g.querySelector('rect');\n"
	"    g._x = +r.getAttribute('x'); g._w = +r.getAttribute('width');\n"
	"    g._y = +r.getAttribute('y'); g._fill = r.getAttribute('fill'); g._name = name_of(g);\n"
	"    var info = g.querySelector('title').textContent;\n"
	"    g.addEventListener('click', function () { zoom(g); });\n"
	"    g.addEventListener('mouseover', function () { details.textContent = info; });\n"
	"    g.addEventListener('mouseout', function () { details.textContent = ' '; }); });\n"
	"  unzoomBtn.addEventListener('click', unzoom);\n"
	"  searchBtn.addEventListener('click', search);\n"
	"  window.addEventListener('keydown', function (e) {\n"
	"    if ((e.ctrlKey && e.key === 'f') || e.key === 'F3') { e.preventDefault(); search(); }\n"
	"    else if (e.key === 'Escape') { unzoom(); if (searching) reset_search(); } });\n"
	"})();\n";

/* One frame; base: the y of the root frame's bottom edge. */
static void write_frame(FILE *f, const struct flame *fl, const struct node *nd,
			const struct flame_style *st, double total, int base)
{
	double scale = (WIDTH - 2 * XPAD) / total, change = 0;
	double x = XPAD + nd->x * scale, w = nd->total * scale;
	int y = base - (nd->depth + 1) * FRAME_H;
	char value[64];
	int rgb[3];

	if (fl->diff)
		diff_colour(fl, nd, rgb, &change);
	else
		frame_colour(nd->name, rgb);
	value_text(value, sizeof(value), st, nd->total);
	fprintf(f, "<g class=\"f\" data-v=\"%lld\"", (long long)nd->total);
	if (fl->diff)
		fprintf(f, " data-b=\"%lld\"", (long long)nd->total_b);
	fputs("><title>", f);
	svg_put(f, nd->name, 4096);
	fprintf(f, " (%s%s, %.2f%%", fl->diff ? "after " : "", value, 100.0 * nd->total / total);
	if (nd->calls)
		fprintf(f, ", %lld call%s", (long long)nd->calls, nd->calls == 1 ? "" : "s");
	if (fl->diff) {
		value_text(value, sizeof(value), st, nd->total_b);
		fprintf(f, "; before %s; per second %+.1f%% of the larger", value, 100 * change);
	}
	fprintf(f, ")</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
		"fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>", x, y, w, FRAME_H - 1, rgb[0], rgb[1], rgb[2]);
	size_t fit = (size_t)(w / (FONT * FONT_W));

	fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + FRAME_H - 4.5);
	if (fit >= 3)
		svg_put(f, nd->name, fit);
	fputs("</text></g>\n", f);
}

int flame_write_svg(struct flame *fl, FILE *f, const struct flame_style *st)
{
	if (!fl->nodes && build_tree(fl))
		return -1;
	const struct node *root = &fl->nodes[0];
	double total = (double)root->total, scale = total > 0 ? (WIDTH - 2 * XPAD) / total : 0;
	int64_t omitted = 0;
	int max_depth = 0;

	for (size_t i = 0; i < fl->nr_nodes; i++) {
		struct node *nd = &fl->nodes[i];

		if (i == 0)
			nd->drawn = root->total > 0;
		else if (fl->nodes[nd->parent].drawn) {
			nd->drawn = nd->total * scale >= st->min_width && nd->total > 0;
			if (!nd->drawn)
				omitted = sat_add(omitted, nd->total);
		}
		if (nd->drawn && nd->depth > max_depth)
			max_depth = nd->depth;
	}
	int top_pad = FONT * 3 + (st->subtitle ? FONT * 2 : 0), bottom_pad = FONT * 2 + 10;
	int height = top_pad + bottom_pad + (max_depth + 1) * FRAME_H + (total > 0 ? 0 : 2 * FRAME_H);

	svg_begin(f, WIDTH, height, css);
	fprintf(f, "<g id=\"flame\" data-total=\"%lld\" data-omitted=\"%lld\" data-unit=\"%s\">\n",
		(long long)root->total, (long long)omitted, st->time ? "ns" : "count");
	svg_text(f, WIDTH / 2.0, FONT * 2, "id=\"title\"", st->title, 0);
	if (st->subtitle)
		svg_text(f, WIDTH / 2.0, FONT * 4, "id=\"subtitle\"", st->subtitle, 0);
	svg_text(f, XPAD, FONT * 2, "id=\"unzoom\" class=\"hide\"", "Reset Zoom", 0);
	svg_text(f, WIDTH - XPAD - 100, FONT * 2, "id=\"search\"", "Search", 0);
	svg_text(f, XPAD, height - 17, "id=\"details\"", " ", 0);
	svg_text(f, WIDTH - XPAD - 100, height - 17, "id=\"matched\"", "", 0);
	if (omitted) {
		char value[64], note[128];

		value_text(value, sizeof(value), st, omitted);
		snprintf(note, sizeof(note), "%s in frames narrower than %g px not drawn", value,
			 st->min_width);
		svg_text(f, WIDTH / 2.0, height - 3, "text-anchor=\"middle\" fill=\"#606060\"", note, 0);
	}
	if (total <= 0)
		svg_text(f, WIDTH / 2.0, top_pad + FRAME_H, "text-anchor=\"middle\"",
			 st->time ? "no call time in this slice" : "no samples in this slice", 0);
	fputs("<g id=\"frames\">\n", f);
	for (size_t i = 0; i < fl->nr_nodes; i++)
		if (fl->nodes[i].drawn)
			write_frame(f, fl, &fl->nodes[i], st, total, height - bottom_pad);
	fputs("</g>\n</g>\n<script type=\"text/ecmascript\"><![CDATA[\n", f);
	fprintf(f, "var W = %d, XP = %d, FS = %d, FW = %.2f;\n", WIDTH, XPAD, FONT, FONT_W);
	fputs(script, f);
	fputs("]]></script>\n", f);
	svg_end(f);
	return 0;
}

static int64_t flame_total(const struct flame *fl)
{
	return fl->nodes ? fl->nodes[0].total : 0;
}

/* --- a report's flame graph --- */

#define DEFAULT_MIN_WIDTH 0.1

int flame_check(struct report_ctx *ctx, bool svg, const char *conflict, const char *out,
		const char *min_width)
{
	double px;

	if (!svg)
		return out ? msg_error("-o writes the flame graph: give --svg") :
		       min_width ? msg_error("--min-width shapes the flame graph: give --svg") : 0;
	if (ctx->fmt != OUT_TEXT)
		return msg_error("--svg is a picture: --csv/--json give the numbers");
	if (conflict)
		return msg_error("--svg and %s are different views: give one", conflict);
	if (min_width && front_number("--min-width", min_width, 0, &px))
		return -1;
	return svg_out_check(ctx, out);
}

int flame_report(struct report_ctx *ctx, struct flame *fl, struct flame_style *style,
		 const char *out, const char *min_width)
{
	struct svg_out so;
	char *subtitle = svg_subtitle(ctx);

	style->subtitle = subtitle;
	style->min_width = min_width ? strtod(min_width, NULL) : DEFAULT_MIN_WIDTH;
	if (svg_out_open(ctx, out, &so)) {
		free(subtitle);
		return -1;
	}
	bool ok = flame_write_svg(fl, so.f, style) == 0;

	if (!ok)
		msg_error("out of memory");
	if (ok && !flame_total(fl))
		msg_warn("nothing to draw in this slice: the picture says so");
	free(subtitle);
	return svg_out_close(ctx, &so, ok);
}
