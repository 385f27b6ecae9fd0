-- funcgraph_report: the calls of `ftana report funcgraph` within its slice, and the
-- views its printers read. After funcgraph_calls.sql; in_slice, report_ts and
-- temp.slice come from reports/report_slice.c. Input: temp.report_args max_depth (-m:
-- calls at depth >= max_depth are left out; absent: no limit).
-- A call belongs to the slice by its entry event (ts, cpu, pid); a call whose entry was
-- not recorded, by its return event.
-- Running this file twice is harmless: it replaces what it made.
DROP TABLE IF EXISTS temp.fg_sel;
DROP TABLE IF EXISTS temp.fg_events;
DROP VIEW IF EXISTS temp.fg_lines;
DROP VIEW IF EXISTS temp.fg_paths;
DROP VIEW IF EXISTS temp.fg_tree;
DROP VIEW IF EXISTS temp.fg_folded;

CREATE TEMP TABLE fg_sel AS
SELECT c.*, 0 AS kids, 0 AS kids_dur_ns, 0 AS leaf_thread, 0 AS leaf_time FROM calls c
WHERE coalesce(c.entry_id, c.exit_id) BETWEEN (SELECT lo_id FROM temp.slice)
                                          AND (SELECT hi_id FROM temp.slice)
  AND in_slice(coalesce(c.start_ts, c.end_ts), c.cpu, c.pid)
  AND c.depth < coalesce((SELECT value FROM report_args WHERE key = 'max_depth'),
                         9223372036854775807);
CREATE INDEX temp.fg_sel_id ON fg_sel(id);
CREATE INDEX temp.fg_sel_parent ON fg_sel(parent_id);

-- The events of the selected calls as the kernel's buffer holds them: an entry on the
-- CPU it ran on, a return on the CPU it returned on.
CREATE TEMP TABLE fg_events AS
SELECT entry_id AS seq, id, 0 AS is_exit, cpu, start_ts AS ts FROM fg_sel WHERE entry_id IS NOT NULL
UNION ALL
SELECT exit_id, id, 1, exit_cpu, end_ts FROM fg_sel WHERE exit_id IS NOT NULL;
CREATE INDEX temp.fg_events_cpu ON fg_events(cpu, seq);

-- Callees within the selection (-m and the slice leave some out: a call whose callees
-- are all left out prints as one line, its duration covering them, as with the
-- kernel's max_graph_depth). A call is one `leaf` line in a thread's view when no
-- selected callee ran inside it; in time order, as the kernel decides it, when its
-- return is the next event on its CPU.
UPDATE fg_sel SET
	kids = (SELECT count(*) FROM fg_sel c WHERE c.parent_id = fg_sel.id),
	kids_dur_ns = (SELECT coalesce(sum(c.dur_ns), 0) FROM fg_sel c WHERE c.parent_id = fg_sel.id);
UPDATE fg_sel SET leaf_thread = (kids = 0 AND entry_id IS NOT NULL AND exit_id IS NOT NULL);
UPDATE fg_sel SET leaf_time = leaf_thread AND exit_cpu = cpu AND NOT EXISTS (
	SELECT 1 FROM fg_events e WHERE e.cpu = fg_sel.cpu AND e.seq > fg_sel.entry_id
	AND e.seq < fg_sel.exit_id);

-- One line per event of a selected call: kind 'open' (entry), 'close' (return) or
-- 'leaf' (entry and return on one line; leaf is the leaf_thread or leaf_time column
-- of the view the printer asks for, its closing line then skipped).
CREATE TEMP VIEW fg_lines AS
SELECT e.seq, e.is_exit, e.cpu, e.ts, c.id, c.task, c.pid, c.comm, c.depth, c.func,
       c.dur_ns, c.flags, c.leaf_thread, c.leaf_time
FROM fg_events e JOIN fg_sel c ON c.id = e.id;

-- Every selected call with its path from the outermost selected caller. A root whose
-- depth is above 0 was entered below callers the selection does not hold: its path
-- starts with "[unknown]" rather than pretending it was outermost.
CREATE TEMP VIEW fg_paths AS
WITH RECURSIVE p(id, path, sortkey, level) AS (
	SELECT id, CASE WHEN depth > 0 THEN '[unknown];' ELSE '' END || func,
	       CASE WHEN depth > 0 THEN '[unknown]' || char(1) ELSE '' END || func, 0
	FROM fg_sel WHERE parent_id IS NULL OR parent_id NOT IN (SELECT id FROM fg_sel)
	UNION ALL
	-- past 256 levels (the kernel nests at most 50: a hostile or corrupt capture) the
	-- path stops growing, every deeper call counted in one "[deeper]" frame: a chain of
	-- n calls costs n paths of at most 257 names, not n paths of up to n
	SELECT c.id, CASE WHEN p.level < 256 THEN p.path || ';' || c.func
	                  WHEN p.level = 256 THEN p.path || ';[deeper]' ELSE p.path END,
	       CASE WHEN p.level < 256 THEN p.sortkey || char(1) || c.func
	            WHEN p.level = 256 THEN p.sortkey || char(1) || '[deeper]' ELSE p.sortkey END,
	       p.level + 1
	FROM p JOIN fg_sel c ON c.parent_id = p.id)
SELECT p.path, p.sortkey, p.level, c.* FROM p JOIN fg_sel c USING (id);

-- --tree: one aggregated call tree. total = sum of the durations; self = total minus
-- the selected callees' durations (a call without a return counts, without time).
CREATE TEMP VIEW fg_tree AS
SELECT count(*) AS count,
       CASE WHEN count(dur_ns) > 0 THEN sum(dur_ns) / 1e3 END AS total_us,
       CASE WHEN count(dur_ns) > 0 THEN sum(dur_ns - kids_dur_ns) / 1e3 END AS self_us,
       func, sum(flags <> 0) AS partial, level, path,
       min(depth) > 0 AND level = 0 AS below_unknown
FROM fg_paths GROUP BY sortkey ORDER BY sortkey;

-- --folded: "caller;...;callee SELF_NS", flame-graph input weighted by self time.
CREATE TEMP VIEW fg_folded AS
SELECT path AS stack, sum(dur_ns - kids_dur_ns) AS self_ns
FROM fg_paths WHERE dur_ns IS NOT NULL GROUP BY sortkey HAVING sum(dur_ns - kids_dur_ns) > 0
ORDER BY sortkey;
