-- opensnoop_report.sql: the opens of `ftana report opensnoop` within the slice (after
-- opensnoop.sql). An open belongs to the slice by its entry event: ts, cpu, thread.
-- temp.report_args opensnoop_failed = 1 (-x): only the failed ones.
DROP TABLE IF EXISTS temp.opensnoop_sel;
CREATE TEMP TABLE opensnoop_sel AS
SELECT * FROM opens
WHERE id BETWEEN (SELECT lo_id FROM temp.slice) AND (SELECT hi_id FROM temp.slice)
  AND in_slice(ts, cpu, tid)
  AND (coalesce((SELECT value FROM temp.report_args WHERE key = 'opensnoop_failed'), 0) = 0
       OR errno IS NOT NULL)
ORDER BY id;
