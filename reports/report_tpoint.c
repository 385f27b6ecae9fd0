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
 * Printed from the raw records (decode/decode.h) by libtraceevent's tep_print_event
 * with the print formats the file carries, so a .db alone cannot be used.
 *
 * A print format libtraceevent crashes or hangs on costs its event type only: that
 * type is printed as " name=value" fields from then on, one warning on stderr, and
 * every event is still printed, in order; the exit status stays 0 (see
 * print_events). A format that crashed the parser already is printed the same way.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/trace-seq.h>

#include "decode/decode.h"
#include "analyze/ftana.h"
#include "reports/report_front.h"
#include "reports/report_util.h"
#include "decode/tep_guard.h"
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
	if (!size_f || !tg_read_field(dec_tep(d), size_f, ev->record->data, ev->record->size, &nr))
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
 * Printing is where file-controlled print formats meet libtraceevent's evaluator
 * (`REC->x / 0`, a huge __print_hex length, a `%*d` width of 2^31): it runs in a
 * forked child (decode/tep_guard.h says why isolation rather than checking the
 * text). The child records in shared memory the events whose text reached the
 * output and the event type libtraceevent is printing now. If it dies there, that
 * type is printed a safer way from then on (one warning), our own decoder skips
 * what the child got out, and a new child goes on: the output stays complete and
 * in order, at the cost of one fork per type that crashed (two at most per type).
 */
enum how_printed {
	PRINT_FULL,     /* libtraceevent: header and the event's print format */
	PRINT_FIELDS,   /* libtraceevent's header, then name=value by tg_print_fields */
	PRINT_OWN,      /* our own code alone (libtraceevent crashed on the header too) */
};

struct demoted {
	const struct tep_event *event;
	enum how_printed how;
};

struct tpoint {
	struct dec *d;
	const char *want;
	FILE *out;
	bool *shown;             /* per CPU: its last event was printed, a stack follows */
	unsigned nr_cpus;
	uint64_t pos;            /* events this process's decoder has handed out */
	struct demoted *demoted; /* sorted by event */
	size_t nr_demoted;
	size_t unflushed;        /* about the bytes written since the last fflush */
	struct trace_seq s;
	struct tg_progress *p;   /* the child's; NULL in the parent */
};

#define FLUSH_BYTES 65536
enum { CHILD_OUTPUT_CLOSED = 3, CHILD_OUTPUT_FAILED = 4 };

static int cmp_demoted(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct demoted *)a)->event;
	uintptr_t y = (uintptr_t)((const struct demoted *)b)->event;

	return x < y ? -1 : x > y;
}

static struct demoted *find_demoted(const struct tpoint *tp, const struct tep_event *event)
{
	struct demoted key = { .event = event };

	if (!tp->nr_demoted)
		return NULL;
	return bsearch(&key, tp->demoted, tp->nr_demoted, sizeof(key), cmp_demoted);
}

static enum how_printed how_to_print(const struct tpoint *tp, const struct tep_event *event)
{
	const struct demoted *dm = find_demoted(tp, event);

	if (dm)
		return dm->how;
	/* its print fmt crashed the parser: dec_open kept only its fields */
	return tg_print_fmt_removed(event) ? PRINT_FIELDS : PRINT_FULL;
}

/*
 * One line as the kernel ends it: text that brought its own newline gets no second.
 * Comms and string fields come from the capture: control characters are escaped
 * (text_escape.h), newlines inside the line included, so one event is one line.
 */
static void put_line(struct tpoint *tp)
{
	trace_seq_terminate(&tp->s);
	size_t len = strlen(tp->s.buffer);

	while (len && tp->s.buffer[len - 1] == '\n')
		len--;
	text_put(tp->out, tp->s.buffer, len);
	fputc('\n', tp->out);
	tp->unflushed += len + 1;
}

/* The kernel's line prefix by our own code: no latency flags (libtraceevent's
 * reading of the common fields is what crashed). */
static void own_header(struct tpoint *tp, const struct dec_event *ev)
{
	struct tep_handle *tep = dec_tep(tp->d);
	struct tep_format_field *pid_f = tep_find_common_field(ev->event, "common_pid");
	unsigned long long pid = 0;
	int p = -1;

	if (pid_f && tg_read_field(tep, pid_f, ev->record->data, ev->record->size, &pid))
		p = (int)pid;
	trace_seq_printf(&tp->s, "%16s-%-7d [%03d] %6llu.%06llu: ",
			 p >= 0 ? tep_data_comm_from_pid(tep, p) : "<...>", p, ev->cpu,
			 ev->ts / 1000000000, ev->ts / 1000 % 1000000);
}

/* TEXT is "<stack trace>" (a kernel_stack event), or NULL for the event's own text. */
static void print_one(struct tpoint *tp, const struct dec_event *ev, const char *text)
{
	struct tep_handle *tep = dec_tep(tp->d);
	enum how_printed how = how_to_print(tp, ev->event);

	trace_seq_reset(&tp->s);
	if (how == PRINT_OWN) {
		own_header(tp, ev);
	} else {
		tg_enter(tp->p, tp->pos, ev->event);
		if (how == PRINT_FULL && !text)
			tep_print_event(tep, &tp->s, ev->record, TPOINT_HEADER "%s: %s",
					TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU,
					TEP_PRINT_LATENCY, TEP_PRINT_TIME, TEP_PRINT_NAME,
					TEP_PRINT_INFO);
		else if (text) /* the stack's line: the only text there is */
			tep_print_event(tep, &tp->s, ev->record, TPOINT_HEADER "<stack trace>",
					TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU,
					TEP_PRINT_LATENCY, TEP_PRINT_TIME);
		else
			tep_print_event(tep, &tp->s, ev->record, TPOINT_HEADER,
					TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU,
					TEP_PRINT_LATENCY, TEP_PRINT_TIME);
		tg_leave(tp->p);
	}
	if (how != PRINT_FULL && !text) {
		trace_seq_printf(&tp->s, "%s:", ev->event->name);
		tg_print_fields(&tp->s, ev->event, ev->record->data, ev->record->size);
	} else if (how == PRINT_OWN) {
		trace_seq_puts(&tp->s, text);
	}
	put_line(tp);
}

/* One event, printed when `emit` (the child), else only followed (the parent
 * catching up on what a dead child had got out). */
static void handle_event(struct tpoint *tp, const struct dec_event *ev, bool emit)
{
	bool cpu_ok = ev->cpu >= 0 && (unsigned)ev->cpu < tp->nr_cpus;

	/* Losses as the kernel's trace_pipe reports them. */
	if (emit && ev->missed > 0)
		tp->unflushed += fprintf(tp->out, "CPU:%d [LOST %d EVENTS]\n", ev->cpu, ev->missed);
	else if (emit && ev->missed < 0)
		tp->unflushed += fprintf(tp->out, "CPU:%d [LOST EVENTS]\n", ev->cpu);
	if (is_kernel_stack(ev->event)) {
		if (!emit || (tp->want && !(cpu_ok && tp->shown[ev->cpu])))
			return;
		print_one(tp, ev, "<stack trace>");
		print_stack(tp->d, ev, tp->out);
		return;
	}
	bool wanted = event_wanted(ev->event, tp->want);
	if (cpu_ok)
		tp->shown[ev->cpu] = wanted;
	if (!emit || !wanted)
		return;
	if (ev->event) {
		print_one(tp, ev, NULL);
	} else {
		trace_seq_reset(&tp->s);
		trace_seq_printf(&tp->s, "[CPU %d] %llu: unknown event type %d", ev->cpu, ev->ts,
				 ev->type_id);
		put_line(tp);
	}
}

/*
 * The child's text goes to memory first and reaches the real output only in whole
 * chunks, each followed by p->mark: stdio flushing on its own (a full buffer, a
 * terminal's line buffering) would put out text the parent does not know was
 * out, and a restart would print it twice.
 */
static int flush_chunk(struct tpoint *tp, FILE *real, char **buf, size_t *len)
{
	bool ok = !fclose(tp->out);

	tp->out = NULL;
	ok = ok && fwrite(*buf, 1, *len, real) == *len && !fflush(real);
	free(*buf);
	*buf = NULL;
	if (!ok)
		return errno == EPIPE ? CHILD_OUTPUT_CLOSED : CHILD_OUTPUT_FAILED;
	tp->unflushed = 0;
	tp->p->mark = tp->pos;
	return 0;
}

/* In the child: print from the decoder's position to the end. */
static int print_child(void *ctx, struct tg_progress *p)
{
	struct tpoint *tp = ctx;
	FILE *real = tp->out;
	struct dec_event ev;
	char *buf = NULL;
	size_t len = 0;
	int rc = 0;

	tp->p = p;
	trace_seq_init(&tp->s);
	if (!(tp->out = open_memstream(&buf, &len)))
		return CHILD_OUTPUT_FAILED;
	while (dec_next(tp->d, &ev) > 0) {
		handle_event(tp, &ev, true);
		p->done = ++tp->pos;
		if (tp->unflushed >= FLUSH_BYTES) {
			if ((rc = flush_chunk(tp, real, &buf, &len)))
				return rc;
			if (!(tp->out = open_memstream(&buf, &len)))
				return CHILD_OUTPUT_FAILED;
		}
	}
	return flush_chunk(tp, real, &buf, &len);
}

/* "SYS:NAME", control characters made visible. */
static const char *label(const struct tep_event *event, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%s", event->system, event->name);
	for (char *c = buf; *c; c++)
		if (!isprint((unsigned char)*c))
			*c = '?';
	return buf;
}

/* The child died inside libtraceevent printing EVENT: print its type a safer way. */
static int demote(struct tpoint *tp, const struct tep_event *event, const struct tg_death *why)
{
	struct demoted *dm = find_demoted(tp, event);
	char name[256], how[32];

	if (!dm) {
		struct demoted *n = realloc(tp->demoted, (tp->nr_demoted + 1) * sizeof(*n));

		if (!n)
			return -1;
		tp->demoted = n;
		n[tp->nr_demoted++] = (struct demoted){ event, how_to_print(tp, event) };
		qsort(n, tp->nr_demoted, sizeof(*n), cmp_demoted);
		dm = find_demoted(tp, event);
	}
	if (dm->how == PRINT_OWN) /* cannot be: PRINT_OWN does not call libtraceevent */
		return -1;
	dm->how++;
	fprintf(stderr, "ftana report tpoint: %s: warning: event %s: %s crashes libtraceevent "
		"(%s); printed %s\n", report_file(), label(event, name, sizeof(name)),
		dm->how == PRINT_FIELDS ? "printing it" : "printing its line header",
		tg_death_text(why, how, sizeof(how)),
		dm->how == PRINT_FIELDS ? "as its fields" : "by ftana alone");
	return 0;
}

static int print_events(struct dec *d, const char *want, FILE *out)
{
	struct tpoint tp = { .d = d, .want = want, .out = out,
			     .nr_cpus = dec_stats(d)->nr_cpus };
	struct tg_progress *p = tg_progress_alloc();
	struct dec_event ev;
	int rc = -1;

	tp.shown = calloc(tp.nr_cpus ? tp.nr_cpus : 1, sizeof(*tp.shown));
	if (!tp.shown || !p)
		goto out;
	for (;;) {
		struct tg_death why;
		char how[32];
		int r;

		p->done = p->mark = tp.pos;
		r = tg_run_child(print_child, &tp, p, false, &why);
		if (r == -EINTR) {
			fprintf(stderr, "ftana report tpoint: interrupted\n");
			goto out;
		}
		if (r < 0) {
			fprintf(stderr, "ftana report tpoint: %s: cannot start a process to print "
				"in: %s\n", report_file(), strerror(-r));
			goto out;
		}
		if (r == 0 || why.signal == SIGPIPE || why.exit_code == CHILD_OUTPUT_CLOSED)
			break; /* done, or whoever read the output has gone */
		if (why.exit_code == CHILD_OUTPUT_FAILED) {
			fprintf(stderr, "ftana report tpoint: cannot write the output\n");
			goto out;
		}
		if (p->current == TG_NONE || !p->event) { /* not in libtraceevent: our bug */
			fprintf(stderr, "ftana report tpoint: %s: printing stopped after %llu "
				"events (%s)\n", report_file(), (unsigned long long)p->mark,
				tg_death_text(&why, how, sizeof(how)));
			goto out;
		}
		if (demote(&tp, (const struct tep_event *)p->event, &why) < 0)
			goto out;
		/* Our decoder to the first event whose text the dead child did not get out. */
		while (tp.pos < p->mark && dec_next(d, &ev) > 0) {
			handle_event(&tp, &ev, false);
			tp.pos++;
		}
	}
	rc = 0;
out:
	tg_progress_free(p);
	free(tp.demoted);
	free(tp.shown);
	return rc;
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

/* TRANSITION: not yet on the report front end (report_front.h). */
const struct report_def report_tpoint_def = {
	.name = "tpoint",
	.summary = "every event of one tracepoint as the kernel prints it (tpoint)",
	.legacy = report_tpoint,
};
