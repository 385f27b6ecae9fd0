// SPDX-License-Identifier: MIT
/*
 * tep_guard.c - libtraceevent on file-controlled text, isolated in forked
 * children (why isolation rather than checking the text: see tep_guard.h).
 *
 * What is not isolated, and why: tep_parse_kallsyms and tep_parse_saved_cmdlines
 * read their lines with bounded sscanf conversions (a bad line ends the list, it
 * cannot crash); printk_formats are checked line by line here instead, because
 * tep_parse_printk_formats and tep_register_print_string read past short or
 * colon-less lines (a read outside the buffer may not kill a child, so the child
 * would not tell us).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/text_escape.h"
#include "decode/tep_guard.h"
#include "common/msg.h"

/* Child exit codes: fn's own are 0..127. */
#define TEP_GUARD_EXIT_HUNG 150
#define TEP_GUARD_EXIT_SIGNAL 160 /* + signal number */

#define REMOVED_PRINT_FMT "ftana: print fmt removed, it crashes libtraceevent"

struct tep_guard_progress *tep_guard_progress_alloc(void)
{
	void *p = mmap(NULL, sizeof(struct tep_guard_progress), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void tep_guard_progress_free(struct tep_guard_progress *p)
{
	if (p)
		munmap(p, sizeof(*p));
}

/* ---------------------------------------------------------------- warnings */

/*
 * Warnings already given, by this process or any process forked from it. One
 * command may parse the same file twice, in two processes: `report tpoint`
 * imports it in a forked child (import_child.c), then decodes it again itself
 * to print. The log is a shared mapping made when ftana starts (a constructor:
 * it must exist before that fork, which is not ours), holding a hash per warning.
 */
#define WARNED_MAX 4096
struct warned_log {
	uint32_t n;
	uint64_t hash[WARNED_MAX];
};
static struct warned_log *warned_log;

__attribute__((constructor)) static void warned_log_map(void)
{
	void *p = mmap(NULL, sizeof(*warned_log), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	warned_log = p == MAP_FAILED ? NULL : p; /* without it, warnings may repeat */
}

void tep_guard_warn_once(const char *what, const char *fmt, ...)
{
	struct warned_log *log = warned_log;
	uint64_t h = 0xcbf29ce484222325ull;
	char *body = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&body, fmt, ap) < 0)
		body = NULL;
	va_end(ap);
	if (!body)
		return;
	/* the same warning about the same file, once per process tree */
	for (const char *s = what; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	for (const unsigned char *c = (const unsigned char *)body; *c; c++)
		h = (h ^ *c) * 0x100000001b3ull;
	for (uint32_t i = 0; log && i < log->n && i < WARNED_MAX; i++)
		if (log->hash[i] == h) {
			free(body);
			return;
		}
	msg_warn_at(what, "%s", body);
	free(body);
	if (log && log->n < WARNED_MAX)
		log->hash[log->n++] = h;
}

/* ---------------------------------------------------------------- the child */

static struct tep_guard_progress *child_progress;
static uint64_t watched_entries;
static int stalled_ticks;

#define TICK_MS 250

static void on_crash(int sig)
{
	_exit(TEP_GUARD_EXIT_SIGNAL + sig);
}

/*
 * Every TICK_MS of the child's CPU time: a child still inside the same
 * libtraceevent call as one tick ago, for TEP_GUARD_STALL_MS of CPU time, is hung (a
 * `%*d` width of 2^31 spins). CPU time, not wall time: a child waiting for a slow
 * reader of its output, or for a CPU on a loaded machine, is not hung.
 */
static void on_tick(int sig)
{
	struct tep_guard_progress *p = child_progress;

	if (p->current != TEP_GUARD_NONE && p->entries == watched_entries) {
		if (++stalled_ticks >= TEP_GUARD_STALL_MS / TICK_MS)
			_exit(TEP_GUARD_EXIT_HUNG);
		return;
	}
	stalled_ticks = 0;
	watched_entries = p->entries;
}

/* Signals a child gets from outside (the terminal, kill), not from its own fault. */
static const int outside_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void child_setup(struct tep_guard_progress *p, bool quiet, pid_t parent)
{
	static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
					     SIGSYS, SIGTRAP };
	/* a crash by stack overflow needs a stack of its own to be reported */
	static char alt_stack[64 * 1024];
	stack_t ss = { .ss_sp = alt_stack, .ss_size = sizeof(alt_stack) };
	struct sigaction sa = { .sa_handler = on_crash, .sa_flags = SA_ONSTACK };
	struct itimerval tick = { { 0, TICK_MS * 1000 }, { 0, TICK_MS * 1000 } };
	sigset_t ours;

	/* no orphan if the parent dies, also before prctl took effect */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(TEP_GUARD_EXIT_SIGNAL + SIGKILL);
	child_progress = p;
	watched_entries = p->entries;
	stalled_ticks = 0;
	sigaltstack(&ss, NULL);
	sigemptyset(&sa.sa_mask);
	/* Replaces the sanitizers' handlers too: their report of a crash inside
	 * libtraceevent is not news, the parent's one-line warning is. */
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		sigaction(crash_signals[i], &sa, NULL);
	/* Ctrl-C and kill end the child as they would ftana; never the parent's
	 * handlers (cleanup of files the parent owns) run in it. */
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = 0;
	for (size_t i = 0; i < sizeof(outside_signals) / sizeof(outside_signals[0]); i++)
		sigaction(outside_signals[i], &sa, NULL);
	sa.sa_handler = on_tick;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	/* the parent may have forked with some blocked (import_child.c does) */
	sigemptyset(&ours);
	sigaddset(&ours, SIGPROF);
	for (size_t i = 0; i < sizeof(outside_signals) / sizeof(outside_signals[0]); i++)
		sigaddset(&ours, outside_signals[i]);
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		sigaddset(&ours, crash_signals[i]);
	sigprocmask(SIG_UNBLOCK, &ours, NULL);
	setitimer(ITIMER_PROF, &tick, NULL);
	if (quiet) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, STDERR_FILENO);
			close(null);
		}
	}
}

int tep_guard_run_child(int (*fn)(void *ctx, struct tep_guard_progress *p), void *ctx,
		 struct tep_guard_progress *p, bool quiet, struct tep_guard_death *why)
{
	pid_t pid, parent = getpid();
	int status;

	memset(why, 0, sizeof(*why));
	p->current = TEP_GUARD_NONE;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int rc;

		child_setup(p, quiet, parent);
		rc = fn(ctx, p);
		/* not exit(): the parent's atexit handlers and stdio are the parent's */
		_exit(rc < 0 || rc > 127 ? 127 : rc);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFSIGNALED(status)) {
		why->signal = WTERMSIG(status);
		for (size_t i = 0; i < sizeof(outside_signals) / sizeof(outside_signals[0]); i++)
			if (why->signal == outside_signals[i])
				return -EINTR; /* interrupted, not crashed: blame no event */
		return 1;
	}
	int code = WEXITSTATUS(status);
	if (code == 0)
		return 0;
	if (code == TEP_GUARD_EXIT_HUNG)
		why->hung = true;
	else if (code > TEP_GUARD_EXIT_SIGNAL && code <= TEP_GUARD_EXIT_SIGNAL + 64)
		why->signal = code - TEP_GUARD_EXIT_SIGNAL;
	else
		why->exit_code = code;
	return 1;
}

struct survives {
	int (*fn)(void *ctx);
	void *ctx;
};

static int survives_child(void *ctx, struct tep_guard_progress *p)
{
	const struct survives *s = ctx;
	int rc;

	tep_guard_enter(p, 0, NULL);
	rc = s->fn(s->ctx);
	tep_guard_leave(p);
	return rc ? 1 : 0;
}

int tep_guard_survives(int (*fn)(void *ctx), void *ctx, struct tep_guard_death *why)
{
	struct tep_guard_progress *p = tep_guard_progress_alloc();
	struct survives s = { fn, ctx };
	int rc;

	if (!p)
		return -ENOMEM;
	rc = tep_guard_run_child(survives_child, &s, p, true, why);
	tep_guard_progress_free(p);
	return rc;
}

const char *tep_guard_death_text(const struct tep_guard_death *why, char *buf, size_t len)
{
	const char *abbrev = why->signal ? sigabbrev_np(why->signal) : NULL;

	if (why->hung)
		snprintf(buf, len, "a hang");
	else if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else if (why->signal)
		snprintf(buf, len, "signal %d", why->signal);
	else
		snprintf(buf, len, "exit %d", why->exit_code);
	return buf;
}

/* ---------------------------------------------------------------- guarded steps */

struct steps {
	size_t start, n;
	int (*step)(void *ctx, size_t i);
	void *ctx;
};

static int steps_child(void *ctx, struct tep_guard_progress *p)
{
	const struct steps *s = ctx;

	for (size_t i = s->start; i < s->n; i++) {
		tep_guard_enter(p, i, NULL);
		s->step(s->ctx, i);
		tep_guard_leave(p);
		p->done = i + 1;
	}
	return 0;
}

int tep_guard_guarded_steps(size_t n, int (*step)(void *ctx, size_t i), void *ctx,
		     int *result, struct tep_guard_death *deaths)
{
	struct tep_guard_progress *p = tep_guard_progress_alloc();
	struct steps s = { .start = 0, .n = n, .step = step, .ctx = ctx };

	if (!p)
		return -ENOMEM;
	while (s.start < n) {
		struct tep_guard_death why;
		int rc;

		p->done = s.start;
		rc = tep_guard_run_child(steps_child, &s, p, true, &why);
		if (rc < 0) {
			tep_guard_progress_free(p);
			return rc;
		}
		/* The child ran [start, end) on the state we have now: so can we. */
		size_t end = rc == 0 || p->done >= n ? n : p->done;
		if (end < s.start)
			end = s.start;
		for (size_t i = s.start; i < end; i++)
			result[i] = step(ctx, i);
		if (end == n)
			break;
		result[end] = TEP_GUARD_STEP_CRASHED;
		deaths[end] = why;
		s.start = end + 1;
	}
	tep_guard_progress_free(p);
	return 0;
}

/* ---------------------------------------------------------------- event formats */

#define HEADER_STEP SIZE_MAX

struct format_pass {
	struct tep_handle *tep;
	struct tep_guard_header *header;
	const struct tep_guard_format *f;
	const size_t *which;     /* indexes into f, or HEADER_STEP */
	char **texts;            /* replacement texts, or NULL: f's own */
};

static int parse_step(void *ctx, size_t i)
{
	const struct format_pass *fp = ctx;

	if (fp->which[i] == HEADER_STEP)
		return tep_parse_header_page(fp->tep, fp->header->text, fp->header->len,
					     fp->header->long_size) ? -1 : 0;

	const struct tep_guard_format *f = &fp->f[fp->which[i]];
	const char *text = fp->texts ? fp->texts[i] : f->text;
	size_t len = fp->texts ? strlen(text) : f->len;

	return tep_parse_event(fp->tep, text, len, f->system) ? -1 : 0;
}

char *tep_guard_without_print_fmt(const char *text, size_t len)
{
	static const char tail[] = "print fmt: \"" REMOVED_PRINT_FMT "\"\n";
	const char *at = NULL;
	char *out;

	for (size_t i = 0; i + 10 <= len; i++)
		if ((i == 0 || text[i - 1] == '\n') && !memcmp(text + i, "print fmt:", 10)) {
			at = text + i;
			break;
		}
	if (!at || !(out = malloc(at - text + sizeof(tail))))
		return NULL;
	memcpy(out, text, at - text);
	memcpy(out + (at - text), tail, sizeof(tail));
	return out;
}

/* "SYS:NAME" from "events/SYS/NAME/format", control characters made visible. */
static const char *event_label(const char *file, char *buf, size_t len)
{
	const char *s = strncmp(file, "events/", 7) ? file : file + 7;
	const char *e = strrchr(s, '/');
	size_t n = e && e > s ? (size_t)(e - s) : strlen(s);
	size_t o = 0;

	for (size_t i = 0; i < n && o + 1 < len; i++)
		buf[o++] = s[i] == '/' ? ':' : isprint((unsigned char)s[i]) ? s[i] : '?';
	buf[o] = '\0';
	return buf;
}

static int run_pass(struct format_pass *fp, size_t n, int **result, struct tep_guard_death **deaths)
{
	*result = calloc(n ? n : 1, sizeof(**result));
	*deaths = calloc(n ? n : 1, sizeof(**deaths));
	if (!*result || !*deaths)
		return -ENOMEM;
	return tep_guard_guarded_steps(n, parse_step, fp, *result, *deaths);
}

int tep_guard_parse_formats(struct tep_handle *tep, const char *path, struct tep_guard_header *header,
		     const struct tep_guard_format *f, size_t n)
{
	struct format_pass first = { .tep = tep, .header = header, .f = f },
			   second = { .tep = tep, .f = f };
	/* header_page first, in the same child as the formats: one fork, not two */
	size_t *all = calloc(n + 1, sizeof(*all)), *crashed = NULL, nr_crashed = 0;
	size_t steps_before = header ? 1 : 0;
	int *res1 = NULL, *res2 = NULL, rc;
	struct tep_guard_death *dead1 = NULL, *dead2 = NULL;
	char label[256], why[32];

	if (!all)
		return -ENOMEM;
	all[0] = HEADER_STEP;
	for (size_t i = 0; i < n; i++)
		all[i + steps_before] = i;
	first.which = all;
	rc = run_pass(&first, n + steps_before, &res1, &dead1);
	if (rc < 0)
		goto out;
	if (header) {
		header->result = res1[0] == TEP_GUARD_STEP_CRASHED ? 2 : res1[0] ? 1 : 0;
		header->why = dead1[0];
		if (header->result) {
			rc = 1;
			goto out;
		}
		/* from here, formats' results and deaths */
		memmove(res1, res1 + 1, n * sizeof(*res1));
		memmove(dead1, dead1 + 1, n * sizeof(*dead1));
	}
	crashed = calloc(n ? n : 1, sizeof(*crashed));
	second.texts = calloc(n ? n : 1, sizeof(*second.texts));
	if (!crashed || !second.texts) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (res1[i] == -1) /* refused, not crashed: that event's fields are lost */
			tep_guard_warn_once(path, "cannot parse %s", f[i].file);
		if (res1[i] != TEP_GUARD_STEP_CRASHED)
			continue;
		second.texts[nr_crashed] = tep_guard_without_print_fmt(f[i].text, f[i].len);
		if (second.texts[nr_crashed]) {
			crashed[nr_crashed++] = i;
			continue;
		}
		tep_guard_warn_once(path, "event %s: format crashes libtraceevent (%s); "
			"skipped", event_label(f[i].file, label, sizeof(label)),
			tep_guard_death_text(&dead1[i], why, sizeof(why)));
	}
	/* Second chance without the print fmt: the event keeps its table and fields. */
	second.which = crashed;
	rc = run_pass(&second, nr_crashed, &res2, &dead2);
	if (rc < 0)
		goto out;
	for (size_t k = 0; k < nr_crashed; k++) {
		size_t i = crashed[k];

		event_label(f[i].file, label, sizeof(label));
		tep_guard_death_text(&dead1[i], why, sizeof(why));
		if (res2[k] == 0)
			tep_guard_warn_once(path, "event %s: its print fmt crashes "
				"libtraceevent (%s); its fields are kept and printed without it", label, why);
		else
			tep_guard_warn_once(path, "event %s: format crashes libtraceevent "
				"(%s); skipped", label, why);
	}
out:
	for (size_t k = 0; second.texts && k < nr_crashed; k++)
		free(second.texts[k]);
	free(second.texts);
	free(crashed);
	free(all);
	free(res1);
	free(res2);
	free(dead1);
	free(dead2);
	return rc;
}

bool tep_guard_print_fmt_removed(const struct tep_event *event)
{
	return event && event->print_fmt.format &&
	       !strcmp(event->print_fmt.format, REMOVED_PRINT_FMT);
}

/* ---------------------------------------------------------------- printk_formats */

/* One "0xADDR : \"TEXT\"" line (the kernel's trace_printk.c t_show); false when
 * it is not that. *text and *len: TEXT without its quotes. */
static bool printk_line(const char *line, size_t n, unsigned long long *addr,
			const char **text, size_t *len)
{
	size_t i = 0, digits = 0;
	unsigned long long a = 0;

	if (n >= 2 && line[0] == '0' && (line[1] == 'x' || line[1] == 'X'))
		i = 2;
	for (; i < n && isxdigit((unsigned char)line[i]); i++, digits++) {
		int c = tolower((unsigned char)line[i]);

		a = a << 4 | (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);
	}
	if (!digits || digits > 16)
		return false;
	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i >= n || line[i++] != ':')
		return false;
	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i >= n || line[i] != '"' || n - i < 2 || line[n - 1] != '"')
		return false;
	*addr = a;
	*text = line + i + 1;
	*len = n - i - 2;
	return true;
}

size_t tep_guard_register_printk_formats(struct tep_handle *tep, const char *text)
{
	size_t dropped = 0;
	char *buf = NULL;
	size_t cap = 0;

	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		unsigned long long addr;
		const char *s;
		size_t len;

		if (n && !printk_line(line, n, &addr, &s, &len)) {
			dropped++;
		} else if (n) {
			/*
			 * tep_register_print_string drops one leading quote, one trailing
			 * quote and then a trailing "\n", looking 2 bytes back without a
			 * length check. Handing it "TEXT\n" (minus TEXT's own "\n", which
			 * it would drop anyway) keeps every look inside the string.
			 */
			if (len >= 2 && !memcmp(s + len - 2, "\\n", 2))
				len -= 2;
			if (len + 5 > cap) {
				char *nb = realloc(buf, cap = len + 64);

				if (!nb)
					break;
				buf = nb;
			}
			buf[0] = '"';
			memcpy(buf + 1, s, len);
			memcpy(buf + 1 + len, "\\n\"", 4);
			tep_register_print_string(tep, buf, addr);
		}
		line += n + (nl != NULL);
	}
	free(buf);
	return dropped;
}

/* ---------------------------------------------------------------- fields, by our own code */

bool tep_guard_read_field(struct tep_handle *tep, const struct tep_format_field *f, const void *data,
		   int size, unsigned long long *val)
{
	if (f->offset < 0 || size < 0 || (int64_t)f->offset + f->size > size)
		return false;
	if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
		return false;
	*val = tep_read_number(tep, (const char *)data + f->offset, f->size);
	return true;
}

/* Where an array field's bytes are: fixed, or __data_loc / __rel_loc (u32: length
 * << 16 | offset). False when they are not all inside the record. */
static bool array_bytes(struct tep_handle *tep, const struct tep_format_field *f,
			const void *data, int size, int64_t *off, int64_t *len)
{
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		struct tep_format_field loc = *f;
		unsigned long long v;

		loc.size = 4;
		if (!tep_guard_read_field(tep, &loc, data, size, &v))
			return false;
		*off = v & 0xffff;
		*len = v >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			*off += (int64_t)f->offset + f->size;
	} else {
		*off = f->offset;
		*len = f->size;
	}
	return *off >= 0 && *len >= 0 && *off + *len <= size;
}

bool tep_guard_fields_inside(struct tep_event *event, const void *data, int size, bool own)
{
	for (const struct tep_format_field *f = own ? event->format.fields : event->format.common_fields;
	     f; f = f->next) {
		int64_t off, len;

		if ((f->flags & TEP_FIELD_IS_DYNAMIC) ? !array_bytes(event->tep, f, data, size, &off, &len) :
		    f->offset < 0 || f->size < 0 || (int64_t)f->offset + f->size > size)
			return false;
	}
	return true;
}

static void print_text(struct trace_seq *s, const unsigned char *p, int64_t len)
{
	for (int64_t i = 0; i < len && p[i]; i++) {
		if (isprint(p[i]) && p[i] != '\\')
			trace_seq_putc(s, p[i]);
		else
			trace_seq_printf(s, "\\x%02x", p[i]);
	}
}

static bool is_text(const unsigned char *p, int64_t len)
{
	int64_t i = 0;

	while (i < len && p[i] && (isprint(p[i]) || isspace(p[i])))
		i++;
	return i == len || p[i] == '\0';
}

static void print_field(struct trace_seq *s, struct tep_handle *tep,
			const struct tep_format_field *f, const unsigned char *data, int size)
{
	unsigned long long v;
	int64_t off, len;

	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
		if (!array_bytes(tep, f, data, size, &off, &len)) {
			trace_seq_puts(s, "<outside the record>");
		} else if ((f->flags & TEP_FIELD_IS_STRING) && is_text(data + off, len)) {
			print_text(s, data + off, len);
		} else {
			trace_seq_puts(s, "ARRAY[");
			for (int64_t i = 0; i < len; i++)
				trace_seq_printf(s, "%s%02x", i ? ", " : "", data[off + i]);
			trace_seq_putc(s, ']');
		}
	} else if (!tep_guard_read_field(tep, f, data, size, &v)) {
		trace_seq_puts(s, "<outside the record>");
	} else if (f->flags & (TEP_FIELD_IS_POINTER | TEP_FIELD_IS_LONG)) {
		trace_seq_printf(s, "0x%llx", v);
	} else if (f->flags & TEP_FIELD_IS_SIGNED) {
		int shift = 64 - 8 * f->size;

		trace_seq_printf(s, "%lld", (long long)(v << shift) >> shift);
	} else {
		trace_seq_printf(s, "%llu", v);
	}
}

void tep_guard_print_fields(struct trace_seq *s, struct tep_event *event, const void *data,
		     int size)
{
	for (struct tep_format_field *f = event->format.fields; f; f = f->next) {
		trace_seq_putc(s, ' ');
		print_text(s, (const unsigned char *)f->name, strlen(f->name));
		trace_seq_putc(s, '=');
		print_field(s, event->tep, f, data, size);
	}
}
