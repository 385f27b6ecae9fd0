/* SPDX-License-Identifier: MIT */
/* tracedat_guard.h - event types whose printing crashes libtraceevent (tracedat_guard.c). */
#ifndef EXPORT_TRACEDAT_GUARD_H
#define EXPORT_TRACEDAT_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/decode.h"

enum {
	TDG_NO_PRINT_FMT = 1, /* printing its text crashed: its print fmt is left out */
	TDG_LEFT_OUT = 2,     /* printing its line header crashed: its format is left out */
};

struct tdg;
/* Print every event of d (from its position; d is consumed) in guarded children,
 * after leaving out formats with fields past a PAGE_SIZE sub-buffer. NULL after a
 * one-line error. IN names the file in messages. */
struct tdg *tdg_probe(struct dec *d, uint32_t page_size, const char *in);
/* 0, TDG_NO_PRINT_FMT or TDG_LEFT_OUT for the event type. */
int tdg_level(const struct tdg *g, const struct tep_event *event);
/* "events/SYS/EVENT/format" -> SYS (its length in *sys_len), else NULL. */
const char *tdg_format_system(const char *name, size_t *sys_len);
/*
 * Is the capture's format file F written to the trace.dat, and as what (*text, *len)?
 * Not a second copy of a name, nor a format ftana could not parse or whose line
 * header crashed; without its print fmt when that crashed (*owned: the copy, to free).
 */
bool tdg_format_to_write(const struct tdg *g, const struct dec_file *f, const char **text,
			 size_t *len, char **owned);
void tdg_free(struct tdg *g);

#endif
