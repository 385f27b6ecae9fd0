/* SPDX-License-Identifier: MIT */
/* tracedat_comms.h - the saved_cmdlines text of a converted trace.dat (tracedat_comms.c). */
#ifndef EXPORT_TRACEDAT_COMMS_H
#define EXPORT_TRACEDAT_COMMS_H

#include <stdbool.h>
#include <stddef.h>

struct dec;
/* "PID COMM\n" lines for the capture IN opened as d; malloc'd (length in *len), NULL
 * without memory. *damaged: the database found IN damaged and printed the warning. */
char *tracedat_cmdlines(const struct dec *d, const char *in, size_t *len, bool *damaged);

#endif
