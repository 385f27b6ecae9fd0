-- func_symbols.sql: kernel addresses -> function names, shared by the function reports.
-- A report inserts the addresses it needs into temp.func_ips and reads temp.func_ip_names:
-- an address belongs to the function with the greatest symbol address <= it (the
-- symbols table comes from the capture's own kallsyms, so names match the traced
-- kernel, not this host). Of aliases at one address (6.1: __do_sys_getppid,
-- __ia32_sys_getppid, __x64_sys_getppid) the first kallsyms lists wins, as in the
-- kernel's own %ps. Addresses below every symbol print as hex.
CREATE TEMP TABLE IF NOT EXISTS func_ips(ip INTEGER PRIMARY KEY);
CREATE TEMP VIEW IF NOT EXISTS func_ip_names AS
SELECT ip, coalesce((SELECT s.name FROM symbols s WHERE s.addr = base ORDER BY s.rowid LIMIT 1),
                    printf('0x%x', ip)) AS name,
       ip - base AS offset
FROM (SELECT i.ip, (SELECT max(s.addr) FROM symbols s WHERE s.addr <= i.ip) AS base
      FROM func_ips i);

-- Options given on the command line, set by the report before running its SQL.
CREATE TEMP TABLE IF NOT EXISTS report_args(key TEXT PRIMARY KEY, value);
