// SPDX-License-Identifier: MIT
/*
 * tracedat_guard.c - which event types of a capture would crash trace-cmd when it
 * prints them, found before `ftana convert` hands their formats over.
 *
 * trace-cmd runs libtraceevent on the formats and records without the guard ftana
 * has (decode/tep_guard.c). A print fmt that kills libtraceevent while parsing is
 * known from ftana's own guarded parse (tep_guard_print_fmt_removed); one that kills it
 * only while printing a record (`REC->x / 0`, a huge __print_hex length) is known
 * only by printing. So every event is printed here once, as trace-cmd prints it
 * (line header, then the text), in a forked child (tep_guard_run_child); when the child
 * dies inside libtraceevent, the event type it was printing is demoted one level
 * and printing goes on after the last event that got through:
 *   level 1: its print fmt is left out of the trace.dat (the header still prints);
 *   level 2: the header crashed too (its common fields): the format is left out.
 * A child is forked once, plus once per demotion (at most two per event type).
 * Before that, a format with a field outside any possible record (an offset or size
 * past the sub-buffer: no kernel writes that) is left out at once: libtraceevent
 * reads such fields in trace-cmd where it happens not to in ftana, so printing them
 * here proves nothing.
 *
 * trace-cmd also loads libtraceevent's plugins before it parses the formats: they
 * register functions a print fmt may call (cfg80211's __le16_to_cpup reads through
 * its argument as a pointer: `__le16_to_cpup(REC->x)` kills `trace-cmd report`) and
 * handlers that print whole events (sched_switch, function). So the child prints with
 * a handle of its own that has this machine's plugins loaded and the formats parsed as
 * the trace.dat will hold them (tdg_format_to_write), as trace-cmd reads it here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "common/text_escape.h"
#include "decode/tep_guard.h"
#include "export/tracedat_guard.h"

struct demoted {
	const struct tep_event *event;
	int level;
};

struct tdg {
	struct dec *d;
	struct demoted *list;
	size_t nr;
	uint64_t pos;       /* events the parent's decoder has passed */
};

int tdg_level(const struct tdg *g, const struct tep_event *event)
{
	for (size_t i = 0; g && i < g->nr; i++)
		if (g->list[i].event == event)
			return g->list[i].level;
	return 0;
}

const char *tdg_format_system(const char *name, size_t *sys_len)
{
	const char *sys, *slash, *ev;
	size_t len = strlen(name);

	if (strncmp(name, "events/", 7) || len < 7 + 7 || strcmp(name + len - 7, "/format"))
		return NULL;
	sys = name + 7;
	slash = strchr(sys, '/');
	if (!slash || slash == sys)
		return NULL;
	ev = slash + 1;
	if (ev >= name + len - 7 || memchr(ev, '/', (size_t)(name + len - 7 - ev)))
		return NULL;
	*sys_len = (size_t)(slash - sys);
	return sys;
}

/* The event a format file defines, as ftana's guarded parse left it (NULL: none). */
static struct tep_event *parsed_event(const struct dec *d, const struct dec_file *f)
{
	const char *id = NULL;

	for (size_t i = 0; i + 4 <= f->len && !id; i++)
		if ((i == 0 || f->data[i - 1] == '\n') && !memcmp(f->data + i, "ID: ", 4))
			id = f->data + i + 4;
	return id ? tep_find_event(dec_tep(d), atoi(id)) : NULL;
}

/*
 * trace-cmd runs libtraceevent on the formats without ftana's guard
 * (decode/tep_guard.c), so a format that crashed it in our guarded parse, or while
 * printing one of its events, must not reach trace-cmd as it was: one whose print fmt
 * crashed goes with the guard's harmless print fmt; one that failed altogether, or
 * whose line header crashed, not at all (its events are unreadable either way). Of a
 * name the capture holds twice (once per phase), the copy dec_file prefers.
 */
bool tdg_format_to_write(const struct tdg *g, const struct dec_file *f, const char **text,
			 size_t *len, char **owned)
{
	const struct tep_event *ev;

	*owned = NULL;
	if (dec_file(g->d, f->name, -1, NULL) != f->data || !(ev = parsed_event(g->d, f)) ||
	    tdg_level(g, ev) >= TDG_LEFT_OUT)
		return false;
	*text = f->data;
	*len = f->len;
	if (tep_guard_print_fmt_removed(ev) || tdg_level(g, ev) == TDG_NO_PRINT_FMT) {
		*owned = tep_guard_without_print_fmt(f->data, f->len);
		if (!*owned)
			return false;
		*text = *owned;
		*len = strlen(*owned);
	}
	return true;
}

/*
 * In the child: a handle as trace-cmd makes one of the trace.dat, plugins loaded
 * first. A format whose parse dies is blamed on its event (the parent's, by which
 * the guard knows it), as a death while printing is. NULL out of memory.
 */
static struct tep_handle *plugin_tep(struct tdg *g, struct tep_guard_progress *p)
{
	struct tep_handle *base = dec_tep(g->d), *t = tep_alloc();
	size_t n = dec_nr_files(g->d), len;
	const char *text = dec_file(g->d, "events/header_page", -1, &len);
	char *copy = text ? malloc(len + 1) : NULL;

	if (!t || !copy) {
		tep_free(t);
		free(copy);
		return NULL;
	}
	tep_set_long_size(t, tep_get_long_size(base));
	tep_set_page_size(t, tep_get_page_size(base));
	tep_set_file_bigendian(t, tep_is_file_bigendian(base) ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(t, tep_is_local_bigendian(base) ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_cpus(t, tep_get_cpus(base));
	tep_load_plugins(t);
	memcpy(copy, text, len);
	copy[len] = '\0';
	tep_parse_header_page(t, copy, len, tep_get_long_size(base)); /* parsed in ftana already */
	free(copy);
	for (size_t i = 0; i < n; i++) {
		const struct dec_file *f = dec_file_at(g->d, i);
		const char *sys = tdg_format_system(f->name, &len);
		char system[128];
		char *owned;

		if (!sys || len >= sizeof(system) || !tdg_format_to_write(g, f, &text, &len, &owned))
			continue;
		snprintf(system, sizeof(system), "%.*s", (int)(strchr(sys, '/') - sys), sys);
		tep_guard_enter(p, g->pos, parsed_event(g->d, f));
		tep_parse_event(t, text, len, system);
		tep_guard_leave(p);
		free(owned);
	}
	if ((text = dec_file(g->d, "printk_formats", -1, NULL)) && *text)
		tep_guard_register_printk_formats(t, text);
	if ((text = dec_file(g->d, "/proc/kallsyms", -1, NULL)) && *text)
		tep_parse_kallsyms(t, text);
	return t;
}

/* In the child: print from the decoder's position to the end. */
static int probe_child(void *ctx, struct tep_guard_progress *p)
{
	struct tdg *g = ctx;
	struct tep_handle *tep = plugin_tep(g, p);
	struct dec_event ev;
	struct trace_seq s;

	if (!tep)
		return -1;
	trace_seq_init(&s);
	while (dec_next(g->d, &ev) > 0) {
		int level = ev.event ? tdg_level(g, ev.event) : TDG_LEFT_OUT;

		if (level < TDG_LEFT_OUT) {
			trace_seq_reset(&s);
			tep_guard_enter(p, g->pos, ev.event);
			tep_print_event(tep, &s, ev.record, "%s-%d %d %s", TEP_PRINT_COMM, TEP_PRINT_PID,
					TEP_PRINT_CPU, TEP_PRINT_LATENCY);
			if (level < TDG_NO_PRINT_FMT)
				tep_print_event(tep, &s, ev.record, "%s", TEP_PRINT_INFO);
			tep_guard_leave(p);
		}
		p->done = ++g->pos;
	}
	trace_seq_destroy(&s);
	return 0;
}

/* One level down (WHY: the child's death), or straight to TDG_LEFT_OUT (WHY NULL:
 * a field outside any record). One warning either way. */
static int demote(struct tdg *g, const struct tep_event *event, const char *in,
		  const struct tep_guard_death *why)
{
	char how[32] = "";
	size_t i;

	for (i = 0; i < g->nr && g->list[i].event != event; i++)
		;
	if (i == g->nr) {
		struct demoted *n = realloc(g->list, (g->nr + 1) * sizeof(*n));

		if (!n)
			return -1;
		g->list = n;
		g->list[g->nr++] = (struct demoted){ event, 0 };
	}
	if (g->list[i].level >= TDG_LEFT_OUT)
		return -1; /* not printed at that level: cannot have crashed */
	g->list[i].level = why ? g->list[i].level + 1 : TDG_LEFT_OUT;
	if (why)
		tep_guard_death_text(why, how, sizeof(how));
	/* the names are the file's: the message path escapes them */
	msg_warn_at(in, "event %s:%s: %s%s%s: %s", event->system, event->name,
		why ? "printing it crashes libtraceevent (" : "a field lies outside any record",
		how, why ? ")" : "",
		g->list[i].level == TDG_NO_PRINT_FMT ? "its print fmt is left out of the trace.dat"
						      : "its format is left out of the trace.dat");
	return 0;
}

static bool fields_fit(const struct tep_format_field *f, uint32_t page_size)
{
	for (; f; f = f->next)
		if (f->offset < 0 || f->size < 0 || (uint64_t)f->offset + (uint64_t)f->size > page_size)
			return false;
	return true;
}

/* Formats whose fields cannot lie inside a record of a PAGE_SIZE sub-buffer: left out. */
static int demote_misfits(struct tdg *g, uint32_t page_size, const char *in)
{
	struct tep_handle *tep = dec_tep(g->d);
	struct tep_event **events = tep ? tep_list_events(tep, TEP_EVENT_SORT_ID) : NULL;

	for (size_t i = 0; events && events[i]; i++)
		if (!fields_fit(events[i]->format.common_fields, page_size) ||
		    !fields_fit(events[i]->format.fields, page_size))
			if (demote(g, events[i], in, NULL) < 0)
				return -1;
	return 0;
}

struct tdg *tdg_probe(struct dec *d, uint32_t page_size, const char *in)
{
	struct tep_guard_progress *p = tep_guard_progress_alloc();
	struct tdg *g = calloc(1, sizeof(*g));
	struct dec_event ev;

	if (!p || !g) {
		msg_error("out of memory");
		goto fail;
	}
	g->d = d;
	if (demote_misfits(g, page_size, in) < 0) {
		msg_error("out of memory");
		goto fail;
	}
	for (;;) {
		struct tep_guard_death why;
		char how[32];
		int r;

		p->done = g->pos;
		r = tep_guard_run_child(probe_child, g, p, true, &why);
		if (r == 0)
			break;
		if (r < 0) {
			msg_error("%s: cannot start a process to try the events in: %s", in,
				    strerror(-r));
			goto fail;
		}
		if (p->current == TEP_GUARD_NONE || !p->event) { /* not in libtraceevent: our bug */
			msg_error("%s: trying the events stopped after %llu (%s)", in,
				    (unsigned long long)p->done, tep_guard_death_text(&why, how, sizeof(how)));
			goto fail;
		}
		if (demote(g, (const struct tep_event *)p->event, in, &why) < 0)
			goto fail;
		/* the parent's decoder to the event the child died on: it is tried again */
		while (g->pos < p->done && dec_next(d, &ev) > 0)
			g->pos++;
	}
	tep_guard_progress_free(p);
	return g;
fail:
	tep_guard_progress_free(p);
	tdg_free(g);
	return NULL;
}

void tdg_free(struct tdg *g)
{
	if (g)
		free(g->list);
	free(g);
}
