/* SPDX-License-Identifier: MIT */
/*
 * test_text_escape.c - analyze/text_escape.c: what reaches the terminal from a
 * capture's text. Expected strings are written out by hand from the rules in
 * text_escape.h (and the Unicode/UTF-8 definitions of C1, overlong and surrogate).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/text_escape.h"

static void expect(const char *in, const char *want)
{
	char *got = text_escaped(in);

	assert_non_null(got);
	assert_string_equal(got, want);
	assert_int_equal(text_needs_escape(in, strlen(in)), strcmp(in, want) != 0);
	free(got);

	/* text_put writes the same bytes */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	text_put(f, in, strlen(in));
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, want);
	free(buf);
}

static void plain_text_unchanged(void **state)
{
	(void)state;
	expect("", "");
	expect("kworker/0:1H-kblockd", "kworker/0:1H-kblockd");
	expect("a\tb \\x1b c", "a\tb \\x1b c"); /* tab and backslash stay */
	expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7");
	expect("\xc2\xa0nbsp", "\xc2\xa0nbsp"); /* U+00A0: first after C1 */
}

static void terminal_sequences_escaped(void **state)
{
	(void)state;
	expect("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07");
	expect("\x1b[2J", "\\x1b[2J");
	expect("a\nb\rc\x7f", "a\\x0ab\\x0dc\\x7f");
	expect("\x01\x1f", "\\x01\\x1f");
}

static void c1_and_bad_utf8_escaped(void **state)
{
	(void)state;
	expect("\xc2\x9b" "2J", "\\xc2\\x9b2J");         /* U+009B CSI, UTF-8 */
	expect("\xc2\x80", "\\xc2\\x80");                /* U+0080 */
	expect("\x9b" "2J", "\\x9b2J");                  /* lone CSI byte */
	expect("\xc0\x9b", "\\xc0\\x9b");                /* overlong */
	expect("\xe0\x80\x9b", "\\xe0\\x80\\x9b");       /* overlong, 3 bytes */
	expect("\xed\xa0\x80", "\\xed\\xa0\\x80");       /* surrogate U+D800 */
	expect("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"); /* above U+10FFFF */
	expect("\xe2\x82", "\\xe2\\x82");                /* cut sequence at the end */
	expect("\xe2\x82x", "\\xe2\\x82x");
	expect("\xff\xfe", "\\xff\\xfe");
}

/* text_put works in chunks: a multi-byte character across a chunk edge stays whole. */
static void long_text_across_chunks(void **state)
{
	(void)state;
	for (int pad = 250; pad < 262; pad++) {
		char in[2048], want[4096];
		size_t n = 0, w = 0;

		for (int i = 0; i < pad; i++)
			in[n++] = want[w++] = 'a';
		memcpy(in + n, "\xf0\x9f\x90\xa7\x1b", 5);
		n += 5;
		memcpy(want + w, "\xf0\x9f\x90\xa7\\x1b", 8);
		w += 8;
		for (int i = 0; i < 600; i++) {
			in[n++] = '\x80'; /* continuation bytes with no lead: each escaped */
			memcpy(want + w, "\\x80", 4);
			w += 4;
		}
		in[n] = want[w] = '\0';
		expect(in, want);
	}
}

/* What text_escape_n keeps, NULs inside the length included. */
static void keep_choices(void **state)
{
	static const char in[] = "a\tb\r\nc\0d\x1b";
	static const struct { unsigned keep; const char *want; } cases[] = {
		{ TEXT_KEEP_NONE, "a\\x09b\\x0d\\x0ac\\x00d\\x1b" },
		{ TEXT_KEEP_TAB, "a\tb\\x0d\\x0ac\\x00d\\x1b" },
		{ TEXT_KEEP_LINES, "a\tb\r\nc\\x00d\\x1b" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = text_escape_n(in, sizeof(in) - 1, cases[i].keep);

		assert_non_null(got);
		assert_string_equal(got, cases[i].want);
		free(got);
	}
	assert_null(text_escaped(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_text_unchanged),
		cmocka_unit_test(terminal_sequences_escaped),
		cmocka_unit_test(c1_and_bad_utf8_escaped),
		cmocka_unit_test(long_text_across_chunks),
		cmocka_unit_test(keep_choices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
