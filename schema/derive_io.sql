-- derive_io.sql: the tables import/derive_io.c writes, once per capture, from
-- block_rq_insert, block_rq_issue, block_rq_complete and lost_events: block I/O requests
-- paired start -> completion (iosnoop's rule made explicit; the rules are in derive_io.c,
-- and tests/oracle/iolat.sql is the SQL whose rows these tables hold). They go to the
-- capture's database at import, or to TEMP for a database made elsewhere
-- (reports/report_iolat.c); the word before each table's name is that schema, put in by
-- derive_io.c. schema/reports/iolat.sql makes the views `io` and `io_rq` over them;
-- docs/SQL.md documents the columns. Untyped columns keep each value as the events had it.

-- One row per completion: the issue it pairs with and that issue's insert, each with
-- the reason it is or is not a pair ('ok', 'no_start', 'lost_events', 'negative',
-- 'absurd').
CREATE TABLE derived.io_pairs (
	complete_id INTEGER PRIMARY KEY, complete_ts, op, issue_id, insert_id, status,
	queue_status);

-- The windows in which events may have been lost: per lost_events row, its CPU, the
-- last request event on that CPU before it (lo, -1: none) and its own time (hi).
CREATE TABLE derived.io_losses (cpu, lo, hi);

-- What io left out, and why: completions ('completion') by status, and paired ones
-- without queue columns ('queue') by their insert's status; in reason order.
CREATE TABLE derived.io_dropped (what, reason, count);
