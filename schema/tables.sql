-- tables.sql - the fixed tables of an ftana database, created before the import.
--
-- One .ftz becomes one database. Besides the tables below, the importer creates
-- ONE TYPED TABLE PER EVENT TYPE that occurs in the recording. That CREATE TABLE is
-- built in C (import/import_plan.c) because its columns come from the event's
-- format file; its shape is:
--
--   CREATE TABLE "<event>" (        -- e.g. block_rq_issue; see NAMES below
--       id       INTEGER PRIMARY KEY, -- global, time-ordered across CPUs and across
--                                     -- all typed tables (ties: lower CPU first)
--       ts       INTEGER NOT NULL,    -- ns, trace clock of the recording (meta.clock)
--       cpu      INTEGER NOT NULL,
--       pid      INTEGER,             -- common_pid (NULL when the format gives it a
--                                     -- size other than 1/2/4/8 bytes)
--       stack_id INTEGER,             -- stacks.stack_id when a kernel_stack event
--                                     -- followed this event on its CPU, else NULL
--       "<field>" <type>, ...         -- one per non-common format field, in format order
--   );
--
-- NAMES. They come from the capture (a trace.dat's system names have no limit of
-- length or bytes), so import/import_names.c makes them safe and unique, and all
-- SQL quotes them as identifiers; values are always bound. The rule:
--   - Printable ASCII is kept, any other byte becomes '_'; an empty name becomes
--     "unnamed"; a name over 109 bytes keeps its first 100 and gets "_" and 8 hex
--     digits of a hash of the whole.
--   - A table is named after its event. It is "<system>_<event>" when another event
--     has the same name (case-insensitively, as SQLite compares names) or the name
--     is reserved: a table, view, index or trigger our SQL creates (every CREATE in
--     schema/*.sql and schema/reports/*.sql, and the C-made events, iolat_sel,
--     stack_refs), or a name starting with "sqlite_" (that one gets "ev_" before it).
--   - A column is named after its field; "field_<name>" when that is a fixed
--     column's name (id, ts, cpu, pid, stack_id; sched_wakeup's pid is field_pid).
--   - A name still taken, case-insensitively, gets "_2", "_3", ... Events are
--     named in (ID, system, name) order, fields in format order, so one file always
--     gives the same names. event_types maps system:name to the table.
--   - Two formats with one ID: the first in that order is the event type, the
--     others are ignored (a warning). Fields past SQLite's column limit (2000 with
--     the fixed columns) are left out (a warning).
-- LAYOUTS. A field's offset and size are the format file's; a field that does not
-- lie inside a record (offset + size past its end, in 64-bit arithmetic) is NULL
-- in that row, as is a __data_loc / __rel_loc string or array that points outside.
-- Types:
--   INTEGER  integer fields of 1/2/4/8 bytes, pointers and longs. Signed fields are
--            sign-extended; unsigned ones zero-extended, except that unsigned
--            64-bit values are stored as their signed 64-bit bit pattern (SQLite has
--            no unsigned type): values >= 2^63, e.g. kernel addresses, read back
--            negative; `printf('%x', col)` prints them as the kernel would.
--   TEXT     char arrays (comm[16], rwbs[8], ...) up to the first NUL, and
--            __data_loc / __rel_loc char[] strings.
--   BLOB     other arrays (fixed or dynamic), and fields of any other size (3 bytes...).
-- The syscalls:sys_enter_NAME / sys_exit_NAME types are VIEWS of that shape instead
-- when the import stores them as their pairs (meta syscall_store = 'pairs';
-- import/import_syscalls.c, schema/derive_syscalls.sql): the same rows, no row order.
-- ftrace:kernel_stack events are not rows of a typed table: they become `stacks`
-- rows, referenced by the stack_id of the event they followed on the same CPU. A
-- kernel_stack with no event before it on its CPU, or right after a loss of events
-- (it may belong to a lost event), is counted in meta.stacks_orphan.
-- Rows of `events` (a view, made after the import) are the typed tables'
-- (id, ts, cpu, pid, type = table name) joined with UNION ALL: one row per event,
-- stored once.

-- INFO and END keys of the .ftz as recorded (hostname, uname_release, clock,
-- nr_cpus, start_wall_ns, stop_reason, ...) and derived ones: first_ts, last_ts,
-- duration_ns, wall_offset_ns (add to ts for ns since the epoch), file_size,
-- pages, page_bytes_raw, page_bytes_stored, bad_pages, events_total,
-- stacks_attached, stacks_orphan, unknown_events (events whose type has no
-- format in the recording: not imported), end_state (clean | no-end-section | damaged),
-- damage_offset, damage_reason, source (the .ftz), source_size, source_mtime_ns,
-- traced_from_ns, complete_from_ns, traced_until_ns (capture_window).
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;

-- The time events could be recorded, trace clock ns as ts: start_ts = tracing on
-- (END traced_from_trace_ns; files of older ftrec: the first event, ftrec's start
-- marker), end_ts = the stop (END end_trace_ns; after a crash the last event),
-- complete_from_ts = from when every CPU is complete (later than start_ts where a
-- ring dropped each CPU's oldest pages: a trimmed --ring, --kernel-ring). Reports
-- start at complete_from_ts and divide rates by the time to end_ts.
CREATE VIEW capture_window AS
SELECT (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'traced_from_ns') AS start_ts,
       (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'complete_from_ns') AS complete_from_ts,
       (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'traced_until_ns') AS end_ts;

-- Every event format the recording carries; table_name is NULL when no event of
-- the type occurred; count = events of the type in the capture. A database holds
-- the rows of the types a question needed (issue 23: a report imports the types it
-- reads, `ftana sql` and `ftana db` all of them): imported = 1 when the type's rows
-- are in its table (or it has none), 0 when its table is still to be made.
CREATE TABLE event_types (
	type_id    INTEGER PRIMARY KEY, -- common_type, the format file's ID
	system     TEXT NOT NULL,
	name       TEXT NOT NULL,
	table_name TEXT,
	format     TEXT,                -- the format file as recorded
	print_fmt  TEXT,
	count      INTEGER NOT NULL,
	imported   INTEGER NOT NULL DEFAULT 1
);

-- Tasks: saved_cmdlines, overridden by comms seen in events (comm/pid,
-- prev_comm/prev_pid, next_comm/next_pid, ... pairs of one event), and the
-- tgid from ftrec's /proc/tgids (END, then START: every thread alive when ftrec
-- stopped or started), else from the kernel's saved_tgids (which keeps stale
-- entries of reused pids, and misses threads it never saw switch).
CREATE TABLE tasks (pid INTEGER PRIMARY KEY, tgid INTEGER, comm TEXT);

-- The kernel's per-CPU ring-buffer counters (per_cpu/cpuN/stats), before
-- (phase 'start') and after ('end') the recording.
CREATE TABLE cpu_stats (
	cpu            INTEGER NOT NULL,
	phase          TEXT NOT NULL,   -- 'start' | 'end'
	entries        INTEGER,
	overrun        INTEGER,
	commit_overrun INTEGER,
	bytes          INTEGER,
	dropped        INTEGER,         -- "dropped events"
	read           INTEGER,         -- "read events"
	PRIMARY KEY (cpu, phase)
);

-- Each CPU's events (of every type, imported or not): how many, the first and the
-- last one's time (trace clock ns). A CPU without events has no row.
CREATE TABLE cpu_spans (
	cpu      INTEGER PRIMARY KEY,
	events   INTEGER NOT NULL,
	first_ts INTEGER NOT NULL,
	last_ts  INTEGER NOT NULL
);

-- Loss the pages reported: one row per sub-buffer flagged "events were lost
-- before this page" (ts: the first event after the loss), count NULL when the
-- kernel did not store how many.
CREATE TABLE lost_events (cpu INTEGER NOT NULL, ts INTEGER, count INTEGER);

-- /proc/kallsyms as recorded (addr: signed bit pattern of the 64-bit address).
CREATE TABLE symbols (addr INTEGER NOT NULL, name TEXT NOT NULL, type TEXT, module TEXT);

-- Kernel stacks, each distinct address list once; depth 0 is the innermost frame.
-- symbol is the function containing addr (NULL when kallsyms does not cover it).
CREATE TABLE stacks (
	stack_id INTEGER NOT NULL,
	depth    INTEGER NOT NULL,
	addr     INTEGER NOT NULL,
	symbol   TEXT,
	PRIMARY KEY (stack_id, depth)
) WITHOUT ROWID;

-- The kernel's function profiler (ftrec funccount --profile; meta.function_profile
-- = 1): ftrec read its per-CPU tables (trace_stat/functionN) in rounds -- when it
-- was switched on, every meta.snapshot_interval_ns, and at the stop. Counts are
-- running totals since round 0, so a round's calls are the difference to the
-- round before. Two kernel functions of the same name (static functions in
-- different files) are summed into one row, as the profiler prints only names.
CREATE TABLE profile_rounds (
	round   INTEGER PRIMARY KEY,
	mono_ns INTEGER NOT NULL,       -- CLOCK_MONOTONIC when ftrec read the tables
	wall_ns INTEGER NOT NULL        -- CLOCK_REALTIME at the same moment
);
CREATE TABLE function_profile (
	round   INTEGER NOT NULL,
	cpu     INTEGER NOT NULL,
	func    TEXT NOT NULL,
	hits    INTEGER NOT NULL,       -- calls since the profiler was switched on
	time_ns INTEGER,                -- time in the function so far (NULL: the kernel's
	                                -- profiler measures none without function_graph)
	PRIMARY KEY (cpu, func, round)
) WITHOUT ROWID;
