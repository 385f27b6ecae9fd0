-- sched_sel: temp.sched_sel, the input of sched_hist.sql, from temp.sched_rows, the view
-- a report's SQL made of its measured intervals within its slice (runqlat_report.sql,
-- cpudist_report.sql: grp, label, value_ns, ts, cpu, pid, and ord1, ord2: the order its
-- rows had as the views they came from). Report only; reports/sched_common.c runs it.
-- With --by tid or pid a group's label is its first row's name (sched_hist.sql): the
-- rows go in that order. Otherwise in any order (no sort).
DROP TABLE IF EXISTS temp.sched_sel;
CREATE TEMP TABLE sched_sel AS
SELECT grp, label, value_ns, ts, cpu, pid FROM sched_rows
WHERE (SELECT value FROM temp.report_args WHERE key = 'sched_by') IN (1, 2)
ORDER BY ord1, ord2;
INSERT INTO sched_sel
SELECT grp, label, value_ns, ts, cpu, pid FROM sched_rows
WHERE coalesce((SELECT value FROM temp.report_args WHERE key = 'sched_by'), 0) NOT IN (1, 2);
