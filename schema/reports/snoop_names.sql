-- snoop_names.sql: the names killsnoop, opensnoop and syscount print for numbers the
-- kernel records: signals, errno values, open() flags. Each is the kernel's uapi value,
-- and each holds only for the architectures named below (meta.uname_machine of the
-- capture); on any other, the numbers are printed as they are (no name is better than a
-- wrong one). TEMP objects; running this file twice is harmless.
DROP TABLE IF EXISTS temp.signal_names;
DROP TABLE IF EXISTS temp.errno_names;
DROP VIEW IF EXISTS temp.snoop_arch;

-- generic_signals: 1 when the capture's architecture numbers signals as
-- include/uapi/asm-generic/signal.h (x86, arm, arm64, riscv, powerpc, s390, loongarch;
-- not alpha, mips, parisc, sparc). generic_open_flags: 1 when its O_* values are
-- asm-generic/fcntl.h's (x86, riscv, s390, loongarch; arm, arm64, powerpc, ... move
-- O_DIRECTORY, O_NOFOLLOW, O_DIRECT, O_LARGEFILE).
CREATE TEMP VIEW snoop_arch AS
WITH m AS (SELECT coalesce((SELECT value FROM meta WHERE key = 'uname_machine'), '') AS machine)
SELECT machine,
       (machine IN ('x86_64', 'i386', 'i486', 'i586', 'i686', 'aarch64', 'aarch64_be', 's390x',
                    'riscv64', 'riscv32', 'ppc64', 'ppc64le', 'ppc', 'loongarch64')
        OR machine GLOB 'arm*') AS generic_signals,
       machine IN ('x86_64', 'i386', 'i486', 'i586', 'i686', 's390x', 'riscv64', 'riscv32',
                   'loongarch64') AS generic_open_flags
FROM m;

CREATE TEMP TABLE signal_names (sig INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO signal_names VALUES
 (1, 'SIGHUP'), (2, 'SIGINT'), (3, 'SIGQUIT'), (4, 'SIGILL'), (5, 'SIGTRAP'), (6, 'SIGABRT'),
 (7, 'SIGBUS'), (8, 'SIGFPE'), (9, 'SIGKILL'), (10, 'SIGUSR1'), (11, 'SIGSEGV'),
 (12, 'SIGUSR2'), (13, 'SIGPIPE'), (14, 'SIGALRM'), (15, 'SIGTERM'), (16, 'SIGSTKFLT'),
 (17, 'SIGCHLD'), (18, 'SIGCONT'), (19, 'SIGSTOP'), (20, 'SIGTSTP'), (21, 'SIGTTIN'),
 (22, 'SIGTTOU'), (23, 'SIGURG'), (24, 'SIGXCPU'), (25, 'SIGXFSZ'), (26, 'SIGVTALRM'),
 (27, 'SIGPROF'), (28, 'SIGWINCH'), (29, 'SIGIO'), (30, 'SIGPWR'), (31, 'SIGSYS');

-- asm-generic/errno-base.h: 1..34 are the same on every Linux architecture.
CREATE TEMP TABLE errno_names (errno INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO errno_names VALUES
 (1, 'EPERM'), (2, 'ENOENT'), (3, 'ESRCH'), (4, 'EINTR'), (5, 'EIO'), (6, 'ENXIO'),
 (7, 'E2BIG'), (8, 'ENOEXEC'), (9, 'EBADF'), (10, 'ECHILD'), (11, 'EAGAIN'), (12, 'ENOMEM'),
 (13, 'EACCES'), (14, 'EFAULT'), (15, 'ENOTBLK'), (16, 'EBUSY'), (17, 'EEXIST'), (18, 'EXDEV'),
 (19, 'ENODEV'), (20, 'ENOTDIR'), (21, 'EISDIR'), (22, 'EINVAL'), (23, 'ENFILE'),
 (24, 'EMFILE'), (25, 'ENOTTY'), (26, 'ETXTBSY'), (27, 'EFBIG'), (28, 'ENOSPC'),
 (29, 'ESPIPE'), (30, 'EROFS'), (31, 'EMLINK'), (32, 'EPIPE'), (33, 'EDOM'), (34, 'ERANGE');

-- signal_label: the name of each signal number as the capture's architecture numbers
-- them (SIGRTn above 31), or nothing where the numbering is not the generic one.
DROP VIEW IF EXISTS temp.signal_label;
CREATE TEMP VIEW signal_label AS
SELECT sig, name FROM signal_names WHERE (SELECT generic_signals FROM snoop_arch);
