-- funccount: calls per kernel function, per interval and in total (perf-tools funccount).
-- Inputs: temp.report_args interval_ns (0: a single interval), top (0: all),
-- duration_ns (recording length, for the rate); temp.fc_counts(interval, func, count)
-- filled by funccount_events.sql from `function` events.
-- Running this file twice is harmless: it replaces what it made.
DROP TABLE IF EXISTS temp.fc_counts;
DROP VIEW IF EXISTS temp.fc_interval_rows;
DROP VIEW IF EXISTS temp.fc_totals;
CREATE TEMP TABLE fc_counts(interval INTEGER, func TEXT, count INTEGER,
                                          PRIMARY KEY (interval, func));

-- Per interval, the TOP busiest functions, printed with the largest last.
CREATE TEMP VIEW fc_interval_rows AS
SELECT interval, func AS FUNC, count AS COUNT FROM (
	SELECT interval, func, count,
	       row_number() OVER (PARTITION BY interval ORDER BY count DESC, func) AS rank
	FROM fc_counts)
WHERE rank <= coalesce(nullif((SELECT value FROM report_args WHERE key = 'top'), 0), rank)
ORDER BY interval, count, func;

-- Totals over the whole recording and the mean rate per second of recording.
CREATE TEMP VIEW fc_totals AS
SELECT FUNC, COUNT, CASE WHEN len > 0 THEN printf('%.1f', COUNT * 1e9 / len) ELSE '-' END AS "RATE/s"
FROM (SELECT func AS FUNC, sum(count) AS COUNT,
             row_number() OVER (ORDER BY sum(count) DESC, func) AS rank
      FROM fc_counts GROUP BY func),
     (SELECT (SELECT value FROM report_args WHERE key = 'duration_ns') AS len)
WHERE rank <= coalesce(nullif((SELECT value FROM report_args WHERE key = 'top'), 0), rank)
ORDER BY COUNT, FUNC;
