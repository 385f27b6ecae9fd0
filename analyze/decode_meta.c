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

#include "analyze/decode_int.h"
#include "analyze/ftrace_names.h"

/* Keep a copy of a FILE section; a later snapshot of the same name and phase replaces it. */
int dmeta_add_file(struct dec *d, const struct ftz_file *f)
{
	struct dec_file *slot = NULL;
	char *data;

	for (size_t i = 0; i < d->nr_files; i++)
		if (d->files[i].phase == (int)f->phase && !strcmp(d->files[i].name, f->name))
			slot = &d->files[i];
	data = malloc(f->len + 1);
	if (!data)
		return -ENOMEM;
	memcpy(data, f->data, f->len);
	data[f->len] = '\0';
	if (!slot) {
		struct dec_file *n = realloc(d->files, (d->nr_files + 1) * sizeof(*n));

		if (!n) {
			free(data);
			return -ENOMEM;
		}
		d->files = n;
		slot = &d->files[d->nr_files++];
		slot->name = strdup(f->name);
		slot->phase = f->phase;
		if (!slot->name) {
			free(data);
			d->nr_files--;
			return -ENOMEM;
		}
	} else {
		free((char *)slot->data);
	}
	slot->data = data;
	slot->len = f->len;
	return 0;
}

int dmeta_add_snapshot(struct dec *d, uint64_t offset)
{
	uint64_t *n = realloc(d->snapshots, (d->nr_snapshots + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	d->snapshots = n;
	d->snapshots[d->nr_snapshots++] = offset;
	return 0;
}

int dec_for_each_snapshot(struct dec *d, dec_snapshot_fn fn, void *ctx)
{
	char err[256];
	struct ftz_reader *r;
	int rc = 0;

	if (!d->nr_snapshots)
		return 0;
	r = ftz_reader_open(d->path, err, sizeof(err));
	if (!r)
		return -EIO;
	for (size_t i = 0; !rc && i < d->nr_snapshots; i++) {
		struct ftz_section sec;
		struct ftz_snapshot snap;

		/* The scan in dec_open read these sections whole: reading them again can
		 * only fail if the file changed since. */
		if (ftz_reader_seek(r, d->snapshots[i]) < 0 ||
		    ftz_reader_next(r, &sec, false) != FTZ_READ_OK || ftz_parse_snapshot(&sec, &snap) < 0)
			rc = -EIO;
		else
			rc = fn(ctx, &snap);
	}
	ftz_reader_close(r);
	return rc;
}

const char *dec_file(const struct dec *d, const char *name, int phase, size_t *len)
{
	const struct dec_file *best = NULL;

	for (size_t i = 0; i < d->nr_files; i++) {
		const struct dec_file *f = &d->files[i];

		if (strcmp(f->name, name) || (phase >= 0 && f->phase != phase))
			continue;
		if (!best || f->phase == FTZ_PHASE_END)
			best = f;
	}
	if (best && len)
		*len = best->len;
	return best ? best->data : NULL;
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

int dmeta_load_tep(struct dec *d, char *err, size_t errlen)
{
	const char *text;
	size_t len;
	char sys[128];

	d->tep = tep_alloc();
	if (!d->tep) {
		snprintf(err, errlen, "%s: out of memory", d->path);
		return -ENOMEM;
	}
	tep_set_long_size(d->tep, d->long_size);
	tep_set_page_size(d->tep, d->stats.page_size);
	tep_set_file_bigendian(d->tep, d->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(d->tep, host_big_endian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_cpus(d->tep, d->stats.nr_cpus);

	text = dec_file(d, "events/header_page", -1, &len);
	if (!text) {
		snprintf(err, errlen, "%s: no events/header_page in the recording", d->path);
		return -EINVAL;
	}
	/* tep_parse_header_page wants a writable buffer; our copy is ours. */
	if (tep_parse_header_page(d->tep, (char *)text, len, d->long_size)) {
		snprintf(err, errlen, "%s: events/header_page cannot be parsed", d->path);
		return -EINVAL;
	}
	for (size_t i = 0; i < d->nr_files; i++) {
		const struct dec_file *f = &d->files[i];

		if (!format_file_system(f->name, sys, sizeof(sys)))
			continue;
		/* An unparsable format only costs that event's fields: keep going. */
		if (tep_parse_event(d->tep, f->data, f->len, sys))
			fprintf(stderr, "ftana: %s: warning: cannot parse %s\n", d->path, f->name);
	}
	text = dec_file(d, "printk_formats", -1, NULL);
	if (text && *text)
		tep_parse_printk_formats(d->tep, text);
	text = dec_file(d, "/proc/kallsyms", -1, NULL);
	if (text && *text)
		tep_parse_kallsyms(d->tep, text);
	ftrace_name_functions(d->tep); /* a pre-%ps kernel's function events, by name */
	text = dec_file(d, "saved_cmdlines", -1, NULL);
	if (text && *text)
		tep_parse_saved_cmdlines(d->tep, text);
	return 0;
}

void dmeta_free(struct dec *d)
{
	for (size_t i = 0; i < d->nr_files; i++) {
		free((char *)d->files[i].name);
		free((char *)d->files[i].data);
	}
	free(d->files);
	free(d->snapshots);
	if (d->tep)
		tep_free(d->tep);
}
