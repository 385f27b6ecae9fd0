-- derive_sched.sql: the tables import/derive_sched.c writes, once per capture, from
-- sched_switch, the wakeups (sched_waking when the capture has it, else sched_wakeup),
-- sched_wakeup_new and lost_events, in one pass in id order. They go to the capture's
-- database at import, or to TEMP for a database made elsewhere (reports/sched_common.c);
-- the word before each table's name is that schema, put in by derive_sched.c. The rules
-- are in derive_sched.c, and tests/oracle/sched.sql is the SQL whose rows these tables
-- hold (the waker columns are checked by tests/test_derive_sched.c itself); docs/SQL.md
-- documents the columns. Untyped columns keep each value as the events had it.

-- oncpu, runq_waits and offcpu (docs/SQL.md documents their columns) are views made by
-- import/derive_sched_store.c over the tables below: a row the events give back exactly
-- is a link to them (an _link table: ids, the rest read from sched_switch, the wakeups
-- and tasks), any other row is whole (a _rows table, the view's columns).

-- One row per on-CPU interval: from a switch-in to the next switch on that CPU.
CREATE TABLE derived.oncpu_rows (
	cpu, pid, comm, start_id, start_ts, end_id, end_ts, dur_ns, end_state, end_state_text,
	end_stack_id, status);
-- ... an 'ok' one: switch start_id to switch start_id + end_gap.
CREATE TABLE derived.oncpu_link (start_id INTEGER PRIMARY KEY, end_gap);

-- One row per switch-in of a task (pid != 0): the run-queue wait before it.
CREATE TABLE derived.runq_rows (
	run_id, run_ts, cpu, pid, comm, queued_ts, queued_by, status, wait_ns, waker_pid,
	waker_comm);
-- ... an 'ok' one: queued by event run_id - q_gap, of kind 1 (a switch-out still
-- runnable), 2 (the wakeup table read) or 3 (sched_wakeup_new).
CREATE TABLE derived.runq_link (run_id INTEGER PRIMARY KEY, q_gap, kind);

-- One row per time a task (pid != 0) was off CPU: switch-out to its next switch-in.
CREATE TABLE derived.offcpu_rows (
	on_id, on_ts, cpu, pid, comm, off_ts, out_cpu, state, state_text, stack_id, status,
	off_ns, runq_ns, waker_pid, waker_comm);
-- ... an 'ok' one: switched out at event on_id - off_gap, queued as runq_link says.
CREATE TABLE derived.offcpu_link (on_id INTEGER PRIMARY KEY, off_gap, q_gap, kind);

-- The text of each prev_state a link shows (R, S, D, R+, S|D ...).
CREATE TABLE derived.sched_state_texts (state INTEGER PRIMARY KEY, text);

-- Per task (pid != 0), what `report summary` shows with no slice, over the capture's
-- window (meta complete_from_ns..traced_until_ns): on-CPU time clipped to it (cpu_ns over slices of
-- positive length; comm: the name in the slice ending last) and run-queue waits of
-- status 'ok' (runq_comm: the greatest name, as max(comm)). import/derive_sched_totals.c.
CREATE TABLE derived.sched_tasks (
	pid, comm, cpu_ns, slices, runq_comm, waits, wait_ns, max_wait_ns);

-- Rows per task and status of tbl 'oncpu' (pid != 0), 'runq_waits', 'offcpu'.
CREATE TABLE derived.sched_statuses (tbl, pid, status, count);
