// SPDX-License-Identifier: MIT
/*
 * ftrace_names.c - see ftrace_names.h.
 *
 * Why: before the kernel's trace_entries.h used %ps for the function tracer's event,
 * its format file said " %lx <-- %lx". The kernel's own trace file still showed names
 * (the function tracer prints with its own code, not with the format), and so does
 * trace-cmd report (libtraceevent's function plugin). ftana loads no plugins, so a
 * 32-bit 4.13 capture printed "c644ae30 <-- c699a65a" where both show
 * "switch_mm_irqs_off <-- __schedule". The handler below prints what the later
 * format prints, so old and new captures read alike.
 */
#include <string.h>
#include <traceevent/event-parse.h>

#include "analyze/ftrace_names.h"

static void put_function(struct trace_seq *s, struct tep_handle *tep, unsigned long long addr)
{
	const char *name = tep_find_function(tep, addr);

	if (name)
		trace_seq_puts(s, name);
	else
		trace_seq_printf(s, "0x%llx", addr); /* as libtraceevent's %ps does */
}

static int function_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	unsigned long long ip, parent_ip;

	(void)context;
	/* err=1: a record without the fields says so in the text */
	if (tep_get_field_val(s, event, "ip", record, &ip, 1) ||
	    tep_get_field_val(s, event, "parent_ip", record, &parent_ip, 1))
		return 0;
	trace_seq_putc(s, ' ');
	put_function(s, event->tep, ip);
	trace_seq_puts(s, " <-- ");
	put_function(s, event->tep, parent_ip);
	return 0;
}

void ftrace_name_functions(struct tep_handle *tep)
{
	struct tep_event *event = tep_find_event_by_name(tep, "ftrace", "function");

	/* A format that already names functions (%ps, %pS, %pF...) is the kernel's word. */
	if (!event || !event->print_fmt.format || strstr(event->print_fmt.format, "%p"))
		return;
	if (!tep_find_field(event, "ip") || !tep_find_field(event, "parent_ip"))
		return;
	tep_register_event_handler(tep, event->id, "ftrace", "function", function_handler, NULL);
}
