// SPDX-License-Identifier: MIT
/*
 * ftrace_names.c - see ftrace_names.h.
 *
 * Why: before the kernel's trace_entries.h used %ps for the ftrace events of the
 * function tracers, their format files printed addresses as numbers: function
 * " %lx <-- %lx", funcgraph_entry "--> %lx (%d)", funcgraph_exit "<-- %lx (%d) ...".
 * The kernel's own trace file still showed names (the tracers print with their own
 * code, not with the format), and so does trace-cmd report (libtraceevent's function
 * plugin; its own graph view). ftana loads no plugins, so a 32-bit 4.13 capture
 * printed "c644ae30 <-- c699a65a" where both show "switch_mm_irqs_off <-- __schedule".
 * The handlers below print what the later formats print, so old and new captures
 * read alike.
 */
#include <string.h>
#include <traceevent/event-parse.h>

#include "decode/ftrace_names.h"

/* What %ps prints: the name of the function holding ADDR, 0xADDR if none does. */
static void put_function(struct trace_seq *s, struct tep_handle *tep, unsigned long long addr)
{
	const char *name = tep_find_function(tep, addr);

	if (name)
		trace_seq_puts(s, name);
	else
		trace_seq_printf(s, "0x%llx", addr); /* as libtraceevent's %ps does */
}

/* Field NAME of the record; err=1: a record without it says so in the text. */
static bool field(struct trace_seq *s, struct tep_event *event, struct tep_record *record,
		  const char *name, unsigned long long *val)
{
	return tep_get_field_val(s, event, name, record, val, 1) == 0;
}

/* " %ps <-- %ps", (void *)REC->ip, (void *)REC->parent_ip */
static int function_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	unsigned long long ip, parent_ip;

	(void)context;
	if (!field(s, event, record, "ip", &ip) || !field(s, event, record, "parent_ip", &parent_ip))
		return 0;
	trace_seq_putc(s, ' ');
	put_function(s, event->tep, ip);
	trace_seq_puts(s, " <-- ");
	put_function(s, event->tep, parent_ip);
	return 0;
}

/* "--> %ps (%u)", (void *)REC->func, REC->depth */
static int graph_entry_handler(struct trace_seq *s, struct tep_record *record,
			       struct tep_event *event, void *context)
{
	unsigned long long func, depth;

	(void)context;
	if (!field(s, event, record, "func", &func) || !field(s, event, record, "depth", &depth))
		return 0;
	trace_seq_puts(s, "--> ");
	put_function(s, event->tep, func);
	trace_seq_printf(s, " (%u)", (unsigned)depth);
	return 0;
}

/* "<-- %ps (%u) (start: %llx  end: %llx) over: %u", (void *)REC->func, REC->depth,
 * REC->calltime, REC->rettime, REC->depth -- "over" is the depth, in every kernel */
static int graph_exit_handler(struct trace_seq *s, struct tep_record *record,
			      struct tep_event *event, void *context)
{
	unsigned long long func, depth, calltime, rettime;

	(void)context;
	if (!field(s, event, record, "func", &func) || !field(s, event, record, "depth", &depth) ||
	    !field(s, event, record, "calltime", &calltime) ||
	    !field(s, event, record, "rettime", &rettime))
		return 0;
	trace_seq_puts(s, "<-- ");
	put_function(s, event->tep, func);
	trace_seq_printf(s, " (%u) (start: %llx  end: %llx) over: %u", (unsigned)depth, calltime,
			 rettime, (unsigned)depth);
	return 0;
}

static const struct {
	const char *event;
	const char *fields[4]; /* the handler needs them all */
	tep_event_handler_func handler;
} named_events[] = {
	{ "function", { "ip", "parent_ip" }, function_handler },
	{ "funcgraph_entry", { "func", "depth" }, graph_entry_handler },
	{ "funcgraph_exit", { "func", "depth", "calltime", "rettime" }, graph_exit_handler },
};

void ftrace_name_functions(struct tep_handle *tep)
{
	for (size_t i = 0; i < sizeof(named_events) / sizeof(named_events[0]); i++) {
		struct tep_event *event = tep_find_event_by_name(tep, "ftrace", named_events[i].event);
		bool usable = event && event->print_fmt.format &&
			      /* a format naming functions (%ps, %pS...) is the kernel's word */
			      !strstr(event->print_fmt.format, "%p");

		for (size_t f = 0; usable && f < 4 && named_events[i].fields[f]; f++)
			usable = tep_find_field(event, named_events[i].fields[f]) != NULL;
		if (usable)
			tep_register_event_handler(tep, event->id, "ftrace", named_events[i].event,
						   named_events[i].handler, NULL);
	}
}
