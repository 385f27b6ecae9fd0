-- derive_syscall_totals.sql: the syscall names, per-thread totals and time range, made
-- with syscall_pairs by import/derive_syscalls.c (then from its rows), or alone by
-- import/import_stream.c when only the totals are asked (`report syscount` with no time
-- or CPU filter: from the decoded events, no syscall row imported). The rule is one
-- (import/syscall_pairing.c), so both write the same rows. The word before each
-- table's name is the schema, put in by the code that runs this file.

-- The syscall names, NAME of the capture's own sys_enter_NAME / sys_exit_NAME events.
CREATE TABLE derived.syscall_names (syscall INTEGER PRIMARY KEY, name);

-- Per syscall and thread: the sums of its syscall_pairs rows, made with them
-- (import/derive_syscall_totals.c): calls, errors (ret -4095..-1), paired (with their
-- exit), dur_ns and error_dur_ns (the sums of the paired and of the failed calls'
-- durations; NULL over none). What `report syscount` reads when no time or CPU filter
-- is asked.
CREATE TABLE derived.syscall_totals (syscall, tid, calls, errors, paired, dur_ns, error_dur_ns);

-- One row: the first and last time of any syscall event (NULL without any), the time
-- syscall_pairs.ts_rel counts from, and totals: 1 when syscall_totals stands for every
-- row (0: a hand-made database's values, or too many threads; then it is empty).
CREATE TABLE derived.syscall_range (first_ts, last_ts, base_ts, totals);
