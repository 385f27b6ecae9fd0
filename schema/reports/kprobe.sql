-- kprobe: the hits of the dynamic probes a capture recorded (ftrec kprobe).
-- Each probe has its own typed table, named after the probe, with the probe's
-- fetch arguments as columns after kprobe's own: __probe_ip (entry probes) or
-- __probe_func and __probe_ret_ip (return probes). The report lists a table's rows
-- as perf-tools kprobe printed them (reports/report_kprobe.c builds that SELECT:
-- the argument columns differ per probe).
-- Running this file twice is harmless: it replaces what it made.
DROP VIEW IF EXISTS temp.kprobe_tables;
DROP VIEW IF EXISTS temp.kprobe_columns;
DROP VIEW IF EXISTS temp.kprobe_sym;
DROP VIEW IF EXISTS temp.kprobe_stack_frames;
CREATE TEMP VIEW kprobe_tables AS
SELECT m.name AS name,
       EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = '__probe_func') AS is_return
FROM sqlite_master m
WHERE m.type = 'table'
  AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name IN ('__probe_ip', '__probe_func'))
ORDER BY m.name;

-- The argument columns of probe table ?1, in the order the probe defined them.
CREATE TEMP VIEW kprobe_columns AS
SELECT t.name AS tbl, c.cid, c.name AS col
FROM kprobe_tables t, pragma_table_info(t.name) c
WHERE c.name NOT IN ('id', 'ts', 'cpu', 'pid', 'stack_id', '__probe_ip', '__probe_func',
                     '__probe_ret_ip')
ORDER BY t.name, c.cid;

-- "func+0xoff" for an address, as the kernel prints %pS.
CREATE TEMP VIEW kprobe_sym AS
SELECT ip, CASE WHEN offset IS NULL THEN name ELSE printf('%s+0x%x', name, offset) END AS sym
FROM func_ip_names;

-- Kernel stacks recorded with -s, one frame per row, outermost last.
CREATE TEMP VIEW kprobe_stack_frames AS
SELECT stack_id, depth, coalesce(symbol, printf('0x%x', addr)) AS frame FROM stacks
ORDER BY stack_id, depth;
