// SPDX-License-Identifier: MIT
/*
 * decode_meta.c - feed a recording's own metadata to libtraceevent: header_page,
 * every event format file (the ftrace system's included), kallsyms, printk_formats,
 * saved_cmdlines. Nothing is taken from the host ftana runs on. Also where the
 * SNAPSHOT sections are, for import_profile.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decode_int.h"
#include "decode/ftrace_names.h"
#include "decode/tep_guard.h"

/*
 * FILE sections are found by (name, phase) through a hash table: a file may hold
 * any number of them, and a linear search per section made 250,000 of them take
 * minutes. FNV-1a of the name, the phase mixed in; linear probing.
 */
static size_t file_hash(const char *name, int phase)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)phase;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	return (size_t)(h ^ h >> 32);
}

/* The slot of file_index holding (name, phase), or the empty slot where it goes. */
static size_t *index_slot(const struct dec *d, const char *name, int phase)
{
	size_t mask = d->file_index_cap - 1;

	for (size_t i = file_hash(name, phase) & mask;; i = (i + 1) & mask) {
		size_t *slot = &d->file_index[i];
		const struct dec_file *f;

		if (!*slot)
			return slot;
		f = &d->files[*slot - 1];
		if (f->phase == phase && !strcmp(f->name, name))
			return slot;
	}
}

static const struct dec_file *find_file(const struct dec *d, const char *name, int phase)
{
	size_t *slot;

	if (!d->file_index_cap)
		return NULL;
	slot = index_slot(d, name, phase);
	return *slot ? &d->files[*slot - 1] : NULL;
}

/* Room for one more file in files[] and in the index (kept at most half full). */
static int grow_files(struct dec *d)
{
	if (d->nr_files == d->cap_files) {
		size_t cap = d->cap_files ? 2 * d->cap_files : 64;
		struct dec_file *n = realloc(d->files, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		d->files = n;
		d->cap_files = cap;
	}
	if (2 * (d->nr_files + 1) > d->file_index_cap) {
		size_t cap = d->file_index_cap ? 2 * d->file_index_cap : 128;
		size_t *old = d->file_index, old_cap = d->file_index_cap;

		d->file_index = calloc(cap, sizeof(*d->file_index));
		if (!d->file_index) {
			d->file_index = old;
			return -ENOMEM;
		}
		d->file_index_cap = cap;
		for (size_t i = 0; i < old_cap; i++)
			if (old[i]) {
				const struct dec_file *f = &d->files[old[i] - 1];

				*index_slot(d, f->name, f->phase) = old[i];
			}
		free(old);
	}
	return 0;
}

/*
 * Keep a copy of a FILE section; a later snapshot of the same name and phase
 * replaces it, so only the latest copy of each is held. What is held is bounded
 * by DEC_MAX_FILE_BYTES (each section by the reader's FTZ_READ_MAX_PAYLOAD).
 */
int dmeta_add_file(struct dec *d, const struct ftz_file *f)
{
	const struct dec_file *old = find_file(d, f->name, (int)f->phase);
	size_t name_len = strlen(f->name);
	uint64_t bytes = d->file_bytes + f->len + (old ? 0 : name_len);
	struct dec_file *slot;
	char *data;

	if (bytes - (old ? old->len : 0) > DEC_MAX_FILE_BYTES)
		return -E2BIG;
	if (old) { /* freed first, so two copies are never held at once */
		slot = &d->files[old - d->files];
		d->file_bytes -= slot->len;
		bytes -= slot->len;
		free((char *)slot->data);
		slot->data = NULL;
		slot->len = 0;
	}
	data = malloc(f->len + 1);
	if (!data)
		return -ENOMEM;
	memcpy(data, f->data, f->len);
	data[f->len] = '\0';
	if (!old) {
		char *name = strdup(f->name);

		if (!name || grow_files(d) < 0) {
			free(name);
			free(data);
			return -ENOMEM;
		}
		slot = &d->files[d->nr_files++];
		slot->name = name;
		slot->phase = f->phase;
		*index_slot(d, name, f->phase) = d->nr_files;
	}
	slot->data = data;
	slot->len = f->len;
	d->file_bytes = bytes;
	return 0;
}

int dmeta_add_snapshot(struct dec *d, uint64_t offset)
{
	if (d->nr_snapshots == d->cap_snapshots) {
		size_t cap = d->cap_snapshots ? 2 * d->cap_snapshots : 64;
		uint64_t *n = realloc(d->snapshots, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		d->snapshots = n;
		d->cap_snapshots = cap;
	}
	d->snapshots[d->nr_snapshots++] = offset;
	return 0;
}

int dec_for_each_snapshot(struct dec *d, dec_snapshot_fn fn, void *ctx)
{
	uint8_t *buf = NULL;
	size_t cap = 0;
	int rc = 0;

	for (size_t i = 0; !rc && i < d->nr_snapshots; i++) {
		struct ftz_section sec;
		struct ftz_snapshot snap;
		const char *why;

		/* The scan in dec_open read these sections whole: reading them again can
		 * only fail if the file changed since. */
		if (ftz_reader_read_at(d->r, d->snapshots[i], &sec, &buf, &cap, &why) != FTZ_READ_OK ||
		    ftz_parse_snapshot(&sec, &snap) < 0)
			rc = -EIO;
		else
			rc = fn(ctx, &snap);
	}
	free(buf);
	return rc;
}

const char *dec_file(const struct dec *d, const char *name, int phase, size_t *len)
{
	const struct dec_file *f;

	if (phase >= 0) /* phases other than START and END only by their number */
		f = find_file(d, name, phase);
	else if (!(f = find_file(d, name, FTZ_PHASE_END)))
		f = find_file(d, name, FTZ_PHASE_START);
	if (f && len)
		*len = f->len;
	return f ? f->data : NULL;
}

size_t dec_nr_files(const struct dec *d)
{
	return d->nr_files;
}

const struct dec_file *dec_file_at(const struct dec *d, size_t i)
{
	return i < d->nr_files ? &d->files[i] : NULL;
}

/* "events/SYS/EVENT/format" -> SYS in sys (NUL-terminated), else false. */
static bool format_file_system(const char *name, char *sys, size_t len)
{
	const char *s, *e;

	if (strncmp(name, "events/", 7))
		return false;
	s = name + 7;
	e = strchr(s, '/');
	if (!e || (size_t)(e - s) >= len || !strchr(e + 1, '/'))
		return false;
	if (strcmp(strrchr(name, '/'), "/format"))
		return false;
	memcpy(sys, s, e - s);
	sys[e - s] = '\0';
	return true;
}

static bool host_big_endian(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 0;
}


/*
 * saved_cmdlines as the kernel writes it ("PID COMM" lines, COMM at most 15 bytes),
 * each name cut at CMDLINE_COMM_MAX: libtraceevent keeps whatever it is given, and a
 * 16 MiB name from a hostile capture would be printed on every one of its task's lines
 * (by ftana, and by trace-cmd from a trace.dat ftana wrote). The names past the cut
 * are no task's real one.
 */
#define CMDLINE_COMM_MAX 64

char *dec_cmdlines_capped(const char *text)
{
	size_t n = strlen(text);
	char *out = malloc(n + 1), *o = out;

	if (!out)
		return NULL;
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n'), *end = nl ? nl : l + strlen(l);
		const char *sp = memchr(l, ' ', (size_t)(end - l));
		size_t keep = (size_t)(end - l);

		if (sp && (size_t)(end - sp - 1) > CMDLINE_COMM_MAX)
			keep = (size_t)(sp + 1 - l) + CMDLINE_COMM_MAX;
		memcpy(o, l, keep);
		o += keep;
		if (nl)
			*o++ = '\n';
		l = nl ? nl + 1 : end;
	}
	*o = '\0';
	return out;
}

int dmeta_load_tep(struct dec *d)
{
	const char *text;
	size_t len, nr_formats = 0;
	struct tep_guard_format *formats;
	char (*systems)[128], sys[128];
	char how[32];
	int rc;

	d->tep = tep_alloc();
	if (!d->tep)
		return dec_fail(d, "%s: out of memory", d->path);
	tep_set_long_size(d->tep, d->long_size);
	tep_set_page_size(d->tep, d->stats.page_size);
	tep_set_file_bigendian(d->tep, d->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(d->tep, host_big_endian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_cpus(d->tep, d->stats.nr_cpus);

	text = dec_file(d, "events/header_page", -1, &len);
	if (!text)
		return dec_fail(d, "%s: no events/header_page in the recording", d->path);
	for (size_t i = 0; i < d->nr_files; i++)
		nr_formats += format_file_system(d->files[i].name, sys, sizeof(sys));
	formats = calloc(nr_formats + 1, sizeof(*formats));
	systems = calloc(nr_formats + 1, sizeof(*systems));
	nr_formats = 0;
	if (!formats || !systems) {
		free(formats);
		free(systems);
		return dec_fail(d, "%s: out of memory", d->path);
	}
	for (size_t i = 0; i < d->nr_files; i++) {
		const struct dec_file *f = &d->files[i];

		if (!format_file_system(f->name, systems[nr_formats], sizeof(systems[0])))
			continue;
		formats[nr_formats] = (struct tep_guard_format){ .file = f->name,
			.system = systems[nr_formats], .text = f->data, .len = f->len };
		nr_formats++;
	}
	/*
	 * header_page and the event formats are text from the file, and libtraceevent
	 * crashes on some (`1/0` in a print fmt): each is parsed in a forked child
	 * first, and here only if it survived there (decode/tep_guard.h says why
	 * isolation rather than checking the text). A format that cannot be parsed,
	 * or crashes the parser, costs that event only. tep_parse_header_page wants
	 * a writable buffer; our copy is ours.
	 */
	struct tep_guard_header header = { .text = (char *)text, .len = len, .long_size = d->long_size };
	rc = tep_guard_parse_formats(d->tep, d->path, &header, formats, nr_formats);
	free(formats);
	free(systems);
	if (rc == -EINTR)
		return dec_fail(d, "%s: interrupted while parsing its formats", d->path);
	if (rc < 0)
		return dec_fail(d, "%s: cannot start a process to parse its formats in: %s",
				d->path, strerror(-rc));
	if (rc && header.result == 2)
		return dec_fail(d, "%s: events/header_page crashes libtraceevent (%s)",
				d->path, tep_guard_death_text(&header.why, how, sizeof(how)));
	if (rc)
		return dec_fail(d, "%s: events/header_page cannot be parsed", d->path);
	/* Checked line by line: libtraceevent's own reader over-reads bad lines. */
	text = dec_file(d, "printk_formats", -1, NULL);
	if (text && *text) {
		size_t dropped = tep_guard_register_printk_formats(d->tep, text);

		if (dropped)
			tep_guard_warn_once(d->path, "%zu malformed printk_formats line%s "
				"ignored", dropped, dropped == 1 ? "" : "s");
	}
	text = dec_file(d, "/proc/kallsyms", -1, NULL);
	if (text && *text)
		tep_parse_kallsyms(d->tep, text);
	ftrace_name_functions(d->tep); /* a pre-%ps kernel's function events, by name */
	text = dec_file(d, "saved_cmdlines", -1, NULL);
	if (text && *text) {
		char *capped = dec_cmdlines_capped(text);

		if (capped)
			tep_parse_saved_cmdlines(d->tep, capped);
		free(capped);
	}
	return 0;
}

void dmeta_free(struct dec *d)
{
	for (size_t i = 0; i < d->nr_files; i++) {
		free((char *)d->files[i].name);
		free((char *)d->files[i].data);
	}
	free(d->files);
	free(d->file_index);
	free(d->snapshots);
	if (d->tep)
		tep_free(d->tep);
}
