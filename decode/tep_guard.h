/* SPDX-License-Identifier: MIT */
/*
 * tep_guard.h - run libtraceevent on text from a file without letting that text
 * crash or hang ftana.
 *
 * libtraceevent trusts the print formats it is given: `1/0` or `sizeof(` in a
 * `print fmt` kills tep_parse_event, `REC->x / 0`, a huge __print_hex length or a
 * `%*d` width of 2^31 kill or hang tep_print_event. Checking the text first would
 * mean writing a second parser that knows every way the first one fails, and it
 * would be out of date with the next libtraceevent. So the approach here is
 * isolation: libtraceevent runs first in a forked child on the same state, which
 * reports in shared memory how far it got; what the child survived the parent
 * then runs for real (parsing is deterministic on the same state), and what
 * killed the child costs one event type, never the import or the report.
 * A child is forked once, plus once per unit that killed one, never per event.
 *
 *	tep_guard_enter(p, unit, event);  tep_print_event(...);  tep_guard_leave(p);
 */
#ifndef TEP_GUARD_H
#define TEP_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#define TEP_GUARD_NONE UINT64_MAX

/* Written by the child, read by the parent after the child ended. Lives in a
 * MAP_SHARED mapping (tep_guard_progress_alloc). */
struct tep_guard_progress {
	volatile uint64_t current;   /* unit inside libtraceevent now, TEP_GUARD_NONE outside */
	volatile uintptr_t event;    /* tep_event being printed (caller's tag), or 0 */
	volatile uint64_t entries;   /* tep_guard_enter calls: the hang watchdog sees progress */
	volatile uint64_t done;      /* units the child finished */
	volatile uint64_t mark;      /* caller-defined (tpoint: events whose text is out) */
};

/* How a child ended when it did not finish. */
struct tep_guard_death {
	int signal;     /* the signal that killed it, 0 if none */
	bool hung;      /* spent TEP_GUARD_STALL_MS of CPU time inside one libtraceevent call */
	int exit_code;  /* when it exited instead: the code */
};

#define TEP_GUARD_STALL_MS 1000

struct tep_guard_progress *tep_guard_progress_alloc(void);
void tep_guard_progress_free(struct tep_guard_progress *p);

static inline void tep_guard_enter(struct tep_guard_progress *p, uint64_t unit, const struct tep_event *event)
{
	p->event = (uintptr_t)event;
	p->entries++;
	p->current = unit;
}

static inline void tep_guard_leave(struct tep_guard_progress *p)
{
	p->current = TEP_GUARD_NONE;
}

/*
 * Fork; in the child, with crash signals turned into exit codes and a watchdog
 * on calls between tep_guard_enter and tep_guard_leave, run fn(ctx, p) and _exit with its
 * return value (0..127). stdio is flushed before the fork so nothing is written
 * twice. quiet: the child's stderr goes to /dev/null (its warnings would repeat
 * the parent's). Returns 0 when the child returned 0, 1 when it did not (*why
 * says how it ended), -EINTR when SIGINT, SIGTERM, SIGHUP or SIGQUIT ended it,
 * other -errno when no child could be started.
 */
int tep_guard_run_child(int (*fn)(void *ctx, struct tep_guard_progress *p), void *ctx,
		 struct tep_guard_progress *p, bool quiet, struct tep_guard_death *why);

/*
 * Does fn(ctx) return 0 in a forked child, without crashing or spending
 * TEP_GUARD_STALL_MS of CPU time in it? For a library call on file text that cannot be split into
 * units (libtracecmd's tracecmd_open parses a trace.dat's formats inside): try it
 * here first, then call it for real only if it survived. 0 survived, 1 not (*why
 * says how), -errno when no child could be started.
 */
int tep_guard_survives(int (*fn)(void *ctx), void *ctx, struct tep_guard_death *why);

/* msg_warn_at(WHAT, ...) unless this process, its parent or a sibling child gave the
 * same warning before (the import child and the parent parse the same formats). */
void tep_guard_warn_once(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "SIGSEGV", "a hang", "exit 1" */
const char *tep_guard_death_text(const struct tep_guard_death *why, char *buf, size_t len);

/*
 * Run step(ctx, i) for i = 0..n-1, in order, each only after a child has run it
 * on the same state and survived. result[i] is step's return value, or
 * TEP_GUARD_STEP_CRASHED with deaths[i] filled when it killed the child (the parent
 * never runs it). -errno when no child could be started.
 */
#define TEP_GUARD_STEP_CRASHED INT32_MIN
int tep_guard_guarded_steps(size_t n, int (*step)(void *ctx, size_t i), void *ctx,
		     int *result, struct tep_guard_death *deaths);

/* Event formats, parsed under tep_guard_guarded_steps. */
struct tep_guard_format {
	const char *file;   /* "events/SYS/NAME/format", for messages */
	const char *system;
	const char *text;
	size_t len;
};

/* header_page, parsed first (tep_parse_header_page writes into text). */
struct tep_guard_header {
	char *text;
	size_t len;
	int long_size;
	int result;           /* out: 0 parsed, 1 refused, 2 crashed (why says how) */
	struct tep_guard_death why;
};

/*
 * Parse header_page (unless header is NULL: the caller parsed it), then (when it
 * parsed) every format into tep; a format that
 * kills libtraceevent is tried again with its print fmt replaced (the event keeps
 * its fields, tep_guard_print_fmt_removed says so), and skipped if it still does. One
 * warning per such event on stderr, naming PATH. 0 done; 1 header_page failed
 * (header->result); -errno when no child could be started.
 */
int tep_guard_parse_formats(struct tep_handle *tep, const char *path, struct tep_guard_header *header,
		     const struct tep_guard_format *f, size_t n);
bool tep_guard_print_fmt_removed(const struct tep_event *event);
/* FORMAT with everything from its "print fmt:" line replaced by the harmless one
 * tep_guard_parse_formats uses (malloc'd); NULL when it has none or memory is short.
 * (ftana convert writes it so that trace-cmd gets no format that crashed us.) */
char *tep_guard_without_print_fmt(const char *text, size_t len);

/*
 * printk_formats ("0xADDR : \"text\"" lines) into tep, line by line: lines that
 * are not of that form are dropped (counted in the return value), and each string
 * is handed over in a form tep_register_print_string cannot read outside of.
 */
size_t tep_guard_register_printk_formats(struct tep_handle *tep, const char *text);

/*
 * " name=value" for each field of the event, by our own code only: every read is
 * checked against the record's size, strings have control characters escaped.
 * For events whose print format libtraceevent cannot be trusted with.
 */
void tep_guard_print_fields(struct trace_seq *s, struct tep_event *event, const void *data,
		     int size);

/*
 * Does every common field of the event (with OWN: every field of its own instead, a
 * __data_loc's bytes too) lie inside this record of SIZE bytes? libtraceevent reads
 * a field where its format says, whatever the record's size: a format from the file
 * with a field past it made `report tpoint` print bytes from outside the record (a
 * different number each run). (A kernel stack's record is shorter than its format's
 * caller[8]: its line reads only the common fields.)
 */
bool tep_guard_fields_inside(struct tep_event *event, const void *data, int size, bool own);

/* Read an integer field of 1, 2, 4 or 8 bytes inside the record. */
bool tep_guard_read_field(struct tep_handle *tep, const struct tep_format_field *f, const void *data,
		   int size, unsigned long long *val);

#endif /* TEP_GUARD_H */
