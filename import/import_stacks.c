// SPDX-License-Identifier: MIT
/*
 * import_stacks.c - kernel stacks (ftrace:kernel_stack events) stored once each:
 * identical address lists share one stack_id, found through a hash of the list.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "import/import_int.h"

#define MAX_DEPTH 512

struct stack_entry {
	uint64_t hash;
	int64_t id;
	int depth;
	uint64_t *addrs;
};

struct stack_set {
	struct stack_entry *slots; /* open addressing, power-of-two size */
	size_t cap, used;
	struct tep_format_field *size_field, *caller_field;
};

static uint64_t hash_addrs(const uint64_t *a, int n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a over the addresses */

	for (int i = 0; i < n; i++) {
		h ^= a[i];
		h *= 1099511628211ull;
	}
	return h ? h : 1;
}

static int grow(struct stack_set *s)
{
	size_t cap = s->cap ? 2 * s->cap : 1024;
	struct stack_entry *n = calloc(cap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++) {
		struct stack_entry *e = &s->slots[i];
		size_t j = e->hash & (cap - 1);

		if (!e->hash)
			continue;
		while (n[j].hash)
			j = (j + 1) & (cap - 1);
		n[j] = *e;
	}
	free(s->slots);
	s->slots = n;
	s->cap = cap;
	return 0;
}

int stacks_store(struct importer *im, int64_t id, const uint64_t *addrs, int n)
{
	sqlite3_stmt *st = im->stack_insert;

	for (int i = 0; i < n; i++) {
		const char *sym = tep_find_function(im->tep, addrs[i]);

		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, i);
		sqlite3_bind_int64(st, 3, (int64_t)addrs[i]);
		if (sym)
			sqlite3_bind_text(st, 4, sym, -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_null(st, 4);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_reset(st);
			return im_sql_error_kept(im, "stacks"); /* costs this stack only */
		}
		sqlite3_reset(st);
	}
	return 0;
}

/* The addresses of a kernel_stack record: `size` entries of caller[] (bounded by
 * the record), stopping at the ULONG_MAX end marker older kernels used. The
 * format comes from the file: offsets are checked in 64-bit arithmetic, and a
 * `size` field that is no integer is ignored. */
static int read_addrs(struct importer *im, struct stack_set *s, const uint8_t *data, int size,
		      uint64_t *addrs)
{
	int ls = dec_long_size(im->dec), n, i;
	unsigned long long want = MAX_DEPTH;
	uint64_t end = ls == 8 ? ~0ull : 0xffffffffull;
	const struct tep_format_field *sf = s->size_field;
	uint32_t caller = (uint32_t)s->caller_field->offset;

	if (ls != 4 && ls != 8)
		return 0;
	if (sf && (sf->size == 1 || sf->size == 2 || sf->size == 4 || sf->size == 8) &&
	    (uint64_t)(uint32_t)sf->offset + (uint32_t)sf->size <= (uint64_t)size)
		want = tep_read_number(im->tep, data + (uint32_t)sf->offset, sf->size);
	if ((uint64_t)caller > (uint64_t)size)
		return 0;
	n = (int)(((uint64_t)size - caller) / ls);
	if ((unsigned long long)n > want)
		n = (int)want;
	if (n > MAX_DEPTH)
		n = MAX_DEPTH;
	for (i = 0; i < n; i++) {
		addrs[i] = tep_read_number(im->tep, data + caller + (uint64_t)i * ls, ls);
		if (addrs[i] == end || !addrs[i])
			break;
	}
	return i;
}

int64_t stacks_intern(struct importer *im, struct tep_event *ev, const uint8_t *data, int size)
{
	struct stack_set *s = im->stacks;
	uint64_t addrs[MAX_DEPTH], h;
	int n;
	size_t j;

	if (!s) {
		s = im->stacks = calloc(1, sizeof(*s));
		if (!s)
			return -1;
		s->size_field = tep_find_field(ev, "size");
		s->caller_field = tep_find_field(ev, "caller");
	}
	if (!s->caller_field)
		return -1;
	n = read_addrs(im, s, data, size, addrs);
	h = hash_addrs(addrs, n);
	if (s->used * 2 >= s->cap && grow(s) < 0)
		return -1;
	for (j = h & (s->cap - 1); s->slots[j].hash; j = (j + 1) & (s->cap - 1)) {
		struct stack_entry *e = &s->slots[j];

		if (e->hash == h && e->depth == n && !memcmp(e->addrs, addrs, n * sizeof(*addrs)))
			return e->id;
	}
	struct stack_entry *e = &s->slots[j];

	e->addrs = malloc((n ? n : 1) * sizeof(*addrs));
	if (!e->addrs)
		return -1;
	memcpy(e->addrs, addrs, n * sizeof(*addrs));
	e->hash = h;
	e->depth = n;
	e->id = (int64_t)++s->used;
	/* a later pass meets the stacks in the same order: their rows are there already */
	if (im->base && queue_stack(im, e->id, addrs, n) < 0)
		return -1;
	return e->id;
}

void stacks_free(struct importer *im)
{
	struct stack_set *s = im->stacks;

	if (!s)
		return;
	for (size_t i = 0; i < s->cap; i++)
		free(s->slots[i].addrs);
	free(s->slots);
	free(s);
}
