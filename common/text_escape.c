// SPDX-License-Identifier: MIT
/* text_escape.c - control characters in capture text, escaped (see text_escape.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/text_escape.h"

/*
 * How many bytes at P (LEFT available) print as they are: 0 if *P must be escaped,
 * else 1 for printable ASCII and what KEEP keeps, 2..4 for one valid UTF-8 sequence
 * that is not a C1 control, an overlong form, a surrogate or above U+10FFFF.
 */
static size_t plain_run(const unsigned char *p, size_t left, unsigned keep)
{
	unsigned c = p[0];
	size_t n;
	uint32_t cp, min;

	if ((c >= 0x20 && c < 0x7f) || (c == '\t' && (keep & (TEXT_KEEP_TAB | TEXT_KEEP_LINES))) ||
	    ((c == '\n' || c == '\r') && (keep & TEXT_KEEP_LINES)))
		return 1;
	if (c < 0xc2 || c > 0xf4) /* C0, DEL, continuation bytes, overlong leads */
		return 0;
	if (c < 0xe0) {
		n = 2, cp = c & 0x1f, min = 0x80;
	} else if (c < 0xf0) {
		n = 3, cp = c & 0x0f, min = 0x800;
	} else {
		n = 4, cp = c & 0x07, min = 0x10000;
	}
	if (left < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp <= 0x9f)
		return 0; /* cp <= 0x9f: a C1 control (U+0080..U+009F) */
	return n;
}

static bool needs_escape(const char *text, size_t len, unsigned keep)
{
	const unsigned char *p = (const unsigned char *)text;

	for (size_t i = 0; i < len;) {
		size_t n = plain_run(p + i, len - i, keep);

		if (!n)
			return true;
		i += n;
	}
	return false;
}

bool text_needs_escape(const char *text, size_t len)
{
	return needs_escape(text, len, TEXT_KEEP_TAB);
}

/* Escape LEN bytes of TEXT into DST, which has room for 4 * LEN + 1; returns DST's length. */
static size_t escape_into(char *dst, const char *text, size_t len, unsigned keep)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)text;
	size_t out = 0;

	for (size_t i = 0; i < len;) {
		size_t n = plain_run(p + i, len - i, keep);

		if (n) {
			memcpy(dst + out, p + i, n);
			out += n;
			i += n;
			continue;
		}
		dst[out++] = '\\';
		dst[out++] = 'x';
		dst[out++] = hex[p[i] >> 4];
		dst[out++] = hex[p[i] & 15];
		i++;
	}
	dst[out] = '\0';
	return out;
}

char *text_escape_n(const char *text, size_t len, unsigned keep)
{
	char *dst = malloc(needs_escape(text, len, keep) ? 4 * len + 1 : len + 1);

	if (dst)
		escape_into(dst, text, len, keep);
	return dst;
}

char *text_escaped(const char *text)
{
	return text ? text_escape_n(text, strlen(text), TEXT_KEEP_TAB) : NULL;
}

void text_put(FILE *out, const char *text, size_t len)
{
	char chunk[4 * 256 + 1];

	if (!needs_escape(text, len, TEXT_KEEP_TAB)) {
		fwrite(text, 1, len, out);
		return;
	}
	for (size_t i = 0; i < len;) {
		size_t n = len - i < 256 ? len - i : 256;

		/* a UTF-8 sequence (4 bytes at most) cut by the chunk's end would be
		 * escaped: end the chunk before its lead byte instead */
		for (int back = 0; back < 3 && n < len - i && n > 1 &&
				   ((unsigned char)text[i + n] & 0xc0) == 0x80; back++)
			n--;
		fwrite(chunk, 1, escape_into(chunk, text + i, n, TEXT_KEEP_TAB), out);
		i += n;
	}
}

void text_fputs(FILE *out, const char *text)
{
	if (text)
		text_put(out, text, strlen(text));
}
