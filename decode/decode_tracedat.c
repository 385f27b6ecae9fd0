// SPDX-License-Identifier: MIT
/*
 * decode_tracedat.c - the second backend behind decode.h: trace-cmd's trace.dat
 * (file versions 6 and 7, compressed or not), read by libtracecmd. decode.c hands
 * dec_open/dec_next/dec_close over here when the file starts with trace.dat's magic.
 *
 * libtracecmd loads the file's own header_page, event formats, kallsyms,
 * printk formats and cmdlines into its tep handle, walks the pages and merges the
 * CPUs by timestamp (ties: lower CPU first, as decode.c does), so this file only
 * maps its records onto struct dec_event and rebuilds the FILE texts the importer
 * reads from a .ftz:
 *   /proc/kallsyms      from the tep's function map (type letter '?': not kept);
 *   per_cpu/cpuN/stats  (phase END) from the buffer statistics trace-cmd saved;
 *   saved_cmdlines      the file's cmdlines for the pids the events carry, complete
 *                       once dec_next has returned 0.
 * Absent: event format texts (event_types.format is NULL), saved_tgids, START stats,
 * SNAPSHOT sections, page counts and sizes (meta pages / page_bytes_* are 0).
 * Only the top-level buffer is read (not trace-cmd's extra buffer instances).
 * Old kernels' function and function_graph formats print numbers; ftrace_names.c
 * names them as trace-cmd does with its plugins (we load none) and later kernels do.
 *
 * Text libtraceevent crashes on: libtracecmd parses the file's header_page and
 * event formats inside tracecmd_open_head, where a `1/0` in one print fmt would
 * kill the import. ftana defines tep_parse_event and tep_parse_header_page (end
 * of this file): during that open, formats are held back and parsed afterwards
 * under tep_guard (one child for all, a crashing print fmt costs one event type,
 * one warning, as in a .ftz), and header_page is tried in a child first.
 *
 * Damage: a file libtracecmd cannot open (cut in its headers, options or v6 CPU
 * data) is reported as damaged before anything is imported, as trace-cmd report
 * reads nothing of it either. A corrupt compressed chunk inside v7 data ends that
 * CPU's events early without libtracecmd saying so: it is not detected. What a v7
 * file declares (compressed sizes, chunk tables, option chains, CPU numbers) is
 * checked by tracedat_check.c before libtracecmd sees the file.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <trace-cmd/trace-cmd.h>

#include "decode/decode_int.h"
#include "decode/ftrace_names.h"
#include "decode/tep_guard.h"
#include "decode/tracedat_check.h"
#include "common/msg.h"

#define DAT_MAGIC "\x17\x08\x44tracing"
#define DAT_MAGIC_LEN 10
#define MAX_PID (1 << 22) /* PID_MAX_LIMIT */

/*
 * Exported by libtracecmd.so.1 but declared only in trace-cmd-private.h, which
 * Debian's libtracecmd-dev does not ship. tracecmd_read_next_data is the merge
 * trace-cmd report itself uses, so both read the events in the same order.
 */
struct tep_record *tracecmd_read_next_data(struct tracecmd_input *handle, int *rec_cpu);
int tracecmd_cpus(struct tracecmd_input *handle);
int tracecmd_page_size(struct tracecmd_input *handle);
const char *tracecmd_get_uname(struct tracecmd_input *handle);
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
const char *tracecmd_get_cpustats(struct tracecmd_input *handle);

struct dat {
	struct tracecmd_input *in;
	struct tep_record *rec;  /* handed out by the last dec_next, freed by the next */
	uint8_t *pid_seen;       /* bitmap: pids already looked up in the cmdlines */
	char *cmdlines;          /* "pid comm\n" for those the file names */
	size_t cmd_len, cmd_cap;
	bool done;
};

/* A file cut inside the magic counts: it is a damaged trace.dat. */
bool dec_is_tracedat(const void *head, size_t len)
{
	return len && !memcmp(head, DAT_MAGIC, len < DAT_MAGIC_LEN ? len : DAT_MAGIC_LEN);
}

/* Add (or replace) the FILE text NAME, as a .ftz's FILE section would. */
static int add_text(struct dec *d, const char *name, int phase, const char *text, size_t len)
{
	struct ftz_file f = { .phase = phase, .name = name, .data = (const uint8_t *)text,
			      .len = len };

	return dmeta_add_file(d, &f);
}

/*
 * Run fn(arg) with stdout pointed at a temporary file, its output into *text
 * (malloc'ed, NUL-terminated; NULL if out of memory). -1, fn not run, if stdout
 * cannot be redirected. libtraceevent has no iterator over its function map
 * (tep_print_funcs printing to stdout is the only reader), and libtracecmd prints
 * why it rejects a file's CPU data to stdout.
 */
static int stdout_of(void (*fn)(void *), void *arg, char **text)
{
	FILE *tmp = tmpfile();
	long len;
	int saved;

	*text = NULL;
	if (!tmp)
		return -1;
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved < 0 || dup2(fileno(tmp), STDOUT_FILENO) < 0) {
		if (saved >= 0)
			close(saved);
		fclose(tmp);
		return -1;
	}
	fn(arg);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	len = ftell(tmp);
	if (len >= 0 && (*text = malloc(len + 1))) {
		rewind(tmp);
		(*text)[fread(*text, 1, len, tmp)] = '\0';
	}
	fclose(tmp);
	return 0;
}

static void print_funcs(void *tep)
{
	tep_print_funcs(tep);
}

/* The function map ("ADDR NAME [MODULE]" lines) as /proc/kallsyms lines. */
static int add_kallsyms(struct dec *d)
{
	char *funcs, *text = NULL, *save = NULL;
	size_t len = 0;
	FILE *out;
	int rc = -ENOMEM;

	if (stdout_of(print_funcs, d->tep, &funcs) < 0) {
		/* only the symbols table is lost: function reports show addresses */
		msg_warn_at(d->path, "cannot list its kernel symbols");
		return 0;
	}
	if (!funcs)
		return -ENOMEM;
	out = open_memstream(&text, &len);
	for (char *l = strtok_r(funcs, "\n", &save); out && l; l = strtok_r(NULL, "\n", &save)) {
		char name[256], mod[256];
		unsigned long long addr;
		int n = sscanf(l, "%llx %255s [%255[^]]]", &addr, name, mod);

		if (n == 3)
			fprintf(out, "%016llx ? %s\t[%s]\n", addr, name, mod);
		else if (n == 2)
			fprintf(out, "%016llx ? %s\n", addr, name);
	}
	free(funcs);
	if (out && fclose(out) == 0) {
		rc = len ? add_text(d, "/proc/kallsyms", FTZ_PHASE_START, text, len) : 0;
		free(text);
	}
	return rc;
}

/* "CPU: 0\nentries: 12\n...CPU: 1\n..." -> per_cpu/cpuN/stats, one per CPU. */
static int add_cpu_stats(struct dec *d, const char *stats)
{
	const char *p = stats ? strstr(stats, "CPU:") : NULL;
	int rc = 0;

	while (p && !rc) {
		const char *next = strstr(p + 4, "CPU:");
		const char *body = strchr(p, '\n');
		char name[48];
		unsigned cpu;

		if (!body || sscanf(p, "CPU: %u", &cpu) != 1)
			break;
		body++;
		snprintf(name, sizeof(name), "per_cpu/cpu%u/stats", cpu);
		if (!next || body < next)
			rc = add_text(d, name, FTZ_PHASE_END, body,
				      next ? (size_t)(next - body) : strlen(body));
		p = next;
	}
	return rc;
}

/* INFO keys a .ftz would carry, where the trace.dat knows them. */
static int make_info(struct dec *d, const char *version)
{
	const char *uname = tracecmd_get_uname(d->dat->in);
	const char *clock = tracecmd_get_trace_clock(d->dat->in);
	char sys[64], host[256], rel[256], mach[64];
	size_t len = 0;
	FILE *f = open_memstream(&d->info, &len);

	if (!f)
		return -ENOMEM;
	fprintf(f, "source_format=trace.dat v%s\nnr_cpus=%u\nlong_size=%d\nendian=%s\n"
		"subbuf_size=%u\n", version, d->stats.nr_cpus, d->long_size,
		d->big_endian ? "big" : "little", d->stats.page_size);
	if (clock && *clock)
		fprintf(f, "clock=%s\n", clock);
	/* trace-cmd saves "sysname nodename release machine" */
	if (uname && sscanf(uname, "%63s %255s %255s %63s", sys, host, rel, mach) == 4)
		fprintf(f, "uname_sysname=%s\nhostname=%s\nuname_release=%s\nuname_machine=%s\n",
			sys, host, rel, mach);
	return fclose(f) ? -ENOMEM : 0;
}

/* Note pid's comm from the file's cmdlines the first time an event carries it. */
static void note_pid(struct dec *d, int pid)
{
	struct dat *t = d->dat;
	const char *comm;
	int n;

	if (pid <= 0 || pid >= MAX_PID || !t->pid_seen || (t->pid_seen[pid / 8] & (1 << pid % 8)))
		return;
	t->pid_seen[pid / 8] |= 1 << pid % 8;
	if (!tep_is_pid_registered(d->tep, pid))
		return;
	comm = tep_data_comm_from_pid(d->tep, pid);
	if (t->cmd_len + 32 + strlen(comm) > t->cmd_cap) {
		size_t cap = 2 * t->cmd_cap + 4096 + strlen(comm);
		char *n2 = realloc(t->cmdlines, cap);

		if (!n2)
			return;
		t->cmdlines = n2;
		t->cmd_cap = cap;
	}
	n = snprintf(t->cmdlines + t->cmd_len, t->cmd_cap - t->cmd_len, "%d %s\n", pid, comm);
	if (n > 0)
		t->cmd_len += n;
}

/* Is PATH a trace.dat? Its version string ("6", "7") follows the magic. */
static bool detect(const char *path, char *version, size_t len)
{
	char head[DAT_MAGIC_LEN + 8] = { 0 };
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(head, 1, sizeof(head) - 1, f) : 0;

	if (f)
		fclose(f);
	snprintf(version, len, "%.4s", n > DAT_MAGIC_LEN ? head + DAT_MAGIC_LEN : "?");
	return dec_is_tracedat(head, n);
}

bool dec_path_is_tracedat(const char *path)
{
	char version[8];

	return detect(path, version, sizeof(version));
}

/*
 * libtracecmd 1.3 crashes in tracecmd_close on a handle whose CPU data failed to
 * load (a v6 file cut inside its data). Such a handle is kept here, reachable, until
 * the process ends: a small leak instead of a crash on damaged input.
 */
static struct tracecmd_input *volatile unclosable;

static void call_init_data(void *arg)
{
	struct dec *d = arg;

	if (tracecmd_init_data(d->dat->in) < 0)
		d->damaged = true;
}

/* tracecmd_open's second half, with its complaint (on stdout) kept as the reason. */
static int init_data(struct dec *d)
{
	char *said = NULL;

	if (stdout_of(call_init_data, d, &said) < 0)
		call_init_data(d); /* its complaint, if any, goes to stdout */
	if (d->damaged) {
		snprintf(d->damage_reason, sizeof(d->damage_reason), "%.*s",
			 said && *said ? (int)strcspn(said, "\n") : 150,
			 said && *said ? said : "libtracecmd cannot load its CPU data");
		unclosable = d->dat->in;
		d->dat->in = NULL;
	}
	free(said);
	return d->damaged ? -1 : 0;
}

/*
 * What libtracecmd hands to libtraceevent while dat_open is inside
 * tracecmd_open_head: the event formats (held back, parsed by open_head once it
 * returned) and how the header_page probe ended.
 */
static struct {
	bool holding;
	const char *path;          /* for warnings */
	struct tep_guard_format *formats; /* each .file is one malloc'ed block with the rest */
	size_t n, cap;
	bool header_crashed;
	struct tep_guard_death header_why;
} held;

static void drop_held(void)
{
	for (size_t i = 0; i < held.n; i++)
		free((void *)held.formats[i].file);
	free(held.formats);
	memset(&held, 0, sizeof(held));
}

/*
 * tracecmd_open_head with the file's formats parsed under tep_guard: libtracecmd
 * only counts a format it could not parse (trace-input.c, read_event_file), so
 * holding them back changes nothing for it; nothing in its open looks an event
 * up (the ftrace overrides that would are a plugin-time thing, and we load none).
 * 0, or -1 after a one-line error (errno set: EBADMSG when the file is damaged).
 */
static int open_head(struct dec *d, const char *version)
{
	char how[32];
	int rc;

	drop_held();
	held.holding = true;
	held.path = d->path;
	/* No plugins: the .ftz path loads none either, so reports print alike. */
	d->dat->in = tracecmd_open_head(d->path, TRACECMD_FL_LOAD_NO_PLUGINS);
	held.holding = false;
	if (!d->dat->in) {
		msg_error("%s: damaged trace.dat (v%s): libtracecmd cannot read its headers",
			  d->path, version);
		rc = -EBADMSG;
	} else if (held.header_crashed) {
		msg_error("%s: header_page crashes libtraceevent (%s)", d->path,
			  tep_guard_death_text(&held.header_why, how, sizeof(how)));
		rc = -EBADMSG;
	} else {
		rc = tep_guard_parse_formats(tracecmd_get_tep(d->dat->in), d->path, NULL, held.formats,
				      held.n);
		if (rc == -EINTR)
			msg_error("%s: interrupted while parsing its formats", d->path);
		else if (rc < 0)
			msg_error("%s: cannot start a process to parse its formats in: %s",
				  d->path, strerror(-rc));
	}
	drop_held();
	if (rc < 0 && d->dat->in) {
		tracecmd_close(d->dat->in);
		d->dat->in = NULL;
	}
	errno = -rc;
	return rc < 0 ? -1 : 0;
}

int dat_open(struct dec *d)
{
	struct stat st;
	char version[8];

	if (!detect(d->path, version, sizeof(version)))
		return 1;
	d->dat = calloc(1, sizeof(*d->dat));
	if (!d->dat)
		goto nomem;
	/* libtracecmd believes a v7 file's declared sizes: they are checked first */
	if (tracedat_check(d, version) < 0)
		return -errno;
	/* libtracecmd's own warnings would add lines to our one-line error */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	if (open_head(d, version) < 0)
		return -errno;
	if (init_data(d) < 0) {
		msg_error("%s: damaged trace.dat (v%s): %s", d->path, version, d->damage_reason);
		errno = EBADMSG;
		return -EBADMSG;
	}
	d->tep = tracecmd_get_tep(d->dat->in);
	ftrace_name_functions(d->tep);
	d->long_size = tep_get_long_size(d->tep);
	d->big_endian = tep_is_file_bigendian(d->tep);
	d->stats.nr_cpus = tracecmd_cpus(d->dat->in);
	d->stats.page_size = tracecmd_page_size(d->dat->in);
	d->stats.file_size = stat(d->path, &st) == 0 ? (uint64_t)st.st_size : 0;
	d->stats.end_seen = true; /* trace-cmd writes the file after recording stopped */
	d->dat->pid_seen = calloc(MAX_PID / 8, 1);
	if (!d->dat->pid_seen || make_info(d, version) || add_kallsyms(d) ||
	    add_cpu_stats(d, tracecmd_get_cpustats(d->dat->in)))
		goto nomem;
	return 0;
nomem:
	msg_error("%s: out of memory", d->path);
	errno = ENOMEM;
	return -ENOMEM;
}

/*
 * kbuffer takes a record's length from the page without checking it against the
 * page (fuzz finding tests/fuzz/regress/tracedat/record-size-past-page.dat: the
 * import's copy of the record read past the mapped page). libtracecmd keeps
 * its pages private, but it gives each record its file offset, and trace-cmd
 * writes every CPU's data in whole pages from a page-aligned offset (v6 and
 * v7 alike), so the offset within the page is that offset modulo the page size.
 */
static bool inside_page(const struct tep_record *r, uint32_t page_size)
{
	uint64_t in_page;

	if (!page_size || r->record_size < r->size || r->size < 0)
		return false;
	in_page = r->offset % page_size;
	return in_page + (uint64_t)r->record_size <= page_size;
}

int dat_next(struct dec *d, struct dec_event *ev)
{
	struct dat *t = d->dat;
	struct tep_record *r;
	int cpu;

	if (t->rec)
		tracecmd_free_record(t->rec);
	t->rec = NULL;
	if (t->done)
		return 0;
	r = tracecmd_read_next_data(t->in, &cpu);
	if (r && (r->cpu < 0 || (unsigned)r->cpu >= d->stats.nr_cpus || r->size < 2 ||
		  !inside_page(r, d->stats.page_size))) {
		/* the importer indexes per-CPU state by cpu: never hand out more;
		 * it copies size bytes from data: never past the page */
		char why[96];

		snprintf(why, sizeof(why), "record of cpu %d (file has %u) or size %d",
			 r->cpu, d->stats.nr_cpus, r->size);
		d->damaged = true;
		d->damage_offset = r->offset;
		snprintf(d->damage_reason, sizeof(d->damage_reason), "%s", why);
		tracecmd_free_record(r);
		r = NULL;
	}
	if (!r) {
		t->done = true;
		if (t->cmd_len && add_text(d, "saved_cmdlines", FTZ_PHASE_END, t->cmdlines,
					   t->cmd_len) < 0)
			msg_error("%s: out of memory for saved_cmdlines", d->path);
		return 0;
	}
	t->rec = r;
	ev->record = r;
	ev->cpu = r->cpu;
	ev->ts = r->ts;
	ev->missed = r->missed_events;
	ev->section_offset = r->offset;
	ev->type_id = tep_data_type(d->tep, r);
	ev->event = tep_find_event(d->tep, ev->type_id);
	note_pid(d, tep_data_pid(d->tep, r));
	return 1;
}

void dat_close(struct dec *d)
{
	struct dat *t = d->dat;

	if (!t)
		return;
	if (t->rec)
		tracecmd_free_record(t->rec);
	if (t->in)
		tracecmd_close(t->in); /* frees the tep too */
	d->tep = NULL;
	free(t->pid_seen);
	free(t->cmdlines);
	free(t);
	d->dat = NULL;
}

/*
 * libtracecmd's printk_formats go through our checked parser.
 *
 * Why ftana defines a libtraceevent function: when libtracecmd opens a trace.dat
 * it hands the file's printk_formats section to tep_parse_printk_formats(),
 * which reads past short strings (fuzz finding
 * tests/fuzz/regress/tracedat/printk-formats-overread-libtracecmd.dat) and offers
 * no way to check first; libtracecmd has no hook between reading that section
 * and parsing it. The program's own definition comes first in the dynamic
 * linker's search order (ld exports it because libtracecmd refers to it), so
 * libtracecmd's call lands here and the text gets the same line check as a
 * .ftz's (tep_guard.c). It lives in this file so that the linker always takes
 * it together with the trace.dat backend.
 */
int tep_parse_printk_formats(struct tep_handle *tep, const char *buf)
{
	if (!tep || !buf)
		return -1;
	tep_guard_register_printk_formats(tep, buf);
	return 0;
}

/*
 * libtracecmd's event formats and header_page go through tep_guard, by the same
 * means as its printk_formats above (no hook in libtracecmd between reading them
 * and parsing them). Outside dat_open's tracecmd_open_head both forward to
 * libtraceevent's own: tep_guard.c and the .ftz path call them too, and get this
 * definition (same program), which must then be the library's.
 */
typedef enum tep_errno (*parse_event_fn)(struct tep_handle *, const char *, unsigned long,
					 const char *);
typedef int (*parse_header_fn)(struct tep_handle *, char *, unsigned long, int);

static void *library_function(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/*
 * libtracecmd's cmdlines get the cut a .ftz's saved_cmdlines get (dec_cmdlines_capped),
 * by the same means as its printk_formats above: report tpoint printed a trace.dat's
 * 16 MiB name on each of its task's lines (48 MiB for three events, a minute under
 * ASan). decode_meta.c's call, already cut, comes here too.
 */
int tep_parse_saved_cmdlines(struct tep_handle *tep, const char *buf)
{
	typedef int (*parse_cmdlines_fn)(struct tep_handle *, const char *);
	parse_cmdlines_fn real = (parse_cmdlines_fn)library_function("tep_parse_saved_cmdlines");
	char *capped = buf ? dec_cmdlines_capped(buf) : NULL;
	int rc = real && capped ? real(tep, capped) : -1;

	free(capped);
	return rc;
}

/*
 * libtracecmd 3.1's read_string leaves a system name of BUFSIZ bytes or more
 * without its NUL inside the block it allocated (fuzz finding); shorter ones are
 * whole. So a name is read no further than BUFSIZ bytes, and one that long is not
 * one we take.
 */
#define SYSTEM_NAME_MAX (BUFSIZ - 1)

/* Hold one format back for open_head, named "events/SYS/NAME/format" for its
 * warnings (NAME from the text's first line, as libtraceevent takes it). */
static enum tep_errno hold_format(const char *buf, unsigned long size, const char *sys)
{
	const char *name = "?";
	size_t name_len = 1, sys_len = strnlen(sys, SYSTEM_NAME_MAX + 1);
	char *block;

	if (sys_len > SYSTEM_NAME_MAX) {
		tep_guard_warn_once(held.path, "an event system's name is longer than %d "
			     "bytes; its events are skipped", SYSTEM_NAME_MAX);
		return TEP_ERRNO__READ_FORMAT_FAILED;
	}

	if (size >= 5 && !memcmp(buf, "name:", 5)) {
		size_t b = 5, e;

		while (b < size && buf[b] == ' ')
			b++;
		for (e = b; e < size && buf[e] != '\n' && buf[e] != '\0' && e - b < 200; e++)
			;
		name = buf + b;
		name_len = e - b;
	}
	if (held.n == held.cap) {
		size_t cap = held.cap ? 2 * held.cap : 64;
		struct tep_guard_format *more = realloc(held.formats, cap * sizeof(*more));

		if (!more)
			return TEP_ERRNO__MEM_ALLOC_FAILED;
		held.formats = more;
		held.cap = cap;
	}
	/* "events/SYS/NAME/format\0SYS\0TEXT" */
	block = malloc(sys_len * 2 + name_len + 17 + size);
	if (!block)
		return TEP_ERRNO__MEM_ALLOC_FAILED;
	int file_len = sprintf(block, "events/%s/%.*s/format", sys, (int)name_len, name);
	char *system = block + file_len + 1, *text = system + sys_len + 1;

	memcpy(system, sys, sys_len + 1);
	memcpy(text, buf, size);
	held.formats[held.n++] = (struct tep_guard_format){ .file = block, .system = system,
		.text = text, .len = size };
	return 0;
}

enum tep_errno tep_parse_event(struct tep_handle *tep, const char *buf, unsigned long size,
			       const char *sys)
{
	parse_event_fn real = (parse_event_fn)library_function("tep_parse_event");

	if (held.holding)
		return buf && sys ? hold_format(buf, size, sys) : TEP_ERRNO__READ_FORMAT_FAILED;
	return real ? real(tep, buf, size, sys) : TEP_ERRNO__MEM_ALLOC_FAILED;
}

struct header_call {
	parse_header_fn real;
	struct tep_handle *tep;
	char *buf;
	unsigned long size;
	int long_size;
};

static int parse_header(void *ctx)
{
	struct header_call *c = ctx;

	return c->real(c->tep, c->buf, c->size, c->long_size);
}

int tep_parse_header_page(struct tep_handle *tep, char *buf, unsigned long size, int long_size)
{
	struct header_call c = { (parse_header_fn)library_function("tep_parse_header_page"),
				 tep, buf, size, long_size };

	if (!c.real)
		return -1;
	if (held.holding && tep_guard_survives(parse_header, &c, &held.header_why) != 0 &&
	    (held.header_why.signal || held.header_why.hung)) {
		/* a refusal is libtraceevent's to give, here too; a crash is not */
		held.header_crashed = true;
		return -1;
	}
	return parse_header(&c);
}
