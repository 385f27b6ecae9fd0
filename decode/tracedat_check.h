/* SPDX-License-Identifier: MIT */
/*
 * tracedat_check.h - a trace.dat version 7 walked before libtracecmd opens it.
 *
 * libtracecmd 1.3 believes every size a v7 file declares: it mallocs and
 * decompresses whatever a compressed section or flyrecord chunk says it holds,
 * follows option chains wherever they point and sizes its per-CPU arrays from
 * the largest CPU number it reads. tracedat_check reads the file's own structure
 * (trace-cmd.dat.v7(5)) and refuses, in one line, a file whose declared sizes
 * break the budget a .ftz has (decode_int.h: DEC_MAX_BATCH_BYTES for one block,
 * DEC_MAX_EXPANSION times the capture set's size for all of them, DEC_MAX_FILE_BYTES
 * of metadata, DEC_MAX_CPUS), whose flyrecord chunks would cost more memory than
 * the file's size allows (libtracecmd 1.3 keeps them all until it closes the
 * file: tracedat_check.c, HELD_RATIO), or whose offsets loop, go back or leave it.
 * Files of other versions (v6 has no compression) pass untouched.
 */
#ifndef TRACEDAT_CHECK_H
#define TRACEDAT_CHECK_H

struct dec;

/* 0: d->path is not a v7 trace.dat, or one within bounds (its declared raw bytes
 * added to d's set budget). -1 after a one-line error (common/msg.h) naming
 * VERSION (the file's, as dat_open says it), errno set: EBADMSG when the file is
 * damaged or over a bound (exit status 3, as every trace.dat libtracecmd cannot
 * open), else the open's, read's or malloc's errno. */
int tracedat_check(struct dec *d, const char *version);

#endif
