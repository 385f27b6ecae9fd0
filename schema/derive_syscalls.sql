-- derive_syscalls.sql: the table import/derive_syscalls.c writes, once per capture,
-- from every syscalls:sys_enter_NAME / sys_exit_NAME table (event_types) and
-- lost_events: each syscall entry with its exit (the rule is in syscall_pairing.c;
-- tests/oracle/syscount.sql is the SQL whose rows they hold). They go to the capture's
-- database at import, or to TEMP for a database made elsewhere (reports/snoop.c); the
-- word before each table's name is that schema, put in by derive_syscalls.c.
-- schema/reports/syscount.sql makes the view `syscall_calls` over them; docs/SQL.md
-- documents it. Kept narrow: a capture of mostly syscalls is mostly these rows.

-- One row per entry (its id): ts_rel its time after syscall_range.base_ts, its cpu,
-- thread (tid) and syscall (syscall_names, in derive_syscall_totals.sql); for an entry
-- paired with its exit, the exit's id minus the entry's (exit_gap), its return value
-- (ret) and the time between them (dur_ns); NULL in those three when unpaired. Untyped
-- columns keep each value as the events had it.
CREATE TABLE derived.syscall_pairs (
	id INTEGER PRIMARY KEY, ts_rel, cpu, tid, syscall, exit_gap, ret, dur_ns);

-- When the import stores a capture's syscalls as their pairs (import/import_syscalls.c,
-- meta.syscall_store = 'pairs'), each sys_enter_NAME / sys_exit_NAME is a view over the
-- rows above and these three (empty otherwise): an entry's arguments (a0.. its fields
-- after __syscall_nr, in format order), the CPU of a paired exit that was not its entry's
-- (the thread moved during the call; id: the entry's), and every exit that is not a paired
-- one's (no entry, a loss, another syscall's entry before it), as its row was.
CREATE TABLE derived.syscall_args (id INTEGER PRIMARY KEY, a0, a1, a2, a3, a4, a5);
CREATE TABLE derived.syscall_exit_cpus (id INTEGER PRIMARY KEY, cpu);
CREATE TABLE derived.syscall_lone_exits (
	id INTEGER PRIMARY KEY, type, ts, cpu, pid, nr, ret);
