-- funcslower: one row per slow return, then a log2 histogram of the durations.
-- Recorded by `ftrec funcslower`: function_graph with tracing_thresh, so only
-- funcgraph_exit events of calls at least that slow are in the buffer. The duration
-- is the kernel's own (rettime - calltime), not a difference of event timestamps.
-- Running this file twice is harmless: it replaces what it made.
DROP TABLE IF EXISTS temp.fs_names;
DROP VIEW IF EXISTS temp.fs_calls;
DROP VIEW IF EXISTS temp.funcslower_rows;
DROP VIEW IF EXISTS temp.funcslower_hist;
INSERT OR IGNORE INTO func_ips SELECT DISTINCT func FROM funcgraph_exit;
CREATE TEMP TABLE fs_names(ip INTEGER PRIMARY KEY, name TEXT);
INSERT INTO fs_names SELECT ip, name FROM func_ip_names;

CREATE TEMP VIEW fs_calls AS
SELECT x.id, x.ts, x.cpu, x.pid, coalesce(t.comm, '<...>') AS comm,
       x.rettime - x.calltime AS dur_ns, n.name AS func
FROM funcgraph_exit x
JOIN fs_names n ON n.ip = x.func
LEFT JOIN tasks t ON t.pid = x.pid;

CREATE TEMP VIEW funcslower_rows AS
SELECT printf('%.6f', ts / 1e9) AS TIME, cpu AS CPU, comm || '-' || pid AS "COMM-PID",
       printf('%.3f', dur_ns / 1e3) AS "DURATION(us)", func AS FUNCTION
FROM fs_calls ORDER BY id;

-- Power-of-two buckets of microseconds, from the lowest to the highest non-empty one.
CREATE TEMP VIEW funcslower_hist AS
WITH RECURSIVE b(k, lo, hi) AS (
	SELECT 0, 0, 1 UNION ALL SELECT k + 1, hi, hi * 2 FROM b WHERE k < 40),
counts AS (
	SELECT k, lo, hi, (SELECT count(*) FROM fs_calls c
	                   WHERE c.dur_ns / 1000 >= lo AND c.dur_ns / 1000 < hi) AS n FROM b),
span AS (SELECT min(k) AS k0, max(k) AS k1, max(n) AS nmax FROM counts WHERE n > 0)
SELECT printf('%d -> %d', lo, hi - 1) AS USECS, n AS COUNT,
       '|' || substr('########################################', 1, (40 * n + nmax - 1) / nmax)
       || substr('                                        ', 1, 40 - (40 * n + nmax - 1) / nmax)
       || '|' AS DISTRIBUTION
FROM counts, span WHERE k BETWEEN k0 AND k1 ORDER BY k;
