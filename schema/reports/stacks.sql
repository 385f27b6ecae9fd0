-- stacks.sql: identical kernel stacks aggregated, for `ftana report stacks`.
-- Input: temp.stack_refs(stack_id), one row per event in the report's slice that has
-- a stack (the report fills it from every table with a stack_id column, or from
-- --event's; an event is in the slice by its own ts, cpu and pid), and stacks(stack_id,
-- depth, addr, symbol), depth 0 being the innermost frame (the first " => " line the
-- kernel prints).
--
-- "Identical" means the same functions in the same order: frames are compared by
-- function name without the +offset/size suffix, so two stack_ids that differ only in
-- return addresses inside the same functions are one stack here, as in FlameGraph's
-- stackcollapse (stacks_views.sql's stack_folded, here only for the stacks used).
-- An address without a symbol is kept as hex.

DROP VIEW IF EXISTS temp.stack_sel_folded;
DROP VIEW IF EXISTS temp.stack_counts;

-- Each used stack as one line (stacks_views.sql runs first).
CREATE TEMP VIEW stack_sel_folded AS
SELECT stack_id, folded FROM stack_folded WHERE stack_id IN (SELECT stack_id FROM stack_refs);

-- How many of the events had each distinct stack, most frequent first. A stack the
-- kernel recorded without a frame (its stack_id has no row in stacks) is "[empty]":
-- the events still count.
CREATE TEMP VIEW stack_counts AS
SELECT coalesce(f.folded, '[empty]') AS folded, sum(r.n) AS count
FROM (SELECT stack_id, count(*) AS n FROM stack_refs GROUP BY stack_id) r
LEFT JOIN stack_sel_folded f ON f.stack_id = r.stack_id
GROUP BY 1
ORDER BY count DESC, folded;
