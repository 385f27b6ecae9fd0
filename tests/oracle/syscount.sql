-- tests/oracle/syscount.sql: THE REFERENCE the C pairing of syscall entries and exits is
-- checked against (import/derive_syscalls.c, tests/test_derive_syscalls.c). It is the SQL
-- that built the view syscall_calls before it was derived in C (issue 23), kept unchanged
-- (over temp.syscall_events, which reports/snoop.c still builds for `ftana sql`): a change
-- of the rule changes both, and the test says where they disagree. Not built into ftana.
-- Below, its own header as it was.
--
-- syscount.sql: every syscall of the capture, its entry paired with its exit, for
-- `ftana report syscount` and opensnoop, and for your own queries (`select * from
-- syscall_calls`). TEMP view; needs snoop_names.sql and temp.syscall_events, which
-- reports/snoop.c builds from the capture's own syscall events (`ftrec triage
-- --syscalls`, or `ftrec record -e 'syscalls:*'`): one row per syscalls:sys_enter_NAME /
-- sys_exit_NAME event, `syscall` = NAME, so every name is the kernel's own (no syscall
-- number table that could disagree with the recorded kernel).
--
-- Pairing: an entry pairs with the next syscall event of the same thread when that is
-- the exit of the same syscall and no events were lost (lost_events, any CPU) between
-- them. An entry without one (exit_group, execve's old image, a call still running at
-- the stop, a loss) is a call with NULL exit_id, ret and dur_ns; exits without their
-- entry (calls begun before the capture) are left out.
-- ret < 0 and >= -4095 is an error (the kernel's -errno convention); errno is -ret then.
DROP VIEW IF EXISTS temp.syscall_calls;

-- temp.syscall_events' shape. reports/snoop.c makes the real one before this file runs,
-- so this never replaces it; written here so that the name is reserved like every
-- view of schema/ (import/import_names.c reads the CREATEs of these files).
CREATE TEMP VIEW IF NOT EXISTS syscall_events AS
SELECT NULL AS id, NULL AS ts, NULL AS cpu, NULL AS pid, NULL AS syscall, NULL AS is_exit,
       NULL AS ret WHERE 0;

CREATE TEMP VIEW syscall_calls AS
WITH seq AS (
	SELECT id, ts, cpu, pid, syscall, is_exit, ret,
	       lead(id) OVER t AS next_id, lead(ts) OVER t AS next_ts,
	       lead(is_exit) OVER t AS next_exit, lead(syscall) OVER t AS next_syscall,
	       lead(ret) OVER t AS next_ret
	FROM temp.syscall_events
	WINDOW t AS (PARTITION BY pid ORDER BY id)),
paired AS (
	SELECT seq.*,
	       next_exit = 1 AND next_syscall = syscall
	       AND NOT EXISTS (SELECT 1 FROM lost_events l WHERE l.ts > seq.ts AND l.ts <= seq.next_ts)
	       AS ok
	FROM seq WHERE is_exit = 0)
SELECT p.id AS id, p.ts AS ts, p.cpu AS cpu, p.pid AS tid, coalesce(t.tgid, p.pid) AS pid,
       t.comm AS comm, p.syscall AS syscall,
       CASE WHEN ok THEN next_id END AS exit_id,
       CASE WHEN ok THEN next_ret END AS ret,
       CASE WHEN ok THEN next_ts - p.ts END AS dur_ns,
       CASE WHEN ok AND next_ret BETWEEN -4095 AND -1 THEN -next_ret END AS errno,
       CASE WHEN ok AND next_ret BETWEEN -4095 AND -1 THEN
	       coalesce((SELECT name FROM errno_names e WHERE e.errno = -next_ret),
	                'errno ' || -next_ret) END AS error
FROM paired p LEFT JOIN tasks t ON t.pid = p.pid;
