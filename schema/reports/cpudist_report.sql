-- cpudist_report: the on-CPU slices of `ftana report cpudist` within its slice, as
-- temp.sched_rows for sched_sel.sql (then sched_hist.sql). After sched_views (the oncpu
-- table), ordered as that view gave them (CPU, switch-in); in_slice and
-- temp.slice from reports/report_slice.c, temp.report_args sched_by (--by: 0 none,
-- 1 tid, 2 pid, 3 comm) from reports/report_cpudist.c.
-- A slice of CPU time belongs to the report's slice by its end, the switch-out (end_ts,
-- its CPU, the task), as bcc's cpudist records it then. Only complete intervals
-- (status 'ok': both switches in the capture, no loss between them) of real tasks
-- (pid != 0: not the idle tasks) count.
DROP VIEW IF EXISTS temp.sched_rows;
CREATE TEMP VIEW sched_rows AS
WITH args AS (SELECT coalesce((SELECT value FROM temp.report_args WHERE key = 'sched_by'), 0) AS by)
SELECT CASE by WHEN 1 THEN o.pid WHEN 2 THEN coalesce(t.tgid, o.pid) WHEN 3 THEN o.comm END AS grp,
       CASE by WHEN 1 THEN o.comm
               WHEN 2 THEN coalesce((SELECT comm FROM tasks g WHERE g.pid = t.tgid), o.comm)
               WHEN 3 THEN o.comm END AS label,
       o.dur_ns AS value_ns, o.end_ts AS ts, o.cpu, o.pid, o.cpu AS ord1, o.start_id AS ord2
FROM oncpu o CROSS JOIN args LEFT JOIN tasks t ON t.pid = o.pid
WHERE o.status = 'ok' AND o.pid != 0
  AND o.end_id BETWEEN (SELECT lo_id FROM temp.slice) AND (SELECT hi_id FROM temp.slice)
  AND in_slice(o.end_ts, o.cpu, o.pid);
