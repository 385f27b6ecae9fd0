-- funcslower: the slow calls of a `ftrec funcslower` recording, for the report and
-- for your own queries (`ftana sql FILE 'select * from slow_calls'`).
-- Recorded with function_graph and tracing_thresh, so only funcgraph_exit events of
-- calls at least that slow are in the buffer. The duration is the kernel's own
-- (rettime - calltime), not a difference of event timestamps.
-- Running this file twice is harmless: it replaces what it made.
DROP TABLE IF EXISTS temp.fs_names;
DROP VIEW IF EXISTS temp.slow_calls;
INSERT OR IGNORE INTO func_ips SELECT DISTINCT func FROM funcgraph_exit;
CREATE TEMP TABLE fs_names(ip INTEGER PRIMARY KEY, name TEXT);
INSERT INTO fs_names SELECT ip, name FROM func_ip_names;

-- One row per slow call: id and ts of its return event, cpu, pid, comm (tasks),
-- dur_ns (ns), func (kallsyms name), depth (function_graph depth of the call).
CREATE TEMP VIEW slow_calls AS
SELECT x.id, x.ts, x.cpu, x.pid,
       CASE WHEN x.pid = 0 THEN '<idle>' ELSE coalesce(t.comm, '<...>') END AS comm,
       x.rettime - x.calltime AS dur_ns, n.name AS func, x.depth
FROM funcgraph_exit x
JOIN fs_names n ON n.ip = x.func
LEFT JOIN tasks t ON t.pid = x.pid;
