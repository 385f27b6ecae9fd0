/* SPDX-License-Identifier: MIT */
/*
 * derive_io.c - derive_io (derive.h): block I/O requests paired start -> completion, as
 * perf-tools' iosnoop and bcc's biosnoop do, into io_pairs, io_losses and io_dropped
 * (schema/derive_io.sql), in one pass over block_rq_insert, block_rq_issue and
 * block_rq_complete merged in id order (ids are global and time-ordered), after the loss
 * windows (derive_losses.c). tests/oracle/iolat.sql is the SQL the rows must equal
 * (tests/test_derive_io.c); schema/reports/iolat.sql makes `io` and `io_rq` over them.
 *
 * The rules, iosnoop's made explicit:
 *  * key = (dev, sector, op). op is the request's operation letter from rwbs (R read,
 *    W write, D discard, F flush, N other), skipping a leading F (preflush): "FWS" is a
 *    write, "FF" a flush. Flushes carry no sector (0, or (sector_t)-1 on old kernels):
 *    they pair on that raw value, never with a write at sector 0 (op differs).
 *  * an issue pairs with the latest insert of its key when no issue of that key came
 *    between them; a completion with the latest issue of its key when no completion
 *    came between them (a requeued request is measured from its last issue; of two in
 *    flight on one sector, the first completion takes the newer start and the second
 *    has none). A pair's status says why it is not one: no_start (none), lost_events (a
 *    loss window overlaps it: counted as the windows that begin at or before its end
 *    minus those that end before its start), negative or absurd (latency below 0 or
 *    above 60 s), else ok; the queue's status is the issue's with its insert.
 *  * io_dropped counts the completions that are not ok by status ('completion'), and
 *    the ok ones whose issue had no ok insert by that status ('queue').
 * Keys compare as SQL compares the columns (NULLs equal, 1 = 1.0, texts by their bytes).
 *
 * Memory: one entry per key with a request pending (inserted and not yet issued, or
 * issued and not yet completed), and one per lost_events row. Past derive_pending_max
 * pending (a capture that never completes what it issues) the older half is given up:
 * their completions, if they ever come, count as no_start.
 */
#include <stdlib.h>
#include <string.h>

#include "common/msg.h"
#include "import/derive.h"
#include "import/derive_int.h"
#include "import/derive_util.h"
#include "store/db.h"
#include "store/siphash.h"

#define SQL_FILE "schema/derive_io.sql"
#define ABSURD_NS 60000000000LL

enum status { ST_OK, ST_NO_START, ST_LOST, ST_NEGATIVE, ST_ABSURD, NR_STATUS };
static const char *const status_name[NR_STATUS] = { "ok", "no_start", "lost_events", "negative",
						    "absurd" };
/* io_dropped's rows, in the order of their names (GROUP BY's order) */
static const enum status by_name[NR_STATUS] = { ST_ABSURD, ST_LOST, ST_NEGATIVE, ST_NO_START, ST_OK };

/* The inputs: kind = index (0 insert, 1 issue, 2 complete), columns by name. */
static const char *const tables[] = { "block_rq_insert", "block_rq_issue", "block_rq_complete" };
enum { INSERT, ISSUE, COMPLETE, NR_KINDS };
static const char *const cols[] = { "id", "ts", "dev", "sector", "rwbs" };
enum { C_ID, C_TS, C_DEV, C_SECTOR, C_RWBS, NR_COLS };

/*
 * A value as a key part: equal parts <=> SQL's PARTITION BY puts the values together.
 * Types: 1 NULL, 2 an integer (or a real holding one), 3 another real (its bits), 4/5
 * a text/blob of up to 7 bytes (the bytes and the length), 6/7 a longer text/blob (a
 * keyed hash of its bytes).
 */
enum { K_NULL = 1, K_INT, K_REAL, K_TEXT, K_BLOB, K_TEXT_LONG, K_BLOB_LONG };
struct io_key {
	uint64_t v[3]; /* dev, sector, op */
	uint8_t t[3];
	uint8_t pad[5];
};

struct entry {
	struct io_key k;    /* the map's key */
	bool ins, iss;      /* a pending insert, a pending issue */
	uint8_t q_status;   /* the pending issue's pairing with its insert */
	int64_t ins_id, iss_id, q_id;
	struct dint ins_ts, iss_ts;
};

struct pass {
	sqlite3 *db;
	struct loss_windows w;
	struct dint *untimed;         /* the CPUs of lost_events rows without a time */
	size_t nr_untimed;
	struct pmap keys;             /* the keys with a request pending */
	uint8_t hash_key[SIPHASH_KEY_LEN];
	sqlite3_stmt *in[NR_KINDS];   /* the inputs, by id */
	sqlite3_stmt *op_sql;         /* op of a rwbs that is not text */
	bool ready;                   /* a row in pair (derive_feed) */
	struct pair {                 /* an io_pairs row */
		struct dint id, ts, issue_id, insert_id;
		struct dcell op;      /* its type may be SQLITE_BLOB (derive_util.h) */
		uint8_t status, q_status; /* q_status NR_STATUS: none */
	} pair;
	int64_t dropped[NR_STATUS], queue_dropped[NR_STATUS];
};

/* ---------------------------------------------------------------- keys */

static void set_bytes(const struct pass *ps, struct io_key *k, int i, bool blob, const void *p, int n)
{
	if (n <= 7) {
		uint64_t v = (uint64_t)n << 56;

		for (int b = 0; b < n; b++)
			v |= (uint64_t)((const uint8_t *)p)[b] << (8 * b);
		k->v[i] = v;
		k->t[i] = blob ? K_BLOB : K_TEXT;
	} else {
		k->v[i] = siphash24(ps->hash_key, p, (size_t)n);
		k->t[i] = blob ? K_BLOB_LONG : K_TEXT_LONG;
	}
}

static void set_value(const struct pass *ps, struct io_key *k, int i, sqlite3_value *x)
{
	switch (sqlite3_value_type(x)) {
	case SQLITE_NULL:
		k->v[i] = 0;
		k->t[i] = K_NULL;
		break;
	case SQLITE_INTEGER:
		k->v[i] = (uint64_t)sqlite3_value_int64(x);
		k->t[i] = K_INT;
		break;
	case SQLITE_FLOAT: {
		double r = sqlite3_value_double(x);

		/* a real equal to an integer is that integer (SQL's 1 = 1.0) */
		if (r >= -9223372036854775808.0 && r < 9223372036854775808.0 && r == (double)(int64_t)r) {
			k->v[i] = (uint64_t)(int64_t)r;
			k->t[i] = K_INT;
		} else {
			memcpy(&k->v[i], &r, sizeof(r));
			k->t[i] = K_REAL;
		}
		break;
	}
	case SQLITE_TEXT:
		set_bytes(ps, k, i, false, sqlite3_value_text(x), sqlite3_value_bytes(x));
		break;
	default:
		set_bytes(ps, k, i, true, sqlite3_value_blob(x), sqlite3_value_bytes(x));
		break;
	}
}

/* Column col of in as key part i: an integer directly, anything else by its value. */
static void set_column(const struct pass *ps, struct io_key *k, int i, sqlite3_stmt *in, int col)
{
	if (sqlite3_column_type(in, col) == SQLITE_INTEGER) {
		k->v[i] = (uint64_t)sqlite3_column_int64(in, col);
		k->t[i] = K_INT;
	} else {
		set_value(ps, k, i, sqlite3_column_value(in, col));
	}
}

static int64_t entry_age(const void *entry)
{
	const struct entry *e = entry;

	return e->iss && (!e->ins || e->iss_id > e->ins_id) ? e->iss_id : e->ins_id;
}

/* More than derive_pending_max keys pending: the older half is given up. 0 or -1. */
static int evict(struct pass *ps)
{
	struct pmap old = ps->keys;
	int64_t cut;

	if (derive_median_age(&old, entry_age, &cut))
		return -1;
	pmap_init(&ps->keys, sizeof(struct io_key), sizeof(struct entry));
	for (size_t i = 0; i < old.cap; i++) {
		const struct entry *e = pmap_slot(&old, i);
		bool added;
		struct entry *to;

		if (!e || entry_age(e) <= cut)
			continue;
		if (!(to = pmap_add(&ps->keys, &e->k, &added))) {
			pmap_free(&old);
			return msg_error("out of memory");
		}
		*to = *e;
	}
	pmap_free(&old);
	return 0;
}

/* ---------------------------------------------------------------- pairing */

/*
 * Loss windows overlapping (start, end]: those beginning at or before end, minus those
 * ending before start, as iolat's SQL counts them over one stream ordered by time (a
 * NULL time first). A lost_events row without a time (a hand-made database) is a window
 * from -1 to NULL: it begins before any end from -1 on and ends before any timed start.
 */
static bool lost(const struct pass *ps, struct dint start, struct dint end)
{
	const struct loss_windows *w = &ps->w;

	if (!w->n && !ps->nr_untimed)
		return false;
	int64_t begun = end.null ? 0 : end.v == INT64_MAX ? (int64_t)w->n :
			loss_lo_before(w, (struct dint){ end.v + 1, false });
	int64_t ended = start.null || start.v == INT64_MIN ? 0 :
			loss_hi_upto(w, (struct dint){ start.v - 1, false });

	if (!end.null && end.v >= -1)
		begun += (int64_t)ps->nr_untimed;
	if (!start.null)
		ended += (int64_t)ps->nr_untimed;
	return begun - ended > 0;
}

/* The CPUs of the lost_events rows without a time (derive_losses.c leaves them out). */
static int load_untimed(struct pass *ps)
{
	static const char *const loss_cols[] = { "cpu", "ts" };
	sqlite3_stmt *st;
	int step = SQLITE_DONE;

	if (derive_select(ps->db, "lost_events", loss_cols, 2, "", &st))
		return -1;
	while (st && (step = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			continue;
		struct dint *u = realloc(ps->untimed, (ps->nr_untimed + 1) * sizeof(*u));

		if (!u) {
			sqlite3_finalize(st);
			return msg_error("out of memory");
		}
		ps->untimed = u;
		u[ps->nr_untimed++] = dint_col(st, 0);
	}
	sqlite3_finalize(st);
	return !st || step == SQLITE_DONE ? 0 : db_step_error(ps->db);
}

static enum status pair_status(const struct pass *ps, bool have, struct dint start, struct dint end)
{
	struct dcell d = { 0 };

	if (!have)
		return ST_NO_START;
	if (lost(ps, start, end))
		return ST_LOST;
	dc_diff(&d, end, start);
	if (d.type == SQLITE_INTEGER)
		return d.i < 0 ? ST_NEGATIVE : d.i > ABSURD_NS ? ST_ABSURD : ST_OK;
	if (d.type == SQLITE_FLOAT)
		return d.r < 0 ? ST_NEGATIVE : d.r > (double)ABSURD_NS ? ST_ABSURD : ST_OK;
	return ST_OK; /* a NULL time: neither test holds */
}

/*
 * The op of a rwbs: CASE WHEN rwbs GLOB 'F[RWDFN]*' THEN substr(rwbs, 2, 1) ELSE
 * substr(rwbs, 1, 1) END. A text (the kernel's) is cut here as SQLite would (up to its
 * NUL; a character is a byte and, after one of 0xc0 or more, the 0x80-0xbf bytes that
 * follow); anything else goes through that very SQL (*val, valid until the next row).
 */
static int op_of(struct pass *ps, sqlite3_stmt *in, const char **text, int *len, sqlite3_value **val)
{
	*val = NULL;
	if (sqlite3_column_type(in, C_RWBS) == SQLITE_TEXT) {
		const char *s = (const char *)sqlite3_column_text(in, C_RWBS);
		size_t n = strlen(s), i = 1;

		if (n >= 2 && s[0] == 'F' && strchr("RWDFN", s[1])) {
			*text = s + 1;
			*len = 1;
			return 0;
		}
		if ((unsigned char)s[0] >= 0xc0)
			while (i < n && ((unsigned char)s[i] & 0xc0) == 0x80)
				i++;
		*text = s;
		*len = n ? (int)i : 0;
		return 0;
	}
	sqlite3_stmt *st = ps->op_sql;

	sqlite3_reset(st);
	sqlite3_bind_value(st, 1, sqlite3_column_value(in, C_RWBS));
	if (sqlite3_step(st) != SQLITE_ROW)
		return db_step_error(ps->db);
	*val = sqlite3_column_value(st, 0);
	return 0;
}

/* One io_pairs row (op: the text op_len bytes at op, or op_val when not NULL). */
static int put_pair(struct pass *ps, struct dint id, struct dint ts, const char *op, int op_len,
		    sqlite3_value *op_val, const struct entry *s, enum status status)
{
	struct pair *p = &ps->pair;
	bool q_ok = s && s->q_status == ST_OK;
	int type = op_val ? sqlite3_value_type(op_val) : SQLITE_TEXT;

	if (op_val && type == SQLITE_BLOB)
		op = sqlite3_value_blob(op_val), op_len = sqlite3_value_bytes(op_val);
	else if (op_val)
		op = (const char *)sqlite3_value_text(op_val), op_len = sqlite3_value_bytes(op_val);
	if (type == SQLITE_NULL)
		dc_null(&p->op);
	else if (dc_text(&p->op, op ? op : "", op_len))
		return -1;
	if (type == SQLITE_BLOB)
		p->op.type = SQLITE_BLOB;
	p->id = id;
	p->ts = ts;
	p->issue_id = (struct dint){ s ? s->iss_id : 0, !s };
	p->insert_id = (struct dint){ q_ok ? s->q_id : 0, !q_ok };
	p->status = (uint8_t)status;
	p->q_status = s ? s->q_status : NR_STATUS;
	ps->ready = true;
	return 0;
}

/* One request event (the current row of ps->in[kind]). */
static int event(struct pass *ps, int kind)
{
	sqlite3_stmt *in = ps->in[kind];
	struct dint id = { sqlite3_column_int64(in, C_ID), false }, ts = dint_col(in, C_TS);
	struct io_key k;
	const char *op = NULL;
	int op_len = 0;
	sqlite3_value *op_val;

	memset(&k, 0, sizeof(k));
	set_column(ps, &k, 0, in, C_DEV);
	set_column(ps, &k, 1, in, C_SECTOR);
	if (op_of(ps, in, &op, &op_len, &op_val))
		return -1;
	if (op_val)
		set_value(ps, &k, 2, op_val);
	else
		set_bytes(ps, &k, 2, false, op, op_len);

	if (kind == COMPLETE) {
		struct entry *e = pmap_find(&ps->keys, &k);
		const struct entry *s = e && e->iss ? e : NULL;
		enum status status = pair_status(ps, s != NULL, s ? s->iss_ts : ts, ts);

		if (status != ST_OK)
			ps->dropped[status]++;
		else if (s->q_status != ST_OK)
			ps->queue_dropped[s->q_status]++;
		if (put_pair(ps, id, ts, op, op_len, op_val, s, status))
			return -1;
		if (e && e->ins)
			e->iss = false;
		else if (e)
			pmap_del(&ps->keys, e);
		return 0;
	}
	bool added;
	struct entry *e = pmap_add(&ps->keys, &k, &added);

	if (!e)
		return msg_error("out of memory");
	if (kind == INSERT) {
		e->ins = true;
		e->ins_id = id.v;
		e->ins_ts = ts;
	} else {
		e->q_status = (uint8_t)pair_status(ps, e->ins, e->ins_ts, ts);
		e->q_id = e->ins_id;
		e->ins = false;
		e->iss = true;
		e->iss_id = id.v;
		e->iss_ts = ts;
	}
	return ps->keys.len > derive_pending_max ? evict(ps) : 0;
}

/* ---------------------------------------------------------------- the pass */

static int open_inputs(struct pass *ps)
{
	for (int k = 0; k < NR_KINDS; k++)
		if (derive_select(ps->db, tables[k], cols, NR_COLS, "ORDER BY 1", &ps->in[k]))
			return -1;
	ps->op_sql = db_prepare(ps->db, "SELECT CASE WHEN ?1 GLOB 'F[RWDFN]*' THEN substr(?1, 2, 1) "
				"ELSE substr(?1, 1, 1) END");
	return ps->op_sql ? 0 : -1;
}

/* Step input k; 1 a row, 0 its end (the statement finalized), -1 an error. */
static int next_row(struct pass *ps, int k)
{
	int step = sqlite3_step(ps->in[k]);

	if (step == SQLITE_ROW)
		return 1;
	sqlite3_finalize(ps->in[k]);
	ps->in[k] = NULL;
	return step == SQLITE_DONE ? 0 : msg_error("%s: %s", tables[k], sqlite3_errmsg(ps->db));
}

/* The three inputs merged by id (a tie: insert, issue, complete), up to the next
 * completion: its io_pairs row into ps->pair (derive_feed). 1, 0 the end, -1 an error. */
static int next_pair(void *arg)
{
	struct pass *ps = arg;

	ps->ready = false;
	while (!ps->ready) {
		int best = -1;
		int64_t best_id = 0;

		for (int k = 0; k < NR_KINDS; k++) {
			if (!ps->in[k])
				continue;
			int64_t id = sqlite3_column_int64(ps->in[k], C_ID);

			if (best < 0 || id < best_id) {
				best = k;
				best_id = id;
			}
		}
		if (best < 0)
			return 0;
		if (event(ps, best) || next_row(ps, best) < 0)
			return -1;
	}
	return 1;
}

static void pair_column(void *arg, sqlite3_context *ctx, int col)
{
	const struct pair *p = &((const struct pass *)arg)->pair;

	switch (col) {
	case 0: dfeed_dint(ctx, p->id); break;
	case 1: dfeed_dint(ctx, p->ts); break;
	case 2: dfeed_cell(ctx, &p->op); break;
	case 3: dfeed_dint(ctx, p->issue_id); break;
	case 4: dfeed_dint(ctx, p->insert_id); break;
	case 5: sqlite3_result_text(ctx, status_name[p->status], -1, SQLITE_STATIC); break;
	default:
		if (p->q_status < NR_STATUS)
			sqlite3_result_text(ctx, status_name[p->q_status], -1, SQLITE_STATIC);
		else
			sqlite3_result_null(ctx);
		break;
	}
}

static const struct dfeed_ops pairs_feed = { 7, next_pair, pair_column };

static int put_losses(struct pass *ps, const char *schema)
{
	struct drows r;
	int rc = drows_open(&r, ps->db, schema, "io_losses", 3);

	for (size_t i = 0; !rc && i < ps->w.n; i++) {
		struct dcell *c = drows_cells(&r);

		dc_int(&c[0], ps->w.l[i].cpu);
		dc_int(&c[1], (struct dint){ ps->w.l[i].lo, false });
		dc_int(&c[2], (struct dint){ ps->w.l[i].hi, false });
		rc = drows_add(&r);
	}
	for (size_t i = 0; !rc && i < ps->nr_untimed; i++) {
		struct dcell *c = drows_cells(&r);

		dc_int(&c[0], ps->untimed[i]);
		dc_int(&c[1], (struct dint){ -1, false });
		dc_null(&c[2]);
		rc = drows_add(&r);
	}
	return derive_rows_done(&r, rc);
}

static int put_dropped(struct pass *ps, const char *schema)
{
	struct drows r;
	int rc = drows_open(&r, ps->db, schema, "io_dropped", 3);

	for (int what = 0; !rc && what < 2; what++)
		for (int i = 0; !rc && i < NR_STATUS; i++) {
			int64_t n = (what ? ps->queue_dropped : ps->dropped)[by_name[i]];
			struct dcell *c = drows_cells(&r);

			if (!n)
				continue;
			rc = dc_text(&c[0], what ? "queue" : "completion", -1) ||
			     dc_text(&c[1], status_name[by_name[i]], -1);
			dc_int(&c[2], (struct dint){ n, false });
			if (!rc)
				rc = drows_add(&r);
		}
	return derive_rows_done(&r, rc);
}

static int derive(struct pass *ps, const char *schema)
{
	if (derive_tables_create(ps->db, schema, SQL_FILE) ||
	    loss_windows_load(ps->db, &ps->w, tables, NR_KINDS) || load_untimed(ps) ||
	    open_inputs(ps))
		return -1;
	for (int k = 0; k < NR_KINDS; k++)
		if (ps->in[k] && next_row(ps, k) < 0)
			return -1;
	if (derive_feed(ps->db, schema, "io_pairs", &pairs_feed, ps))
		return -1;
	return put_losses(ps, schema) || put_dropped(ps, schema) ? -1 : 0;
}

int derive_io(sqlite3 *db, const char *schema)
{
	struct pass ps = { .db = db };
	int rc;

	if (derive_check_schema(schema) || db_exec(db, "SAVEPOINT derive_io"))
		return -1;
	derive_random(ps.hash_key, sizeof(ps.hash_key)); /* the key of long texts' hashes */
	pmap_init(&ps.keys, sizeof(struct io_key), sizeof(struct entry));
	rc = derive(&ps, schema);
	for (int k = 0; k < NR_KINDS; k++)
		sqlite3_finalize(ps.in[k]);
	sqlite3_finalize(ps.op_sql);
	dtext_free(&ps.pair.op.text);
	pmap_free(&ps.keys);
	loss_windows_free(&ps.w);
	free(ps.untimed);
	return derive_end(db, "derive_io", rc);
}

bool derive_io_present(sqlite3 *db, const char *schema)
{
	return derive_tables_present(db, schema, SQL_FILE);
}
