-- funcslower_report: the report's rows, within the slice of `ftana report funcslower`
-- (in_slice and temp.slice come from reports/report_slice.c). After funcslower.sql.
DROP TABLE IF EXISTS temp.funcslower_sel;
DROP VIEW IF EXISTS temp.funcslower_hist;

CREATE TEMP TABLE funcslower_sel AS
SELECT id, ts, cpu, comm, pid, dur_ns / 1e3 AS dur_us, dur_ns, func, depth FROM slow_calls
WHERE id BETWEEN (SELECT lo_id FROM temp.slice) AND (SELECT hi_id FROM temp.slice)
  AND in_slice(ts, cpu, pid);

-- Power-of-two buckets of microseconds, from the lowest to the highest non-empty one:
-- low_us <= duration in us < high_us + 1.
CREATE TEMP VIEW funcslower_hist AS
WITH RECURSIVE b(k, lo, hi) AS (
	SELECT 0, 0, 1 UNION ALL SELECT k + 1, hi, hi * 2 FROM b WHERE k < 40),
counts AS (
	SELECT k, lo, hi, (SELECT count(*) FROM funcslower_sel c
	                   WHERE c.dur_ns / 1000 >= lo AND c.dur_ns / 1000 < hi) AS n FROM b),
span AS (SELECT min(k) AS k0, max(k) AS k1, max(n) AS nmax FROM counts WHERE n > 0)
SELECT lo AS low_us, hi - 1 AS high_us, n AS count,
       '|' || substr('########################################', 1, (40 * n + nmax - 1) / nmax)
       || substr('                                        ', 1, 40 - (40 * n + nmax - 1) / nmax)
       || '|' AS distribution
FROM counts, span WHERE k BETWEEN k0 AND k1 ORDER BY k;
