-- iolat_summary.sql: the summary and histogram of `ftana report iolat`, over the rows
-- the report selected: temp.iolat_sel(grp, lat_ns, bytes, start_ts, complete_ts), grp
-- being the --by group ("253,0 W", "253,0", "W" or a command name). Run after iolat.sql.

DROP VIEW IF EXISTS temp.iolat_summary;
DROP VIEW IF EXISTS temp.iolat_hist;

-- count, IOPS and MB/s (10^6 bytes) per second of recording (meta.duration_ns; a
-- database without it: the selection's span, first start to last completion), the
-- same for every group, so the groups' rates add up to the total;
-- latency percentiles by the nearest-rank method: the value at rank ceil(P * n / 100).
-- A last row "all" totals the groups.
CREATE TEMP VIEW iolat_summary AS
WITH span AS (SELECT nullif(coalesce(
	(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'duration_ns'),
	(SELECT max(complete_ts) - min(start_ts) FROM iolat_sel)), 0) / 1e9 AS s),
rows AS (SELECT grp, lat_ns, bytes FROM iolat_sel
         UNION ALL SELECT NULL, lat_ns, bytes FROM iolat_sel),
ranked AS (SELECT grp, lat_ns, bytes,
                  row_number() OVER (PARTITION BY grp ORDER BY lat_ns) AS rank,
                  count(*) OVER (PARTITION BY grp) AS n
           FROM rows)
SELECT coalesce(grp, 'all') AS grp, count(*) AS count,
       round(count(*) / (SELECT s FROM span), 1) AS iops,
       round(sum(bytes) / 1e6 / (SELECT s FROM span), 3) AS mb_s,
       min(lat_ns) / 1e6 AS min_ms, avg(lat_ns) / 1e6 AS avg_ms,
       min(CASE WHEN rank >= (n * 50 + 99) / 100 THEN lat_ns END) / 1e6 AS p50_ms,
       min(CASE WHEN rank >= (n * 90 + 99) / 100 THEN lat_ns END) / 1e6 AS p90_ms,
       min(CASE WHEN rank >= (n * 99 + 99) / 100 THEN lat_ns END) / 1e6 AS p99_ms,
       max(lat_ns) / 1e6 AS max_ms
FROM ranked GROUP BY grp ORDER BY grp IS NULL, grp;

-- Log2 histogram of latency in microseconds, as bcc's biolatency prints it: buckets
-- 0 -> 1, 2 -> 3, 4 -> 7, ... up to each group's highest non-empty bucket, empty
-- buckets below it included.
CREATE TEMP VIEW iolat_hist AS
WITH RECURSIVE buckets(slot, low_us, high_us) AS (
	SELECT 0, 0, 1
	UNION ALL SELECT slot + 1, high_us + 1, high_us * 2 + 1 FROM buckets WHERE slot < 45),
counts AS (SELECT s.grp, b.slot, count(*) AS count
           FROM iolat_sel s JOIN buckets b ON s.lat_ns / 1000 BETWEEN b.low_us AND b.high_us
           GROUP BY s.grp, b.slot),
groups AS (SELECT grp, max(slot) AS top FROM counts GROUP BY grp)
SELECT g.grp AS grp, b.low_us AS low_us, b.high_us AS high_us, coalesce(c.count, 0) AS count
FROM groups g JOIN buckets b ON b.slot <= g.top
LEFT JOIN counts c ON c.grp = g.grp AND c.slot = b.slot
ORDER BY g.grp, b.slot;
