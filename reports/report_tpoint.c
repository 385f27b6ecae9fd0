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
 * The slice (--since/--until/-p/-L/-n/--cpu, ftrec's threads) takes each event by its
 * own ts, cpu and common_pid (slice_match); a kernel stack goes with the event before
 * it on its CPU. --csv/--json give rows ts_s, cpu, pid, comm, event, text (the event's
 * own text as the kernel prints it after "NAME: "; a stack: "<stack trace> => f => ...").
 *
 * A print format libtraceevent crashes or hangs on costs its event type only: that
 * type is printed as " name=value" fields from then on, one warning on stderr, and
 * every event is still printed, in order; the exit status stays 0 (see
 * print_events). A format that crashed the parser already is printed the same way.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/trace-seq.h>

#include "common/text_escape.h"
#include "decode/decode.h"
#include "decode/tep_guard.h"
#include "format/ftz.h"
#include "reports/args.h"
#include "reports/lost.h"
#include "reports/report.h"
#include "store/db.h"

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
static void print_stack(struct dec *d, const struct dec_event *ev, FILE *out, const char *sep)
{
	struct tep_format_field *size_f = tep_find_field(ev->event, "size");
	struct tep_format_field *caller_f = tep_find_field(ev->event, "caller");
	int long_size = dec_long_size(d);
	unsigned long long nr = 0;

	if (!caller_f || (long_size != 4 && long_size != 8))
		return;
	if (!size_f || !tep_guard_read_field(dec_tep(d), size_f, ev->record->data, ev->record->size, &nr))
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
			fputs(sep, out);
		} else {
			fprintf(out, " => 0x%llx%s", addr, sep);
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
	size_t n = 0;

	if (sqlite3_prepare_v2(db, "SELECT pid, comm FROM tasks WHERE comm IS NOT NULL",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	/* no more names than a kernel has thread ids (store/db.h): a tasks view that never
	 * ends would grow libtraceevent's list until the VM-step budget stops it */
	while (n++ < DB_TASKS_MAX && sqlite3_step(st) == SQLITE_ROW) {
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
	PRINT_FIELDS,   /* libtraceevent's header, then name=value by tep_guard_print_fields */
	PRINT_OWN,      /* our own code alone (libtraceevent crashed on the header too) */
};

struct demoted {
	const struct tep_event *event;
	enum how_printed how;
};

struct tpoint {
	struct report_ctx *ctx;
	struct dec *d;
	const char *want;
	bool filtering;          /* --event or a slice: a stack shows only after its event */
	uint64_t rows;           /* rows this run has handed out (CSV/JSON: the first has no comma) */
	sqlite3_stmt *row;       /* CSV/JSON: one row's columns (report_ts for ts) */
	FILE *out;
	bool *shown;             /* per CPU: its last event was printed, a stack follows */
	unsigned nr_cpus;
	uint64_t pos;            /* events this process's decoder has handed out */
	struct demoted *demoted; /* sorted by event */
	size_t nr_demoted;
	size_t unflushed;        /* about the bytes written since the last fflush */
	struct trace_seq s;
	struct tep_guard_progress *p;   /* the child's; NULL in the parent */
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
	return tep_guard_print_fmt_removed(event) ? PRINT_FIELDS : PRINT_FULL;
}

/*
 * How this record is printed: by our own code where a field of its format lies outside
 * it (libtraceevent would print bytes from beyond the record): the line's header when
 * a common field does, the text when one of the event's own does (and TEXT, the
 * stack's line, reads none of them). Each list is checked once.
 */
static enum how_printed how_to_print_record(const struct tpoint *tp, const struct dec_event *ev,
					    const char *text)
{
	enum how_printed how = how_to_print(tp, ev->event);
	const void *data = ev->record->data;
	int size = ev->record->size;

	if (how == PRINT_OWN)
		return how;
	if (!tep_guard_fields_inside(ev->event, data, size, false))
		return PRINT_OWN;
	return how == PRINT_FULL && !text && !tep_guard_fields_inside(ev->event, data, size, true) ?
	       PRINT_FIELDS : how;
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

/* The event's common_pid by our own code (bounds-checked), -1 if it has none. */
static int event_pid(struct tpoint *tp, const struct dec_event *ev)
{
	struct tep_format_field *pid_f = ev->event ? tep_find_common_field(ev->event, "common_pid") : NULL;
	unsigned long long pid = 0;

	if (pid_f && tep_guard_read_field(dec_tep(tp->d), pid_f, ev->record->data, ev->record->size, &pid))
		return (int)pid;
	return -1;
}

/* The kernel's line prefix by our own code: no latency flags (libtraceevent's
 * reading of the common fields is what crashed). */
static void own_header(struct tpoint *tp, const struct dec_event *ev)
{
	struct tep_handle *tep = dec_tep(tp->d);
	int p = event_pid(tp, ev);

	/* rounded to the microsecond, as libtraceevent prints the lines around it */
	unsigned long long us = (ev->ts + 500) / 1000;

	trace_seq_printf(&tp->s, "%16s-%-7d [%03d] %6llu.%06llu: ",
			 p >= 0 ? tep_data_comm_from_pid(tep, p) : "<...>", p, ev->cpu,
			 us / 1000000, us % 1000000);
}

/* TEXT is "<stack trace>" (a kernel_stack event), or NULL for the event's own text. */
static void print_one(struct tpoint *tp, const struct dec_event *ev, const char *text)
{
	struct tep_handle *tep = dec_tep(tp->d);
	enum how_printed how = how_to_print_record(tp, ev, text);

	trace_seq_reset(&tp->s);
	if (how == PRINT_OWN) {
		own_header(tp, ev);
	} else {
		tep_guard_enter(tp->p, tp->pos, ev->event);
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
		tep_guard_leave(tp->p);
	}
	if (how != PRINT_FULL && !text) {
		trace_seq_printf(&tp->s, "%s:", ev->event->name);
		tep_guard_print_fields(&tp->s, ev->event, ev->record->data, ev->record->size);
	} else if (how == PRINT_OWN) {
		trace_seq_puts(&tp->s, text);
	}
	put_line(tp);
}

/*
 * CSV/JSON: one row (ts, cpu, pid, comm, event, text) through the statement prepared
 * by run, printed by analyze/print.c as every report's rows are; JSON rows are cut out
 * of its one-row array so that the rows of all chunks form one array.
 */
static void put_row(struct tpoint *tp, const struct dec_event *ev, int pid, const char *event,
		    const char *text)
{
	bool first = tp->rows == 0;
	sqlite3_stmt *st = tp->row;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	tp->rows++;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, (int64_t)ev->ts);
	sqlite3_bind_int(st, 2, ev->cpu);
	if (pid >= 0) {
		sqlite3_bind_int(st, 3, pid);
		sqlite3_bind_text(st, 4, tep_data_comm_from_pid(dec_tep(tp->d), pid), -1, SQLITE_TRANSIENT);
	} else {
		sqlite3_bind_null(st, 3);
		sqlite3_bind_null(st, 4);
	}
	sqlite3_bind_text(st, 5, event, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, text, -1, SQLITE_TRANSIENT);
	if (tp->ctx->fmt == OUT_CSV) {
		print_rows_flags(st, OUT_CSV, tp->out, first ? 0 : PRINT_NO_HEADER);
		tp->unflushed += 64;
		return;
	}
	if (!(mem = open_memstream(&buf, &len)))
		return;
	print_rows(st, OUT_JSON, mem);
	fclose(mem);
	/* "[\n{...}\n]\n" -> "{...}" */
	if (len > 6 && !strncmp(buf, "[\n", 2) && !strcmp(buf + len - 3, "\n]\n")) {
		fputs(first ? "\n" : ",\n", tp->out);
		fwrite(buf + 2, 1, len - 5, tp->out);
		tp->unflushed += len;
	}
	free(buf);
}

/* CSV/JSON: the event's own text (the kernel's line after "NAME: "), one row. */
static void row_one(struct tpoint *tp, const struct dec_event *ev, int pid)
{
	struct tep_handle *tep = dec_tep(tp->d);
	enum how_printed how = how_to_print_record(tp, ev, NULL);

	trace_seq_reset(&tp->s);
	if (how == PRINT_FULL) {
		tep_guard_enter(tp->p, tp->pos, ev->event);
		tep_print_event(tep, &tp->s, ev->record, "%s", TEP_PRINT_INFO);
		tep_guard_leave(tp->p);
	} else {
		tep_guard_print_fields(&tp->s, ev->event, ev->record->data, ev->record->size);
	}
	trace_seq_terminate(&tp->s);
	size_t n = strlen(tp->s.buffer);
	while (n && tp->s.buffer[n - 1] == '\n')
		tp->s.buffer[--n] = '\0';
	put_row(tp, ev, pid, ev->event->name, tp->s.buffer + (how != PRINT_FULL && tp->s.buffer[0] == ' '));
}

/* CSV/JSON: a kernel stack as one row, "<stack trace> => f => ...". */
static void row_stack(struct tpoint *tp, const struct dec_event *ev, int pid)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (!mem)
		return;
	fputs("<stack trace>", mem);
	print_stack(tp->d, ev, mem, "");
	fclose(mem);
	put_row(tp, ev, pid, ev->event->name, buf);
	free(buf);
}

/* One event, printed when `emit` (the child), else only followed (the parent
 * catching up on what a dead child had got out). Both take the same decisions, so
 * tp->shown and tp->rows agree with what the dead child printed. */
static void handle_event(struct tpoint *tp, const struct dec_event *ev, bool emit)
{
	const struct slice *slice = &tp->ctx->slice;
	bool cpu_ok = ev->cpu >= 0 && (unsigned)ev->cpu < tp->nr_cpus;
	bool text = tp->ctx->fmt == OUT_TEXT;
	bool in_window = (int64_t)ev->ts >= slice->since_ns && (int64_t)ev->ts < slice->until_ns;
	int pid = event_pid(tp, ev);

	/* Losses as the kernel's trace_pipe reports them (CSV/JSON: in "warnings"). */
	if (emit && text && in_window && ev->missed > 0)
		tp->unflushed += fprintf(tp->out, "CPU:%d [LOST %" PRId64 " EVENTS]\n", ev->cpu, ev->missed);
	else if (emit && text && in_window && ev->missed < 0)
		tp->unflushed += fprintf(tp->out, "CPU:%d [LOST EVENTS]\n", ev->cpu);
	if (is_kernel_stack(ev->event)) {
		if (tp->filtering && !(cpu_ok && tp->shown[ev->cpu]))
			return;
		if (!emit) {
			tp->rows++;
		} else if (text) {
			print_one(tp, ev, "<stack trace>");
			print_stack(tp->d, ev, tp->out, "\n");
		} else {
			row_stack(tp, ev, pid);
		}
		return;
	}
	bool wanted = event_wanted(ev->event, tp->want) && slice_match(slice, ev->ts, ev->cpu, pid);
	if (cpu_ok)
		tp->shown[ev->cpu] = wanted;
	if (!wanted)
		return;
	if (!emit) {
		tp->rows++;
	} else if (ev->event) {
		if (text)
			print_one(tp, ev, NULL);
		else
			row_one(tp, ev, pid);
	} else {
		char what[64];

		snprintf(what, sizeof(what), "unknown event type %d", ev->type_id);
		if (!text) {
			put_row(tp, ev, pid, NULL, what);
			return;
		}
		trace_seq_reset(&tp->s);
		trace_seq_printf(&tp->s, "[CPU %d] %llu: %s", ev->cpu, ev->ts, what);
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
static int print_child(void *ctx, struct tep_guard_progress *p)
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
static int demote(struct tpoint *tp, const struct tep_event *event, const struct tep_guard_death *why)
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
	msg_warn_at(tp->ctx->file, "event %s: %s crashes libtraceevent (%s); printed %s",
		label(event, name, sizeof(name)),
		dm->how == PRINT_FIELDS ? "printing it" : "printing its line header",
		tep_guard_death_text(why, how, sizeof(how)),
		dm->how == PRINT_FIELDS ? "as its fields" : "by ftana alone");
	return 0;
}

static int print_events(struct report_ctx *ctx, struct dec *d, const char *want,
			sqlite3_stmt *row, FILE *out)
{
	const struct slice *slice = &ctx->slice;
	struct tpoint tp = { .ctx = ctx, .d = d, .want = want, .out = out, .row = row,
			     .nr_cpus = dec_stats(d)->nr_cpus,
			     .filtering = want || slice_active(slice) ||
					  (slice->nr_ftrec_tids && !slice->include_ftrec) };
	struct tep_guard_progress *p = tep_guard_progress_alloc();
	struct dec_event ev;
	int rc = -1;

	tp.shown = calloc(tp.nr_cpus ? tp.nr_cpus : 1, sizeof(*tp.shown));
	if (!tp.shown || !p)
		goto out;
	for (;;) {
		struct tep_guard_death why;
		char how[32];
		int r;

		p->done = p->mark = tp.pos;
		r = tep_guard_run_child(print_child, &tp, p, false, &why);
		if (r == -EINTR) {
			msg_error("interrupted");
			goto out;
		}
		if (r < 0) {
			msg_error("%s: cannot start a process to print in: %s", ctx->file, strerror(-r));
			goto out;
		}
		if (r == 0 || why.signal == SIGPIPE || why.exit_code == CHILD_OUTPUT_CLOSED)
			break; /* done, or whoever read the output has gone */
		if (why.exit_code == CHILD_OUTPUT_FAILED) {
			msg_error("cannot write the output");
			goto out;
		}
		if (p->current == TEP_GUARD_NONE || !p->event) { /* not in libtraceevent: our bug */
			msg_error("%s: printing stopped after %llu events (%s)", ctx->file,
				  (unsigned long long)p->mark,
				tep_guard_death_text(&why, how, sizeof(how)));
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
	tep_guard_progress_free(p);
	free(tp.demoted);
	free(tp.shown);
	return rc;
}

struct tpoint_opts {
	const char *event;
};

static const struct report_option options[] = {
	{ "event", 'e', "[SYSTEM:]EVENT", "only this event (and the stacks recorded with it)" },
	{ 0 }
};

static int option(struct report_ctx *ctx, int index, const char *arg)
{
	((struct tpoint_opts *)ctx->opts)->event = arg;
	return 0;
}

/* -e EVENT's type is read from the database (its time range); "EVENT" is any system's. */
static const char *needs_option(const struct report_ctx *ctx)
{
	static char spec[256];
	const char *e = ((const struct tpoint_opts *)ctx->opts)->event;

	if (!e)
		return NULL;
	snprintf(spec, sizeof(spec), "%s%s", strchr(e, ':') ? "" : "*:", e);
	return spec;
}

/* CSV/JSON: the row statement (run on the database: report_ts is defined there). */
static sqlite3_stmt *row_statement(struct report_ctx *ctx)
{
	char *sql = sqlite3_mprintf("SELECT report_ts(?1) AS ts%s, ?2 AS cpu, ?3 AS pid, ?4 AS comm, "
				    "?5 AS event, ?6 AS text", slice_ts_suffix(&ctx->slice));
	sqlite3_stmt *st = sql ? db_prepare(ctx->db, sql) : NULL;

	sqlite3_free(sql);
	return st;
}

/*
 * A .db given alone (or no capture, from a test) has no raw records: refused in
 * one line, the reader's reason and what tpoint needs. 0 for a capture: what may
 * still be wrong with one, dec_open says.
 */
static int check_capture(const char *capture)
{
	struct ftz_reader *r = NULL;
	char err[512];

	if (capture && dec_path_is_tracedat(capture))
		return 0;
	if (capture) /* format/: libftz's own errbuf */
		r = ftz_reader_open(capture, err, sizeof(err));
	if (!r)
		return msg_error("%s (tpoint prints the raw records: it needs the .ftz, not a .db)",
				 capture ? err : "no capture file");
	ftz_reader_close(r);
	return 0;
}

static int run(struct report_ctx *ctx)
{
	const char *want = ((struct tpoint_opts *)ctx->opts)->event;
	/* the capture's path: the front end's FILE, or the one a test gave front_run_db */
	const char *capture = ctx->file;
	sqlite3 *db = ctx->db;
	sqlite3_stmt *row = NULL;
	int rc = -1;

	if (ctx->header && ctx->fmt == OUT_TEXT)
		return msg_error("-H: the text listing is the kernel's line format, with no header "
				 "line (--csv and --json name their columns)");
	if (ctx->slice.wall && ctx->fmt == OUT_TEXT)
		return msg_error("--wall: the text listing is the kernel's line format, in trace-clock "
				 "seconds (--csv and --json give wall-clock times with --wall)");
	if (check_capture(capture) < 0)
		return -1;
	struct dec *d = dec_open(capture);
	if (!d)
		return -1; /* it said why */

	/* The losses in the printed events' time range, from the database. */
	char *range = NULL;
	if (want) {
		char *table = db_event_table(db, want);
		if (!table)
			goto out;
		range = sqlite3_mprintf("SELECT min(ts), max(ts) FROM \"%w\"", table);
		free(table);
	}
	rc = lost_warn(ctx->db, range, &ctx->slice);
	sqlite3_free(range);
	if (rc || (ctx->fmt != OUT_TEXT && !(row = row_statement(ctx)))) {
		rc = -1;
		goto out;
	}
	register_comms(db, dec_tep(d));
	if (ctx->fmt == OUT_JSON) {
		doc_key(ctx, "rows");
		fputc('[', stdout);
	}
	fflush(stdout); /* before the printing children: nothing written twice */
	rc = print_events(ctx, d, want, row, stdout);
	if (ctx->fmt == OUT_JSON)
		fputs("\n]\n", stdout); /* closed even after an error: the document stays JSON */
out:
	sqlite3_finalize(row);
	dec_close(d);
	return rc ? -1 : 0;
}

const struct report_def report_tpoint_def = {
	.name = "tpoint",
	.summary = "every event (or one tracepoint's) as the kernel prints it (tpoint)",
	.options = options,
	.opts_size = sizeof(struct tpoint_opts),
	.option = option,
	.run = run,
	.needs_capture = true,
	.details = "Text: the kernel's trace lines (TASK-PID [CPU] FLAGS TIME: NAME: TEXT, the\n"
		   "kernel's own timestamp: --wall is for CSV/JSON), a kernel stack's \" => \" lines\n"
		   "below its event, losses as CPU:N [LOST M EVENTS]. CSV/JSON columns: ts_s (trace\n"
		   "clock, s; ts_wall with --wall), cpu, pid, comm, event, text (the kernel's text\n"
		   "after \"NAME: \"; a stack: \"<stack trace> => f => ...\"). The slice takes each\n"
		   "event by its own time, CPU and task; a stack goes with the event before it.\n",
	.needs = (const char *const[]){ NULL },
	.needs_option = needs_option,
};
