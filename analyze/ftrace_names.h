/* SPDX-License-Identifier: MIT */
/* ftrace_names.h - print function events with names on kernels whose format does not. */
#ifndef FTRACE_NAMES_H
#define FTRACE_NAMES_H

#include <traceevent/event-parse.h>

/*
 * If the ftrace:function event of TEP prints its addresses as numbers (" %lx <-- %lx",
 * kernels before %ps was used there, e.g. 4.13), print it as later kernels' format
 * " %ps <-- %ps" does: " NAME <-- NAME", 0xADDR where the file's symbols do not name it.
 * Call once the tep has the file's event formats and kallsyms.
 */
void ftrace_name_functions(struct tep_handle *tep);

#endif
