// SPDX-License-Identifier: MIT
/*
 * writer.c - append checksummed, optionally zstd-compressed sections to a .ftz.
 *
 * Crash safety rests on two rules (FORMAT.md "Crash safety"): every section
 * reaches the file in one pwritev() of header+payload, and when a write comes up
 * short the file is truncated back to the end of the last complete section, so
 * the file on disk is always "complete sections + at most one torn tail".
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zstd.h>

#include "ftz.h"
#include "ftz_int.h"
#include "writer_int.h"

/* Compression contexts are pooled: a CCtx costs ~1 MB to set up, and per-CPU
 * threads write many sections each, so reuse beats per-call creation. */
struct cctx_pool {
	pthread_mutex_t lock;
	ZSTD_CCtx **free;
	int nr_free, cap;
};

struct ftz_writer {
	int fd;
	char *path;
	int level;
	pthread_mutex_t lock; /* guards everything below */
	uint64_t end;         /* file offset after the last complete section */
	int error;            /* sticky first write error (negative errno) */
	uint64_t page_raw, page_stored;
	struct cctx_pool pool;
};

static ZSTD_CCtx *cctx_get(struct cctx_pool *p)
{
	ZSTD_CCtx *c = NULL;

	pthread_mutex_lock(&p->lock);
	if (p->nr_free)
		c = p->free[--p->nr_free];
	pthread_mutex_unlock(&p->lock);
	return c ? c : ZSTD_createCCtx();
}

static void cctx_put(struct cctx_pool *p, ZSTD_CCtx *c)
{
	pthread_mutex_lock(&p->lock);
	if (p->nr_free == p->cap) {
		int cap = p->cap ? p->cap * 2 : 4;
		ZSTD_CCtx **n = realloc(p->free, cap * sizeof(*n));

		if (!n) {
			pthread_mutex_unlock(&p->lock);
			ZSTD_freeCCtx(c);
			return;
		}
		p->free = n;
		p->cap = cap;
	}
	p->free[p->nr_free++] = c;
	pthread_mutex_unlock(&p->lock);
}

static void cctx_pool_free(struct cctx_pool *p)
{
	while (p->nr_free)
		ZSTD_freeCCtx(p->free[--p->nr_free]);
	free(p->free);
	pthread_mutex_destroy(&p->lock);
}

struct ftz_writer *ftz_writer_create(const char *path, char *errbuf, size_t errlen)
{
	uint8_t hdr[FTZ_FILE_HDR_LEN];
	struct ftz_writer *w = calloc(1, sizeof(*w));
	ssize_t n;

	if (!w || !(w->path = strdup(path))) {
		snprintf(errbuf, errlen, "%s: out of memory", path);
		free(w);
		return NULL;
	}
	/* Level 3 (zstd's default): 26.9x on full getpid pages against 24.3x at
	 * level 1, for about the same CPU (see FORMAT.md, Compression). */
	w->level = 3;
	pthread_mutex_init(&w->lock, NULL);
	pthread_mutex_init(&w->pool.lock, NULL);
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	ftz_file_hdr_encode(hdr);
	n = pwrite(w->fd, hdr, sizeof(hdr), 0);
	if (n != (ssize_t)sizeof(hdr)) {
		snprintf(errbuf, errlen, "%s: writing the file header: %s", path,
			 n < 0 ? strerror(errno) : "short write");
		close(w->fd);
		goto fail;
	}
	w->end = sizeof(hdr);
	return w;
fail:
	pthread_mutex_destroy(&w->lock);
	pthread_mutex_destroy(&w->pool.lock);
	free(w->path);
	free(w);
	return NULL;
}

static size_t iov_total(const struct iovec *iov, int n)
{
	size_t total = 0;

	for (int i = 0; i < n; i++)
		total += iov[i].iov_len;
	return total;
}

/*
 * Compress the concatenation of iov into one zstd frame (with content size, so
 * a reader can size its buffer). Returns the compressed length, or 0 when
 * compression failed or did not shrink the payload (the caller stores it raw).
 */
static size_t compress_iov(struct ftz_writer *w, const struct iovec *iov, int n,
			   size_t total, void **out)
{
	size_t cap = ZSTD_compressBound(total), done = 0;
	ZSTD_CCtx *c = cctx_get(&w->pool);
	ZSTD_outBuffer ob = { .dst = malloc(cap), .size = cap };

	*out = ob.dst;
	if (!c || !ob.dst)
		goto fail;
	ZSTD_CCtx_reset(c, ZSTD_reset_session_only);
	ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, w->level);
	ZSTD_CCtx_setPledgedSrcSize(c, total);
	for (int i = 0; i < n; i++) {
		ZSTD_inBuffer ib = { iov[i].iov_base, iov[i].iov_len, 0 };
		/* a payload's fixed header (PAGES: cpu, page size, count) ends the first
		 * block, so a reader scanning the file decodes it alone (FORMAT.md 4.3) */
		ZSTD_EndDirective mode = i == n - 1 ? ZSTD_e_end :
					 i == 0 && ib.size <= FTZ_FIXED_HEADER_MAX ? ZSTD_e_flush :
					 ZSTD_e_continue;
		size_t rc;

		do {
			rc = ZSTD_compressStream2(c, &ob, &ib, mode);
			if (ZSTD_isError(rc))
				goto fail;
		} while (mode != ZSTD_e_continue ? rc != 0 : ib.pos < ib.size);
	}
	done = ob.pos < total ? ob.pos : 0;
	cctx_put(&w->pool, c);
	return done;
fail:
	if (c)
		cctx_put(&w->pool, c);
	return 0;
}

/* Write all of iov at off; returns 0 or a negative errno (possibly after a partial write). */
static int pwritev_all(int fd, struct iovec *iov, int n, uint64_t off)
{
	while (n > 0) {
		ssize_t done = pwritev(fd, iov, n, off);

		if (done < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (done == 0)
			return -ENOSPC;
		off += done;
		while (n > 0 && (size_t)done >= iov->iov_len) {
			done -= iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + done;
			iov->iov_len -= done;
		}
	}
	return 0;
}

/* Append header + payload under the lock; on failure cut the torn tail off. */
static int append_locked(struct ftz_writer *w, uint32_t type, const uint8_t *hdr,
			 struct iovec *payload, int n, size_t raw, size_t stored)
{
	struct iovec iov[1 + FTZ_MAX_IOV];
	int err;

	iov[0] = (struct iovec){ (void *)hdr, FTZ_SEC_HDR_LEN };
	memcpy(iov + 1, payload, n * sizeof(*iov));
	pthread_mutex_lock(&w->lock);
	err = w->error;
	if (!err) {
		err = pwritev_all(w->fd, iov, n + 1, w->end);
		if (err) {
			/* Best effort: if even this fails, readers still stop at the
			 * torn section, which its checksums identify. */
			if (ftruncate(w->fd, w->end) < 0) {
				/* nothing more to do; the error below is what matters */
			}
			w->error = err;
		} else {
			w->end += FTZ_SEC_HDR_LEN + stored;
			if (type == FTZ_SEC_PAGES) {
				w->page_raw += raw;
				w->page_stored += stored;
			}
		}
	}
	pthread_mutex_unlock(&w->lock);
	return err;
}

int ftz_write_iov(struct ftz_writer *w, uint32_t type, const struct iovec *iov,
		  int n, bool compress)
{
	size_t raw = iov_total(iov, n), stored = 0;
	struct ftz_sec_hdr h = { .type = type };
	uint8_t hdr[FTZ_SEC_HDR_LEN];
	struct iovec payload[FTZ_MAX_IOV];
	void *zbuf = NULL;
	int err;

	if (n < 0 || n > FTZ_MAX_IOV || raw > FTZ_MAX_LEN)
		return -EINVAL;
	err = ftz_writer_error(w);
	if (err)
		return err;
	if (compress && raw)
		stored = compress_iov(w, iov, n, raw, &zbuf);
	if (stored) {
		h.flags = FTZ_FLAG_ZSTD;
		payload[0] = (struct iovec){ zbuf, stored };
		n = 1;
		h.payload_crc = ftz_crc32c(0, zbuf, stored);
	} else {
		stored = raw;
		memcpy(payload, iov, n * sizeof(*iov));
		for (int i = 0; i < n; i++)
			h.payload_crc = ftz_crc32c(h.payload_crc, iov[i].iov_base,
						   iov[i].iov_len);
	}
	h.stored_len = stored;
	h.raw_len = raw;
	ftz_sec_hdr_encode(&h, hdr);
	err = append_locked(w, type, hdr, payload, n, raw, stored);
	free(zbuf);
	return err;
}

int ftz_write_raw_sections(struct ftz_writer *w, const void *bytes, size_t len)
{
	struct iovec iov = { (void *)bytes, len };
	int err;

	pthread_mutex_lock(&w->lock);
	err = w->error;
	if (!err) {
		err = pwritev_all(w->fd, &iov, 1, w->end);
		if (err) {
			if (ftruncate(w->fd, w->end) < 0) {
				/* the torn tail is caught by the checksums */
			}
			w->error = err;
		} else {
			w->end += len;
		}
	}
	pthread_mutex_unlock(&w->lock);
	return err;
}

int ftz_write_section(struct ftz_writer *w, uint32_t type, const void *payload,
		      size_t len, bool compress)
{
	struct iovec iov = { (void *)payload, len };

	return ftz_write_iov(w, type, &iov, 1, compress);
}

void ftz_writer_set_level(struct ftz_writer *w, int zstd_level)
{
	w->level = zstd_level;
}

uint64_t ftz_writer_bytes(struct ftz_writer *w)
{
	uint64_t end;

	pthread_mutex_lock(&w->lock);
	end = w->end;
	pthread_mutex_unlock(&w->lock);
	return end;
}

void ftz_writer_page_bytes(struct ftz_writer *w, uint64_t *raw, uint64_t *stored)
{
	pthread_mutex_lock(&w->lock);
	*raw = w->page_raw;
	*stored = w->page_stored;
	pthread_mutex_unlock(&w->lock);
}

int ftz_writer_error(struct ftz_writer *w)
{
	int err;

	pthread_mutex_lock(&w->lock);
	err = w->error;
	pthread_mutex_unlock(&w->lock);
	return err;
}

int ftz_writer_close(struct ftz_writer *w)
{
	int err;

	if (!w)
		return 0;
	err = w->error;
	/* fsync so that a clean close means the END section is durable. */
	if (fsync(w->fd) < 0 && !err && errno != EINVAL)
		err = -errno;
	if (close(w->fd) < 0 && !err)
		err = -errno;
	cctx_pool_free(&w->pool);
	pthread_mutex_destroy(&w->lock);
	free(w->path);
	free(w);
	return err;
}
