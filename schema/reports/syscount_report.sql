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
DROP VIEW IF EXISTS temp.syscount_text;

-- A view, read once by the groups: a capture's millions of calls are not copied.
CREATE TEMP VIEW syscount_sel AS
SELECT * FROM syscall_calls
WHERE id BETWEEN (SELECT lo_id FROM temp.slice) AND (SELECT hi_id FROM temp.slice)
  AND in_slice(ts, cpu, tid)
  AND coalesce((SELECT value FROM temp.report_args WHERE key = 'syscount_errors'), 0) IN (0, errno IS NOT NULL);

CREATE TEMP VIEW syscount_groups AS
WITH args AS (SELECT coalesce((SELECT value FROM temp.report_args WHERE key = 'syscount_by'), 0) AS by),
groups AS (
	SELECT CASE WHEN by IN (0, 2) THEN syscall END AS syscall,
	       CASE WHEN by IN (1, 2) THEN pid END AS pid, by,
	       count(*) AS calls, count(errno) AS errors,
	       sum(dur_ns) / 1e6 AS total_ms, avg(dur_ns) / 1e3 AS avg_us,
	       count(*) - count(exit_id) AS unpaired, min(tid) AS first_tid
	FROM syscount_sel, args
	GROUP BY CASE WHEN by IN (0, 2) THEN syscall END, CASE WHEN by IN (1, 2) THEN pid END)
-- comm: the name of the group's lowest thread id (tasks holds each thread's own)
SELECT syscall, pid,
       CASE WHEN by IN (1, 2) THEN (SELECT t.comm FROM tasks t WHERE t.pid = first_tid) END AS comm,
       calls, errors, total_ms, avg_us, unpaired
FROM groups
ORDER BY calls DESC, total_ms DESC, syscall, pid;

-- The text table: times rounded to 3 decimals (CSV/JSON print syscount_groups in full).
CREATE TEMP VIEW syscount_text AS
SELECT syscall, pid, comm, calls, errors, round(total_ms, 3) AS total_ms, round(avg_us, 3) AS avg_us,
       unpaired
FROM syscount_groups;
