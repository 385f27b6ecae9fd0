-- funcgraph: temp.call_rows, one row per function call seen by function_graph, filled
-- by reports/funcgraph_calls.c from funcgraph_entry/funcgraph_exit (pairing needs a
-- per-thread stack walk, see there); funcgraph_calls.sql then makes the `calls` view
-- (docs/SQL.md) that reports and `ftana sql` read.
--   id            call number (event order); parent_id: the enclosing call, NULL if unknown
--   entry_id, exit_id  the events (NULL when that event was not seen)
--   cpu, pid      where the call was entered (or returned, when its entry was not seen)
--   exit_cpu      where it returned (NULL without a return): a task may migrate meanwhile
--   task          pid, or -1-cpu for the per-CPU idle tasks (all pid 0)
--   depth         function_graph depth; ip: the function's address
--   start_ts, end_ts  entry / exit event times, trace clock ns (NULL: not seen)
--   dur_ns        the kernel's rettime - calltime (NULL without a return)
--   children, child_dur_ns  direct callees and the sum of their dur_ns
--   flags         1 = no entry seen (returned before the recording or after a loss),
--                 2 = no exit seen (still running at the end, or its return was lost),
--                 4 = events may be missing inside it (lost events on its CPU, or overrun)
-- Running this file twice is harmless: it replaces what it made.
DROP VIEW IF EXISTS temp.calls;
DROP TABLE IF EXISTS temp.call_rows;
CREATE TEMP TABLE call_rows(
	id INTEGER PRIMARY KEY, entry_id INTEGER, exit_id INTEGER, cpu INTEGER, exit_cpu INTEGER,
	pid INTEGER, task INTEGER, depth INTEGER, ip INTEGER, start_ts INTEGER, end_ts INTEGER,
	dur_ns INTEGER, parent_id INTEGER, children INTEGER, child_dur_ns INTEGER,
	flags INTEGER NOT NULL DEFAULT 0);
