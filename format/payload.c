// SPDX-License-Identifier: MIT
/*
 * payload.c - build and parse the payloads of the known section types
 * (FORMAT.md section 4): FILE, PAGES and SNAPSHOT binary headers, INFO/END
 * key=value text.
 */
#include <errno.h>
#include <string.h>

#include "ftz.h"
#include "ftz_int.h"
#include "writer_int.h"

int ftz_write_info(struct ftz_writer *w, uint32_t type, const char *kv_text)
{
	return ftz_write_section(w, type, kv_text, strlen(kv_text), true);
}

int ftz_write_file(struct ftz_writer *w, enum ftz_phase phase, const char *name,
		   const void *data, size_t len)
{
	size_t name_len = strlen(name);
	uint8_t fixed[FTZ_FILE_FIXED_LEN] = { phase, 0 };
	struct iovec iov[] = {
		{ fixed, sizeof(fixed) }, { (void *)name, name_len }, { (void *)data, len },
	};

	if (name_len == 0 || name_len > UINT16_MAX)
		return -EINVAL;
	put_le16(fixed + 2, name_len);
	return ftz_write_iov(w, FTZ_SEC_FILE, iov, 3, true);
}

int ftz_write_pages(struct ftz_writer *w, uint32_t cpu, uint32_t page_size,
		    const void *pages, uint32_t nr_pages)
{
	uint8_t fixed[FTZ_PAGES_FIXED_LEN];
	struct iovec iov[] = {
		{ fixed, sizeof(fixed) }, { (void *)pages, (size_t)page_size * nr_pages },
	};

	put_le32(fixed, cpu);
	put_le32(fixed + 4, page_size);
	put_le32(fixed + 8, nr_pages);
	put_le32(fixed + 12, 0);
	return ftz_write_iov(w, FTZ_SEC_PAGES, iov, 2, true);
}

int ftz_write_snapshot(struct ftz_writer *w, const struct ftz_snapshot_time *t,
		       const char *name, const void *data, size_t len)
{
	size_t name_len = strlen(name);
	uint8_t fixed[FTZ_SNAPSHOT_FIXED_LEN];
	struct iovec iov[] = {
		{ fixed, sizeof(fixed) }, { (void *)name, name_len }, { (void *)data, len },
	};

	if (name_len == 0 || name_len > UINT16_MAX)
		return -EINVAL;
	put_le64(fixed, t->mono_ns);
	put_le64(fixed + 8, t->wall_ns);
	put_le32(fixed + 16, t->round);
	put_le16(fixed + 20, name_len);
	put_le16(fixed + 22, 0);
	return ftz_write_iov(w, FTZ_SEC_SNAPSHOT, iov, 3, true);
}

/*
 * The name is returned NUL-terminated, but in the payload it is followed by the
 * file bytes, so it is copied. A thread-local buffer keeps the const API: the
 * copy stays valid until the next ftz_parse_file call in the same thread.
 */
static __thread char file_name[UINT16_MAX + 1];

/*
 * The name of FILE and SNAPSHOT payloads: name_len at name_len_at, the name at
 * fixed_len, the data after it. 0, or -EINVAL for a bad length or an embedded NUL.
 */
static int parse_named(const struct ftz_section *sec, size_t fixed_len, size_t name_len_at,
		       const char **name, const uint8_t **data, size_t *len)
{
	size_t name_len;

	if (!sec->data || sec->len < fixed_len)
		return -EINVAL;
	name_len = get_le16(sec->data + name_len_at);
	if (name_len == 0 || sec->len - fixed_len < name_len)
		return -EINVAL;
	if (memchr(sec->data + fixed_len, '\0', name_len)) /* not a valid name */
		return -EINVAL;
	memcpy(file_name, sec->data + fixed_len, name_len);
	file_name[name_len] = '\0';
	*name = file_name;
	*data = sec->data + fixed_len + name_len;
	*len = sec->len - fixed_len - name_len;
	return 0;
}

int ftz_parse_file(const struct ftz_section *sec, struct ftz_file *out)
{
	if (sec->type != FTZ_SEC_FILE ||
	    parse_named(sec, FTZ_FILE_FIXED_LEN, 2, &out->name, &out->data, &out->len))
		return -EINVAL;
	out->phase = sec->data[0];
	return 0;
}

int ftz_parse_snapshot(const struct ftz_section *sec, struct ftz_snapshot *out)
{
	if (sec->type != FTZ_SEC_SNAPSHOT ||
	    parse_named(sec, FTZ_SNAPSHOT_FIXED_LEN, 20, &out->name, &out->data, &out->len))
		return -EINVAL;
	out->time.mono_ns = get_le64(sec->data);
	out->time.wall_ns = get_le64(sec->data + 8);
	out->time.round = get_le32(sec->data + 16);
	return 0;
}

int ftz_parse_pages(const struct ftz_section *sec, struct ftz_pages *out)
{
	uint64_t need;

	if (sec->type != FTZ_SEC_PAGES || !sec->data || sec->len < FTZ_PAGES_FIXED_LEN)
		return -EINVAL;
	out->cpu = get_le32(sec->data);
	out->page_size = get_le32(sec->data + 4);
	out->nr_pages = get_le32(sec->data + 8);
	out->pages = sec->data + FTZ_PAGES_FIXED_LEN;
	need = (uint64_t)out->page_size * out->nr_pages;
	if (out->page_size == 0 || need != sec->len - FTZ_PAGES_FIXED_LEN)
		return -EINVAL;
	return 0;
}

int ftz_parse_pages_head(const struct ftz_section *sec, struct ftz_pages *out)
{
	uint64_t need;

	if (sec->type != FTZ_SEC_PAGES || sec->head_len < FTZ_PAGES_FIXED_LEN ||
	    sec->raw_len < FTZ_PAGES_FIXED_LEN)
		return -EINVAL;
	out->cpu = get_le32(sec->head);
	out->page_size = get_le32(sec->head + 4);
	out->nr_pages = get_le32(sec->head + 8);
	out->pages = NULL;
	need = (uint64_t)out->page_size * out->nr_pages;
	if (out->page_size == 0 || need != sec->raw_len - FTZ_PAGES_FIXED_LEN)
		return -EINVAL;
	return 0;
}

static uint32_t load_u32(const uint8_t *p, bool big_endian)
{
	return big_endian ? (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3] : get_le32(p);
}

/*
 * FORMAT.md 4.3.1: does every record of a sub-buffer's data lie wholly inside it?
 * libtraceevent's kbuffer trusts the lengths it finds: it would read past the data
 * (past the buffer, for the last page of a batch), hand out a record of negative
 * length, or loop for ever on a padding length that wraps its int.
 */
bool ftz_page_records_ok(const uint8_t *data, uint64_t size, bool big_endian)
{
	for (uint64_t pos = 0, end; pos < size; pos = end) {
		uint32_t word, type_len, len;

		if (pos + 4 > size)
			return false;
		word = load_u32(data + pos, big_endian);
		type_len = big_endian ? word >> 27 : word & 31;
		if (type_len >= 29) { /* padding, time extend, absolute time stamp */
			if (pos + 8 > size)
				return false;
			len = load_u32(data + pos + 4, big_endian);
			end = type_len == 29 ? pos + 4 + len : pos + 8;
		} else if (type_len == 0) { /* a length word (itself included), then the data */
			if (pos + 8 > size)
				return false;
			len = load_u32(data + pos + 4, big_endian) - 4;
			if (len >= 1u << 31 || len == 0) /* kbuffer: an int below 1 */
				return false;
			end = pos + 8 + ((uint64_t)len + 3) / 4 * 4;
		} else {
			end = pos + 4 + 4 * type_len;
		}
		if (end > size)
			return false;
	}
	return true;
}

/*
 * Lines are "key=value"; a line without '=' is ignored; the last match wins.
 * A NUL ends the text: callers that hold the text as a C string see the same keys.
 */
int ftz_kv_get(const char *text, size_t len, const char *key, char *buf, size_t buflen)
{
	size_t key_len = strlen(key);
	const char *end = text + strnlen(text, len), *val = NULL;
	size_t val_len = 0;

	for (const char *line = text; line < end;) {
		const char *nl = memchr(line, '\n', end - line);
		const char *eol = nl ? nl : end;

		if ((size_t)(eol - line) > key_len && line[key_len] == '=' &&
		    memcmp(line, key, key_len) == 0) {
			val = line + key_len + 1;
			val_len = eol - val;
		}
		line = eol + 1;
	}
	if (!val)
		return -ENOENT;
	if (buflen) {
		size_t n = val_len < buflen - 1 ? val_len : buflen - 1;

		memcpy(buf, val, n);
		buf[n] = '\0';
	}
	return val_len;
}
