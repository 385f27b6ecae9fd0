-- funccount from the kernel's function profiler's rounds (func_round_counts,
-- funccount_rounds.sql), within the report's slice. The profiler has no event per
-- call, so a slice maps to whole rounds: the calls counted between two rounds are
-- in the slice when the EARLIER round's time (start_ns) is in its time window and
-- their CPU is in --cpu (the profiler counts per CPU); task filters cannot apply
-- (the report refuses them). They count in the interval the earlier round falls in
-- (each of ftrec's -i intervals holds the calls made during it); intervals shorter
-- than the recording's meta.snapshot_interval_ns cannot split them further.
-- Inputs: temp.report_args interval_ns (0: one interval), t0. After funccount_report.sql.
INSERT INTO fc_counts(interval, func, count)
SELECT CASE WHEN iv > 0 THEN (r.start_ns - t0) / iv ELSE 0 END AS interval, r.func,
       sum(r.count) AS n
FROM func_round_counts r,
     (SELECT coalesce((SELECT value FROM report_args WHERE key = 'interval_ns'), 0) AS iv,
             coalesce((SELECT value FROM report_args WHERE key = 't0'), 0) AS t0)
WHERE in_slice(r.start_ns, r.cpu, NULL)
GROUP BY 1, 2
HAVING n > 0;
