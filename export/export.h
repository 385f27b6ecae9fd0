/* SPDX-License-Identifier: MIT */
/*
 * export.h - what export/ offers the ftana commands (analyze/cmd_export.c,
 * analyze/cmd_convert.c): a capture written in another tool's format.
 *   perfetto.c        `ftana export`: Trace Event Format JSON (Perfetto UI, chrome://tracing)
 *   tracedat_write.c  `ftana convert`: trace-cmd's trace.dat (version 6)
 * Both write through common/out_file.h and return 0, or -1 after a one-line error.
 */
#ifndef EXPORT_H
#define EXPORT_H

#include <stdbool.h>

/* Write the .ftz IN as a trace.dat OUT. 0 (*damaged: it covers what came before the
 * damage), or -1 after an error (*damaged: the damage came before anything). */
int tracedat_convert(const char *in, const char *out, bool *damaged);

#endif
