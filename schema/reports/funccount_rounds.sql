-- funccount from the kernel's function profiler (`ftrec funccount --profile`): no
-- event per call, only running totals per CPU and function, read by ftrec at each
-- round (profile_rounds, function_profile). For the report and for your own queries
-- (`ftana sql FILE 'select * from func_counts'`). Whole capture: no slice here.
-- A round's calls are the difference to the round before; a total lower than in the
-- round before means the profiler was switched off and on again by someone else: the
-- new total is what was counted since. profile_rounds.mono_ns is CLOCK_MONOTONIC, the
-- trace clock of ftrec's recordings (meta.clock = mono).
-- Running this file twice is harmless: it replaces what it made.
DROP VIEW IF EXISTS temp.func_round_counts;
DROP VIEW IF EXISTS temp.func_counts;

-- One row per round, CPU and function with calls: the calls counted between the
-- round before (start_ns; round 0's own time for round 0) and this one (end_ns).
CREATE TEMP VIEW func_round_counts AS
WITH rounds AS (
	SELECT round, coalesce(lag(mono_ns) OVER (ORDER BY round), mono_ns) AS start_ns,
	       mono_ns AS end_ns
	FROM profile_rounds),
calls AS (
	SELECT p.round, p.cpu, p.func,
	       p.hits - coalesce(lag(p.hits) OVER (PARTITION BY p.cpu, p.func ORDER BY p.round), 0) AS d,
	       p.hits
	FROM function_profile p)
SELECT c.round, r.start_ns, r.end_ns, c.cpu, c.func,
       CASE WHEN c.d < 0 THEN c.hits ELSE c.d END AS count
FROM calls c JOIN rounds r USING (round)
WHERE (CASE WHEN c.d < 0 THEN c.hits ELSE c.d END) > 0;

-- Calls per function over the whole recording, all CPUs, most called first.
CREATE TEMP VIEW func_counts AS
SELECT func, sum(count) AS count FROM func_round_counts GROUP BY func
ORDER BY count DESC, func;
