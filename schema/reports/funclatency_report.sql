-- funclatency_report: the durations of one function for `ftana report funclatency`,
-- within its slice, into temp.sched_sel for sched_hist.sql (the same histogram and
-- summary as runqlat and cpudist). Inputs: temp.funclat_func (one row: func, the name
-- asked for), temp.report_args sched_by (--by: 0 none, 1 tid, 2 pid, 3 comm).
--
-- From function_graph (the `calls` view, funcgraph_calls.sql): every call of the
-- function with a duration (its return recorded; dur_ns is the kernel's own rettime -
-- calltime). A call belongs to the slice by its entry event (ts, cpu, pid), or its
-- return when the entry was not recorded, as in `ftana report funcgraph`.
-- (funclatency_profile.sql does the same from the function profiler's totals.)
DROP TABLE IF EXISTS temp.sched_sel;

CREATE TEMP TABLE sched_sel AS
WITH args AS (SELECT coalesce((SELECT value FROM temp.report_args WHERE key = 'sched_by'), 0) AS by)
SELECT CASE by WHEN 1 THEN c.pid WHEN 2 THEN coalesce(t.tgid, c.pid) WHEN 3 THEN c.comm END AS grp,
       CASE by WHEN 1 THEN c.comm
               WHEN 2 THEN coalesce((SELECT comm FROM tasks g WHERE g.pid = t.tgid), c.comm)
               WHEN 3 THEN c.comm END AS label,
       c.dur_ns AS value_ns, coalesce(c.start_ts, c.end_ts) AS ts, c.cpu, c.pid
FROM calls c CROSS JOIN args LEFT JOIN tasks t ON t.pid = c.pid
WHERE c.func = (SELECT func FROM temp.funclat_func) AND c.dur_ns IS NOT NULL
  AND coalesce(c.entry_id, c.exit_id) BETWEEN (SELECT lo_id FROM temp.slice)
                                          AND (SELECT hi_id FROM temp.slice)
  AND in_slice(coalesce(c.start_ts, c.end_ts), c.cpu, c.pid);
