/* SPDX-License-Identifier: MIT */
/*
 * svg.c - the pictures' output file and text escaping (see svg.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/out_file.h"
#include "common/text_escape.h"
#include "reports/report.h"
#include "reports/svg.h"

/* --- the output file: stdout, or analyze/out_file.c's temp file renamed over OUT --- */

static bool is_stdout(const char *path)
{
	return !path || out_is_stdout(path);
}

int svg_out_check(struct report_ctx *ctx, const char *path)
{
	return is_stdout(path) ? 0 : front_out_check(ctx, path);
}

int svg_out_open(struct report_ctx *ctx, const char *path, struct svg_out *out)
{
	*out = (struct svg_out){ .f = stdout };
	if (is_stdout(path))
		return 0;
	if (out_open(&out->file, path, ctx->file) < 0) {
		out->f = NULL;
		return -1;
	}
	out->f = out->file.f;
	return 0;
}

int svg_out_close(struct report_ctx *ctx, struct svg_out *out, bool ok)
{
	int rc = ok ? 0 : -1;

	if (out->file.f) {
		if (ok)
			rc = out_commit(&out->file);
		else
			out_abort(&out->file);
	}
	/* stdout: the front end flushes it and reports a write error */
	*out = (struct svg_out){ 0 };
	return rc;
}

/* --- text --- */

/* Length of the UTF-8 sequence starting at S (text_escape let only valid ones
 * through), and its code point. */
static size_t utf8_next(const unsigned char *s, unsigned *cp)
{
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;

	*cp = s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) { /* cannot happen after text_escape: be safe */
			*cp = 0xfffd;
			return 1;
		}
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	return n;
}

size_t svg_chars(const char *text)
{
	char *esc = text_escaped(text ? text : "?");
	size_t n = 0;

	for (const unsigned char *s = (const unsigned char *)(esc ? esc : "?"); *s; n++) {
		unsigned cp;

		s += utf8_next(s, &cp);
	}
	free(esc);
	return n;
}

static void put_char(FILE *f, const unsigned char *s, size_t len, unsigned cp)
{
	switch (cp) {
	case '&': fputs("&amp;", f); return;
	case '<': fputs("&lt;", f); return;
	case '>': fputs("&gt;", f); return;
	case '"': fputs("&quot;", f); return;
	case '\'': fputs("&apos;", f); return;
	case 0xfffe:
	case 0xffff:
		for (size_t i = 0; i < len; i++)
			fprintf(f, "\\x%02x", s[i]);
		return;
	}
	fwrite(s, 1, len, f);
}

void svg_put(FILE *f, const char *text, size_t max_chars)
{
	char *esc = text_escaped(text ? text : "?");
	const unsigned char *s = (const unsigned char *)(esc ? esc : "?");
	size_t total = max_chars ? svg_chars(text) : 0;
	size_t shown = max_chars && total > max_chars ? (max_chars >= 2 ? max_chars - 2 : 0) : SIZE_MAX;

	for (size_t n = 0; *s && n < shown; n++) {
		unsigned cp;
		size_t len = utf8_next(s, &cp);

		put_char(f, s, len, cp);
		s += len;
	}
	if (shown != SIZE_MAX)
		fputs("..", f);
	free(esc);
}

void svg_begin(FILE *f, int width, int height, const char *css)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n", width, height, width, height);
	if (css)
		fprintf(f, "<style type=\"text/css\"><![CDATA[\n%s]]></style>\n", css);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		width, height);
}

void svg_end(FILE *f)
{
	fputs("</svg>\n", f);
}

void svg_text(FILE *f, double x, double y, const char *attrs, const char *text, size_t max_chars)
{
	fprintf(f, "<text x=\"%.2f\" y=\"%.2f\"%s%s>", x, y, attrs && *attrs ? " " : "",
		attrs ? attrs : "");
	svg_put(f, text, max_chars);
	fputs("</text>\n", f);
}

char *svg_subtitle(const struct report_ctx *ctx)
{
	const struct slice *s = &ctx->slice;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return NULL;
	fputs(ctx->file ? ctx->file : "?", m);
	if (s->since_arg)
		fprintf(m, ", --since %s", s->since_arg);
	if (s->until_arg)
		fprintf(m, ", --until %s", s->until_arg);
	if (s->pid >= 0)
		fprintf(m, ", -p %lld", (long long)s->pid);
	if (s->tid >= 0)
		fprintf(m, ", -L %lld", (long long)s->tid);
	if (s->comm_re)
		fprintf(m, ", -n %s", s->comm_re);
	if (s->cpu_arg)
		fprintf(m, ", --cpu %s", s->cpu_arg);
	if (fclose(m) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

void svg_duration(char *buf, size_t size, double ns)
{
	if (ns < 1e3)
		snprintf(buf, size, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, size, "%.2f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, size, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, size, "%.3f s", ns / 1e9);
}
