-- funcgraph_calls: after reports/funcgraph_calls.c filled temp.call_rows
-- (funcgraph.sql): function names, and the `calls` view for the report and for your
-- own queries (`ftana sql FILE 'select * from calls'`; docs/SQL.md).
-- Running this file twice is harmless: it replaces what it made.
DROP INDEX IF EXISTS temp.call_rows_parent;
DROP TABLE IF EXISTS temp.fg_names;
DROP VIEW IF EXISTS temp.calls;
CREATE INDEX temp.call_rows_parent ON call_rows(parent_id);
INSERT OR IGNORE INTO func_ips SELECT DISTINCT ip FROM call_rows;
CREATE TEMP TABLE fg_names(ip INTEGER PRIMARY KEY, name TEXT);
INSERT INTO fg_names SELECT ip, name FROM func_ip_names;

-- One row per function call (completed or not: see flags). The idle tasks are all
-- pid 0: the kernel names them <idle>; a pid the capture has no comm for is <...>.
CREATE TEMP VIEW calls AS
SELECT c.id, c.pid, CASE WHEN c.pid = 0 THEN '<idle>' ELSE coalesce(t.comm, '<...>') END AS comm,
       c.cpu, c.exit_cpu, c.depth, n.name AS func, c.ip, c.start_ts, c.end_ts, c.dur_ns,
       c.parent_id, c.children, c.child_dur_ns, c.flags, c.entry_id, c.exit_id, c.task
FROM call_rows c
JOIN fg_names n ON n.ip = c.ip
LEFT JOIN tasks t ON t.pid = c.pid;
