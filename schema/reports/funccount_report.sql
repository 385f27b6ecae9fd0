-- funccount_report: the report's counts within the slice of `ftana report funccount`
-- (in_slice and temp.slice come from reports/report_slice.c). After this file,
-- funccount_events.sql or funccount_profile.sql fills fc_counts.
-- Inputs (temp.report_args): interval_ns (0: one interval), t0 (trace clock ns the
-- first interval starts at), top (0: all), duration_ns (the time the counts cover,
-- for the rate).
-- Running this file twice is harmless: it replaces what it made.
DROP TABLE IF EXISTS temp.fc_counts;
DROP VIEW IF EXISTS temp.fc_interval_rows;
DROP VIEW IF EXISTS temp.fc_totals;
CREATE TEMP TABLE fc_counts(interval INTEGER, func TEXT, count INTEGER,
                            PRIMARY KEY (interval, func));

-- Per interval (0 = the first), the TOP busiest functions, the largest last (as
-- perf-tools funccount printed them); start_ns/end_ns bound the interval.
CREATE TEMP VIEW fc_interval_rows AS
SELECT interval, t0 + interval * iv AS start_ns, t0 + (interval + 1) * iv AS end_ns, func, count
FROM (SELECT interval, func, count,
             row_number() OVER (PARTITION BY interval ORDER BY count DESC, func) AS rank
      FROM fc_counts),
     (SELECT coalesce((SELECT value FROM report_args WHERE key = 't0'), 0) AS t0,
             coalesce((SELECT value FROM report_args WHERE key = 'interval_ns'), 0) AS iv)
WHERE rank <= coalesce(nullif((SELECT value FROM report_args WHERE key = 'top'), 0), rank)
ORDER BY interval, count, func;

-- Totals over the slice, the TOP busiest, largest last, and the mean rate per second
-- of the time the counts cover (NULL when that is 0).
CREATE TEMP VIEW fc_totals AS
SELECT func, count, CASE WHEN len > 0 THEN count * 1e9 / len END AS rate_per_s
FROM (SELECT func, sum(count) AS count,
             row_number() OVER (ORDER BY sum(count) DESC, func) AS rank
      FROM fc_counts GROUP BY func),
     (SELECT (SELECT value FROM report_args WHERE key = 'duration_ns') AS len)
WHERE rank <= coalesce(nullif((SELECT value FROM report_args WHERE key = 'top'), 0), rank)
ORDER BY count, func;
