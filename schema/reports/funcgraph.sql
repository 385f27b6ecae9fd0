-- funcgraph: the `calls` table, one row per function call seen by function_graph.
-- It is filled by reports/funcgraph_calls.c from funcgraph_entry/funcgraph_exit
-- (pairing needs a per-thread stack walk, see there), then funcgraph_views.sql runs.
--   id        call number (entry order); parent_id: the enclosing call, NULL if unknown
--   cpu, pid  where the call was entered (or returned, when its entry was not seen)
--   task      pid, or -1-cpu for the per-CPU idle tasks (all pid 0)
--   depth     function_graph depth; func: the function's address
--   start_ts, end_ts  entry / exit event times (NULL when that event was not seen)
--   dur       the kernel's rettime - calltime in ns (NULL without a return)
--   entry_id, exit_id the events; children, child_dur: direct callees and their time
--   flags     1 = no entry seen (returned before the recording or after a loss),
--             2 = no exit seen (still running at the end, or its return was lost),
--             4 = events may be missing inside it (lost events on its CPU, or overrun)
-- Running this file twice is harmless: it replaces what it made.
DROP TABLE IF EXISTS temp.calls;
CREATE TEMP TABLE calls(
	id INTEGER PRIMARY KEY, cpu INTEGER, pid INTEGER, task INTEGER, depth INTEGER,
	func INTEGER, start_ts INTEGER, end_ts INTEGER, dur INTEGER, parent_id INTEGER,
	entry_id INTEGER, exit_id INTEGER, children INTEGER, child_dur INTEGER,
	flags INTEGER NOT NULL DEFAULT 0);
