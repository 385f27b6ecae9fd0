// SPDX-License-Identifier: MIT
/*
 * import_syscalls.c - a capture's syscalls stored once, as their pairs (issue 23: a
 * capture of mostly syscalls was stored twice, 20 M event rows and 10 M syscall_pairs
 * rows from them, 48 B an event, and derived in a second pass over the rows).
 *
 * When a pass imports every syscalls:sys_enter_NAME / sys_exit_NAME type of the capture,
 * each of the usual shape (an entry: __syscall_nr and integer arguments; an exit:
 * __syscall_nr and ret; integers all), and no event can carry a kernel stack, the pass
 * pairs the events as it decodes them (the rule: syscall_pairing.c) and writes
 * syscall_pairs, an entry's arguments (syscall_args) and the exits no pair holds
 * (syscall_lone_exits) instead of the event rows; each type is then a view of its
 * table's name and columns giving the rows the table would have held (meta
 * syscall_store = 'pairs'). The totals come from the same pairing.
 *
 * What a view gives back must be what the row held, so anything the pairs cannot hold
 * exactly ends the try: a type's __syscall_nr that changes, times that go back (the
 * rule's losses are then not known in time), a time too far from the first, more than
 * RECENT_MAX calls paired at one time. The pass then drops what it wrote, and the
 * types are imported as rows by a second pass (import.c), derived as before
 * (derive_syscalls.c).
 *
 * Losses, as in import_stream.c: a loss reaches the pass with the event that carries
 * it, in time order, so when an exit comes every loss before it has come, except one
 * at its very time from another CPU: the calls paired at the newest time wait (recent)
 * until the time moves on, and such a loss takes their pairing back (their exits are
 * then lone).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "import/derive.h"
#include "import/derive_util.h"
#include "import/import_int.h"
#include "import/syscall_pairing.h"

#define PAIRS_FILE "schema/derive_syscalls.sql"
#define TOTALS_FILE "schema/derive_syscall_totals.sql"
#define RECENT_MAX 65536
#define MAX_ARGS 6

enum { KIND_NONE, KIND_ENTRY = SYSCALL_ENTRY, KIND_EXIT = SYSCALL_EXIT };
enum { SYS_CALL, SYS_LONE, SYS_ARGS, SYS_XCPU }; /* what the writer thread is handed */

/* A syscall type as the store sees it (by type id). */
struct stype {
	int8_t kind;
	int name;              /* index into the pairing's names */
	int nr_col, ret_col;   /* indexes into the table's cols (ret_col: exits) */
	int args[MAX_ARGS];    /* entries: the other cols, in format order */
	int nargs;
	struct dint nr;        /* the type's __syscall_nr: its first event's */
	bool nr_known;
};

/* A syscall_pairs row as handed to the writer. */
struct call {
	int64_t id, gap, ts_rel, tid, ret, dur;
	int32_t cpu, exit_cpu, syscall, exit_type;
	uint8_t tid_null, paired, ret_null, exit_cpu_null;
};

/* A syscall_lone_exits row. */
struct lone {
	int64_t id, ts, pid, nr, ret;
	int32_t type, cpu;
	uint8_t pid_null, nr_null, ret_null;
};

/* A syscall_args row. */
struct args {
	int64_t id, v[MAX_ARGS];
	uint8_t null_mask, n;
};

struct sysstore {
	struct syscall_pairing pr;
	struct stype *types;        /* 65536 */
	struct syscall_call row;    /* where the pairing makes a row */
	bool have_row;              /* row holds one not yet taken */
	struct call *recent;        /* paired at the newest time */
	size_t nrecent;
	struct call *out;           /* taken, to hand to the writer */
	size_t nout, cap_out;
	const struct dec_event *cur;
	int cur_type;
	uint64_t now;
	bool seen, based, failed;
	struct dint last_loss;
	struct dcell ret;
	int64_t longest;            /* the longest paired call (meta syscall_max_dur_ns) */
	int numbered;               /* names numbered so far */
	/* the writer's */
	struct drows calls;
	sqlite3_stmt *lone_insert, *args_insert, *xcpu_insert;
};

/* ---------------------------------------------------------------- the plan */

/* Is t of the shape the views give back exactly? Its columns into st. */
static bool usual_shape(const struct etable *t, int kind, struct stype *st)
{
	st->nr_col = st->ret_col = -1;
	st->nargs = 0;
	if (t->pid.kind != COL_INT)
		return false;
	for (int c = 0; c < t->nr_cols; c++) {
		if (t->cols[c].kind != COL_INT)
			return false;
		if (!strcmp(t->col_names[c], "__syscall_nr") && st->nr_col < 0)
			st->nr_col = c;
		else if (kind == KIND_EXIT && !strcmp(t->col_names[c], "ret") && st->ret_col < 0)
			st->ret_col = c;
		else if (kind == KIND_ENTRY && st->nargs < MAX_ARGS)
			st->args[st->nargs++] = c;
		else
			return false;
	}
	return st->nr_col >= 0 && (kind == KIND_ENTRY || st->ret_col >= 0);
}

static int plan_types(struct importer *im, struct sysstore *s)
{
	bool *entry = NULL, *exit_ = NULL; /* by name: a type of each at most */
	int n = 0;

	for (int i = 0; i < im->nr_tables; i++) {
		struct etable *t = &im->tables[i];
		const char *name = NULL;
		int id = t->event->id, kind = syscall_pairing_kind(t->event, &name);

		if (t->duplicate_id || id < 0 || id >= 65536 || !DEC_TYPE_HAS(im->counted, id) || !kind)
			continue;
		struct stype *st = &s->types[id];

		/* (a type an earlier pass imported without a table had no event: no matter) */
		if (!DEC_TYPE_HAS(im->want, id) && !im->base && DEC_TYPE_HAS(im->imported, id) && !t->created)
			continue;
		if (!DEC_TYPE_HAS(im->want, id) || !usual_shape(t, kind, st))
			goto no;
		st->kind = (int8_t)kind;
		st->name = syscall_pairing_name(&s->pr, name, 0);
		if (st->name < 0)
			goto oom;
		if (st->name >= n) {
			bool *a = realloc(entry, (size_t)(st->name + 1) * sizeof(*a));
			bool *b = a ? realloc(exit_, (size_t)(st->name + 1) * sizeof(*b)) : NULL;

			if (a)
				entry = a;
			if (!b)
				goto oom;
			exit_ = b;
			for (; n <= st->name; n++)
				entry[n] = exit_[n] = false;
		}
		bool *have = kind == KIND_EXIT ? &exit_[st->name] : &entry[st->name];

		if (*have)
			goto no; /* two types of one name (two IDs for one format) */
		*have = true;
	}
	free(entry);
	free(exit_);
	/* numbered as first seen (sysstore_event): the commonest come early, and 0 and 1 take
	 * no bytes in a row; a name never seen has none and is not written */
	for (int i = 0; i < s->pr.nnames; i++)
		s->pr.names[i].number = -1;
	return n > 0 ? 1 : 0;
no:
	free(entry);
	free(exit_);
	return 0;
oom:
	free(entry);
	free(exit_);
	return im_error(im, -ENOMEM, "%s: out of memory", im->path);
}

static struct syscall_call *take_slot(void *arg);
static bool lost_since(void *arg, struct dint a, struct dint b);

int sysstore_plan(struct importer *im)
{
	/* FTANA_SYSCALL_ROWS: the rows, for comparison (tests/test_syscall_store.sh) */
	if (im->window || im->summary || im->rows_only || getenv("FTANA_SYSCALL_ROWS") ||
	    pass_stack_event(im)) /* (a row waits for a stack that may follow it) */
		return 0;
	struct sysstore *s = calloc(1, sizeof(*s));
	int rc;

	if (!s || !(s->types = calloc(65536, sizeof(*s->types)))) {
		free(s);
		return im_error(im, -ENOMEM, "%s: out of memory", im->path);
	}
	rc = plan_types(im, s);
	if (rc <= 0) {
		syscall_pairing_free(&s->pr);
		free(s->types);
		free(s);
		return rc;
	}
	s->pr.lost = lost_since;
	s->pr.slot = take_slot;
	s->pr.arg = s;
	s->last_loss = (struct dint){ 0, true };
	syscall_pairing_start(&s->pr, 0);
	im->sys = s;
	/* the writer's tables and statements, made while the pass's thread has the connection */
	if (derive_tables_create(im->db, "main", PAIRS_FILE) || derive_tables_create(im->db, "main", TOTALS_FILE) ||
	    drows_open(&s->calls, im->db, "main", "syscall_pairs", 8)) {
		im->said = true;
		return -EIO;
	}
	if ((rc = im_prepare(im, "INSERT INTO syscall_lone_exits VALUES (?,?,?,?,?,?,?)", &s->lone_insert)) ||
	    (rc = im_prepare(im, "INSERT INTO syscall_args VALUES (?,?,?,?,?,?,?)", &s->args_insert)) ||
	    (rc = im_prepare(im, "INSERT INTO syscall_exit_cpus VALUES (?,?)", &s->xcpu_insert)))
		return rc;
	return 0;
}

bool sysstore_takes(const struct importer *im, int type_id)
{
	return im->sys && im->sys->types[type_id & 0xffff].kind != KIND_NONE;
}

/* ---------------------------------------------------------------- the writer's side */

static void bind_int(sqlite3_stmt *st, int i, int64_t v, bool null)
{
	if (null)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

int sysstore_apply(struct importer *im, int kind, const void *bytes)
{
	struct sysstore *s = im->sys;

	if (kind == SYS_CALL) {
		struct call c;
		struct dcell *v = drows_cells(&s->calls);

		memcpy(&c, bytes, sizeof(c));
		dc_int(&v[0], (struct dint){ c.id, false });
		dc_int(&v[1], (struct dint){ c.ts_rel, false });
		dc_int(&v[2], (struct dint){ c.cpu, false });
		dc_int(&v[3], (struct dint){ c.tid, c.tid_null });
		dc_int(&v[4], (struct dint){ c.syscall, false });
		dc_int(&v[5], (struct dint){ c.gap, !c.paired });
		dc_int(&v[6], (struct dint){ c.ret, !c.paired || c.ret_null });
		dc_int(&v[7], (struct dint){ c.dur, !c.paired });
		if (drows_add(&s->calls)) {
			im->said = true;
			return -EIO;
		}
		if (!c.paired || c.exit_cpu_null)
			return 0;
		sqlite3_bind_int64(s->xcpu_insert, 1, c.id);
		sqlite3_bind_int(s->xcpu_insert, 2, c.exit_cpu);
		return im_step_done(im, s->xcpu_insert, "syscall_exit_cpus");
	}
	if (kind == SYS_LONE) {
		struct lone l;
		sqlite3_stmt *st = s->lone_insert;

		memcpy(&l, bytes, sizeof(l));
		sqlite3_bind_int64(st, 1, l.id);
		sqlite3_bind_int(st, 2, l.type);
		sqlite3_bind_int64(st, 3, l.ts);
		sqlite3_bind_int(st, 4, l.cpu);
		bind_int(st, 5, l.pid, l.pid_null);
		bind_int(st, 6, l.nr, l.nr_null);
		bind_int(st, 7, l.ret, l.ret_null);
		return im_step_done(im, st, "syscall_lone_exits");
	}
	struct args a;
	sqlite3_stmt *st = s->args_insert;

	memcpy(&a, bytes, sizeof(a));
	sqlite3_bind_int64(st, 1, a.id);
	for (int i = 0; i < MAX_ARGS; i++)
		bind_int(st, 2 + i, a.v[i], i >= a.n || (a.null_mask >> i & 1));
	return im_step_done(im, st, "syscall_args");
}

/* ---------------------------------------------------------------- the pass's side */

static bool lost_since(void *arg, struct dint a, struct dint b)
{
	const struct sysstore *s = arg;

	(void)b; /* every loss up to b has come: the times do not go back */
	return !a.null && !s->last_loss.null && s->last_loss.v > a.v;
}

static void give_up(struct sysstore *s)
{
	s->failed = true;
}

static int push_out(struct sysstore *s, const struct call *c)
{
	if (s->nout == s->cap_out) {
		size_t cap = s->cap_out ? s->cap_out * 2 : 64;
		struct call *n = realloc(s->out, cap * sizeof(*n));

		if (!n)
			return -1;
		s->out = n;
		s->cap_out = cap;
	}
	s->out[s->nout++] = *c;
	return 0;
}

/* The row the pairing made (s->row) as a call: paired ones wait in recent. -1: out of
 * memory; the store gives up on what it cannot hold. */
static int take_row(struct sysstore *s)
{
	const struct syscall_call *r = &s->row;
	struct call c = { .id = r->id, .gap = r->gap, .ts_rel = r->ts_rel.v, .tid = r->tid.v,
			  .cpu = (int32_t)r->cpu.v, .syscall = r->syscall, .tid_null = r->tid.null,
			  .paired = r->paired, .exit_cpu_null = 1 };

	s->have_row = false;
	if (r->ts_rel.null || r->cpu.null)
		give_up(s);
	if (!c.paired)
		return push_out(s, &c);
	/* paired with the current event, the exit */
	if (r->dur.type != SQLITE_INTEGER || (r->ret.type != SQLITE_INTEGER && r->ret.type != SQLITE_NULL)) {
		give_up(s);
		return 0;
	}
	c.dur = r->dur.i;
	c.ret = r->ret.i;
	c.ret_null = r->ret.type == SQLITE_NULL;
	c.exit_cpu = s->cur->cpu;
	c.exit_cpu_null = c.exit_cpu == c.cpu;
	c.exit_type = s->cur_type;
	if (s->nrecent == RECENT_MAX) {
		give_up(s);
		return 0;
	}
	if (!s->recent && !(s->recent = malloc(RECENT_MAX * sizeof(*s->recent))))
		return -1;
	s->recent[s->nrecent++] = c;
	return 0;
}

static struct syscall_call *take_slot(void *arg)
{
	struct sysstore *s = arg;

	if (s->have_row && take_row(s))
		return NULL;
	s->have_row = true;
	return &s->row;
}

static int put_lone(struct importer *im, const struct lone *l)
{
	return queue_sys(im, SYS_LONE, l, sizeof(*l));
}

/* The calls taken to the writer. */
static int drain(struct importer *im)
{
	struct sysstore *s = im->sys;
	int rc = 0;

	for (size_t i = 0; !rc && i < s->nout; i++) {
		if (s->out[i].paired && s->out[i].dur > s->longest)
			s->longest = s->out[i].dur;
		rc = queue_sys(im, SYS_CALL, &s->out[i], sizeof(s->out[i]));
	}
	s->nout = 0;
	return rc;
}

/* The calls paired at the newest time are final. */
static int settle(struct importer *im)
{
	struct sysstore *s = im->sys;

	for (size_t i = 0; i < s->nrecent; i++)
		if (push_out(s, &s->recent[i]))
			return im_error(im, -ENOMEM, "%s: out of memory", im->path);
	s->nrecent = 0;
	return drain(im);
}

/* A loss at the newest time takes back the pairing of the calls entered before it:
 * unpaired, their exits lone. A second loss at that time (another CPU's, or another
 * page's) finds them unpaired already: their exits are lone once. */
static int take_back(struct importer *im, int64_t loss_ts)
{
	struct sysstore *s = im->sys;
	int rc = 0;

	for (size_t i = 0; !rc && i < s->nrecent; i++) {
		struct call *c = &s->recent[i];
		int64_t entry_ts = s->pr.base + c->ts_rel;

		if (!c->paired || entry_ts >= loss_ts)
			continue;
		const struct stype *xt = &s->types[c->exit_type];
		struct lone l = { .id = c->id + c->gap, .ts = entry_ts + c->dur, .pid = c->tid,
				  .nr = xt->nr.v, .ret = c->ret, .type = c->exit_type,
				  .cpu = c->exit_cpu_null ? c->cpu : c->exit_cpu, .pid_null = c->tid_null,
				  .nr_null = xt->nr.null, .ret_null = c->ret_null };

		syscall_totals_unpair(&s->pr.totals, c->syscall, (struct dint){ c->tid, c->tid_null }, c->ret, c->dur);
		c->paired = 0;
		rc = put_lone(im, &l);
	}
	return rc;
}

int sysstore_tick(struct importer *im, const struct dec_event *ev)
{
	struct sysstore *s = im->sys;
	int rc = 0;

	if (s->failed)
		return 0;
	if (s->seen && ev->ts < s->now) {
		give_up(s); /* the times went back */
		return 0;
	}
	if (s->seen && ev->ts > s->now)
		rc = settle(im);
	s->seen = true;
	s->now = ev->ts;
	if (!rc && ev->missed) {
		rc = take_back(im, (int64_t)ev->ts);
		s->last_loss = (struct dint){ (int64_t)ev->ts, false };
	}
	return rc;
}

static struct dint field_int(struct importer *im, const struct etable *t, int col, const struct dec_event *ev)
{
	int64_t v;

	if (col >= 0 && plan_col_int(im, &t->cols[col], ev->record->data, ev->record->size, &v))
		return (struct dint){ v, false };
	return (struct dint){ 0, true };
}

int sysstore_event(struct importer *im, const struct etable *t, const struct dec_event *ev)
{
	struct sysstore *s = im->sys;
	int id = ev->type_id & 0xffff;
	struct stype *st = &s->types[id];
	struct dint nr = field_int(im, t, st->nr_col, ev);
	int rc;

	if (s->failed)
		return 0;
	if (!st->nr_known) {
		st->nr = nr;
		st->nr_known = true;
	} else if (!dint_is(st->nr, nr)) {
		give_up(s); /* a view gives one __syscall_nr a type */
		return 0;
	}
	if (!s->based) {
		s->pr.base = (int64_t)ev->ts; /* as derive_syscalls.c: the first syscall event's time */
		s->based = true;
	}
	if (s->pr.names[st->name].number < 0)
		s->pr.names[st->name].number = s->numbered++;
	struct syscall_event e = { .id = (int64_t)ev->seq, .ts = { (int64_t)ev->ts, false },
				   .cpu = { ev->cpu, false }, .tid = { 0, true },
				   .name = st->name, .is_exit = st->kind == KIND_EXIT };

	if (t->pid.kind == COL_INT) {
		int64_t v;

		if (plan_col_int(im, &t->pid, ev->record->data, ev->record->size, &v))
			e.tid = (struct dint){ v, false };
	}
	if (e.is_exit) {
		dc_int(&s->ret, field_int(im, t, st->ret_col, ev));
		e.ret = &s->ret;
	} else if (st->nargs) {
		struct args a = { .id = e.id, .n = (uint8_t)st->nargs };

		for (int i = 0; i < st->nargs; i++) {
			struct dint v = field_int(im, t, st->args[i], ev);

			a.v[i] = v.v;
			a.null_mask |= (uint8_t)(v.null << i);
		}
		if ((rc = queue_sys(im, SYS_ARGS, &a, sizeof(a))))
			return rc;
	}
	s->cur = ev;
	s->cur_type = id;
	size_t recent_before = s->nrecent;

	if (syscall_pairing_event(&s->pr, &e)) {
		im->said = true;
		return -EIO;
	}
	if (s->have_row && take_row(s))
		return im_error(im, -ENOMEM, "%s: out of memory", im->path);
	if (s->pr.overflow) /* a time too far from the first: no row was made for it */
		give_up(s);
	if (e.is_exit && s->nrecent == recent_before && !s->failed) {
		/* no pair holds this exit */
		struct lone l = { .id = e.id, .ts = e.ts.v, .pid = e.tid.v, .nr = nr.v, .ret = s->ret.i,
				  .type = id, .cpu = ev->cpu, .pid_null = e.tid.null, .nr_null = nr.null,
				  .ret_null = s->ret.type == SQLITE_NULL };

		if ((rc = put_lone(im, &l)))
			return rc;
	}
	return drain(im);
}

/* ---------------------------------------------------------------- the end */

/* Column list of type t's view: for each of its fields, the SQL that gives it. */
static void view_fields(sqlite3_str *sql, const struct etable *t, const struct stype *st, const char *lone)
{
	for (int c = 0; c < t->nr_cols; c++) {
		if (c == st->nr_col) {
			if (lone)
				sqlite3_str_appendf(sql, ", %s.nr", lone);
			else if (st->nr.null)
				sqlite3_str_appendall(sql, ", NULL");
			else
				sqlite3_str_appendf(sql, ", %lld", (long long)st->nr.v);
		} else if (c == st->ret_col) {
			sqlite3_str_appendf(sql, ", %s.ret", lone ? lone : "p");
		} else {
			for (int a = 0; a < st->nargs; a++)
				if (st->args[a] == c)
					sqlite3_str_appendf(sql, ", a.a%d", a);
		}
		sqlite3_str_appendf(sql, " AS \"%w\"", t->col_names[c]);
	}
}

static int make_view(struct importer *im, struct etable *t, const struct stype *st)
{
	struct sysstore *s = im->sys;
	sqlite3_str *sql = sqlite3_str_new(im->db);
	int number = s->pr.names[st->name].number;
	long long base = (long long)s->pr.base;
	char *text;
	int rc;

	sqlite3_str_appendf(sql, "CREATE VIEW \"%w\" AS ", t->name);
	if (st->kind == KIND_ENTRY) {
		sqlite3_str_appendf(sql, "SELECT p.id AS id, %lld + p.ts_rel AS ts, p.cpu AS cpu, p.tid AS pid, "
				    "NULL AS stack_id", base);
		view_fields(sql, t, st, NULL);
		sqlite3_str_appendf(sql, " FROM syscall_pairs p%s WHERE p.syscall = %d",
				    st->nargs ? " LEFT JOIN syscall_args a ON a.id = p.id" : "", number);
	} else {
		sqlite3_str_appendf(sql, "SELECT p.id + p.exit_gap AS id, %lld + p.ts_rel + p.dur_ns AS ts, "
				    "coalesce(x.cpu, p.cpu) AS cpu, p.tid AS pid, NULL AS stack_id", base);
		view_fields(sql, t, st, NULL);
		sqlite3_str_appendf(sql, " FROM syscall_pairs p LEFT JOIN syscall_exit_cpus x ON x.id = p.id"
				    " WHERE p.syscall = %d AND p.exit_gap IS NOT NULL"
				    " UNION ALL SELECT l.id, l.ts, l.cpu, l.pid, NULL", number);
		view_fields(sql, t, st, "l");
		sqlite3_str_appendf(sql, " FROM syscall_lone_exits l WHERE l.type = %d", t->event->id);
	}
	text = sqlite3_str_finish(sql);
	if (!text)
		return im_error(im, -ENOMEM, "%s: out of memory", im->path);
	rc = im_exec(im, text);
	sqlite3_free(text);
	t->created = true;
	return rc;
}

/* The pass gave up: what it wrote goes, and its types are not imported (import.c
 * imports them as rows in a pass of their own). */
static int undo(struct importer *im)
{
	for (int i = 0; i < im->nr_tables; i++) {
		int id = im->tables[i].event->id;

		if (!im->tables[i].duplicate_id && id >= 0 && id < 65536 && sysstore_takes(im, id)) {
			im->want[id >> 6] &= ~(1ull << (id & 63));
			im->imported[id >> 6] &= ~(1ull << (id & 63));
		}
	}
	im->sys_retry = true;
	return im_exec(im, "DROP TABLE syscall_pairs; DROP TABLE syscall_args; DROP TABLE syscall_lone_exits;"
		       " DROP TABLE syscall_exit_cpus;"
		       " DROP TABLE syscall_names; DROP TABLE syscall_totals; DROP TABLE syscall_range;");
}

int sysstore_finish(struct importer *im)
{
	struct sysstore *s = im->sys;
	int rc = 0;

	if (!s)
		return 0;
	if (!s->failed && (rc = settle(im)))
		return rc;
	/* the entries still waiting: no exit */
	while (!s->failed && (rc = syscall_pairing_end(&s->pr)) > 0) {
		if (s->have_row && take_row(s))
			return im_error(im, -ENOMEM, "%s: out of memory", im->path);
		if (s->pr.overflow)
			give_up(s);
		else if ((rc = drain(im)))
			return rc;
	}
	if (rc < 0) {
		im->said = true;
		return -EIO;
	}
	if (!s->failed && drows_flush(&s->calls)) {
		im->said = true;
		return -EIO;
	}
	if (s->failed)
		return undo(im);
	if (syscall_pairing_write(&s->pr, im->db, "main", false)) {
		im->said = true;
		return -EIO;
	}
	for (int i = 0; !rc && i < im->nr_tables; i++) {
		struct etable *t = &im->tables[i];
		int id = t->event->id;

		if (!t->duplicate_id && id >= 0 && id < 65536 && s->types[id].kind && s->types[id].nr_known)
			rc = make_view(im, t, &s->types[id]);
	}
	if (rc)
		return rc;
	/* reports/slice_ids.c bounds a window's ids with it: an exit's id is no index's key */
	char *sql = sqlite3_mprintf("INSERT OR REPLACE INTO meta VALUES ('syscall_store', 'pairs'), "
				    "('syscall_max_dur_ns', '%lld')", (long long)s->longest);

	rc = sql ? im_exec(im, sql) : im_error(im, -ENOMEM, "%s: out of memory", im->path);
	sqlite3_free(sql);
	return rc;
}

void sysstore_free(struct importer *im)
{
	struct sysstore *s = im->sys;

	if (!s)
		return;
	drows_close(&s->calls);
	sqlite3_finalize(s->lone_insert);
	sqlite3_finalize(s->args_insert);
	sqlite3_finalize(s->xcpu_insert);
	syscall_pairing_free(&s->pr);
	dtext_free(&s->row.ret.text);
	dtext_free(&s->row.dur.text);
	dtext_free(&s->ret.text);
	free(s->recent);
	free(s->out);
	free(s->types);
	free(s);
	im->sys = NULL;
}
