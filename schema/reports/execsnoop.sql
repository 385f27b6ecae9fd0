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
--    exit_group()/exit() (syscall events,
--    recorded with `ftrec triage --syscalls`) by any of its threads between the exec
--    and the exit; NULL without syscall events, or when a signal ended it.
DROP VIEW IF EXISTS temp.execs;

CREATE TEMP VIEW execs AS
WITH ex AS (
	SELECT e.id, e.ts, e.cpu, e.field_pid AS pid, e.old_pid, e.filename,
	       lead(e.id) OVER (PARTITION BY e.field_pid ORDER BY e.id) AS next_exec_id,
	       lead(e.ts) OVER (PARTITION BY e.field_pid ORDER BY e.id) AS next_exec_ts
	FROM sched_process_exec e),
ended AS (
	SELECT ex.*,
	       (SELECT min(x.id) FROM sched_process_exit x
	        WHERE x.field_pid = ex.pid AND x.id > ex.id) AS exit_id
	FROM ex),
bounded AS (
	SELECT ended.*,
	       CASE WHEN exit_id IS NOT NULL AND (next_exec_id IS NULL OR exit_id < next_exec_id)
	            THEN 'exit' WHEN next_exec_id IS NOT NULL THEN 'exec' END AS end_reason
	FROM ended)
SELECT b.id AS id, b.ts AS ts, b.cpu AS cpu, b.pid AS pid, b.old_pid AS old_pid,
       (SELECT coalesce(t.tgid, f.parent_pid)
        FROM sched_process_fork f LEFT JOIN tasks t ON t.pid = f.parent_pid
        WHERE f.child_pid = b.pid AND f.id < b.id ORDER BY f.id DESC LIMIT 1) AS ppid,
       substr(replace(b.filename, rtrim(b.filename, replace(b.filename, '/', '')), ''), 1, 15)
	       AS comm,
       b.filename AS filename,
       b.end_reason AS end_reason,
       CASE b.end_reason WHEN 'exit' THEN (SELECT ts FROM sched_process_exit WHERE id = b.exit_id)
                         WHEN 'exec' THEN b.next_exec_ts END AS end_ts,
       CASE b.end_reason WHEN 'exit' THEN (SELECT ts FROM sched_process_exit WHERE id = b.exit_id)
                         WHEN 'exec' THEN b.next_exec_ts END - b.ts AS dur_ns,
       CASE WHEN b.end_reason = 'exit' THEN
	       (SELECT code FROM (
		       SELECT id, error_code AS code, pid FROM sys_enter_exit_group
		       UNION ALL SELECT id, error_code, pid FROM sys_enter_exit) c
		LEFT JOIN tasks t ON t.pid = c.pid
		WHERE c.id > b.id AND c.id < b.exit_id AND coalesce(t.tgid, c.pid) = b.pid
		ORDER BY c.id LIMIT 1) & 255 END AS exit_code
FROM bounded b;
