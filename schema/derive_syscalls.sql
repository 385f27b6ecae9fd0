-- derive_syscalls.sql: the tables import/derive_syscalls.c writes, once per capture,
-- from every syscalls:sys_enter_NAME / sys_exit_NAME table (event_types) and
-- lost_events: each syscall entry with its exit (the rule is in derive_syscalls.c;
-- tests/oracle/syscount.sql is the SQL whose rows they hold). They go to the capture's
-- database at import, or to TEMP for a database made elsewhere (reports/snoop.c); the
-- word before each table's name is that schema, put in by derive_syscalls.c.
-- schema/reports/syscount.sql makes the view `syscall_calls` over them; docs/SQL.md
-- documents it. Kept narrow: a capture of mostly syscalls is mostly these rows.

-- One row per entry (its id): ts_rel its time after syscall_range.base_ts, its cpu,
-- thread (tid) and syscall (syscall_names); for an entry paired with its exit, the exit's
-- id minus the entry's (exit_gap), its return value (ret) and the time between them
-- (dur_ns); NULL in those three when unpaired. Untyped columns keep each value as the
-- events had it.
CREATE TABLE derived.syscall_pairs (
	id INTEGER PRIMARY KEY, ts_rel, cpu, tid, syscall, exit_gap, ret, dur_ns);

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
