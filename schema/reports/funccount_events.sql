-- funccount from `function` events (one per call), within the report's slice: an
-- event counts when its own ts, cpu and pid are in it (in_slice, temp.slice).
-- Inputs: temp.report_args interval_ns (0: one interval), t0 (ts the first interval
-- starts at). After funccount_report.sql.
-- Running this file twice is harmless: it replaces what it made.
DROP TABLE IF EXISTS temp.fc_hits;
DROP TABLE IF EXISTS temp.fc_names;
CREATE TEMP TABLE fc_hits AS
SELECT CASE WHEN iv > 0 THEN (f.ts - t0) / iv ELSE 0 END AS interval, f.ip, count(*) AS count
FROM function f,
     (SELECT coalesce((SELECT value FROM report_args WHERE key = 'interval_ns'), 0) AS iv,
             coalesce((SELECT value FROM report_args WHERE key = 't0'), 0) AS t0)
WHERE f.id BETWEEN (SELECT lo_id FROM temp.slice) AND (SELECT hi_id FROM temp.slice)
  AND in_slice(f.ts, f.cpu, f.pid)
GROUP BY 1, 2;

INSERT OR IGNORE INTO func_ips SELECT DISTINCT ip FROM fc_hits;
CREATE TEMP TABLE fc_names(ip INTEGER PRIMARY KEY, name TEXT);
INSERT INTO fc_names SELECT ip, name FROM func_ip_names;
INSERT INTO fc_counts(interval, func, count)
SELECT h.interval, n.name, sum(h.count) FROM fc_hits h JOIN fc_names n USING (ip)
GROUP BY 1, 2;
