-- iolat_report.sql: the rows, summary, histograms and intervals of `ftana report iolat`,
-- within the report's slice. Run after iolat.sql (the `io` view) by the report only:
-- in_slice() and temp.slice come from reports/report_slice.c, the options from
-- temp.report_args (set by reports/report_iolat.c):
--   iolat_queue     1 with -Q: an I/O starts at its insert, else at its issue
--   iolat_dev       -D: the kernel dev_t (major << 20 | minor), -1 for every disk
--   iolat_by        --by: 0 disk and type (default), 1 disk, 2 type, 3 comm
--   iolat_type      -i: a glob the I/O's rwbs letters match (absent: every type)
--   iolat_step_ns   --interval: the interval length in ns (0 without it)
--
-- Slicing: an I/O belongs to the slice by its START event (the issue, or the insert
-- with -Q): that event's ts is in [--since, --until), its cpu in --cpu, its pid passes
-- -p/-L/-n (and is not one of ftrec's threads unless --include-ftrec). Its completion
-- may lie after --until.
DROP TABLE IF EXISTS temp.iolat_sel;
DROP VIEW IF EXISTS temp.iolat_window;
DROP VIEW IF EXISTS temp.iolat_summary;
DROP VIEW IF EXISTS temp.iolat_hist;
DROP VIEW IF EXISTS temp.iolat_intervals;

-- The selected I/Os in the meaning of -Q: start_* are the start event's; pid/comm the
-- submitter's (io.pid: the inserter, else the issuer), with --issuer the issuer's (as
-- iosnoop shows); lat_ns from the start to the completion;
-- que_ns insert -> issue whenever the I/O has an insert. grp is the --by group.
CREATE TEMP TABLE iolat_sel AS
WITH args AS (SELECT
	coalesce((SELECT value FROM temp.report_args WHERE key = 'iolat_queue'), 0) AS queue,
	coalesce((SELECT value FROM temp.report_args WHERE key = 'iolat_issuer'), 0) AS issuer,
	coalesce((SELECT value FROM temp.report_args WHERE key = 'iolat_dev'), -1) AS want_dev,
	(SELECT value FROM temp.report_args WHERE key = 'iolat_type') AS want_type,
	coalesce((SELECT value FROM temp.report_args WHERE key = 'iolat_by'), 0) AS by),
started AS (
	SELECT io.id AS id, dev, disk, sector, bytes, rwbs, type, op, que_ns, complete_ts,
	       CASE WHEN queue THEN insert_id ELSE issue_id END AS start_id,
	       CASE WHEN queue THEN insert_ts ELSE issue_ts END AS start_ts,
	       CASE WHEN queue THEN insert_cpu ELSE issue_cpu END AS start_cpu,
	       CASE WHEN issuer THEN issue_pid ELSE pid END AS pid,
	       CASE WHEN issuer THEN issue_comm ELSE comm END AS comm,
	       CASE WHEN queue THEN qlat_ns ELSE lat_ns END AS lat_ns,
	       by, want_dev, want_type
	FROM io, args WHERE NOT queue OR insert_id IS NOT NULL)
SELECT id, dev, disk, sector, bytes, rwbs, type, op, que_ns, complete_ts, start_id, start_ts,
       start_cpu, pid, comm, lat_ns,
       CASE by WHEN 1 THEN disk WHEN 2 THEN type WHEN 3 THEN coalesce(comm, '?')
               ELSE disk || ' ' || type END AS grp
FROM started
WHERE (want_dev < 0 OR dev = want_dev)
  AND (want_type IS NULL OR rwbs GLOB want_type)
  AND start_id BETWEEN (SELECT lo_id FROM temp.slice) AND (SELECT hi_id FROM temp.slice)
  AND in_slice(start_ts, start_cpu, pid)
ORDER BY id;

-- The time the report covers, in ns of the trace clock: the slice's window within the
-- time events could be recorded (temp.slice span_*: tracing on, or where every CPU of
-- a ring is complete, to the stop; a database that does not say: the first selected
-- start to the last selected completion), t_end its last ns. IOPS and MB/s are per second of it; --interval cuts it into intervals
-- [t0 + k * step, t0 + (k + 1) * step) (the last one ends at --until when that comes
-- first), k = 0 .. n - 1, n = the number of intervals holding a time < t_end + 1.
CREATE TEMP VIEW iolat_window AS
WITH w AS (SELECT
	coalesce(span_from_ns, max(since_ns, (SELECT min(start_ts) FROM iolat_sel))) AS t0,
	coalesce(span_to_ns, min(until_ns, (SELECT max(complete_ts) FROM iolat_sel) + 1)) - 1 AS t_end,
	until_ns, coalesce((SELECT value FROM temp.report_args WHERE key = 'iolat_step_ns'), 0) AS step
      FROM temp.slice)
SELECT t0, t_end, until_ns, step,
       CASE WHEN step > 0 AND t_end >= t0 THEN (t_end - t0) / step + 1 ELSE 0 END AS n
FROM w;

-- count, IOPS and MB/s (10^6 bytes) per second of the window (the selection's span when
-- the window is empty), the same for every group, so the groups' rates add up to the
-- total; latency percentiles by the nearest-rank method: the value at rank
-- ceil(P * n / 100) (store/nearest_rank.c). A last row with grp NULL totals the groups.
CREATE TEMP VIEW iolat_summary AS
WITH span AS (SELECT coalesce(
	(SELECT nullif(t_end - t0, 0) FROM iolat_window WHERE t_end > t0),
	(SELECT nullif(max(complete_ts) - min(start_ts), 0) FROM iolat_sel)) / 1e9 AS s),
rows AS (SELECT grp, lat_ns, bytes FROM iolat_sel
         UNION ALL SELECT NULL, lat_ns, bytes FROM iolat_sel)
SELECT grp, count(*) AS count,
       count(*) / (SELECT s FROM span) AS iops,
       sum(bytes) / 1e6 / (SELECT s FROM span) AS mb_s,
       min(lat_ns) / 1e6 AS min_ms, avg(lat_ns) / 1e6 AS avg_ms,
       nearest_rank(lat_ns, 50) / 1e6 AS p50_ms,
       nearest_rank(lat_ns, 90) / 1e6 AS p90_ms,
       nearest_rank(lat_ns, 99) / 1e6 AS p99_ms,
       max(lat_ns) / 1e6 AS max_ms
FROM rows GROUP BY grp ORDER BY grp IS NULL, grp;

-- Log2 histogram of latency in microseconds, as bcc's biolatency prints it: buckets
-- 0 -> 1, 2 -> 3, 4 -> 7, ... (low_us <= latency in whole us <= high_us) up to each
-- group's highest non-empty bucket, empty buckets below it included.
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

-- -i: one histogram per interval, as perf-tools' iolatency prints every interval: an
-- I/O counts in the interval of its start (the slicing rule), in iolatency's buckets of
-- milliseconds: 0 -> 1 holds latency <= 1 ms, then low_ms < latency <= high_ms for
-- 1 -> 2, 2 -> 4, 4 -> 8, ...; each interval lists its buckets from 0 -> 1 up to its
-- highest non-empty one, an interval without I/O its 0 -> 1 bucket with count 0.
-- start_ts/end_ts: the interval, ns of the trace clock.
CREATE TEMP VIEW iolat_intervals AS
WITH RECURSIVE w AS (SELECT t0, until_ns, step, n FROM iolat_window WHERE n > 0),
intervals(k, start_ts, end_ts) AS (
	SELECT 0, t0, min(t0 + step, until_ns) FROM w
	UNION ALL SELECT k + 1, start_ts + step, min(start_ts + 2 * step, until_ns)
	FROM intervals, w WHERE k + 1 < n),
buckets(slot, low_ms, high_ms) AS (
	SELECT 0, 0, 1 UNION ALL SELECT slot + 1, high_ms, high_ms * 2 FROM buckets WHERE slot < 40),
hits AS (SELECT (s.start_ts - w.t0) / w.step AS k,
                (SELECT min(slot) FROM buckets WHERE s.lat_ns <= high_ms * 1000000) AS slot
         FROM iolat_sel s, w WHERE s.start_ts >= w.t0),
counts AS (SELECT k, slot, count(*) AS count FROM hits GROUP BY k, slot),
tops AS (SELECT i.k, coalesce(max(c.slot), 0) AS top
         FROM intervals i LEFT JOIN counts c ON c.k = i.k GROUP BY i.k)
SELECT i.k AS k, i.start_ts AS start_ts, i.end_ts AS end_ts, b.low_ms AS low_ms,
       b.high_ms AS high_ms, coalesce(c.count, 0) AS count
FROM intervals i JOIN tops t ON t.k = i.k JOIN buckets b ON b.slot <= t.top
LEFT JOIN counts c ON c.k = i.k AND c.slot = b.slot
ORDER BY i.k, b.slot;
