-- stacks_views: the kernel stacks of a capture recorded with -s, each as one line,
-- for your own queries (`ftana sql FILE 'select * from stack_folded'`; join an event
-- table's stack_id to it). Whole capture: no slice here.
-- "root;...;leaf": outermost frame first, as FlameGraph's folded stacks; a frame is
-- its function name without the +offset/size suffix (two stacks differing only in
-- return addresses inside the same functions fold to the same line); an address
-- without a symbol is kept as hex.
-- Running this file twice is harmless: it replaces what it made.
DROP VIEW IF EXISTS temp.stack_folded;

CREATE TEMP VIEW stack_folded AS
SELECT stack_id, group_concat(frame, ';') AS folded FROM (
	SELECT stack_id,
	       CASE WHEN symbol IS NULL OR symbol = '' THEN printf('0x%x', addr)
	            WHEN instr(symbol, '+') > 1 THEN substr(symbol, 1, instr(symbol, '+') - 1)
	            ELSE symbol END AS frame
	FROM stacks
	ORDER BY stack_id, depth DESC)
GROUP BY stack_id;
