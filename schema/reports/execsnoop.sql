-- execsnoop.sql: every successful exec of the capture (perf-tools' / bcc's execsnoop),
-- for `ftana report execsnoop` and your own queries (`ftana sql FILE 'select * from
-- execs'`). TEMP views only. Inputs: sched_process_exec (required for rows),
-- sched_process_fork, sched_process_exit, syscalls sys_enter_exit_group / sys_enter_exit
-- (ftrec triage --syscalls), tasks; reports/snoop.c creates empty stand-ins for the
-- event tables a capture lacks.
--
-- sched_process_exec fires once the new program is in place (a failed execve fires
-- nothing): filename is the path as given to execve (bprm->filename), pid the task
-- after the exec, old_pid its thread id before it (they differ when a non-leader
-- thread exec'd: it took over the leader's pid).
--  * ppid: the process (tasks.tgid) of the parent_pid of the latest sched_process_fork
--    whose child_pid is the exec'd pid, before the exec; NULL when the fork was before
--    the capture.
--  * comm: what the kernel sets at exec, the file name's last component cut to 15
--    bytes (TASK_COMM_LEN - 1).
--  * end: the image ends at the process's exit (sched_process_exit of that pid) or at
--    its next exec, whichever comes first; end_reason 'exit' or 'exec', NULL when
--    neither is in the capture (dur_ns NULL too).
--  * exit_code: the status (its low 8 bits, as a shell shows it) the process passed to
--    exit_group() (any thread) or exit() (its leader thread) (syscall events,
--    recorded with `ftrec triage --syscalls`) between the exec
--    and the exit; NULL without syscall events, or when a signal ended it.
DROP VIEW IF EXISTS temp.execs;

-- Window functions over one time-ordered stream per pid instead of a lookup per exec:
-- the cost grows as n log n with the events, not as execs times exits.
CREATE TEMP VIEW execs AS
WITH stream AS (
	SELECT field_pid AS pid, id, ts, 0 AS kind FROM sched_process_exec
	UNION ALL SELECT field_pid, id, ts, 1 FROM sched_process_exit
	UNION ALL SELECT child_pid, id, ts, 2 FROM sched_process_fork),
forked AS (
	SELECT pid, id, ts, kind,
	       max(CASE WHEN kind = 2 THEN id END)
		OVER (PARTITION BY pid ORDER BY id ROWS UNBOUNDED PRECEDING) AS fork_id
	FROM stream),
ends AS (
	SELECT pid, id, ts, kind, fork_id,
	       lead(kind) OVER w AS next_kind, lead(id) OVER w AS next_id, lead(ts) OVER w AS next_ts
	FROM forked WHERE kind IN (0, 1)
	WINDOW w AS (PARTITION BY pid ORDER BY id)),
-- exit_group() by any thread of the process, exit() by its leader thread only (another
-- thread's exit() ends that thread, not the process)
codes AS (
	SELECT coalesce(t.tgid, g.pid) AS pid, g.id AS id, g.error_code AS code
	FROM sys_enter_exit_group g LEFT JOIN tasks t ON t.pid = g.pid
	UNION ALL
	SELECT x.pid, x.id, x.error_code FROM sys_enter_exit x
	WHERE coalesce((SELECT tgid FROM tasks t WHERE t.pid = x.pid), x.pid) = x.pid),
coded AS (
	SELECT id, kind, code,
	       max(CASE WHEN kind = 0 THEN id END)
		OVER (PARTITION BY pid ORDER BY id ROWS UNBOUNDED PRECEDING) AS exec_id
	FROM (SELECT field_pid AS pid, id, 0 AS kind, NULL AS code FROM sched_process_exec
	      UNION ALL SELECT pid, id, 1, code FROM codes)),
first_code AS (
	SELECT exec_id, min(id) AS code_id FROM coded WHERE kind = 1 AND exec_id IS NOT NULL
	GROUP BY exec_id)
SELECT e.id AS id, e.ts AS ts, x.cpu AS cpu, e.pid AS pid, x.old_pid AS old_pid,
       (SELECT coalesce(t.tgid, f.parent_pid) FROM sched_process_fork f
        LEFT JOIN tasks t ON t.pid = f.parent_pid WHERE f.id = e.fork_id) AS ppid,
       substr(replace(x.filename, rtrim(x.filename, replace(x.filename, '/', '')), ''), 1, 15)
	       AS comm,
       x.filename AS filename,
       CASE e.next_kind WHEN 1 THEN 'exit' WHEN 0 THEN 'exec' END AS end_reason,
       e.next_ts AS end_ts,
       e.next_ts - e.ts AS dur_ns,
       CASE WHEN e.next_kind = 1 AND fc.code_id < e.next_id THEN
	       (SELECT code FROM coded c WHERE c.id = fc.code_id) & 255 END AS exit_code
FROM ends e
JOIN sched_process_exec x ON x.id = e.id
LEFT JOIN first_code fc ON fc.exec_id = e.id
WHERE e.kind = 0;
