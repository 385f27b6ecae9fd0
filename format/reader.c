// SPDX-License-Identifier: MIT
/*
 * reader.c - walk a .ftz section by section, verifying every checksum, and stop
 * at the first damaged section (FORMAT.md "Reading"). Every length read from the
 * file is bounded before use: any input, however corrupt, yields either sections
 * or a damage report, never a crash or a huge allocation. A payload that is
 * decoded is at most FTZ_READ_MAX_PAYLOAD bytes, compressed or not, and a zstd
 * frame is decompressed into a buffer of exactly that declared size, so a
 * decompression bomb costs at most that much; payloads that are not decoded
 * are checksummed through a fixed buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "ftz.h"
#include "ftz_int.h"

/* What one thread reading sections needs of its own (ftz.h). */
struct ftz_read_ctx {
	uint8_t *stored;     /* payload as in the file */
	size_t stored_cap;
	ZSTD_DCtx *dctx;
};

struct ftz_reader {
	int fd;
	uint64_t pos;        /* offset of the next section header */
	uint64_t size;       /* file size, refreshed when a section seems truncated */
	unsigned major, minor;
	uint64_t damage_off;
	const char *damage;  /* NULL until damage is found */
	bool ended;          /* an END section was returned: nothing after it is read */
	struct ftz_read_ctx own; /* its scratch buffer and zstd context */
	uint8_t *raw;        /* decompressed payload */
	size_t raw_cap;
};


/* Grow *buf to hold len bytes plus a NUL, so text payloads can be used as C strings. */
static int reserve(uint8_t **buf, size_t *cap, uint64_t len)
{
	uint8_t *n;

	if (len + 1 <= *cap)
		return 0;
	n = realloc(*buf, len + 1);
	if (!n)
		return -ENOMEM;
	*buf = n;
	*cap = len + 1;
	return 0;
}

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENODATA;
		done += n;
	}
	return 0;
}

static uint64_t file_size(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
}

const char *ftz_not_regular_kind(mode_t mode)
{
	return S_ISFIFO(mode) ? "a FIFO" : S_ISDIR(mode) ? "a directory" :
	       S_ISCHR(mode) || S_ISBLK(mode) ? "a device" : "a socket";
}

struct ftz_reader *ftz_reader_open(const char *path, char *errbuf, size_t errlen)
{
	uint8_t hdr[FTZ_FILE_HDR_LEN];
	struct ftz_reader *r = calloc(1, sizeof(*r));
	ssize_t n;

	if (!r) {
		snprintf(errbuf, errlen, "%s: out of memory", path);
		return NULL;
	}
	/* O_NONBLOCK: a FIFO with no writer must not block the open; it is refused below */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0) {
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		free(r);
		return NULL;
	}
	struct stat st;
	if (fstat(r->fd, &st) < 0) {
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(errbuf, errlen, "%s: not a regular file (%s): give the capture file itself",
			 path, ftz_not_regular_kind(st.st_mode));
		goto fail;
	}
	fcntl(r->fd, F_SETFL, fcntl(r->fd, F_GETFL) & ~O_NONBLOCK);
	n = pread(r->fd, hdr, sizeof(hdr), 0);
	if (n < 0) {
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	/* A prefix of the magic is a file cut inside its header, not a foreign file. */
	if (n == 0 || memcmp(hdr, FTZ_MAGIC, n < FTZ_MAGIC_LEN ? n : FTZ_MAGIC_LEN) != 0) {
		snprintf(errbuf, errlen, "%s: not an .ftz file", path);
		goto fail;
	}
	if (n < (ssize_t)sizeof(hdr)) {
		/* a recording cut inside its header: damage at offset 0 (FORMAT.md 6) */
		snprintf(errbuf, errlen, "%s: truncated .ftz file header (%zd of %d bytes): "
			 "damaged at offset 0", path, n, FTZ_FILE_HDR_LEN);
		goto fail;
	}
	r->major = get_le16(hdr + 8);
	r->minor = get_le16(hdr + 10);
	if (r->major != FTZ_VERSION_MAJOR) {
		snprintf(errbuf, errlen,
			 "%s: .ftz format version %u.%u is not supported (this reader reads %u.x)",
			 path, r->major, r->minor, FTZ_VERSION_MAJOR);
		goto fail;
	}
	r->own.dctx = ZSTD_createDCtx();
	if (!r->own.dctx) {
		snprintf(errbuf, errlen, "%s: out of memory", path);
		goto fail;
	}
	r->pos = FTZ_FILE_HDR_LEN;
	r->size = file_size(r->fd);
	return r;
fail:
	close(r->fd);
	free(r);
	return NULL;
}

static int damaged(struct ftz_reader *r, const char *reason)
{
	r->damage_off = r->pos;
	r->damage = reason;
	return FTZ_READ_DAMAGE;
}

/* Do the bytes [pos, pos + len) exist? Re-stat once: the file may still be growing
 * (not from a second thread's ftz_reader_read_at_ctx: the size its scan saw holds). */
static bool in_file(struct ftz_reader *r, uint64_t pos, uint64_t len, bool refresh)
{
	if (pos + len <= r->size)
		return true;
	if (!refresh)
		return false;
	r->size = file_size(r->fd);
	return pos + len <= r->size;
}

/* Only zstd is understood; a section with other flag bits is returned opaque. */
static bool understood_flags(uint32_t flags)
{
	return (flags & ~FTZ_FLAG_ZSTD) == 0;
}

static bool understood(const struct ftz_sec_hdr *h)
{
	return h->type >= FTZ_SEC_INFO && h->type <= FTZ_SEC_SNAPSHOT && understood_flags(h->flags);
}

/*
 * Checksum a payload that is not decoded through a fixed buffer: an unknown
 * section of up to 1 GiB, or PAGES in a fast scan, costs no memory of its size.
 */
static const char *check_stored(struct ftz_reader *r, const struct ftz_sec_hdr *h, uint64_t off,
				struct ftz_section *sec)
{
	uint8_t chunk[64 * 1024];
	uint32_t crc = 0;

	for (uint64_t done = 0; done < h->stored_len;) {
		size_t n = h->stored_len - done < sizeof(chunk) ? h->stored_len - done : sizeof(chunk);

		if (read_at(r->fd, chunk, n, off + done) < 0)
			return "section payload is truncated";
		crc = ftz_crc32c(crc, chunk, n);
		if (!done && h->flags == 0 && h->type == FTZ_SEC_PAGES && n >= FTZ_PAGES_HEAD) {
			memcpy(sec->head, chunk, FTZ_PAGES_HEAD); /* stored as is */
			sec->head_len = FTZ_PAGES_HEAD;
		}
		done += n;
	}
	return crc == h->payload_crc ? NULL : "section payload checksum mismatch";
}

/*
 * The first bytes of a zstd PAGES payload, decoded as far as they go: ftrec ends
 * the frame's first block after the payload's fixed header (format/writer.c), so
 * this decodes 16 bytes, not the pages (older files: the first block). Left empty
 * when the frame will not give them: the section is then read whole when needed.
 */
static void pages_head(struct ftz_read_ctx *ctx, const struct ftz_sec_hdr *h, struct ftz_section *sec)
{
	static const uint8_t did_len[4] = { 0, 1, 2, 4 }, fcs_len[4] = { 0, 2, 4, 8 };
	const uint8_t *s = ctx->stored;
	ZSTD_inBuffer in = { s, 0, 0 };
	ZSTD_outBuffer out = { sec->head, FTZ_PAGES_HEAD, 0 };

	/* a zstd frame (checked by the caller): magic, descriptor, its fields (RFC 8878 3.1.1.1) */
	if (h->type != FTZ_SEC_PAGES || h->raw_len < FTZ_PAGES_HEAD || h->stored_len < 5)
		return;
	uint8_t fhd = s[4];
	size_t fh = 5 + !(fhd & 0x20) + did_len[fhd & 3] +
		    (fcs_len[fhd >> 6] ? fcs_len[fhd >> 6] : (fhd & 0x20) ? 1 : 0);

	if (fh + 3 > h->stored_len)
		return;
	/* the input ends with the first block (RFC 8878 3.1.1.2): given more, the
	 * decoder would decode the next block, the pages, before it stopped */
	uint32_t bh = s[fh] | (uint32_t)s[fh + 1] << 8 | (uint32_t)s[fh + 2] << 16;
	uint32_t btype = bh >> 1 & 3, bsize = bh >> 3;

	in.size = fh + 3 + (btype == 1 ? 1 : btype == 3 ? 0 : bsize);
	if (in.size > h->stored_len)
		return;
	ZSTD_DCtx_reset(ctx->dctx, ZSTD_reset_session_only);
	while (out.pos < out.size && in.pos < in.size)
		if (ZSTD_isError(ZSTD_decompressStream(ctx->dctx, &out, &in)))
			return;
	sec->head_len = out.pos == out.size ? FTZ_PAGES_HEAD : 0;
}

/*
 * Read, checksum and (with decode) decompress the payload of header h at off
 * into *out (grown as needed; NUL-terminated so text payloads are C strings).
 * The compressed bytes go through the reader's scratch buffer. NULL, or why not.
 * FRAME (without decode): a zstd payload of a known type is still checked to be
 * one frame of the declared size, so a scan that leaves PAGES compressed stops
 * at every damage a full read would (but a frame whose blocks do not decompress
 * under a good checksum, which only a hostile writer makes: found when read).
 */
static const char *load_payload(struct ftz_reader *r, struct ftz_read_ctx *ctx,
				const struct ftz_sec_hdr *h, uint64_t off, struct ftz_section *sec,
				bool decode, bool frame, uint8_t **out, size_t *out_cap)
{
	unsigned long long frame_len;
	size_t n;

	if (!decode && !(frame && h->flags == FTZ_FLAG_ZSTD))
		return check_stored(r, h, off, sec);
	if (!(h->flags & FTZ_FLAG_ZSTD)) {
		if (reserve(out, out_cap, h->stored_len) < 0)
			return "out of memory for the section payload";
		if (read_at(r->fd, *out, h->stored_len, off) < 0)
			return "section payload is truncated";
		if (ftz_crc32c(0, *out, h->stored_len) != h->payload_crc)
			return "section payload checksum mismatch";
		(*out)[h->stored_len] = '\0';
		sec->data = *out;
		sec->len = h->stored_len;
		return NULL;
	}
	if (reserve(&ctx->stored, &ctx->stored_cap, h->stored_len) < 0)
		return "out of memory for the section payload";
	if (read_at(r->fd, ctx->stored, h->stored_len, off) < 0)
		return "section payload is truncated";
	if (ftz_crc32c(0, ctx->stored, h->stored_len) != h->payload_crc)
		return "section payload checksum mismatch";
	/* Exactly one frame (FORMAT.md 3): a second frame, a skippable frame or
	 * trailing bytes are damage, so that no two readers see different payloads. */
	if (h->stored_len < 4 || get_le32(ctx->stored) != ZSTD_MAGICNUMBER ||
	    ZSTD_findFrameCompressedSize(ctx->stored, h->stored_len) != h->stored_len)
		return "zstd payload is not exactly one zstd frame";
	/* The frame must say the size the header says (the writer records it), so
	 * the output buffer below, of raw_len bytes, bounds what zstd may produce. */
	frame_len = ZSTD_getFrameContentSize(ctx->stored, h->stored_len);
	if (frame_len != h->raw_len)
		return "zstd frame does not declare the section's raw length";
	if (!decode) {
		pages_head(ctx, h, sec);
		return NULL;
	}
	if (reserve(out, out_cap, h->raw_len) < 0)
		return "out of memory for the decompressed payload";
	n = ZSTD_decompressDCtx(ctx->dctx, *out, h->raw_len, ctx->stored, h->stored_len);
	if (ZSTD_isError(n) || n != h->raw_len)
		return "zstd payload does not decompress to its raw length";
	(*out)[n] = '\0';
	sec->data = *out;
	sec->len = n;
	return NULL;
}

/*
 * The section at pos: header checks in FORMAT.md's order, then the payload into
 * *out. FTZ_READ_END at the end of the file, FTZ_READ_OK, or FTZ_READ_DAMAGE
 * with *why set. Touches neither r->pos nor r->damage.
 */
static int read_section(struct ftz_reader *r, struct ftz_read_ctx *ctx, uint64_t pos,
			struct ftz_section *sec, bool want_pages, uint8_t **out, size_t *out_cap,
			const char **why)
{
	bool refresh = ctx == &r->own;
	uint8_t buf[FTZ_SEC_HDR_LEN];
	struct ftz_sec_hdr h;
	bool known = false;

	if (!in_file(r, pos, 1, refresh))
		return FTZ_READ_END;
	*why = NULL;
	if (!in_file(r, pos, FTZ_SEC_HDR_LEN, refresh) || read_at(r->fd, buf, sizeof(buf), pos) < 0)
		*why = "truncated section header";
	else if (ftz_sec_hdr_decode(buf, &h) < 0)
		*why = "section header checksum mismatch";
	else if (h.stored_len > FTZ_MAX_LEN || h.raw_len > FTZ_MAX_LEN)
		*why = "section length over the 1 GiB limit";
	else if (h.flags == 0 && h.raw_len != h.stored_len)
		/* with unknown flag bits raw_len may mean something else: not judged */
		*why = "uncompressed section with raw length != stored length";
	else if ((known = understood(&h)) &&
		 (h.raw_len > FTZ_READ_MAX_PAYLOAD || h.stored_len > FTZ_READ_MAX_PAYLOAD))
		*why = "section payload over this reader's 64 MiB limit";
	else if (!in_file(r, pos, FTZ_SEC_HDR_LEN + h.stored_len, refresh))
		*why = "section payload is truncated";
	if (*why)
		return FTZ_READ_DAMAGE;

	*sec = (struct ftz_section){
		.type = h.type, .flags = h.flags, .offset = pos,
		.stored_len = h.stored_len, .raw_len = h.raw_len,
	};
	/* The checksum and the frame are verified even when the payload is not
	 * decoded, so a fast scan stops at the same damage as a full read (except a
	 * frame whose blocks are bad under a good checksum: load_payload). */
	*why = load_payload(r, ctx, &h, pos + FTZ_SEC_HDR_LEN, sec,
			    known && (want_pages || h.type != FTZ_SEC_PAGES), known, out, out_cap);
	return *why ? FTZ_READ_DAMAGE : FTZ_READ_OK;
}

int ftz_reader_next(struct ftz_reader *r, struct ftz_section *sec, bool want_pages)
{
	const char *why;
	int rc;

	if (r->damage)
		return FTZ_READ_DAMAGE;
	if (r->ended) /* END is the last section: what follows is not the recording's */
		return FTZ_READ_END;
	rc = read_section(r, &r->own, r->pos, sec, want_pages, &r->raw, &r->raw_cap, &why);
	if (rc == FTZ_READ_DAMAGE)
		return damaged(r, why);
	if (rc == FTZ_READ_OK) {
		r->pos += FTZ_SEC_HDR_LEN + sec->stored_len;
		r->ended = sec->type == FTZ_SEC_END && understood_flags(sec->flags);
	}
	return rc;
}

int ftz_reader_read_at(struct ftz_reader *r, uint64_t offset, struct ftz_section *sec,
		       uint8_t **buf, size_t *cap, const char **why)
{
	return ftz_reader_read_at_ctx(r, &r->own, offset, sec, buf, cap, why);
}

struct ftz_read_ctx *ftz_read_ctx_new(void)
{
	struct ftz_read_ctx *ctx = calloc(1, sizeof(*ctx));

	if (ctx && !(ctx->dctx = ZSTD_createDCtx())) {
		free(ctx);
		ctx = NULL;
	}
	return ctx;
}

void ftz_read_ctx_free(struct ftz_read_ctx *ctx)
{
	if (!ctx)
		return;
	free(ctx->stored);
	ZSTD_freeDCtx(ctx->dctx);
	free(ctx);
}

int ftz_reader_read_at_ctx(struct ftz_reader *r, struct ftz_read_ctx *ctx, uint64_t offset,
			   struct ftz_section *sec, uint8_t **buf, size_t *cap, const char **why)
{
	int rc;

	if (offset < FTZ_FILE_HDR_LEN) {
		*why = "section offset inside the file header";
		return FTZ_READ_DAMAGE;
	}
	rc = read_section(r, ctx, offset, sec, true, buf, cap, why);
	if (rc == FTZ_READ_END) {
		*why = "no section at this offset";
		return FTZ_READ_DAMAGE;
	}
	return rc;
}

int ftz_reader_seek(struct ftz_reader *r, uint64_t offset)
{
	if (offset < FTZ_FILE_HDR_LEN)
		return -EINVAL;
	r->pos = offset;
	r->ended = false;
	r->damage = NULL;
	r->damage_off = 0;
	return 0;
}

void ftz_reader_trim(struct ftz_reader *r)
{
	free(r->own.stored);
	free(r->raw);
	r->own.stored = r->raw = NULL;
	r->own.stored_cap = r->raw_cap = 0;
}

uint64_t ftz_reader_damage(const struct ftz_reader *r, const char **reason)
{
	if (reason)
		*reason = r->damage ? r->damage : "no damage";
	return r->damage_off;
}

uint64_t ftz_reader_file_size(const struct ftz_reader *r)
{
	return r->size;
}

void ftz_reader_version(const struct ftz_reader *r, unsigned *major, unsigned *minor)
{
	*major = r->major;
	*minor = r->minor;
}

void ftz_reader_close(struct ftz_reader *r)
{
	if (!r)
		return;
	close(r->fd);
	free(r->own.stored);
	free(r->raw);
	ZSTD_freeDCtx(r->own.dctx);
	free(r);
}
