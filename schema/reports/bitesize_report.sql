-- bitesize_report.sql: `ftana report bitesize` within the slice (after bitesize.sql). A
-- request belongs to the slice by its issue event (ts, cpu) and its task: the
-- submitter, or with --issuer (temp.report_args bitesize_issuer = 1) the task that
-- issued it (bcc's). The histogram is bcc bitesize's: per process (pid, comm), log2
-- buckets of whole kbytes, low_kb <= bytes / 1024 <= high_kb for 0 -> 1, 2 -> 3,
-- 4 -> 7, ..., from 0 -> 1 up to the process's highest non-empty bucket. 0-byte requests
-- (flushes) are left out; temp.report_args bitesize_dev (-D): only that dev_t (-1 every
-- disk).
DROP TABLE IF EXISTS temp.bitesize_sel;
DROP VIEW IF EXISTS temp.bitesize_hist;

CREATE TEMP TABLE bitesize_sel AS
SELECT id, ts, cpu, dev, disk, rwbs, bytes,
       CASE WHEN a.issuer THEN issue_tid ELSE tid END AS tid,
       CASE WHEN a.issuer THEN issue_pid ELSE pid END AS pid,
       CASE WHEN a.issuer THEN issue_comm ELSE comm END AS comm
FROM io_sizes,
     (SELECT coalesce((SELECT value FROM temp.report_args WHERE key = 'bitesize_issuer'), 0) AS issuer) a
WHERE id BETWEEN (SELECT lo_id FROM temp.slice) AND (SELECT hi_id FROM temp.slice)
  AND in_slice(ts, cpu, CASE WHEN a.issuer THEN issue_tid ELSE tid END) AND bytes > 0
  AND coalesce((SELECT value FROM temp.report_args WHERE key = 'bitesize_dev'), -1) IN (-1, dev)
ORDER BY id;

CREATE TEMP VIEW bitesize_hist AS
WITH RECURSIVE buckets(slot, low_kb, high_kb) AS (
	SELECT 0, 0, 1
	UNION ALL SELECT slot + 1, high_kb + 1, high_kb * 2 + 1 FROM buckets WHERE slot < 40),
grp AS (SELECT pid, max(comm) AS comm FROM bitesize_sel GROUP BY pid),
counts AS (SELECT s.pid, b.slot, count(*) AS count, sum(s.bytes) AS bytes
           FROM bitesize_sel s JOIN buckets b ON s.bytes / 1024 BETWEEN b.low_kb AND b.high_kb
           GROUP BY s.pid, b.slot),
tops AS (SELECT pid, max(slot) AS top FROM counts GROUP BY pid)
SELECT g.pid AS pid, g.comm AS comm, b.low_kb AS low_kb, b.high_kb AS high_kb,
       coalesce(c.count, 0) AS count, coalesce(c.bytes, 0) AS bytes
FROM grp g JOIN tops t ON t.pid = g.pid JOIN buckets b ON b.slot <= t.top
LEFT JOIN counts c ON c.pid = g.pid AND c.slot = b.slot
ORDER BY g.pid, b.slot;
