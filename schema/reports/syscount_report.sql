-- syscount_report.sql: `ftana report syscount` within the slice (after syscount.sql).
-- A call belongs to the slice by its entry: ts, cpu, thread. Its exit may lie after
-- --until. Grouped by temp.report_args syscount_by: 0 syscall (default), 1 process
-- (pid, comm), 2 syscall and process.
--   calls     entries in the slice
--   errors    of those, the ones that returned an error (ret -4095..-1)
--   total_ms  the sum of paired durations (entry to exit), ms
--   avg_us    total / paired calls, us
--   unpaired  entries without their exit (never returned, or a loss)
DROP VIEW IF EXISTS temp.syscount_sel;
DROP VIEW IF EXISTS temp.syscount_groups;

-- A view, read once by the groups: a capture's millions of calls are not copied.
CREATE TEMP VIEW syscount_sel AS
SELECT * FROM syscall_calls
WHERE id BETWEEN (SELECT lo_id FROM temp.slice) AND (SELECT hi_id FROM temp.slice)
  AND in_slice(ts, cpu, tid)
  AND coalesce((SELECT value FROM temp.report_args WHERE key = 'syscount_errors'), 0) IN (0, errno IS NOT NULL);

-- Per syscall and thread first, then per group. syscall_totals holds the per-thread
-- sums (import/derive_syscall_totals.c): a few rows read instead of millions of calls.
-- They are the whole capture's, made at import, when no time or CPU filter is asked,
-- or made over the slice's window (TEMP, import/dbcache_window.c); the task filters
-- apply per thread (a window's threads without a call in it have calls 0: still the
-- capture's, for -p's "no such process"). temp.report_args syscount_totals is 1 then (reports/report_syscount.c
-- says so once syscall_range.totals said they stand for the slice's rows), else the rows.
CREATE TEMP VIEW syscount_groups AS
WITH args AS MATERIALIZED (
	SELECT coalesce((SELECT value FROM temp.report_args WHERE key = 'syscount_by'), 0) AS by,
	       coalesce((SELECT value FROM temp.report_args WHERE key = 'syscount_errors'), 0) AS errs,
	       coalesce((SELECT value FROM temp.report_args WHERE key = 'syscount_totals'), 0) AS whole),
per_thread AS (
	SELECT n.name AS syscall, t.tid,
	       CASE WHEN errs THEN t.errors ELSE t.calls END AS calls, t.errors,
	       CASE WHEN errs THEN t.error_dur_ns ELSE t.dur_ns END AS dur_ns,
	       CASE WHEN errs THEN t.errors ELSE t.paired END AS paired,
	       CASE WHEN errs THEN t.errors ELSE t.paired END AS timed
	FROM args, syscall_totals t JOIN syscall_names n ON n.syscall = t.syscall
	WHERE whole AND t.calls > 0 AND in_slice_task(t.tid) AND (NOT errs OR t.errors > 0)
	UNION ALL
	SELECT syscall, tid, count(*), count(errno), sum(dur_ns), count(exit_id), count(dur_ns)
	FROM args, syscount_sel WHERE NOT whole
	GROUP BY syscall, tid),
groups AS (
	SELECT CASE WHEN by IN (0, 2) THEN p.syscall END AS syscall,
	       CASE WHEN by IN (1, 2) THEN coalesce(k.tgid, p.tid) END AS pid, by,
	       sum(calls) AS calls, sum(errors) AS errors, sum(dur_ns) / 1e6 AS total_ms,
	       1.0 * sum(dur_ns) / sum(timed) / 1e3 AS avg_us,
	       sum(calls) - sum(paired) AS unpaired, min(p.tid) AS first_tid
	FROM args, per_thread p LEFT JOIN tasks k ON k.pid = p.tid
	GROUP BY 1, 2)
-- comm: the name of the group's lowest thread id (tasks holds each thread's own)
SELECT syscall, pid,
       CASE WHEN by IN (1, 2) THEN (SELECT t.comm FROM tasks t WHERE t.pid = first_tid) END AS comm,
       calls, errors, total_ms, avg_us, unpaired
FROM groups
ORDER BY calls DESC, total_ms DESC, syscall, pid;
