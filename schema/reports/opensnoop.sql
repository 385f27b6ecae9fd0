-- opensnoop.sql: every open() of the capture with its flags and result (perf-tools' /
-- bcc's opensnoop), for `ftana report opensnoop` and your own queries (`select * from
-- opens`). TEMP view; needs syscount.sql (syscall_calls) and snoop_names.sql. Inputs:
-- syscalls sys_enter_openat / sys_enter_openat2 / sys_enter_open and the kprobe
-- ftrec_open_path (stand-ins when absent, reports/snoop.c), the entries paired with
-- their exits by syscall_calls.
--
-- path: the file name. The kernel's syscall events record the filename ARGUMENT, a
-- user-space address (this is what 6.x kernels give: `const char * filename`), so the
-- name itself comes from the probe `ftrec triage --syscalls` adds where the kernel has
-- kprobes: ftrec_open_path on do_sys_openat2, whose `path` is the name copied from user
-- memory. Its hit fires inside the syscall: the open's path is the first hit of the
-- same thread after the entry and before the exit (ids are capture order), so a call
-- without its exit (a loss, still running) takes none. A kernel whose sys_enter_openat
-- carries the string gives it first. NULL when neither holds it (filename_addr has the
-- address). The probe reads user memory without faulting pages in: a name whose page
-- was not resident comes as "" (6.1) or "(fault)" (newer kernels), taken as none.
-- flags: the O_* names of the flags argument as given (O_RDONLY, O_WRONLY or O_RDWR,
-- then the other bits in ascending order, any unnamed bits as 0x...), on architectures
-- with asm-generic/fcntl.h values (snoop_arch.generic_open_flags); elsewhere the hex.
-- flags, mode: NULL for openat2 (they are in its struct open_how, not recorded).
-- fd: the result when >= 0; errno/error when the open failed.
DROP VIEW IF EXISTS temp.opens;

CREATE TEMP VIEW opens AS
WITH enters AS (
	-- the int arguments sit in 8-byte slots: their low 32 bits, sign-extended for dfd
	SELECT id, CASE WHEN dfd & 4294967295 >= 2147483648 THEN (dfd & 4294967295) - 4294967296
	            ELSE dfd & 4294967295 END AS dfd, filename,
	       flags & 4294967295 AS flags, mode FROM sys_enter_openat
	UNION ALL SELECT id, -100, filename, flags & 4294967295, mode FROM sys_enter_open
	-- openat2's flags and mode are in the struct open_how it points to: not recorded
	UNION ALL SELECT id, CASE WHEN dfd & 4294967295 >= 2147483648 THEN (dfd & 4294967295) - 4294967296
	                     ELSE dfd & 4294967295 END, filename, NULL, NULL FROM sys_enter_openat2),
named AS (
	SELECT c.*, e.dfd AS dfd, e.filename AS filename, e.flags AS flags_raw, e.mode AS mode,
	       -- a range of the probe table's INTEGER PRIMARY KEY: no scan per open
	       (SELECT CASE WHEN h.path NOT IN ('', '(fault)') THEN h.path END FROM ftrec_open_path h
	        WHERE h.id > c.id AND h.id < c.exit_id AND h.pid = c.tid AND typeof(h.path) = 'text'
	        ORDER BY h.id LIMIT 1) AS probe_path
	FROM syscall_calls c JOIN enters e ON e.id = c.id)
SELECT id, ts, cpu, pid, tid, comm, syscall,
       coalesce(CASE WHEN typeof(filename) = 'text' THEN filename END, probe_path) AS path,
       CASE WHEN typeof(filename) = 'integer' THEN printf('0x%x', filename) END AS filename_addr,
       CASE WHEN dfd = -100 THEN 'AT_FDCWD' ELSE CAST(dfd AS TEXT) END AS dirfd,
       flags_raw,
       CASE WHEN flags_raw IS NULL THEN NULL
            WHEN (SELECT generic_open_flags FROM snoop_arch) THEN
	       CASE flags_raw & 3 WHEN 0 THEN 'O_RDONLY' WHEN 1 THEN 'O_WRONLY' WHEN 2 THEN 'O_RDWR'
	                          ELSE 'O_ACCMODE' END ||
	       CASE WHEN flags_raw & 64 THEN '|O_CREAT' ELSE '' END ||
	       CASE WHEN flags_raw & 128 THEN '|O_EXCL' ELSE '' END ||
	       CASE WHEN flags_raw & 256 THEN '|O_NOCTTY' ELSE '' END ||
	       CASE WHEN flags_raw & 512 THEN '|O_TRUNC' ELSE '' END ||
	       CASE WHEN flags_raw & 1024 THEN '|O_APPEND' ELSE '' END ||
	       CASE WHEN flags_raw & 2048 THEN '|O_NONBLOCK' ELSE '' END ||
	       CASE WHEN flags_raw & 4096 THEN '|O_DSYNC' ELSE '' END ||
	       CASE WHEN flags_raw & 8192 THEN '|O_ASYNC' ELSE '' END ||
	       CASE WHEN flags_raw & 16384 THEN '|O_DIRECT' ELSE '' END ||
	       CASE WHEN flags_raw & 32768 THEN '|O_LARGEFILE' ELSE '' END ||
	       CASE WHEN flags_raw & 65536 THEN '|O_DIRECTORY' ELSE '' END ||
	       CASE WHEN flags_raw & 131072 THEN '|O_NOFOLLOW' ELSE '' END ||
	       CASE WHEN flags_raw & 262144 THEN '|O_NOATIME' ELSE '' END ||
	       CASE WHEN flags_raw & 524288 THEN '|O_CLOEXEC' ELSE '' END ||
	       CASE WHEN flags_raw & 1048576 THEN '|__O_SYNC' ELSE '' END ||
	       CASE WHEN flags_raw & 2097152 THEN '|O_PATH' ELSE '' END ||
	       CASE WHEN flags_raw & 4194304 THEN '|__O_TMPFILE' ELSE '' END ||
	       CASE WHEN flags_raw & ~8388607 THEN printf('|0x%x', flags_raw & ~8388607) ELSE '' END
       ELSE printf('0x%x', flags_raw) END AS flags,
       mode,
       CASE WHEN ret >= 0 THEN ret END AS fd, errno, error, dur_ns, exit_id
FROM named;
