-- bitesize.sql: the size of every block I/O request issued to a device (perf-tools' /
-- bcc's bitesize), for `ftana report bitesize` and your own queries (`select * from
-- io_sizes`). TEMP view. Inputs: block_rq_issue, block_rq_insert (stand-ins when
-- absent) and io_submitters (reports/snoop.c: the inserts io_pairs paired, or none).
-- One row per block_rq_issue, as bitesize counts. tid/pid/comm: the task that submitted
-- the request, as the `io` view has it - the insert's, when the request went through an
-- I/O scheduler and its completion was paired (io_pairs status 'ok'), else the issue's
-- (issued directly, in the submitter's own context; or a request still in flight at the
-- stop). issue_tid/issue_pid/issue_comm: the task that issued it to the driver (bcc's
-- bitesize, iosnoop: for a queued request often a kworker running the queue).
-- bytes is the event's bytes field, or nr_sector * 512 on a kernel without it (as the
-- `io` view: the inner `bytes` resolves to nobytes.bytes, NULL, when block_rq_issue has
-- no such column). Requests of 0 bytes (flushes) are included here and left out of the
-- report's histogram.
DROP VIEW IF EXISTS temp.io_sizes;

CREATE TEMP VIEW io_sizes AS
SELECT i.id AS id, i.ts AS ts, i.cpu AS cpu,
       CASE WHEN q.id IS NULL THEN i.pid ELSE q.pid END AS tid,
       coalesce(t.tgid, CASE WHEN q.id IS NULL THEN i.pid ELSE q.pid END) AS pid,
       CASE WHEN q.id IS NULL THEN i.comm ELSE q.comm END AS comm,
       i.dev AS dev, (i.dev >> 20) || ',' || (i.dev & 1048575) AS disk,
       i.rwbs AS rwbs,
       coalesce((SELECT bytes FROM block_rq_issue b WHERE b.id = i.id), i.nr_sector * 512) AS bytes,
       i.pid AS issue_tid, coalesce(it.tgid, i.pid) AS issue_pid, i.comm AS issue_comm,
       q.id AS insert_id
FROM block_rq_issue i
CROSS JOIN (SELECT NULL AS bytes) nobytes
LEFT JOIN io_submitters p ON p.issue_id = i.id
LEFT JOIN block_rq_insert q ON q.id = p.insert_id
LEFT JOIN tasks t ON t.pid = CASE WHEN q.id IS NULL THEN i.pid ELSE q.pid END
LEFT JOIN tasks it ON it.pid = i.pid;
