-- bitesize.sql: the size of every block I/O request issued to a device (perf-tools' /
-- bcc's bitesize), for `ftana report bitesize` and your own queries (`select * from
-- io_sizes`). TEMP view. Input: block_rq_issue (a stand-in when absent).
-- One row per block_rq_issue, as bitesize counts: the task is the one that issued the
-- request (for buffered writes often a kworker or the flusher, not the writer; `ftana
-- report iolat -Q` has the inserter). bytes is the event's bytes field, or nr_sector *
-- 512 on a kernel without it (as the `io` view: the inner `bytes` resolves to
-- nobytes.bytes, NULL, when block_rq_issue has no such column). Requests of 0 bytes (flushes) are
-- included here and left out of the report's histogram.
DROP VIEW IF EXISTS temp.io_sizes;

CREATE TEMP VIEW io_sizes AS
SELECT i.id AS id, i.ts AS ts, i.cpu AS cpu, i.pid AS tid, coalesce(t.tgid, i.pid) AS pid,
       i.comm AS comm, i.dev AS dev, (i.dev >> 20) || ',' || (i.dev & 1048575) AS disk,
       i.rwbs AS rwbs,
       coalesce((SELECT bytes FROM block_rq_issue b WHERE b.id = i.id), i.nr_sector * 512) AS bytes
FROM block_rq_issue i
CROSS JOIN (SELECT NULL AS bytes) nobytes
LEFT JOIN tasks t ON t.pid = i.pid;
