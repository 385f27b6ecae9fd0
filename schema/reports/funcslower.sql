-- funcslower: the slow calls of a `ftrec funcslower` recording, for the report and
-- for your own queries (`ftana sql FILE 'select * from slow_calls'`).
-- Recorded with function_graph and tracing_thresh, so only funcgraph_exit events of
-- calls at least that slow are in the buffer. The duration is the kernel's own
-- (rettime - calltime), not a difference of event timestamps.
-- The view reads the capture's tables only (no TEMP table of names), so the database
-- ftana keeps holds it too (reports/views_keep.c) and any SQLite client reads it.
-- Running this file twice is harmless: it replaces what it made.
DROP VIEW IF EXISTS temp.slow_calls;

-- One row per slow call: id and ts of its return event, cpu, pid, comm (tasks),
-- dur_ns (ns), func (kallsyms name), depth (function_graph depth of the call).
-- func: the symbol with the greatest address <= the return's func in the capture's
-- own kallsyms (of aliases at one address the first listed wins, as the kernel's
-- %ps; below every symbol: hex), looked up once per distinct address (func_symbols.sql's rule).
CREATE TEMP VIEW slow_calls AS
WITH names AS (
	SELECT ip, coalesce((SELECT s.name FROM symbols s WHERE s.addr = base ORDER BY s.rowid LIMIT 1),
	                    printf('0x%x', ip)) AS name
	FROM (SELECT ip, (SELECT max(s.addr) FROM symbols s WHERE s.addr <= ip) AS base
	      FROM (SELECT DISTINCT func AS ip FROM funcgraph_exit)))
SELECT x.id, x.ts, x.cpu, x.pid,
       CASE WHEN x.pid = 0 THEN '<idle>' ELSE coalesce(t.comm, '<...>') END AS comm,
       x.rettime - x.calltime AS dur_ns, n.name AS func, x.depth
FROM funcgraph_exit x
JOIN names n ON n.ip = x.func
LEFT JOIN tasks t ON t.pid = x.pid;
