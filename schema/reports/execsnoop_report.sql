-- execsnoop_report.sql: the execs of `ftana report execsnoop` within the slice (run
-- after execsnoop.sql by the report only; in_slice() from reports/report_slice.c). An
-- exec belongs to the slice by its sched_process_exec event: its ts in [--since,
-- --until), its cpu in --cpu, its task (the exec'd pid) passing -p/-L/-n.
DROP TABLE IF EXISTS temp.execsnoop_sel;
CREATE TEMP TABLE execsnoop_sel AS
SELECT * FROM execs
WHERE id BETWEEN (SELECT lo_id FROM temp.slice) AND (SELECT hi_id FROM temp.slice)
  AND in_slice(ts, cpu, pid)
ORDER BY id;
