-- funccount: calls per kernel function of a `ftrec funccount` recording (one
-- `function` event per call), for the report and for your own queries
-- (`ftana sql FILE 'select * from func_counts'`). Whole capture: no slice here.
-- Function names: an event's ip (the traced function's entry, after fentry) belongs
-- to the symbol with the greatest address <= ip in the capture's own kallsyms (of
-- aliases at one address the first listed wins, as the kernel's %ps); an ip below
-- every symbol shows as hex. Names are looked up once per distinct ip, when queried.
-- Running this file twice is harmless: it replaces what it made.
DROP VIEW IF EXISTS temp.func_ip_func;
DROP VIEW IF EXISTS temp.func_hits;
DROP VIEW IF EXISTS temp.func_counts;

-- ip -> func for every distinct ip of the function events.
CREATE TEMP VIEW func_ip_func AS
SELECT ip, coalesce((SELECT s.name FROM symbols s WHERE s.addr = base ORDER BY s.rowid LIMIT 1),
                    printf('0x%x', ip)) AS func
FROM (SELECT ip, (SELECT max(s.addr) FROM symbols s WHERE s.addr <= ip) AS base
      FROM (SELECT DISTINCT ip FROM function));

-- One row per call: the event's id, ts (trace clock, ns), cpu, pid, and func.
CREATE TEMP VIEW func_hits AS
SELECT f.id, f.ts, f.cpu, f.pid, n.func
FROM function f JOIN func_ip_func n ON n.ip = f.ip;

-- Calls per function over the whole capture, most called first.
CREATE TEMP VIEW func_counts AS
SELECT n.func AS func, sum(c.n) AS count
FROM (SELECT ip, count(*) AS n FROM function GROUP BY ip) c
JOIN func_ip_func n ON n.ip = c.ip
GROUP BY n.func
ORDER BY count DESC, func;
