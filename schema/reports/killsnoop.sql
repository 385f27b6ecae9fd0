-- killsnoop.sql: every signal the capture saw generated (signal:signal_generate), with
-- who sent it to whom and what became of it, for `ftana report killsnoop` and your own
-- queries (`select * from kills`). TEMP view; needs snoop_names.sql. Inputs:
-- signal_generate (a stand-in when absent), tasks.
--
-- signal_generate runs in the sender's context: the event's task (common_pid) is the
-- sending thread. That includes signals the kernel sends on a task's behalf (SIGCHLD at
-- a child's exit, SIGSEGV on a fault: si_code tells them apart, SI_USER 0 = kill(),
-- SI_TKILL -6 = tkill/tgkill, SI_QUEUE -1, SI_KERNEL 128, CLD_* > 0 for SIGCHLD).
-- result is the kernel's enum in include/trace/events/signal.h: 0 delivered, 1 ignored,
-- 2 already_pending, 3 overflow_fail, 4 lose_info.
DROP VIEW IF EXISTS temp.kills;

CREATE TEMP VIEW kills AS
SELECT g.id AS id, g.ts AS ts, g.cpu AS cpu,
       coalesce(st.tgid, g.pid) AS sender_pid, g.pid AS sender_tid, st.comm AS sender_comm,
       coalesce(tt.tgid, g.field_pid) AS target_pid, g.field_pid AS target_tid,
       g.comm AS target_comm, g.sig AS sig,
       CASE WHEN (SELECT generic_signals FROM snoop_arch) THEN
	       coalesce((SELECT name FROM signal_names n WHERE n.sig = g.sig),
	                CASE WHEN g.sig >= 32 THEN 'SIGRT' || (g.sig - 32) END)
       END AS signal,
       g.code AS si_code, g."group" AS to_group,
       CASE g.result WHEN 0 THEN 'delivered' WHEN 1 THEN 'ignored' WHEN 2 THEN 'already_pending'
                     WHEN 3 THEN 'overflow_fail' WHEN 4 THEN 'lose_info'
                     ELSE 'result_' || g.result END AS result
FROM signal_generate g
LEFT JOIN tasks st ON st.pid = g.pid
LEFT JOIN tasks tt ON tt.pid = g.field_pid;
