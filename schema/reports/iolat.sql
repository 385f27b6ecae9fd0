-- iolat.sql: block I/O requests paired start -> completion, as perf-tools' iosnoop and
-- bcc's biosnoop do, for `ftana report iolat` and for your own queries
-- (`ftana sql FILE 'select * from io'` gives the report's numbers). TEMP views only:
-- running this file twice is harmless.
--
-- The pairing is derived once per capture, in C (import/derive_io.c, whose header gives
-- the rules: iosnoop's made explicit), into the tables io_pairs, io_losses and io_dropped
-- (schema/derive_io.sql): in the capture's database, or in TEMP for a database made
-- elsewhere. iolat_views() (reports/report_iolat.c; run by the report and by `ftana
-- sql`) derives them when they are missing and creates empty TEMP stand-ins for the
-- inputs a capture lacks (say, no block_rq_insert when recorded with `ftrec record -e
-- block:block_rq_issue,...`) before running this file.
--
-- Latencies (ns): iosnoop's LATms and bcc biosnoop's -Q queue column.
--   lat_ns  = complete - issue   iosnoop LATms, biosnoop LAT(ms)
--   que_ns  = issue - insert     biosnoop -Q QUE(ms); NULL when the request was issued
--                                directly (blk-mq bypasses the scheduler: no insert event)
--   qlat_ns = complete - insert  iosnoop -Q LATms: iosnoop -Q takes block_rq_insert as the
--                                start, so its latency includes the queue wait. `ftana
--                                report iolat -Q` prints this as LATms, like iosnoop.

DROP VIEW IF EXISTS temp.io_rq;
DROP VIEW IF EXISTS temp.io;

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

-- One row per paired completion (docs/SQL.md lists every column and its unit).
-- pid/comm: the task that submitted the request - the insert's, when the request went
-- through an I/O scheduler, else the issue's (issued directly, in the submitter's own
-- context); issue_pid/issue_comm: the task that issued it to the driver (iosnoop's
-- COMM/PID: for a queued request often a kworker's kblockd run, which caused nothing).
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
