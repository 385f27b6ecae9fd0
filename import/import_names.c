// SPDX-License-Identifier: MIT
/*
 * import_names.c - SQL names for what a capture names: one table per event type,
 * one column per format field. The names come from the file (a trace.dat's system
 * names have no limit of length or bytes), so they are made safe here, once, and
 * every statement that uses them still quotes them ("%w", import_plan.c).
 *
 * The rule (also in schema/tables.sql):
 *  - Printable ASCII is kept; any other byte becomes '_' (a terminal shows the name
 *    as it is, and case folds in C as it folds in SQLite: ASCII only). An empty
 *    name becomes "unnamed". A name longer than NAME_KEEP bytes keeps its start
 *    and gets "_" and 8 hex digits of a hash of the whole name.
 *  - A table is named after its event; "<system>_<event>" when another event has
 *    the same name (compared case-insensitively, as SQLite compares names) or the
 *    name is reserved: a table, view or index our SQL creates (every CREATE in
 *    schema/, the names listed in reserved_in_c) or anything SQLite keeps for
 *    itself (sqlite_*; such a name gets the prefix "ev_").
 *  - A column is named after its field; "field_<name>" when that is a fixed
 *    column's name (id, ts, cpu, pid, stack_id).
 *  - A name still taken (case-insensitively) gets "_2", "_3", ... Events are named
 *    in the order (ID, system, name), fields in format order: the same file always
 *    gives the same names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "import/import_int.h"
#include "store/sql_files.h"

#define NAME_KEEP 100   /* bytes of a long name kept before its hash */

/* Made by C code, not by an SQL file: the view of all events and report tables. */
static const char *const reserved_in_c[] = { "events", "iolat_sel", "stack_refs", "diff_rows",
					     "io_submitters", "capture_stop", NULL };
static const char *const fixed_cols[] = { "id", "ts", "cpu", "pid", "stack_id", NULL };

/* ---------------------------------------------------------------- case-insensitive name set */

struct name_slot {
	char *name;
	unsigned next_suffix; /* as a base of unique_name: the next "_N" to try */
};

struct name_set {
	struct name_slot *slots; /* open addressing, power-of-two size */
	size_t cap, used;
};

static uint64_t hash_ci(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a over the lower-cased bytes */

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		h ^= (c >= 'A' && c <= 'Z') ? c + 32 : c;
		h *= 1099511628211ull;
	}
	return h;
}

static size_t set_slot(const struct name_set *s, const char *name)
{
	size_t j = hash_ci(name) & (s->cap - 1);

	while (s->slots[j].name && strcasecmp(s->slots[j].name, name))
		j = (j + 1) & (s->cap - 1);
	return j;
}

static struct name_slot *set_find(const struct name_set *s, const char *name)
{
	struct name_slot *e = s->cap ? &s->slots[set_slot(s, name)] : NULL;

	return e && e->name ? e : NULL;
}

static bool set_has(const struct name_set *s, const char *name)
{
	return set_find(s, name) != NULL;
}

/* Add a copy of NAME (no-op when present). */
static int set_add(struct name_set *s, const char *name)
{
	size_t j;

	if ((s->used + 1) * 2 > s->cap) {
		struct name_set n = { .cap = s->cap ? 2 * s->cap : 64, .used = s->used };

		n.slots = calloc(n.cap, sizeof(*n.slots));
		if (!n.slots)
			return -ENOMEM;
		for (size_t i = 0; i < s->cap; i++)
			if (s->slots[i].name)
				n.slots[set_slot(&n, s->slots[i].name)] = s->slots[i];
		free(s->slots);
		*s = n;
	}
	j = set_slot(s, name);
	if (s->slots[j].name)
		return 0;
	s->slots[j].name = strdup(name);
	if (!s->slots[j].name)
		return -ENOMEM;
	s->used++;
	return 0;
}

static void set_free(struct name_set *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->slots[i].name);
	free(s->slots);
	*s = (struct name_set){ 0 };
}

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcasecmp(*list, s))
			return true;
	return false;
}

/* ---------------------------------------------------------------- reserved names */

/* The next word of SQL text (letters, digits, '_', '.', '"'), skipping comments. */
static const char *sql_word(const char *p, char *w, size_t wlen)
{
	size_t n = 0;

	for (;;) {
		while (*p && !(*p == '_' || *p == '.' || *p == '"' || (*p >= '0' && *p <= '9') ||
			       ((*p | 32) >= 'a' && (*p | 32) <= 'z')) && !(p[0] == '-' && p[1] == '-'))
			p++;
		if (p[0] == '-' && p[1] == '-') {
			p += strcspn(p, "\n");
			continue;
		}
		break;
	}
	if (!*p)
		return NULL;
	for (; *p == '_' || *p == '.' || *p == '"' || (*p >= '0' && *p <= '9') ||
	       ((*p | 32) >= 'a' && (*p | 32) <= 'z'); p++)
		if (n + 1 < wlen)
			w[n++] = *p;
	w[n] = '\0';
	return p;
}

/* Every NAME of "CREATE [TEMP] TABLE|VIEW|INDEX|TRIGGER [IF NOT EXISTS] [schema.]NAME"
 * in our SQL files: reading them from the files themselves means a report's new
 * TEMP view cannot be shadowed by an event of that name without anyone noticing. */
static int reserve_sql_names(struct name_set *reserved, const char *sql)
{
	static const char *const modifiers[] = { "temp", "temporary", "unique", "virtual", NULL };
	static const char *const kinds[] = { "table", "view", "index", "trigger", NULL };
	static const char *const guard[] = { "if", "not", "exists", NULL };
	char w[128];
	int state = 0, rc = 0; /* 0 nothing, 1 after CREATE, 2 after the kind */

	while (!rc && (sql = sql_word(sql, w, sizeof(w)))) {
		if (!strcasecmp(w, "create"))
			state = 1;
		else if (state == 1 && in_list(kinds, w))
			state = 2;
		else if (state == 2 && !in_list(guard, w)) {
			const char *dot = strrchr(w, '.');
			char *name = dot ? (char *)dot + 1 : w;

			name[strcspn(name, "\"")] = '\0';
			if (*name)
				rc = set_add(reserved, name);
			state = 0;
		} else if (!(state == 1 && in_list(modifiers, w)) && state != 2)
			state = 0;
	}
	return rc;
}

static int reserve_all(struct name_set *reserved)
{
	int rc = 0;

	for (const struct sql_file *f = sql_files; !rc && f->path; f++)
		rc = reserve_sql_names(reserved, f->text);
	for (const char *const *n = reserved_in_c; !rc && *n; n++)
		rc = set_add(reserved, *n);
	return rc;
}

static bool sqlite_own(const char *name)
{
	return !strncasecmp(name, "sqlite_", 7);
}

bool import_name_reserved(const char *name)
{
	struct name_set reserved = { 0 };
	bool r = sqlite_own(name) || (!reserve_all(&reserved) && set_has(&reserved, name));

	set_free(&reserved);
	return r;
}

/* ---------------------------------------------------------------- making names */

/* A (PREFIX + A [+ "_" + B]) as a name we are willing to create: see the top. */
static char *clean_name(const char *prefix, const char *a, const char *b)
{
	size_t la = strlen(a), lb = b ? strlen(b) : 0, lp = strlen(prefix), len = lp + la;
	char *s;

	if (b)
		len += 1 + lb;
	s = malloc(len + 1);
	if (!s)
		return NULL;
	memcpy(s, prefix, lp);
	memcpy(s + lp, a, la);
	if (b) {
		s[lp + la] = '_';
		memcpy(s + lp + la + 1, b, lb);
	}
	s[len] = '\0';
	for (char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '_';
	if (len > NAME_KEEP + 9)
		snprintf(s + NAME_KEEP, 10, "_%08x", (unsigned)(hash_ci(s) ^ (hash_ci(s) >> 32)));
	if (!len) {
		free(s);
		return strdup("unnamed");
	}
	return s;
}

static bool name_taken(const struct name_set *taken, const struct name_set *reserved,
		       const char *name)
{
	return set_has(taken, name) || (reserved && set_has(reserved, name));
}

/* BASE itself, or BASE_2, BASE_3, ...: the first taken by neither set; added to TAKEN.
 * Takes BASE (freed, or returned). BASE's slot remembers where the count stopped:
 * a file of 10,000 events of one name costs no 10,000^2 tries. */
static char *unique_name(struct name_set *taken, const struct name_set *reserved, char *base)
{
	struct name_slot *slot;
	char *name = NULL;
	unsigned n;

	if (!name_taken(taken, reserved, base)) {
		name = base;
		base = NULL;
	} else if (set_add(taken, base) == 0) { /* a reserved base: its slot keeps the count */
		slot = set_find(taken, base);
		for (n = slot->next_suffix < 2 ? 2 : slot->next_suffix;; n++) {
			if (asprintf(&name, "%s_%u", base, n) < 0) {
				name = NULL;
				break;
			}
			if (!name_taken(taken, reserved, name))
				break;
			free(name);
		}
		slot->next_suffix = n + 1;
	}
	free(base);
	if (name && set_add(taken, name) < 0) {
		free(name);
		return NULL;
	}
	return name;
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

static int by_id_then_name(const void *a, const void *b)
{
	const struct tep_event *x = *(struct tep_event *const *)a, *y = *(struct tep_event *const *)b;
	int c;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if ((c = strcmp(or_empty(x->system), or_empty(y->system))))
		return c;
	return strcmp(or_empty(x->name), or_empty(y->name));
}

/* Sort EVS (ID, system, name) and name a table for each, in im->tables[i]. */
int names_tables(struct importer *im, struct tep_event **evs, int n)
{
	struct name_set reserved = { 0 }, seen = { 0 }, shared = { 0 }, taken = { 0 };
	int rc = reserve_all(&reserved);

	qsort(evs, n, sizeof(*evs), by_id_then_name);
	for (int i = 0; !rc && i < n; i++) {
		char *s = clean_name("", or_empty(evs[i]->name), NULL);

		rc = !s ? -ENOMEM : set_has(&seen, s) ? set_add(&shared, s) : set_add(&seen, s);
		free(s);
	}
	for (int i = 0; !rc && i < n; i++) {
		char *s = clean_name("", or_empty(evs[i]->name), NULL);

		if (s && (set_has(&shared, s) || set_has(&reserved, s) || sqlite_own(s))) {
			free(s);
			s = clean_name("", or_empty(evs[i]->system), or_empty(evs[i]->name));
		}
		if (s && sqlite_own(s)) {
			char *p = clean_name("ev_", s, NULL);

			free(s);
			s = p;
		}
		im->tables[i].event = evs[i];
		im->tables[i].name = s ? unique_name(&taken, &reserved, s) : NULL;
		if (!im->tables[i].name)
			rc = -ENOMEM;
	}
	set_free(&reserved);
	set_free(&seen);
	set_free(&shared);
	set_free(&taken);
	return rc;
}

/* Column names for the N fields of a table, in t->col_names. */
int names_columns(struct etable *t, struct tep_format_field **fields, int n)
{
	struct name_set taken = { 0 };
	int rc = 0;

	t->col_names = calloc(n + 1, sizeof(*t->col_names));
	if (!t->col_names)
		return -ENOMEM;
	for (const char *const *c = fixed_cols; !rc && *c; c++)
		rc = set_add(&taken, *c);
	for (int i = 0; !rc && i < n; i++) {
		char *s = clean_name("", or_empty(fields[i]->name), NULL);

		if (s && in_list(fixed_cols, s)) {
			char *p = clean_name("field_", s, NULL);

			free(s);
			s = p;
		}
		t->col_names[i] = s ? unique_name(&taken, NULL, s) : NULL;
		if (!t->col_names[i])
			rc = -ENOMEM;
	}
	set_free(&taken);
	return rc;
}
