-- tests/oracle/iolat.sql: THE REFERENCE the C derivation of block I/O pairs is checked
-- against (import/derive_io.c, tests/test_derive_io.c). It is the SQL that built the
-- views io_rq, io_losses, io_pairs, io and io_dropped before io_pairs, io_losses and
-- io_dropped were derived in C (issue 23), kept unchanged: a change of the rules changes
-- both, and the test says where they disagree. Not built into ftana. Below, its own
-- header as it was.
--
-- iolat.sql: block I/O requests paired start -> completion, as perf-tools' iosnoop and
-- bcc's biosnoop do, for `ftana report iolat` and for your own queries
-- (`ftana sql FILE 'select * from io'` gives the report's numbers). TEMP views only:
-- nothing is written to the database, and running this file twice is harmless.
--
-- Inputs: block_rq_insert, block_rq_issue, block_rq_complete, lost_events. iolat_views()
-- (reports/report_iolat.c; run by the report and by `ftana sql`) creates empty TEMP
-- stand-ins for the ones a capture lacks (say, no block_rq_insert when recorded with
-- `ftrec record -e block:block_rq_issue,...`) before running this file.
--
-- Pairing, iosnoop's rule made explicit:
--  * key = (dev, sector, op). op is the request's operation letter from rwbs (R read,
--    W write, D discard, F flush, N other), skipping a leading F (preflush): "FWS" is a
--    write, "FF" a flush. The completion's rwbs can gain or lose flag letters, never op.
--    Flushes carry no sector (the kernel traces 0; (sector_t)-1 on old kernels, which a
--    64-bit column holds as -1): they pair on the raw value, so each flush pairs with its
--    own completion and never with a write at sector 0 (op differs); `sector` is shown as
--    NULL for them.
--  * a completion pairs with the latest start of its key when no completion of that key
--    came between them (iosnoop: starts[dev,loc] is overwritten by a newer start and
--    deleted by its completion). A requeued request is measured from its last issue; of
--    two requests in flight on one sector, the first completion takes the newer start
--    and the second has none.
--  * completions without a start are dropped (started before the capture, or lost).
--  * lost events: a pair is excluded when events were lost, on ANY CPU, in a window that
--    overlaps (start, completion): its true completion may be lost on one CPU and a re-issue
--    of the same sector on another, and the pair would then be wrong. The kernel flags a
--    loss on the first sub-buffer read after it (lost_events.ts); the lost events lie
--    between the previous block event recorded on that CPU and that timestamp, so that is
--    the window (conservative: wider than the true gap when other events were recorded).
--  * a latency below 0 or above 60 s is excluded: 60 s is twice the block layer's default
--    request timeout, past which the request would have been aborted; such a pair can only
--    be a mispairing across untraced events.
--  Excluded and dropped completions are counted in io_dropped(what, reason, count).
--
-- Latencies (ns): iosnoop's LATms and bcc biosnoop's -Q queue column.
--   lat_ns  = complete - issue   iosnoop LATms, biosnoop LAT(ms)
--   que_ns  = issue - insert     biosnoop -Q QUE(ms); NULL when the request was issued
--                                directly (blk-mq bypasses the scheduler: no insert event)
--   qlat_ns = complete - insert  iosnoop -Q LATms: iosnoop -Q takes block_rq_insert as the
--                                start, so its latency includes the queue wait. `ftana
--                                report iolat -Q` prints this as LATms, like iosnoop.
-- The insert -> issue pairing follows the same rules as issue -> complete.

DROP VIEW IF EXISTS temp.io_rq;
DROP VIEW IF EXISTS temp.io_losses;
DROP VIEW IF EXISTS temp.io_pairs;
DROP VIEW IF EXISTS temp.io;
DROP VIEW IF EXISTS temp.io_dropped;

-- Every request event with its kind (0 insert, 1 issue, 2 complete) and op letter.
CREATE TEMP VIEW io_rq AS
SELECT kind, id, ts, cpu, pid, comm, dev, sector, nr_sector, rwbs, error,
       CASE WHEN rwbs GLOB 'F[RWDFN]*' THEN substr(rwbs, 2, 1) ELSE substr(rwbs, 1, 1) END AS op
FROM (SELECT 0 AS kind, id, ts, cpu, pid, comm, dev, sector, nr_sector, rwbs, NULL AS error
      FROM block_rq_insert
      UNION ALL
      SELECT 1, id, ts, cpu, pid, comm, dev, sector, nr_sector, rwbs, NULL FROM block_rq_issue
      UNION ALL
      SELECT 2, id, ts, cpu, pid, NULL, dev, sector, nr_sector, rwbs, error FROM block_rq_complete);

-- Loss windows [lo, hi]: hi = the timestamp the loss was reported at, lo = the last
-- request event on that CPU before it (-1: none since the capture started).
CREATE TEMP VIEW io_losses AS
SELECT cpu, coalesce(lo, -1) AS lo, ts AS hi FROM (
	SELECT cpu, ts, is_loss,
	       max(CASE WHEN is_loss THEN NULL ELSE ts END)
		OVER (PARTITION BY cpu ORDER BY ts, is_loss DESC ROWS UNBOUNDED PRECEDING) AS lo
	FROM (SELECT cpu, ts, 0 AS is_loss FROM io_rq
	      UNION ALL SELECT cpu, ts, 1 FROM lost_events))
WHERE is_loss;

-- One row per completion: the issue it pairs with (pass 2) and that issue's insert
-- (pass 1), each with a status saying why it is or is not a pair. Loss windows
-- overlapping (start, end) are counted without a join: #(lo <= end) - #(hi < start),
-- both running sums over one time-ordered stream (lo points sort before events at
-- equal times, hi points after). Only window functions and primary-key lookups: the
-- cost grows as n log n.
CREATE TEMP VIEW io_pairs AS
WITH stream AS (
	SELECT kind, id, ts, dev, sector, op, 1 AS ord, 0 AS is_lo, 0 AS is_hi FROM io_rq
	UNION ALL SELECT NULL, NULL, lo, NULL, NULL, NULL, 0, 1, 0 FROM io_losses
	UNION ALL SELECT NULL, NULL, hi, NULL, NULL, NULL, 2, 0, 1 FROM io_losses),
counted AS MATERIALIZED (
	SELECT kind, id, ts, dev, sector, op,
	       sum(is_lo) OVER running AS lo_seen, sum(is_hi) OVER running AS hi_seen
	FROM stream
	WINDOW running AS (ORDER BY ts, ord, id ROWS UNBOUNDED PRECEDING)),
issues AS (
	SELECT *, CASE WHEN q_kind IS NULL OR q_kind = 1 THEN 'no_start'
	               WHEN lo_seen - q_hi_seen > 0 THEN 'lost_events'
	               WHEN ts - q_ts < 0 THEN 'negative'
	               WHEN ts - q_ts > 60000000000 THEN 'absurd'
	               ELSE 'ok' END AS q_status
	FROM (SELECT kind, id, ts, dev, sector, op, lo_seen, hi_seen,
	             lag(kind) OVER k AS q_kind, lag(id) OVER k AS q_id, lag(ts) OVER k AS q_ts,
	             lag(hi_seen) OVER k AS q_hi_seen
	      FROM counted WHERE kind IN (0, 1)
	      WINDOW k AS (PARTITION BY dev, sector, op ORDER BY id))
	WHERE kind = 1),
ends AS (
	SELECT kind, id, ts, op, lo_seen,
	       lag(kind) OVER k AS s_kind, lag(id) OVER k AS s_id, lag(ts) OVER k AS s_ts,
	       lag(hi_seen) OVER k AS s_hi_seen,
	       lag(q_id) OVER k AS q_id, lag(q_status) OVER k AS q_status
	FROM (SELECT kind, id, ts, dev, sector, op, lo_seen, hi_seen, q_id, q_status FROM issues
	      UNION ALL
	      SELECT kind, id, ts, dev, sector, op, lo_seen, hi_seen, NULL, NULL
	      FROM counted WHERE kind = 2)
	WINDOW k AS (PARTITION BY dev, sector, op ORDER BY id))
SELECT id AS complete_id, ts AS complete_ts, op,
       CASE WHEN s_kind = 1 THEN s_id END AS issue_id,
       CASE WHEN s_kind = 1 AND q_status = 'ok' THEN q_id END AS insert_id,
       CASE WHEN s_kind IS NULL OR s_kind = 2 THEN 'no_start'
            WHEN lo_seen - s_hi_seen > 0 THEN 'lost_events'
            WHEN ts - s_ts < 0 THEN 'negative'
            WHEN ts - s_ts > 60000000000 THEN 'absurd'
            ELSE 'ok' END AS status,
       CASE WHEN s_kind = 1 THEN q_status END AS queue_status
FROM ends WHERE kind = 2;

-- One row per paired completion (docs/SQL.md lists every column and its unit).
-- `bytes` comes from the issue event; on a kernel whose block_rq_issue has no bytes
-- field, the inner `bytes` resolves to nobytes.bytes (SQLite looks a name up innermost
-- first), NULL, and nr_sector * 512 is used. rwbs is the completion's (the letters a
-- perf-tools user sees in iosnoop's TYPE); `type` is the same value under the name the
-- report's output uses.
CREATE TEMP VIEW io AS
SELECT c.id AS id, c.dev AS dev, (c.dev >> 20) || ',' || (c.dev & 1048575) AS disk,
       CASE WHEN c.nr_sector = 0 OR c.sector < 0 OR c.sector > 9223372036854775806
            THEN NULL ELSE c.sector END AS sector,
       coalesce((SELECT bytes FROM block_rq_issue b WHERE b.id = i.id),
                i.nr_sector * 512) AS bytes,
       c.rwbs AS rwbs, c.rwbs AS type, p.op AS op, c.error AS error,
       -- the submitter: the inserter, else the issuer (issued directly)
       CASE WHEN q.id IS NULL THEN i.pid ELSE q.pid END AS pid,
       CASE WHEN q.id IS NULL THEN i.comm ELSE q.comm END AS comm,
       q.pid AS insert_pid, q.comm AS insert_comm, i.pid AS issue_pid, i.comm AS issue_comm,
       q.id AS insert_id, i.id AS issue_id, c.id AS complete_id,
       q.cpu AS insert_cpu, i.cpu AS issue_cpu, c.cpu AS complete_cpu,
       q.ts AS insert_ts, i.ts AS issue_ts, c.ts AS complete_ts,
       i.ts - q.ts AS que_ns, c.ts - i.ts AS lat_ns, c.ts - q.ts AS qlat_ns
FROM io_pairs p
JOIN block_rq_complete c ON c.id = p.complete_id
JOIN block_rq_issue i ON i.id = p.issue_id
CROSS JOIN (SELECT NULL AS bytes) nobytes
LEFT JOIN block_rq_insert q ON q.id = p.insert_id
WHERE p.status = 'ok';

-- Completions left out of io ('completion'), and paired ones without queue columns
-- ('queue': no insert, as for requests blk-mq dispatched directly, or a bad pair).
CREATE TEMP VIEW io_dropped AS
SELECT 'completion' AS what, status AS reason, count(*) AS count
FROM io_pairs WHERE status != 'ok' GROUP BY status
UNION ALL
SELECT 'queue', queue_status, count(*)
FROM io_pairs WHERE status = 'ok' AND queue_status != 'ok' GROUP BY queue_status;
