-- syscount.sql: every syscall of the capture, its entry paired with its exit, for
-- `ftana report syscount` and opensnoop, and for your own queries (`select * from
-- syscall_calls`). TEMP view; needs snoop_names.sql (errno_names) and the tables
-- import/derive_syscalls.c derives once per capture from its own syscall events
-- (`ftrec triage --syscalls`, or `ftrec record -e 'syscalls:*'`): syscall_pairs,
-- syscall_names, syscall_range (schema/derive_syscalls.sql), in the capture's database or
-- in TEMP for a database made elsewhere (reports/snoop.c derives them when missing).
-- `syscall` is NAME of the capture's sys_enter_NAME events, so every name is the
-- kernel's own (no syscall number table that could disagree with the recorded kernel).
--
-- Pairing (derive_syscalls.c): an entry pairs with the next syscall event of the same
-- thread when that is the exit of the same syscall and no events were lost
-- (lost_events, any CPU) between them. An entry without one (exit_group, execve's old
-- image, a call still running at the stop, a loss) is a call with NULL exit_id, ret and
-- dur_ns; exits without their entry (calls begun before the capture) are left out.
-- ret < 0 and >= -4095 is an error (the kernel's -errno convention); errno is -ret then.
DROP VIEW IF EXISTS temp.syscall_calls;

-- temp.syscall_events' shape (one row per syscall event, for `ftana sql`). reports/snoop.c
-- makes the real one before this file runs, so this never replaces it; written here so
-- that the name is reserved like every view of schema/ (import/import_names.c reads the
-- CREATEs of these files).
CREATE TEMP VIEW IF NOT EXISTS syscall_events AS
SELECT NULL AS id, NULL AS ts, NULL AS cpu, NULL AS pid, NULL AS syscall, NULL AS is_exit,
       NULL AS ret WHERE 0;

CREATE TEMP VIEW syscall_calls AS
SELECT p.id AS id, (SELECT base_ts FROM syscall_range) + p.ts_rel AS ts, p.cpu AS cpu,
       p.tid AS tid, coalesce(t.tgid, p.tid) AS pid, t.comm AS comm, n.name AS syscall,
       p.id + p.exit_gap AS exit_id, p.ret AS ret, p.dur_ns AS dur_ns,
       CASE WHEN p.ret BETWEEN -4095 AND -1 THEN -p.ret END AS errno,
       CASE WHEN p.ret BETWEEN -4095 AND -1 THEN
	       coalesce((SELECT name FROM errno_names e WHERE e.errno = -p.ret),
	                'errno ' || -p.ret) END AS error
FROM syscall_pairs p
JOIN syscall_names n ON n.syscall = p.syscall
LEFT JOIN tasks t ON t.pid = p.tid;
