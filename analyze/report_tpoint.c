/* SPDX-License-Identifier: MIT */
/*
 * report_tpoint.c - `ftana report tpoint FILE.ftz [--event E]`: the events as the
 * kernel's trace file shows them (what perf-tools' tpoint printed), each followed by
 * its kernel stack when recorded with -s:
 *
 *     dd-4242    [001] d..1. 1234.567890: block_rq_insert: 253,0 R 4096 () 2048 + 8 ...
 *     dd-4242    [001] d..1. 1234.567893: <stack trace>
 *  => blk_mq_insert_request
 *
 * Printed from the raw records (analyze/decode.h) by libtraceevent's tep_print_event
 * with the print formats the file carries, so a .db alone cannot be used.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/trace-seq.h>

#include "analyze/decode.h"
#include "analyze/ftana.h"
#include "analyze/report_util.h"
#include "analyze/text_escape.h"

/* The kernel's line prefix: TASK-PID [CPU] FLAGS TIMESTAMP (seconds.microseconds). */
#define TPOINT_HEADER "%16s-%-7d [%03d] %s %6.1000d: "

/* Does the event match --event NAME or SYSTEM:NAME? */
static bool event_wanted(const struct tep_event *event, const char *want)
{
	const char *colon;

	if (!want)
		return true;
	if (!event)
		return false;
	colon = strchr(want, ':');
	if (!colon)
		return !strcmp(event->name, want);
	return !strncmp(event->system, want, colon - want) &&
	       event->system[colon - want] == '\0' && !strcmp(event->name, colon + 1);
}

static bool is_kernel_stack(const struct tep_event *event)
{
	return event && !strcmp(event->name, "kernel_stack") && !strcmp(event->system, "ftrace");
}

/*
 * Print " => symbol" for each address of a kernel_stack record. The format says
 * caller[8] but the kernel stores `size` entries; older kernels end a short stack
 * with ULONG_MAX. The record's length bounds both.
 */
static void print_stack(struct dec *d, const struct dec_event *ev, FILE *out)
{
	struct tep_format_field *size_f = tep_find_field(ev->event, "size");
	struct tep_format_field *caller_f = tep_find_field(ev->event, "caller");
	int long_size = dec_long_size(d);
	unsigned long long nr = 0;

	if (!caller_f || (long_size != 4 && long_size != 8))
		return;
	if (!size_f || tep_read_number_field(size_f, ev->record->data, &nr))
		nr = caller_f->size / long_size;
	if (caller_f->offset < 0 || caller_f->offset > ev->record->size)
		return;
	unsigned long long room = (ev->record->size - caller_f->offset) / long_size;
	if (nr > room)
		nr = room;

	const unsigned char *p = (const unsigned char *)ev->record->data + caller_f->offset;
	for (unsigned long long i = 0; i < nr; i++) {
		unsigned long long addr = long_size == 8 ? tep_read_number(dec_tep(d), p + 8 * i, 8)
							 : tep_read_number(dec_tep(d), p + 4 * i, 4);
		if (addr == 0 || addr == (long_size == 8 ? ~0ULL : 0xffffffffULL))
			break;
		const char *sym = tep_find_function(dec_tep(d), addr);
		if (sym) {
			fputs(" => ", out);
			text_fputs(out, sym); /* from the capture's kallsyms */
			fputc('\n', out);
		} else {
			fprintf(out, " => 0x%llx\n", addr);
		}
	}
}

/*
 * The file's saved_cmdlines were read when recording started: tasks born later would
 * print as "<...>". The database's tasks table also has the comms events carried.
 */
static void register_comms(sqlite3 *db, struct tep_handle *tep)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT pid, comm FROM tasks WHERE comm IS NOT NULL",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int pid = sqlite3_column_int(st, 0);
		const char *comm = (const char *)sqlite3_column_text(st, 1);

		if (!tep_is_pid_registered(tep, pid))
			tep_register_comm(tep, comm, pid);
	}
	sqlite3_finalize(st);
}

/*
 * One line as the kernel ends it: text that brought its own newline gets no second.
 * Comms and string fields come from the capture: control characters are escaped
 * (text_escape.h), newlines inside the line included, so one event is one line.
 */
static void put_line(struct trace_seq *s, FILE *out)
{
	trace_seq_terminate(s);
	size_t len = strlen(s->buffer);

	while (len && s->buffer[len - 1] == '\n')
		len--;
	text_put(out, s->buffer, len);
	fputc('\n', out);
}

static int print_events(struct dec *d, const char *want, FILE *out)
{
	struct tep_handle *tep = dec_tep(d);
	unsigned nr_cpus = dec_stats(d)->nr_cpus;
	/* A stack belongs to the event just before it on the same CPU. */
	bool *shown = calloc(nr_cpus ? nr_cpus : 1, sizeof(*shown));
	struct dec_event ev;
	struct trace_seq s;

	if (!shown)
		return -1;
	trace_seq_init(&s);
	while (dec_next(d, &ev) > 0) {
		bool cpu_ok = ev.cpu >= 0 && (unsigned)ev.cpu < nr_cpus;

		/* Losses as the kernel's trace_pipe reports them. */
		if (ev.missed > 0)
			fprintf(out, "CPU:%d [LOST %d EVENTS]\n", ev.cpu, ev.missed);
		else if (ev.missed < 0)
			fprintf(out, "CPU:%d [LOST EVENTS]\n", ev.cpu);
		trace_seq_reset(&s);
		if (is_kernel_stack(ev.event)) {
			if (want && !(cpu_ok && shown[ev.cpu]))
				continue;
			tep_print_event(tep, &s, ev.record, TPOINT_HEADER "<stack trace>",
					TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU,
					TEP_PRINT_LATENCY, TEP_PRINT_TIME);
			put_line(&s, out);
			print_stack(d, &ev, out);
			continue;
		}
		bool wanted = event_wanted(ev.event, want);
		if (cpu_ok)
			shown[ev.cpu] = wanted;
		if (!wanted)
			continue;
		if (ev.event)
			tep_print_event(tep, &s, ev.record, TPOINT_HEADER "%s: %s",
					TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU,
					TEP_PRINT_LATENCY, TEP_PRINT_TIME, TEP_PRINT_NAME,
					TEP_PRINT_INFO);
		else
			trace_seq_printf(&s, "[CPU %d] %llu: unknown event type %d", ev.cpu,
					 ev.ts, ev.type_id);
		put_line(&s, out);
	}
	trace_seq_destroy(&s);
	free(shown);
	return 0;
}

int report_tpoint(sqlite3 *db, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *want = NULL;
	char err[512];
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "e:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': want = optarg; break;
		case 'h':
			printf("usage: ftana report tpoint FILE.ftz [--event [SYSTEM:]EVENT]\n");
			return FTANA_EXIT_OK;
		default: return FTANA_EXIT_ERROR;
		}
	}
	if (ru_extra_args("tpoint", argc, argv))
		return FTANA_EXIT_ERROR;
	struct dec *d = dec_open(report_file(), err, sizeof(err));
	if (!d) {
		fprintf(stderr, "ftana report tpoint: %s (tpoint prints the raw records: "
			"it needs the .ftz, not a .db)\n", err);
		return FTANA_EXIT_ERROR;
	}

	/* The losses in the printed events' time range, from the database. */
	char *range = NULL;
	if (want) {
		char *table = ru_event_table(db, "tpoint", want);
		if (!table) {
			dec_close(d);
			return FTANA_EXIT_ERROR;
		}
		range = sqlite3_mprintf("SELECT min(ts), max(ts) FROM \"%w\"", table);
		free(table);
	}
	int rc = ru_warn_lost(db, range ? range : "SELECT min(ts), max(ts) FROM events", stdout);
	sqlite3_free(range);
	if (!rc) {
		register_comms(db, dec_tep(d));
		rc = print_events(d, want, stdout);
	}
	dec_close(d);
	return rc ? FTANA_EXIT_ERROR : FTANA_EXIT_OK;
}
