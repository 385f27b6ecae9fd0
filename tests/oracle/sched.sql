-- tests/oracle/sched.sql: THE REFERENCE the C derivation of the scheduler's tables is checked
-- against (import/derive_sched.c, by tests/test_derive_sched.c): the SQL that made the views
-- oncpu, runq_waits and offcpu before they were derived in C (issue 23), unchanged. The C
-- gives the same rows, column for column; what it adds (the wakeups from sched_waking when a
-- capture has it, the waker columns) the test checks on its own. Not built into ftana.
-- Below, the file's own header as it was.
--
-- sched.sql: the scheduler's events made into intervals, ONCE, for `ftana report runqlat`,
-- `offcpu`, `cpudist` and `summary`, and for your own queries (`ftana sql FILE 'select *
-- from oncpu'`; docs/SQL.md). TEMP views only; running this file twice is harmless.
--
-- Inputs: sched_switch, sched_wakeup, sched_wakeup_new, lost_events. sched_views()
-- (reports/sched_common.c) creates empty stand-ins for the wakeup tables a capture lacks.
--
-- prev_state at a switch-out, as the kernel's print format shows it (kernel 4.14 on):
-- bits 1 S (sleeping), 2 D (uninterruptible, mostly I/O), 4 T (stopped), 8 t (traced),
-- 16 X (dead), 32 Z (zombie), 64 P (parked), 128 I (idle kernel thread); none of those
-- bits: the task is still runnable, "R", and "R+" when the kernel also set the preempt
-- bit (preempted; any bit above the low 8: TASK_REPORT_MAX on 4.14+, TASK_STATE_MAX
-- before). A runnable task stays on the run queue: its time off CPU is run-queue wait.
--
-- Edges (nothing is ever measured from an event the capture does not hold):
--  * per CPU, the task running before the CPU's first recorded switch started before
--    the capture: its interval is status 'head' (start unknown), its switch-out known;
--  * the task running after the CPU's last switch runs past the capture: 'open';
--  * a task's first event in the capture being a switch-in (it was queued or slept
--    since before the capture): no run-queue wait and no off-CPU time for it;
--  * lost events: the kernel flags a loss on the first sub-buffer read after it
--    (lost_events.ts on that CPU). An on-CPU interval whose CPU lost events between
--    its two switches is 'lost_events' (the switches between are gone). A run-queue
--    wait or off-CPU interval (which may cross CPUs) is 'lost_events' when any CPU's
--    loss window overlaps it: the window runs from the last scheduler event recorded on
--    that CPU before the loss to lost_events.ts (the lost events lie inside it).
DROP VIEW IF EXISTS temp.sched_state_names;
DROP VIEW IF EXISTS temp.sched_losses;
DROP VIEW IF EXISTS temp.switch_state_text;
DROP VIEW IF EXISTS temp.oncpu;
DROP VIEW IF EXISTS temp.sched_task_events;
DROP VIEW IF EXISTS temp.sched_task_switch_ins;
DROP VIEW IF EXISTS temp.runq_waits;
DROP VIEW IF EXISTS temp.offcpu;

-- Loss windows (lo, hi): hi = lost_events.ts, lo = the last scheduler event on that CPU
-- before it (-1: none since the capture started).
CREATE TEMP VIEW sched_losses AS
SELECT cpu, coalesce(lo, -1) AS lo, ts AS hi FROM (
	SELECT cpu, ts, is_loss,
	       max(CASE WHEN is_loss THEN NULL ELSE ts END)
		OVER (PARTITION BY cpu ORDER BY ts, is_loss DESC ROWS UNBOUNDED PRECEDING) AS lo
	FROM (SELECT cpu, ts, 0 AS is_loss FROM sched_switch
	      UNION ALL SELECT cpu, ts, 0 FROM sched_wakeup
	      UNION ALL SELECT cpu, ts, 0 FROM sched_wakeup_new
	      UNION ALL SELECT cpu, ts, 1 FROM lost_events WHERE ts IS NOT NULL))
WHERE is_loss;

-- One row per on-CPU interval: task `pid` (a thread id; 0 = the CPU's idle task) ran on
-- `cpu` from its switch-in (start_*) to the next switch on that CPU (end_*).
--   status   'ok'; 'head' (began before the capture: start_* NULL); 'open' (still
--            running at the capture's end: end_* NULL); 'lost_events'; 'mismatch' (the
--            next switch on the CPU switched out another task: events are missing, as
--            in a recording limited to some tasks); dur_ns is set for 'ok' only
--   end_state, end_state_text  prev_state at the switch-out (see above)
--   end_stack_id  the switch-out's kernel stack (stacks.stack_id; recorded with -s)
-- Each switch's prev_state as text: R, R+, or the sleep letters joined with '|'.
CREATE TEMP VIEW switch_state_text AS
SELECT id, CASE WHEN prev_state & 255 = 0 THEN CASE WHEN prev_state = 0 THEN 'R' ELSE 'R+' END
            ELSE rtrim(CASE WHEN prev_state & 1 THEN 'S|' ELSE '' END ||
                       CASE WHEN prev_state & 2 THEN 'D|' ELSE '' END ||
                       CASE WHEN prev_state & 4 THEN 'T|' ELSE '' END ||
                       CASE WHEN prev_state & 8 THEN 't|' ELSE '' END ||
                       CASE WHEN prev_state & 16 THEN 'X|' ELSE '' END ||
                       CASE WHEN prev_state & 32 THEN 'Z|' ELSE '' END ||
                       CASE WHEN prev_state & 64 THEN 'P|' ELSE '' END ||
                       CASE WHEN prev_state & 128 THEN 'I|' ELSE '' END, '|') END AS text
FROM sched_switch;

CREATE TEMP VIEW oncpu AS
WITH seq AS (
	SELECT id, ts, cpu, prev_pid, prev_comm, prev_state, next_pid, next_comm, stack_id,
	       row_number() OVER c AS n, losses,
	       lead(id) OVER c AS end_id, lead(ts) OVER c AS end_ts,
	       lead(prev_pid) OVER c AS end_pid, lead(prev_comm) OVER c AS end_comm,
	       lead(prev_state) OVER c AS end_state,
	       lead(stack_id) OVER c AS end_stack_id, lead(losses) OVER c AS end_losses
	FROM (SELECT *, sum(is_loss) OVER (PARTITION BY cpu ORDER BY ts, is_loss DESC, id
	                                   ROWS UNBOUNDED PRECEDING) AS losses
	      FROM (SELECT id, ts, cpu, prev_pid, prev_comm, prev_state, next_pid, next_comm,
	                   stack_id, 0 AS is_loss FROM sched_switch
	            UNION ALL
	            SELECT NULL, ts, cpu, NULL, NULL, NULL, NULL, NULL, NULL, 1
	            FROM lost_events WHERE ts IS NOT NULL))
	WHERE NOT is_loss
	WINDOW c AS (PARTITION BY cpu ORDER BY id)),
intervals AS (
	SELECT cpu, prev_pid AS pid, prev_comm AS comm, NULL AS start_id, NULL AS start_ts,
	       id AS end_id, ts AS end_ts, prev_state AS end_state, stack_id AS end_stack_id,
	       'head' AS status
	FROM seq WHERE n = 1
	UNION ALL
	-- the name at the switch-out when the same task ended the slice (an exec during
	-- the slice renamed it), else the name it was switched in with
	SELECT cpu, next_pid, CASE WHEN end_pid IS next_pid AND end_comm IS NOT NULL
	                           THEN end_comm ELSE next_comm END,
	       id, ts, end_id, end_ts, end_state, end_stack_id,
	       CASE WHEN end_id IS NULL THEN 'open'
	            WHEN end_losses > losses THEN 'lost_events'
	            WHEN end_pid IS NOT next_pid THEN 'mismatch'
	            ELSE 'ok' END
	FROM seq)
SELECT cpu, pid, CASE WHEN pid = 0 THEN '<idle>' ELSE comm END AS comm,
       start_id, start_ts, end_id, end_ts,
       CASE WHEN status = 'ok' THEN end_ts - start_ts END AS dur_ns,
       CASE WHEN status IN ('ok', 'head') THEN end_state END AS end_state,
       CASE WHEN status IN ('ok', 'head') THEN (SELECT text FROM switch_state_text t
                                                WHERE t.id = end_id) END AS end_state_text,
       CASE WHEN status IN ('ok', 'head') THEN end_stack_id END AS end_stack_id,
       status
FROM intervals;

-- Per task (pid != 0: the idle tasks are per CPU), in event order: its switch-ins and
-- switch-outs as the on-CPU intervals above give them (an interval's end is the task's
-- own switch-out when its status is ok or head; when it is mismatch or lost_events the
-- switch still shows its prev task leaving the CPU then: that task ran, whatever the
-- capture lost of its switch-in), and its wakeups.
-- seg numbers the stretches between switches; hi_upto/lo_before count loss windows
-- ending at or before / beginning before the event (a stretch (a, b) overlaps a window
-- when lo_before(b) - hi_upto(a) > 0).
CREATE TEMP VIEW sched_task_events AS
WITH intervals AS MATERIALIZED (SELECT * FROM oncpu WHERE pid != 0),
losses AS MATERIALIZED (SELECT * FROM sched_losses),
ev AS (
	SELECT start_id AS id, 1 AS sub, start_ts AS ts, cpu, pid, comm, 'in' AS kind,
	       NULL AS state, NULL AS state_text, NULL AS stack_id
	FROM intervals WHERE start_id IS NOT NULL
	UNION ALL
	SELECT end_id, 0, end_ts, cpu, pid, comm, 'out', end_state, end_state_text, end_stack_id
	FROM intervals WHERE status IN ('ok', 'head')
	UNION ALL
	SELECT s.id, 0, s.ts, s.cpu, s.prev_pid, s.prev_comm, 'out', s.prev_state, t.text, s.stack_id
	FROM oncpu o JOIN sched_switch s ON s.id = o.end_id JOIN switch_state_text t ON t.id = s.id
	WHERE o.status IN ('mismatch', 'lost_events') AND s.prev_pid != 0
	UNION ALL
	SELECT id, 0, ts, cpu, field_pid, comm, 'wakeup', NULL, NULL, NULL
	FROM sched_wakeup WHERE field_pid != 0
	UNION ALL
	SELECT id, 0, ts, cpu, field_pid, comm, 'wakeup_new', NULL, NULL, NULL
	FROM sched_wakeup_new WHERE field_pid != 0),
marks AS (
	SELECT id, sub, ts, cpu, pid, comm, kind, state, state_text, stack_id,
	       1 AS ord, 0 AS is_hi, 0 AS is_lo FROM ev
	UNION ALL SELECT NULL, NULL, hi, cpu, NULL, NULL, NULL, NULL, NULL, NULL, 0, 1, 0
	FROM losses
	UNION ALL SELECT NULL, NULL, lo, cpu, NULL, NULL, NULL, NULL, NULL, NULL, 2, 0, 1
	FROM losses),
counted AS (
	SELECT *, sum(is_hi) OVER run AS hi_upto, sum(is_lo) OVER run AS lo_before
	FROM marks WINDOW run AS (ORDER BY ts, ord, id, sub ROWS UNBOUNDED PRECEDING))
SELECT id, sub, ts, cpu, pid, comm, kind, state, state_text, stack_id, hi_upto, lo_before,
       sum(kind IN ('in', 'out')) OVER (PARTITION BY pid ORDER BY id, sub
                                        ROWS UNBOUNDED PRECEDING) AS seg
FROM counted WHERE ord = 1;

-- Every switch-in with what the task's stretch before it held: the switch that began the
-- stretch (head_*: an 'out', or an 'in' when a switch-out is missing, or no switch at
-- all in the task's first stretch) and the stretch's first enqueue (queued_*): a
-- wakeup, or the switch-out itself when the task stayed runnable (bcc runqlat's rule:
-- it times sched_wakeup, sched_wakeup_new and a switch-out in TASK_RUNNING). The FIRST
-- enqueue counts: a second wakeup of a task already queued does not queue it again.
CREATE TEMP VIEW sched_task_switch_ins AS
WITH stretch AS (
	SELECT *,
	       first_value(kind) OVER s AS head_kind, first_value(ts) OVER s AS head_ts,
	       first_value(cpu) OVER s AS head_cpu, first_value(state) OVER s AS head_state,
	       first_value(state_text) OVER s AS head_state_text,
	       first_value(stack_id) OVER s AS head_stack_id,
	       first_value(hi_upto) OVER s AS head_hi_upto,
	       -- the first enqueue's time and kind: the least of "ts (20 digits) kind"
	       min(CASE WHEN kind IN ('wakeup', 'wakeup_new') OR (kind = 'out' AND state & 255 = 0)
	                THEN printf('%020d', ts) || kind END) OVER s AS queued_key,
	       min(CASE WHEN kind IN ('wakeup', 'wakeup_new') OR (kind = 'out' AND state & 255 = 0)
	                THEN hi_upto END) OVER s AS queued_hi_upto
	FROM sched_task_events
	WINDOW s AS (PARTITION BY pid, seg ORDER BY id, sub
	             ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)),
before AS (
	SELECT id, ts, cpu, pid, comm, kind, lo_before,
	       lag(seg) OVER t AS p_seg, lag(head_kind) OVER t AS p_head_kind,
	       lag(head_ts) OVER t AS p_head_ts, lag(head_cpu) OVER t AS p_head_cpu,
	       lag(head_state) OVER t AS p_head_state,
	       lag(head_state_text) OVER t AS p_head_state_text,
	       lag(head_stack_id) OVER t AS p_head_stack_id,
	       lag(head_hi_upto) OVER t AS p_head_hi_upto,
	       CAST(substr(lag(queued_key) OVER t, 1, 20) AS INTEGER) AS p_queued_ts,
	       CASE substr(lag(queued_key) OVER t, 21) WHEN 'out' THEN 'preempted'
	            ELSE substr(lag(queued_key) OVER t, 21) END AS p_queued_by,
	       lag(queued_hi_upto) OVER t AS p_queued_hi_upto
	FROM stretch WINDOW t AS (PARTITION BY pid ORDER BY id, sub))
SELECT * FROM before WHERE kind = 'in';

-- One row per switch-in of a task (pid != 0): the run-queue wait before it, from the
-- task's first enqueue since its last switch (queued_ts) to the switch-in (run_ts).
--   queued_by  'wakeup', 'wakeup_new' (a new task's first run) or 'preempted' (switched
--              out runnable: R or R+)
--   status     'ok'; 'no_start' (the task's first event in the capture); 'no_wakeup'
--              (it slept and its wakeup is not in the capture: not recorded, or lost);
--              'no_switch_out' (two switch-ins without the switch-out between: lost);
--              'lost_events' (a loss window overlaps the wait); wait_ns only for 'ok'
CREATE TEMP VIEW runq_waits AS
SELECT id AS run_id, ts AS run_ts, cpu, pid, comm, p_queued_ts AS queued_ts,
       p_queued_by AS queued_by,
       CASE WHEN p_seg IS NULL THEN 'no_start'
            WHEN p_head_kind = 'in' AND p_seg > 0 THEN 'no_switch_out'
            WHEN p_queued_ts IS NULL THEN 'no_wakeup'
            WHEN lo_before - p_queued_hi_upto > 0 THEN 'lost_events'
            ELSE 'ok' END AS status,
       CASE WHEN p_seg IS NOT NULL AND NOT (p_head_kind = 'in' AND p_seg > 0)
                 AND p_queued_ts IS NOT NULL AND lo_before - p_queued_hi_upto <= 0
            THEN ts - p_queued_ts END AS wait_ns
FROM sched_task_switch_ins;

-- One row per time a task (pid != 0) was off CPU: from its switch-out (off_ts, out_cpu,
-- state, stack_id: the switch-out's) to its next switch-in (on_ts, cpu). bcc
-- offcputime's interval. runq_ns: the part spent waiting on a run queue (from the first
-- enqueue; NULL when unknown). A task still off CPU when the capture ended, or off CPU
-- since before it began, has no row.
--   status  'ok' or 'lost_events' (a loss window overlaps; off_ns NULL)
CREATE TEMP VIEW offcpu AS
SELECT id AS on_id, ts AS on_ts, cpu, pid, comm, p_head_ts AS off_ts, p_head_cpu AS out_cpu,
       p_head_state AS state, p_head_state_text AS state_text, p_head_stack_id AS stack_id,
       CASE WHEN lo_before - p_head_hi_upto > 0 THEN 'lost_events' ELSE 'ok' END AS status,
       CASE WHEN lo_before - p_head_hi_upto <= 0 THEN ts - p_head_ts END AS off_ns,
       CASE WHEN lo_before - p_head_hi_upto <= 0 AND p_queued_ts IS NOT NULL
            THEN ts - p_queued_ts END AS runq_ns
FROM sched_task_switch_ins
WHERE p_seg > 0 AND p_head_kind = 'out';
