-- sched_hist: the distribution tables runqlat, cpudist and funclatency print, over the
-- values their *_report.sql put in temp.sched_sel (one row per measured interval:
-- grp, the --by group, NULL without --by; label, a name for it; value_ns). Report
-- only (after in_slice selected the rows); running this file twice is harmless.
DROP VIEW IF EXISTS temp.sched_sel_hist;
DROP VIEW IF EXISTS temp.sched_sel_stats;

-- Log2 histogram in microseconds, bcc's layout: buckets 0 -> 1, 2 -> 3, 4 -> 7, ...
-- (low_us <= value in whole us <= high_us), each group up to its highest non-empty
-- bucket, empty buckets below it included.
CREATE TEMP VIEW sched_sel_hist AS
WITH RECURSIVE buckets(slot, low_us, high_us) AS (
	SELECT 0, 0, 1
	UNION ALL SELECT slot + 1, high_us + 1, high_us * 2 + 1 FROM buckets WHERE slot < 45),
slotted AS (SELECT grp, CASE WHEN value_ns < 2000 THEN 0
                             ELSE CAST(floor(log2(value_ns / 1000)) AS INTEGER) END AS slot
            FROM sched_sel),
counts AS (SELECT grp, slot, count(*) AS count FROM slotted GROUP BY grp, slot),
groups AS (SELECT grp, max(slot) AS top FROM counts GROUP BY grp)
SELECT g.grp AS grp, (SELECT label FROM sched_sel s WHERE s.grp IS g.grp LIMIT 1) AS label,
       b.low_us AS low_us, b.high_us AS high_us, coalesce(c.count, 0) AS count
FROM groups g JOIN buckets b ON b.slot <= g.top
LEFT JOIN counts c ON c.grp IS g.grp AND c.slot = b.slot
ORDER BY g.grp, b.slot;

-- Per group: count, total, mean, nearest-rank percentiles (the value at rank
-- ceil(P * n / 100): store/nearest_rank.c, in C: a window function sorted every row in
-- SQLite's sorter, seconds for a million intervals) and maximum; the largest total first.
CREATE TEMP VIEW sched_sel_stats AS
SELECT grp, max(label) AS label, count(*) AS count, sum(value_ns) / 1e6 AS total_ms,
       avg(value_ns) / 1e3 AS avg_us,
       nearest_rank(value_ns, 50) / 1e3 AS p50_us,
       nearest_rank(value_ns, 90) / 1e3 AS p90_us,
       nearest_rank(value_ns, 99) / 1e3 AS p99_us,
       max(value_ns) / 1e3 AS max_us
FROM sched_sel GROUP BY grp ORDER BY total_ms DESC, grp;
