/* SPDX-License-Identifier: MIT */
/* import_int.h - internals of the importer (import*.c); not for other modules. */
#ifndef IMPORT_INT_H
#define IMPORT_INT_H

#include <sqlite3.h>

#include "decode/decode.h"
#include "import/import.h"

enum col_kind {
	COL_INT,        /* integer field of 1, 2, 4 or 8 bytes (also pointers, longs) */
	COL_TEXT,       /* char array: text up to the first NUL */
	COL_TEXT_DYN,   /* __data_loc / __rel_loc char[]: text */
	COL_BLOB,       /* any other fixed-size array, or an odd-sized field */
	COL_BLOB_DYN,   /* __data_loc / __rel_loc of non-char */
};

/* How to turn one format field into one column, computed once per event type so
 * the per-event loop never looks a field up by name. offset and size are the
 * format file's numbers as they are (unsigned 32-bit; a hostile file may say
 * anything): each record is checked against them in 64-bit arithmetic. */
struct col {
	enum col_kind kind;
	uint32_t offset, size;
	bool is_signed;
	bool relative;  /* __rel_loc: offset counts from the end of the field */
};

/* A (pid field, comm field) pair in one event, for the tasks table. */
struct comm_pair {
	int pid_col, comm_col; /* indexes into cols; pid_col -1: common_pid */
};

struct etable {
	struct tep_event *event;
	char *name;             /* table name (import_names.c) */
	sqlite3_stmt *insert;
	struct col *cols;
	char **col_names;       /* column name of each of cols (import_names.c) */
	int nr_cols;
	struct col pid;         /* common_pid; kind COL_INT only if it is a usable integer */
	struct comm_pair *pairs;
	int nr_pairs;
	uint64_t count;
	bool created;
	bool duplicate_id;      /* another format of the file has this ID: no table */
};

struct pid_comm; /* pid -> comm map, see import_meta.c */

struct importer {
	sqlite3 *db;
	struct dec *dec;
	const char *path;       /* the capture, for warnings */
	struct tep_handle *tep;
	bool native;            /* file byte order == host byte order */
	struct etable **by_id;  /* 65536 entries, by common_type */
	struct etable *tables;
	int nr_tables;
	struct pid_comm *comms;
	sqlite3_stmt *lost_insert, *stack_insert;
	struct stack_set *stacks;
	uint64_t orphan_stacks;
	uint64_t unknown_events; /* events whose type has no format in the file */
	uint64_t ids;           /* events given an id so far */
	bool base;              /* the database's first pass: base tables too (import_pass.c) */
	bool summary;           /* ... for `ftana info`: no symbols, no tasks */
	bool window;            /* IMPORT_WINDOW: a new database of a streamed derivation alone */
	uint64_t *want;         /* types whose rows this pass writes (DEC_TYPE_WORDS) */
	uint64_t *deliver;      /* types the decoder hands out */
	uint64_t *counted;      /* types with an id: a table, not kernel_stack */
	uint64_t *imported;     /* types whose rows the database holds after this pass */
	uint64_t stacks_attached;
	struct queue *queue;    /* the writer thread of a pass (import_queue.c), or NULL */
	bool progress_on;       /* the progress line is drawn, its last state still to come */
	double progress_t0;
	struct stream *stream;  /* a derivation made from the decoded events, or NULL */
	struct sysstore *sys;   /* the syscalls stored as their pairs (import_syscalls.c), or NULL */
	bool rows_only;         /* ... never: the pass after one that gave up */
	bool sys_retry;         /* the store gave up: its types are still to import */
	bool said;              /* an error was said (im_error): the import fails with it */
	char *unsaid;           /* the last error that cost one row only (im_sql_error_kept) */
};

/* import_names.c: table and column names from the file's names, made safe and
 * unique (the rule: there and in schema/tables.sql). */
int names_tables(struct importer *im, struct tep_event **evs, int n);
int names_columns(struct etable *t, struct tep_format_field **fields, int n);
/* NAME (any case) is one our SQL creates or SQLite keeps: no event table gets it. */
bool import_name_reserved(const char *name);

/* import_plan.c */
int plan_tables(struct importer *im);
int plan_create(struct importer *im, struct etable *t);
int plan_insert(struct importer *im, struct etable *t, uint64_t id, unsigned long long ts,
		int cpu, const uint8_t *data, int size, int64_t stack_id);
/* The integer a row gets for column c of this record: false when the row holds no
 * integer there (c is not COL_INT, or lies outside the record: NULL). */
bool plan_col_int(struct importer *im, const struct col *c, const uint8_t *data, int size, int64_t *v);
/* The comms of the record's (pid, comm) pairs into the tasks map. */
void plan_comms(struct importer *im, const struct etable *t, const uint8_t *data, int size);
int plan_events_view(struct importer *im);
/* import_stop.c: the view capture_stop (what stopped a --stop-if recording). */
int stop_view(struct importer *im);
void plan_free(struct importer *im);

/* import_meta.c */
int meta_write(struct importer *im, const struct import_result *res, uint64_t first_ts,
	       uint64_t last_ts);
int meta_event_types(struct importer *im);
/* A later pass: its types are imported now (event_types.imported). */
int meta_imported(struct importer *im);
int meta_tasks(struct importer *im);
void comms_note(struct importer *im, int pid, const char *comm, int len);
void comms_free(struct importer *im);

/* import_stacks.c: returns the stack_id of the kernel_stack event at data, or -1. */
int64_t stacks_intern(struct importer *im, struct tep_event *ev, const uint8_t *data, int size);
void stacks_free(struct importer *im);

/* import_profile.c: SNAPSHOT rounds of the function profiler into function_profile. */
int profile_import(struct importer *im);

/*
 * import.c. Errors are said where they are found (common/msg.h), through im_error,
 * which ends a progress line first; an error without a message (-ENOMEM) is said
 * by import_ftz_set, as "FILE: strerror". The functions below return 0, or the
 * negative errno given after saying it.
 */
int im_error(struct importer *im, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int im_exec(struct importer *im, const char *sql);
/* Run a built-in SQL file (schema/...). 0, or -ENOENT / -EIO after the error. */
int im_exec_file(struct importer *im, const char *path);
/* sqlite3_step + reset of an INSERT; 0, or -EIO after the error naming WHAT. */
int im_step_done(struct importer *im, sqlite3_stmt *st, const char *what);
int im_prepare(struct importer *im, const char *sql, sqlite3_stmt **st);
/* "WHAT: SQLite's error", -EIO. */
int im_sql_error(struct importer *im, const char *what);
/* The same for an error that costs one row, not the import (a stack): kept unsaid, and
 * said only if the import then fails without an error of its own. -EIO. */
int im_sql_error_kept(struct importer *im, const char *what);

/* import_pass.c: the walk over the events (0, or an error said through im_error). */
int pass_events(struct importer *im, bool show);
void pass_progress(struct importer *im, bool last);
bool pass_stacks_possible(struct importer *im);
/* ftrace:kernel_stack where an event of this pass may be followed by one, else NULL. */
struct tep_event *pass_stack_event(struct importer *im);
/* A lost_events row (count -1: unknown). */
int pass_note_loss(struct importer *im, int cpu, uint64_t ts, int64_t missed);

/*
 * import_stream.c: a derivation made from the pass's decoded events, its inputs not
 * imported (derive.h, streamed). stream_plan sets im->stream when the pass makes one
 * (and has the decoder hand out its inputs); then every event handed out goes to
 * stream_tick, its inputs also to stream_event, and stream_write writes its tables
 * after the walk. 0, or an error said.
 */
int stream_plan(struct importer *im, const struct import_types *types);
int stream_tick(struct importer *im, const struct dec_event *ev);
int stream_event(struct importer *im, const struct etable *t, const struct dec_event *ev);
int stream_write(struct importer *im);
void stream_free(struct importer *im);

/*
 * import_syscalls.c: the syscalls of a pass stored as their pairs, each type a view.
 * sysstore_plan sets im->sys when the pass does it (every syscall type of the capture
 * imported now, of the usual shape, no stacks); then every event handed out goes to
 * sysstore_tick, the types sysstore_takes to sysstore_event instead of their rows, and
 * sysstore_finish (after the walk) writes the rest and the views, or, when the store
 * gave up, drops what it wrote and sets im->sys_retry. The writer thread applies its
 * rows (sysstore_apply, as queue_sys handed them). 0, or an error said.
 */
int sysstore_plan(struct importer *im);
bool sysstore_takes(const struct importer *im, int type_id);
int sysstore_tick(struct importer *im, const struct dec_event *ev);
int sysstore_event(struct importer *im, const struct etable *t, const struct dec_event *ev);
int sysstore_apply(struct importer *im, int kind, const void *bytes);
int sysstore_finish(struct importer *im);
void sysstore_free(struct importer *im);

/* import_stacks.c: a stack's rows. */
int stacks_store(struct importer *im, int64_t id, const uint64_t *addrs, int n);

/* import_queue.c: what a pass asks of SQLite, done in order by a writer thread once
 * queue_start started it (else at once); queue_finish waits for it. 0 or an error. */
int queue_start(struct importer *im);
int queue_create(struct importer *im, struct etable *t);
int queue_row(struct importer *im, struct etable *t, uint64_t id, uint64_t ts, int cpu,
	      const uint8_t *data, int size, int64_t stack_id);
int queue_loss(struct importer *im, int cpu, uint64_t ts, int64_t count);
int queue_stack(struct importer *im, int64_t id, const uint64_t *addrs, int n);
/* A row of the syscall store (import_syscalls.c): its KIND and SIZE bytes. */
int queue_sys(struct importer *im, int kind, const void *row, size_t size);
int queue_finish(struct importer *im);

#endif
