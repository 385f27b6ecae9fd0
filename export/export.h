/* SPDX-License-Identifier: MIT */
/*
 * export.h - what export/ offers the ftana commands (analyze/cmd_export.c,
 * analyze/cmd_convert.c): a capture written in another tool's format.
 *   perfetto.c        `ftana export`: Trace Event Format JSON (Perfetto UI, chrome://tracing)
 *   tracedat_write.c  `ftana convert`: trace-cmd's trace.dat (version 6)
 *   out_file.c        the output's temp file and rename (out_file.h)
 * Both return an CMD_EXIT_* status after printing any error as one line.
 */
#ifndef EXPORT_H
#define EXPORT_H

/* The subcommands (analyze/cmd_export.c, analyze/cmd_convert.c), for analyze/main.c. */
int cmd_export(int argc, char **argv);
int cmd_convert(int argc, char **argv);

/* Write the .ftz IN as a trace.dat OUT. */
int tracedat_convert(const char *in, const char *out);

#endif
