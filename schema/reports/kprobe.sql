-- kprobe: the hits of the dynamic probes a capture recorded (ftrec kprobe).
-- Each probe has its own typed table, named after the probe, with the probe's
-- fetch arguments as columns after kprobe's own: __probe_ip (entry probes) or
-- __probe_func and __probe_ret_ip (return probes). reports/report_kprobe.c reads
-- these views and builds probe_hits over every probe table (the argument columns
-- and their print types differ per probe).
-- Running this file twice is harmless: it replaces what it made.
DROP VIEW IF EXISTS temp.kprobe_tables;
DROP VIEW IF EXISTS temp.kprobe_columns;
DROP VIEW IF EXISTS temp.kprobe_stack_frames;
DROP VIEW IF EXISTS temp.probe_hits;
CREATE TEMP VIEW kprobe_tables AS
SELECT m.name AS name,
       EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = '__probe_func') AS is_return
FROM sqlite_master m
WHERE m.type = 'table'
  AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name IN ('__probe_ip', '__probe_func'))
ORDER BY m.name;

-- The argument columns of each probe table, in the order the probe defined them.
CREATE TEMP VIEW kprobe_columns AS
SELECT t.name AS tbl, c.cid, c.name AS col
FROM kprobe_tables t, pragma_table_info(t.name) c
WHERE c.name NOT IN ('id', 'ts', 'cpu', 'pid', 'stack_id', '__probe_ip', '__probe_func',
                     '__probe_ret_ip')
ORDER BY t.name, c.cid;

-- Kernel stacks recorded with -s, one frame per row, outermost last.
CREATE TEMP VIEW kprobe_stack_frames AS
SELECT stack_id, depth, coalesce(symbol, printf('0x%x', addr)) AS frame FROM stacks
ORDER BY stack_id, depth;

-- One row per hit of any probe (report_kprobe.c replaces this empty stand-in by the
-- union over the capture's probe tables): id, ts (trace clock, ns), cpu, pid,
-- probe (its name), func (where it hit: "func+0xoff", return probes
-- "caller+0xoff <- func"), args (the arguments as the kernel prints their declared
-- types: "name=value ..."), stack_id (stacks, with -s; else NULL).
CREATE TEMP VIEW probe_hits AS
SELECT NULL AS id, NULL AS ts, NULL AS cpu, NULL AS pid, NULL AS probe, NULL AS func,
       NULL AS args, NULL AS stack_id
WHERE 0;
