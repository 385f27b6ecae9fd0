-- funcgraph views over the `calls` table (funcgraph.sql), run once calls is filled.
-- Inputs: temp.report_args pid, cpu (NULL: all).
-- Running this file twice is harmless: it replaces what it made.
DROP INDEX IF EXISTS temp.calls_parent;
DROP TABLE IF EXISTS temp.fg_names;
DROP VIEW IF EXISTS temp.fg_calls;
DROP VIEW IF EXISTS temp.fg_lines;
DROP VIEW IF EXISTS temp.fg_paths;
DROP VIEW IF EXISTS temp.fg_tree;
DROP VIEW IF EXISTS temp.fg_folded;
CREATE INDEX temp.calls_parent ON calls(parent_id);
INSERT OR IGNORE INTO func_ips SELECT DISTINCT func FROM calls;
CREATE TEMP TABLE fg_names(ip INTEGER PRIMARY KEY, name TEXT);
INSERT INTO fg_names SELECT ip, name FROM func_ip_names;

CREATE TEMP VIEW fg_calls AS
SELECT c.*, n.name FROM calls c JOIN fg_names n ON n.ip = c.func,
	(SELECT (SELECT value FROM report_args WHERE key = 'pid') AS want_pid,
	        (SELECT value FROM report_args WHERE key = 'cpu') AS want_cpu)
WHERE (want_pid IS NULL OR c.pid = want_pid) AND (want_cpu IS NULL OR c.cpu = want_cpu);

-- The kernel's function_graph layout, one line per event in each thread's order:
-- a call without callees is one `leaf` line, others open with `{` and close with `}`.
CREATE TEMP VIEW fg_lines AS
SELECT c.task, c.pid, c.cpu, l.seq, l.kind, c.depth, c.name, c.dur, c.flags
FROM (SELECT id, entry_id AS seq,
             CASE WHEN children = 0 AND exit_id IS NOT NULL THEN 'leaf' ELSE 'open' END AS kind
      FROM calls WHERE entry_id IS NOT NULL
      UNION ALL
      SELECT id, exit_id, 'close' FROM calls
      WHERE exit_id IS NOT NULL AND (entry_id IS NULL OR children > 0)) l
JOIN fg_calls c ON c.id = l.id
ORDER BY c.task, l.seq;

-- Every call with its path from the outermost known caller. A root whose depth is
-- above 0 was entered below callers the recording did not see: its path starts
-- with "[unknown]" rather than pretending it was outermost.
CREATE TEMP VIEW fg_paths AS
WITH RECURSIVE p(id, path, sortkey, level) AS (
	SELECT id, CASE WHEN depth > 0 THEN '[unknown];' ELSE '' END || name,
	       CASE WHEN depth > 0 THEN '[unknown]' || char(1) ELSE '' END || name, 0
	FROM fg_calls WHERE parent_id IS NULL
	UNION ALL
	SELECT c.id, p.path || ';' || c.name, p.sortkey || char(1) || c.name, p.level + 1
	FROM p JOIN fg_calls c ON c.parent_id = p.id)
SELECT p.path, p.sortkey, p.level, c.* FROM p JOIN fg_calls c USING (id);

-- --tree: one aggregated call tree; times in microseconds, self = own time minus
-- the time of the callees that returned (calls without a return count, no time).
CREATE TEMP VIEW fg_tree AS
SELECT count(*) AS CALLS,
       CASE WHEN count(dur) > 0 THEN printf('%.3f', sum(dur) / 1e3) ELSE '?' END AS "TOTAL(us)",
       CASE WHEN count(dur) > 0 THEN printf('%.3f', sum(dur - child_dur) / 1e3) ELSE '?' END
       AS "SELF(us)",
       printf('%*s', 2 * level, '') || CASE WHEN level = 0 AND depth > 0 THEN '... ' ELSE '' END
       || name AS FUNCTION,
       sum(flags <> 0) AS PARTIAL
FROM fg_paths GROUP BY sortkey ORDER BY sortkey;

-- --folded: "caller;...;callee SELF_NS", flame-graph input weighted by self time.
CREATE TEMP VIEW fg_folded AS
SELECT path || ' ' || sum(dur - child_dur) AS folded
FROM fg_paths WHERE dur IS NOT NULL GROUP BY sortkey HAVING sum(dur - child_dur) > 0
ORDER BY sortkey;
