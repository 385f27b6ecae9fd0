-- stacks.sql: identical kernel stacks aggregated, for `ftana report stacks`.
-- Input: temp.stack_refs(stack_id), one row per event of the chosen events that has a
-- stack (the report fills it from every table with a stack_id column, or from --event's),
-- and stacks(stack_id, depth, addr, symbol), depth 0 being the innermost frame (the
-- first " => " line the kernel prints).
--
-- "Identical" means the same functions in the same order: frames are compared by
-- function name without the +offset/size suffix, so two stack_ids that differ only in
-- return addresses inside the same functions are one stack here, as in FlameGraph's
-- stackcollapse. An address without a symbol is kept as hex.

DROP VIEW IF EXISTS temp.stack_folded;
DROP VIEW IF EXISTS temp.stack_counts;

-- Each stack as one line, outermost frame first: "root;...;leaf".
CREATE TEMP VIEW stack_folded AS
SELECT stack_id, group_concat(frame, ';') AS folded FROM (
	SELECT stack_id,
	       CASE WHEN symbol IS NULL OR symbol = '' THEN printf('0x%x', addr)
	            WHEN instr(symbol, '+') > 1 THEN substr(symbol, 1, instr(symbol, '+') - 1)
	            ELSE symbol END AS frame
	FROM stacks
	WHERE stack_id IN (SELECT stack_id FROM stack_refs)
	ORDER BY stack_id, depth DESC)
GROUP BY stack_id;

-- How many of the events had each distinct stack, most frequent first.
CREATE TEMP VIEW stack_counts AS
SELECT f.folded AS folded, sum(r.n) AS count
FROM (SELECT stack_id, count(*) AS n FROM stack_refs GROUP BY stack_id) r
JOIN stack_folded f ON f.stack_id = r.stack_id
GROUP BY f.folded
ORDER BY count DESC, folded;
