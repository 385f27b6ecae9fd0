-- offcpu_report: the off-CPU intervals of `ftana report offcpu` within its slice, per
-- group and reason, and the folded stacks. After sched_views (the offcpu table) and
-- stacks_views.sql (stack_folded); in_slice and temp.slice from reports/report_slice.c,
-- temp.report_args sched_by (0 or 1 tid, 2 pid, 3 comm, 4 the waker's comm and the task's:
-- who woke whom, '[no wakeup]' for an interval no wakeup ended) from reports/report_offcpu.c.
-- An interval belongs to the slice by its end, the switch-in (on_ts, the CPU it ran on,
-- the task), as bcc's offcputime records it then. Only status 'ok' intervals count.
DROP TABLE IF EXISTS temp.offcpu_sel;
DROP VIEW IF EXISTS temp.offcpu_stats;
DROP VIEW IF EXISTS temp.offcpu_folded;

CREATE TEMP TABLE offcpu_sel AS
WITH args AS (SELECT coalesce((SELECT value FROM temp.report_args WHERE key = 'sched_by'), 0) AS by)
SELECT CASE by WHEN 2 THEN coalesce(t.tgid, o.pid) WHEN 3 THEN o.comm
               WHEN 4 THEN coalesce(o.waker_comm, '[no wakeup]') ELSE o.pid END AS grp,
       CASE by WHEN 2 THEN coalesce((SELECT comm FROM tasks g WHERE g.pid = t.tgid), o.comm)
               ELSE o.comm END AS label,
       CASE by WHEN 4 THEN o.comm END AS wakee,
       o.comm, o.state_text, o.off_ns, o.runq_ns, o.stack_id
FROM offcpu o CROSS JOIN args LEFT JOIN tasks t ON t.pid = o.pid
WHERE o.status = 'ok'
  AND o.on_id BETWEEN (SELECT lo_id FROM temp.slice) AND (SELECT hi_id FROM temp.slice)
  AND in_slice(o.on_ts, o.cpu, o.pid);

-- Per group and reason (the switch-out's state): the most time off CPU first.
-- runq_ms: the part of it spent waiting on a run queue after the wakeup (when known).
CREATE TEMP VIEW offcpu_stats AS
SELECT grp, max(label) AS label, state_text AS state, count(*) AS count,
       sum(off_ns) / 1e6 AS total_ms, avg(off_ns) / 1e3 AS avg_us, max(off_ns) / 1e3 AS max_us,
       sum(runq_ns) / 1e6 AS runq_ms
FROM offcpu_sel GROUP BY grp, wakee, state_text ORDER BY total_ms DESC, grp, label, state;

-- FlameGraph's folded input, bcc offcputime -f: "comm;outermost;...;innermost" and the
-- time off CPU in whole microseconds; "[no stack]" when the switch-out has none
-- (recorded without -s).
CREATE TEMP VIEW offcpu_folded AS
SELECT replace(replace(s.comm, ';', '_'), ' ', '_') || ';' || coalesce(f.folded, '[no stack]')
	AS folded, sum(s.off_ns) / 1000 AS us
FROM offcpu_sel s LEFT JOIN stack_folded f ON f.stack_id = s.stack_id
GROUP BY 1 HAVING us > 0 ORDER BY us DESC, 1;
