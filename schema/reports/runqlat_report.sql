-- runqlat_report: the run-queue waits of `ftana report runqlat` within its slice, as
-- temp.sched_rows for sched_sel.sql (then sched_hist.sql). After sched_views (the
-- runq_waits table), ordered as that view gave them (task, switch-in); in_slice and
-- temp.slice come from reports/report_slice.c, temp.report_args sched_by (--by: 0 none,
-- 1 tid, 2 pid, 3 comm, 4 the waker's comm: who woke the waiting task, '[preempted]',
-- '[wakeup]' where none is known) from reports/report_runqlat.c.
-- A wait belongs to the slice by its end, the switch-in (run_ts, the CPU it ran on, the
-- task), as bcc's runqlat records it then. Waits whose status is not 'ok' are left out
-- (runq_waits says why; the report counts them).
DROP VIEW IF EXISTS temp.sched_rows;
CREATE TEMP VIEW sched_rows AS
WITH args AS (SELECT coalesce((SELECT value FROM temp.report_args WHERE key = 'sched_by'), 0) AS by)
SELECT CASE by WHEN 1 THEN w.pid WHEN 2 THEN coalesce(t.tgid, w.pid) WHEN 3 THEN w.comm
               WHEN 4 THEN coalesce(w.waker_comm, '[' || coalesce(w.queued_by, 'unknown') || ']') END AS grp,
       CASE by WHEN 1 THEN w.comm
               WHEN 2 THEN coalesce((SELECT comm FROM tasks g WHERE g.pid = t.tgid), w.comm)
               WHEN 3 THEN w.comm
               WHEN 4 THEN coalesce(w.waker_comm, '[' || coalesce(w.queued_by, 'unknown') || ']') END AS label,
       w.wait_ns AS value_ns, w.run_ts AS ts, w.cpu, w.pid, w.pid AS ord1, w.run_id AS ord2
FROM runq_waits w CROSS JOIN args LEFT JOIN tasks t ON t.pid = w.pid
WHERE w.status = 'ok'
  AND w.run_id BETWEEN (SELECT lo_id FROM temp.slice) AND (SELECT hi_id FROM temp.slice)
  AND in_slice(w.run_ts, w.cpu, w.pid);
