/* SPDX-License-Identifier: MIT */
/* ftrace_names.h - print function events with names on kernels whose format does not. */
#ifndef FTRACE_NAMES_H
#define FTRACE_NAMES_H

#include <traceevent/event-parse.h>

/*
 * If the ftrace events function, funcgraph_entry or funcgraph_exit of TEP print their
 * addresses as numbers (" %lx <-- %lx", kernels before %ps was used there, e.g. 4.13),
 * print them as later kernels' formats do (" %ps <-- %ps", "--> %ps (%u)", ...):
 * names, 0xADDR where the file's symbols do not name one.
 * Call once the tep has the file's event formats and kallsyms.
 */
void ftrace_name_functions(struct tep_handle *tep);

#endif
