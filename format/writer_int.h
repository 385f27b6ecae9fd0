/* SPDX-License-Identifier: MIT */
/* writer_int.h - gather-write entry point shared by writer.c and payload.c. */
#ifndef FTZ_WRITER_INT_H
#define FTZ_WRITER_INT_H

#include <sys/uio.h>

#include "ftz.h"

#define FTZ_MAX_IOV 4

/* Like ftz_write_section, with the payload given as up to FTZ_MAX_IOV pieces
 * (so payload headers need not be copied in front of large page buffers). */
int ftz_write_iov(struct ftz_writer *w, uint32_t type, const struct iovec *iov,
		  int n, bool compress);

#endif
