-- funclatency_profile: `ftana report funclatency` from the function profiler (ftrec
-- funccount --profile), which keeps no duration per call, only running totals of calls
-- and time per CPU and function at each round (profile_rounds, function_profile).
-- Input: temp.funclat_func (one row: func). temp.funclat_profile holds, per round and
-- CPU, the function's calls and time since the round before; in the slice by that
-- earlier round's time and the CPU (funccount's rule, funccount_profile.sql).
-- Running this file twice is harmless: it replaces what it made.
DROP TABLE IF EXISTS temp.funclat_profile;

-- A round's calls and time are the difference to the round before on that CPU; a total
-- lower than before means the profiler was reset: the new total is what was counted since.
CREATE TEMP TABLE funclat_profile AS
WITH rounds AS (
	SELECT round, coalesce(lag(mono_ns) OVER (ORDER BY round), mono_ns) AS start_ns
	FROM profile_rounds),
diffs AS (
	SELECT p.round, p.cpu, p.hits, p.time_ns,
	       p.hits - coalesce(lag(p.hits) OVER w, 0) AS d_hits,
	       p.time_ns - coalesce(lag(p.time_ns) OVER w, 0) AS d_time
	FROM function_profile p
	WHERE p.func = (SELECT func FROM temp.funclat_func)
	WINDOW w AS (PARTITION BY p.cpu ORDER BY p.round))
SELECT d.round, d.cpu, r.start_ns,
       CASE WHEN d.d_hits < 0 THEN d.hits ELSE d.d_hits END AS calls,
       CASE WHEN d.d_hits < 0 OR d.d_time < 0 THEN d.time_ns ELSE d.d_time END AS time_ns
FROM diffs d JOIN rounds r USING (round)
WHERE in_slice(r.start_ns, d.cpu, NULL);
