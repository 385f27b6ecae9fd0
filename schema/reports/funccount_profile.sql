-- funccount from the kernel's function profiler (ftrec funccount --profile): the
-- running totals of profile_rounds / function_profile turned into calls per interval.
-- Inputs: temp.report_args interval_ns (0: a single interval).
-- Interval 0 starts at round 0, when the profiler was switched on. The calls
-- between two rounds count in the interval in which the EARLIER round was taken
-- (each interval of ftrec's -i holds the calls made during it); intervals shorter
-- than the recording's meta.snapshot_interval_ns cannot split them further.
-- A total lower than in the round before means the profiler was switched off and
-- on again by someone else: the new total is what was counted since.
INSERT INTO fc_counts(interval, func, count)
WITH rounds AS (
	SELECT round, coalesce(lag(mono_ns) OVER (ORDER BY round), mono_ns) AS since
	FROM profile_rounds),
args AS (
	SELECT coalesce((SELECT value FROM report_args WHERE key = 'interval_ns'), 0) AS iv,
	       (SELECT min(mono_ns) FROM profile_rounds) AS t0),
calls AS (
	SELECT p.round, p.func,
	       p.hits - coalesce(lag(p.hits) OVER (PARTITION BY p.cpu, p.func ORDER BY p.round), 0) AS d,
	       p.hits
	FROM function_profile p)
SELECT CASE WHEN iv > 0 THEN (r.since - t0) / iv ELSE 0 END AS interval, c.func,
       sum(CASE WHEN c.d < 0 THEN c.hits ELSE c.d END) AS count
FROM calls c JOIN rounds r USING (round), args
GROUP BY 1, 2
HAVING count > 0;
