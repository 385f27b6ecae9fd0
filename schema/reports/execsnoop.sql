-- execsnoop.sql: every successful exec of the capture (perf-tools' / bcc's execsnoop),
-- for `ftana report execsnoop` and your own queries (`ftana sql FILE 'select * from
-- execs'`). TEMP views only. Inputs: sched_process_exec (required for rows),
-- sched_process_fork, sched_process_exit, syscalls sys_enter_exit_group / sys_enter_exit
-- (ftrec triage --syscalls), tasks; reports/snoop.c creates empty stand-ins for the
-- event tables a capture lacks.
--
-- Inputs also: the kprobes ftrec_exec_args / ftrec_execat_args (stand-ins when absent).
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
--  * args: the exec's arguments, argv[0] first, each quoted as a shell takes it back
--    (exec_quoted below), the first 16 (then " [...]"), each up to 256 characters
--    (then "[...]"); NULL without the probe (record/preset_triage.c's ftrec_exec_args).
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
	GROUP BY exec_id),
-- Each exec's arguments (`ftrec triage --syscalls` on x86-64 with kprobes: the probes
-- ftrec_exec_args on execve and ftrec_execat_args on execveat, record/preset_triage.c):
-- pI the pointer argv[I] (0: past the last argument), aI its string, for the first 16.
exec_hits AS (
	SELECT id, pid, p0, a0, p1, a1, p2, a2, p3, a3, p4, a4, p5, a5, p6, a6, p7, a7, p8, a8,
	       p9, a9, p10, a10, p11, a11, p12, a12, p13, a13, p14, a14, p15, a15 FROM ftrec_exec_args
	UNION ALL
	SELECT id, pid, p0, a0, p1, a1, p2, a2, p3, a3, p4, a4, p5, a5, p6, a6, p7, a7, p8, a8,
	       p9, a9, p10, a10, p11, a11, p12, a12, p13, a13, p14, a14, p15, a15 FROM ftrec_execat_args),
exec_argv AS (
	SELECT *, CASE WHEN NOT coalesce(p0, 0) THEN 0 WHEN NOT coalesce(p1, 0) THEN 1
		WHEN NOT coalesce(p2, 0) THEN 2 WHEN NOT coalesce(p3, 0) THEN 3 WHEN NOT coalesce(p4, 0) THEN 4
		WHEN NOT coalesce(p5, 0) THEN 5 WHEN NOT coalesce(p6, 0) THEN 6 WHEN NOT coalesce(p7, 0) THEN 7
		WHEN NOT coalesce(p8, 0) THEN 8 WHEN NOT coalesce(p9, 0) THEN 9 WHEN NOT coalesce(p10, 0) THEN 10
		WHEN NOT coalesce(p11, 0) THEN 11 WHEN NOT coalesce(p12, 0) THEN 12
		WHEN NOT coalesce(p13, 0) THEN 13 WHEN NOT coalesce(p14, 0) THEN 14
		WHEN NOT coalesce(p15, 0) THEN 15 ELSE 16 END AS n
	FROM exec_hits),
exec_arg AS (
	SELECT id, 0 AS i, coalesce(a0, '') AS a FROM exec_argv WHERE n > 0
	UNION ALL SELECT id, 1, coalesce(a1, '') FROM exec_argv WHERE n > 1
	UNION ALL SELECT id, 2, coalesce(a2, '') FROM exec_argv WHERE n > 2
	UNION ALL SELECT id, 3, coalesce(a3, '') FROM exec_argv WHERE n > 3
	UNION ALL SELECT id, 4, coalesce(a4, '') FROM exec_argv WHERE n > 4
	UNION ALL SELECT id, 5, coalesce(a5, '') FROM exec_argv WHERE n > 5
	UNION ALL SELECT id, 6, coalesce(a6, '') FROM exec_argv WHERE n > 6
	UNION ALL SELECT id, 7, coalesce(a7, '') FROM exec_argv WHERE n > 7
	UNION ALL SELECT id, 8, coalesce(a8, '') FROM exec_argv WHERE n > 8
	UNION ALL SELECT id, 9, coalesce(a9, '') FROM exec_argv WHERE n > 9
	UNION ALL SELECT id, 10, coalesce(a10, '') FROM exec_argv WHERE n > 10
	UNION ALL SELECT id, 11, coalesce(a11, '') FROM exec_argv WHERE n > 11
	UNION ALL SELECT id, 12, coalesce(a12, '') FROM exec_argv WHERE n > 12
	UNION ALL SELECT id, 13, coalesce(a13, '') FROM exec_argv WHERE n > 13
	UNION ALL SELECT id, 14, coalesce(a14, '') FROM exec_argv WHERE n > 14
	UNION ALL SELECT id, 15, coalesce(a15, '') FROM exec_argv WHERE n > 15),
-- Each argument as a shell takes it back: bare when it holds only letters, digits and
-- _./=:,+@%-; in '...' when it is other printable ASCII without a quote; else in bash's
-- $'...', with \\ and \' (a report then prints control bytes and bytes that are not
-- UTF-8 as \xHH, as bash reads them). One over 256 characters is cut there: $'...'[...].
exec_quoted AS (
	SELECT id, i, CASE
		WHEN length(a) > 256 THEN
			'$''' || replace(replace(substr(a, 1, 256), '\', '\\'), '''', '\''') || '''[...]'
		WHEN a = '' THEN ''''''
		WHEN a NOT GLOB '*[^A-Za-z0-9_./=:,+@%-]*' THEN a
		WHEN a NOT GLOB '*[^ -~]*' AND instr(a, '''') = 0 THEN '''' || a || ''''
		ELSE '$''' || replace(replace(a, '\', '\\'), '''', '\''') || '''' END AS q
	FROM exec_arg),
-- in argv's order (a window's ORDER BY orders its group_concat); a 16th argument: " [...]"
exec_args AS (
	SELECT v.id AS id, coalesce(q.args, '') || CASE WHEN v.n = 16 THEN ' [...]' ELSE '' END AS args
	FROM exec_argv v LEFT JOIN (
		SELECT id, i, group_concat(q, ' ') OVER (PARTITION BY id ORDER BY i
			ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS args
		FROM exec_quoted) q ON q.id = v.id AND q.i = 0),
-- An exec's hit: its thread's last one before its sched_process_exec and after the
-- thread's fork or previous exec (an earlier hit is a failed attempt of the same exec:
-- a shell trying each $PATH directory). None when the probe was not recorded, or the
-- kernel dropped its event (one over a ring-buffer page: arguments of about 4 KB).
exec_marks AS (
	SELECT id, kind,
	       max(CASE WHEN kind = 1 THEN id END) OVER w AS hit,
	       max(CASE WHEN kind <> 1 THEN id END) OVER w AS barrier
	FROM (SELECT old_pid AS tid, id, 0 AS kind FROM sched_process_exec
	      UNION ALL SELECT pid, id, 1 FROM exec_hits
	      UNION ALL SELECT child_pid, id, 2 FROM sched_process_fork)
	WINDOW w AS (PARTITION BY tid ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING))
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
	       (SELECT code FROM coded c WHERE c.id = fc.code_id) & 255 END AS exit_code,
       a.args AS args
FROM ends e
JOIN sched_process_exec x ON x.id = e.id
LEFT JOIN first_code fc ON fc.exec_id = e.id
LEFT JOIN exec_marks m ON m.id = e.id AND m.kind = 0 AND m.hit > coalesce(m.barrier, -1)
LEFT JOIN exec_args a ON a.id = m.hit
WHERE e.kind = 0;
