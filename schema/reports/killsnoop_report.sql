-- killsnoop_report.sql: the signals of `ftana report killsnoop` within the slice (after
-- killsnoop.sql). A signal belongs to the slice by its signal_generate event: ts, cpu,
-- and the SENDER's task (-p PID: the signals PID sent; --target PID: those sent to it).
DROP TABLE IF EXISTS temp.killsnoop_sel;
CREATE TEMP TABLE killsnoop_sel AS
SELECT * FROM kills
WHERE id BETWEEN (SELECT lo_id FROM temp.slice) AND (SELECT hi_id FROM temp.slice)
  AND in_slice(ts, cpu, sender_tid)
  AND coalesce((SELECT value FROM temp.report_args WHERE key = 'kill_target'), -1) IN (-1, target_pid)
  AND (coalesce((SELECT value FROM temp.report_args WHERE key = 'kill_all'), 0)
       OR si_code <= 0)
ORDER BY id;
