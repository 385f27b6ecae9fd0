/* SPDX-License-Identifier: MIT */
/*
 * test_ftrace_names.c - decode/ftrace_names.c: function and function_graph events
 * whose formats print numbers (4.13's " %lx <-- %lx", "--> %lx (%d)"...) are printed
 * with the names of the kallsyms written here, as the later %ps formats print them;
 * formats that name functions themselves, or lack the fields, are left to
 * libtraceevent. Records are built by hand, 32-bit little-endian, so every expected
 * name is known from the symbol table below. Last, the same through a whole .ftz (an
 * old kernel's capture by ftrec), as report tpoint reads it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "decode/decode.h"
#include "decode/ftrace_names.h"
#include "format/ftz.h"

#define COMMON_FIELDS                                                                   \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"          \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"          \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"  \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

#define IP_FIELDS                                                                       \
	"\tfield:unsigned long ip;\toffset:8;\tsize:4;\tsigned:0;\n"                    \
	"\tfield:unsigned long parent_ip;\toffset:12;\tsize:4;\tsigned:0;\n\n"

/* The 4.13 i686 file's format, word for word. */
static const char old_format[] = "name: function\nID: 1\nformat:\n" COMMON_FIELDS IP_FIELDS
	"print fmt: \" %lx <-- %lx\", REC->ip, REC->parent_ip\n";
/* This machine's (6.x) format. */
static const char ps_format[] = "name: function\nID: 1\nformat:\n" COMMON_FIELDS IP_FIELDS
	"print fmt: \" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip\n";
/* An old-style format whose second field has another name: nothing to name by. */
static const char odd_format[] = "name: function\nID: 1\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned long ip;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long caller;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \" %lx <-- %lx\", REC->ip, REC->caller\n";

static char kallsyms[] = "c6400000 T _stext\n"
			 "c644ae30 T switch_mm_irqs_off\n"
			 "c699a000 t __schedule\n"
			 "c699b000 T schedule\n"
			 "c699c000 T _etext\n"; /* libtraceevent bounds the last function by the next */

/* Little-endian N bytes of V at P. */
static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The INFO text of the record DATA (SIZE bytes, event id 1, pid 79) after FORMAT. */
static void print_info(const char *format, unsigned char *data, size_t size, char *out, size_t len)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_record rec = { .data = data, .size = (int)size };
	struct trace_seq s;

	assert_non_null(tep);
	put_le(data, 1, 2);
	put_le(data + 4, 79, 4);
	tep_set_long_size(tep, 4);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	assert_int_equal(tep_parse_event(tep, format, strlen(format), "ftrace"), 0);
	char ks[sizeof(kallsyms)];
	memcpy(ks, kallsyms, sizeof(ks)); /* tep_parse_kallsyms cuts its buffer up */
	assert_int_equal(tep_parse_kallsyms(tep, ks), 0);
	ftrace_name_functions(tep);
	trace_seq_init(&s);
	tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	snprintf(out, len, "%s", s.buffer);
	trace_seq_destroy(&s);
	tep_free(tep);
}

/* The INFO text of one function event, ip/parent_ip as given, after FORMAT. */
static void info_of(const char *format, uint32_t ip, uint32_t parent_ip, char *out, size_t len)
{
	unsigned char data[16] = { 0 };

	put_le(data + 8, ip, 4);
	put_le(data + 12, parent_ip, 4);
	print_info(format, data, sizeof(data), out, len);
}

static void old_format_prints_names(void **state)
{
	char text[256];

	(void)state;
	/* the first event of the i686 capture: trace-cmd names it so */
	info_of(old_format, 0xc644ae30, 0xc699a65a, text, sizeof(text));
	assert_string_equal(text, " switch_mm_irqs_off <-- __schedule");
}

static void unknown_address_prints_hex(void **state)
{
	char text[256];

	(void)state;
	/* below the first symbol: nothing names it */
	info_of(old_format, 0xc0001000, 0xc699b010, text, sizeof(text));
	assert_string_equal(text, " 0xc0001000 <-- schedule");
}

static void ps_format_is_the_kernels(void **state)
{
	char text[256];

	(void)state;
	info_of(ps_format, 0xc644ae30, 0xc699a65a, text, sizeof(text));
	assert_string_equal(text, " switch_mm_irqs_off <-- __schedule");
}

static void format_without_parent_ip_untouched(void **state)
{
	char text[256];

	(void)state;
	info_of(odd_format, 0xc644ae30, 0xc699a65a, text, sizeof(text));
	assert_string_equal(text, " c644ae30 <-- c699a65a");
}

/* The i686 4.13 capture's function_graph formats, word for word. */
static const char old_graph_entry[] = "name: funcgraph_entry\nID: 1\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned long func;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:int depth;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"--> %lx (%d)\", REC->func, REC->depth\n";
static const char old_graph_exit[] = "name: funcgraph_exit\nID: 1\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned long func;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long long calltime;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long long rettime;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long overrun;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:int depth;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"<-- %lx (%d) (start: %llx  end: %llx) over: %d\", REC->func, REC->depth, "
	"REC->calltime, REC->rettime, REC->depth\n";

/* As later kernels' "--> %ps (%u)" and "<-- %ps (%u) (start: %llx  end: %llx) over: %u". */
static void old_graph_formats_print_names(void **state)
{
	unsigned char entry[16] = { 0 }, exit[40] = { 0 };
	char text[256];

	(void)state;
	put_le(entry + 8, 0xc644ae30, 4);
	put_le(entry + 12, 2, 4);
	print_info(old_graph_entry, entry, sizeof(entry), text, sizeof(text));
	assert_string_equal(text, "--> switch_mm_irqs_off (2)");

	put_le(exit + 8, 0xc699a000, 4);
	put_le(exit + 12, 7, 4); /* overrun: not what "over:" prints, in any kernel */
	put_le(exit + 16, 0x91023df66ULL, 8);
	put_le(exit + 24, 0x910555791ULL, 8);
	put_le(exit + 32, 1, 4);
	print_info(old_graph_exit, exit, sizeof(exit), text, sizeof(text));
	assert_string_equal(text, "<-- __schedule (1) (start: 91023df66  end: 910555791) over: 1");
}

/* ---------------------------------------------------------------- a whole .ftz */

/* A 64-bit, little-endian host's ring-buffer page layout (6.x header_page). */
static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
/* 4.13's function format as a 64-bit kernel writes it */
static const char old_format64[] = "name: function\nID: 1\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \" %lx <-- %lx\", REC->ip, REC->parent_ip\n";
static const char kallsyms64[] = "ffffffff81000000 T _stext\n"
				 "ffffffff81100000 T vfs_read\n"
				 "ffffffff81100400 T ksys_read\n"
				 "ffffffff81100800 T _etext\n";

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* One page: two function events (24-byte payloads, type_len 6), 1000 ns apart. */
static void write_old_kernel_ftz(const char *path)
{
	static unsigned char page[4096];
	char err[256];
	size_t at = 16;

	memset(page, 0, sizeof(page));
	put64(page, 5000000000ULL);
	for (int i = 0; i < 2; i++) {
		uint32_t head = 6 | (uint32_t)(i ? 1000 : 0) << 5;
		unsigned char *ev = page + at + 4;

		memcpy(page + at, &head, 4); /* little-endian host */
		ev[0] = 1;                   /* common_type */
		ev[4] = 79;                  /* common_pid */
		put64(ev + 8, i ? 0xffffffff81100000ULL : 0xffffffff81100010ULL);
		put64(ev + 16, i ? 0xffffffff81100420ULL : 0xffffffff810fff00ULL);
		at += 4 + 24;
	}
	put64(page + 8, at - 16); /* commit: bytes of data */

	struct ftz_writer *w = ftz_writer_create(path, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(ftz_write_info(w, FTZ_SEC_INFO, "ftz_version=1.0\nlong_size=8\n"
					"endian=little\nclock=local\nnr_cpus=1\nsubbuf_size=4096\n"
					"page_size=4096\n"), 0);
	assert_int_equal(ftz_write_file(w, FTZ_PHASE_START, "events/header_page", header_page,
					strlen(header_page)), 0);
	assert_int_equal(ftz_write_file(w, FTZ_PHASE_START, "events/ftrace/function/format",
					old_format64, strlen(old_format64)), 0);
	assert_int_equal(ftz_write_file(w, FTZ_PHASE_START, "/proc/kallsyms", kallsyms64,
					strlen(kallsyms64)), 0);
	assert_int_equal(ftz_write_pages(w, 0, sizeof(page), page, 1), 0);
	assert_int_equal(ftz_write_info(w, FTZ_SEC_END, "stop_reason=test\n"), 0);
	assert_int_equal(ftz_writer_close(w), 0);
}

static void old_kernel_ftz_prints_names(void **state)
{
	char path[] = "/tmp/test_ftrace_names.XXXXXX";
	int fd = mkstemp(path);
	struct dec_event ev;
	struct trace_seq s;
	int n = 0;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_old_kernel_ftz(path);
	struct dec *d = dec_open(path);
	if (!d)
		fail_msg("dec_open refused the file (the error is on stderr)");
	trace_seq_init(&s);
	while (dec_next(d, &ev) > 0) {
		trace_seq_reset(&s);
		tep_print_event(dec_tep(d), &s, ev.record, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&s);
		/* %ps prints the name alone, the offset dropped, as the handler does */
		assert_string_equal(s.buffer, n == 0 ? " vfs_read <-- _stext" : " vfs_read <-- ksys_read");
		n++;
	}
	assert_int_equal(n, 2);
	trace_seq_destroy(&s);
	dec_close(d);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(old_format_prints_names),
		cmocka_unit_test(unknown_address_prints_hex),
		cmocka_unit_test(ps_format_is_the_kernels),
		cmocka_unit_test(format_without_parent_ip_untouched),
		cmocka_unit_test(old_graph_formats_print_names),
		cmocka_unit_test(old_kernel_ftz_prints_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
