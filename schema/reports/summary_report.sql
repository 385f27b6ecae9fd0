-- summary_report: the parts of `ftana report summary`, each a view within the report's
-- slice, top temp.report_args summary_top rows each. Values are rounded (ms to the us,
-- us to 0.1 us, percentages to 0.01): a summary is read, not computed on. After sched_views
-- (oncpu, runq_waits) and iolat.sql (io); reports/report_summary.c makes empty stand-ins for
-- the event tables a capture lacks and prints only the parts whose events it has.
-- in_slice, temp.slice from reports/report_slice.c.
DROP VIEW IF EXISTS temp.summary_window;
DROP VIEW IF EXISTS temp.summary_capture;
DROP VIEW IF EXISTS temp.summary_losses;
DROP VIEW IF EXISTS temp.summary_cpu;
DROP VIEW IF EXISTS temp.summary_runq;
DROP VIEW IF EXISTS temp.summary_io;
DROP VIEW IF EXISTS temp.summary_exec;
DROP VIEW IF EXISTS temp.summary_signal;

-- The time the summary covers, ns of the trace clock: [t0, t1) = the slice's time
-- window within the time events could be recorded (temp.slice span_*: tracing on, or
-- where every CPU of a ring is complete, to the stop). A database that does not say
-- (hand-made) takes the first and last switch.
CREATE TEMP VIEW summary_window AS
SELECT coalesce(span_from_ns, max(since_ns, coalesce((SELECT min(ts) FROM sched_switch), since_ns))) AS t0,
       coalesce(span_to_ns, min(until_ns, coalesce((SELECT max(ts) FROM sched_switch), until_ns))) AS t1
FROM temp.slice;

-- capture_events: every event of the capture, whatever the slice (a count within it would
-- need every type imported; each part below counts its own events within the slice)
CREATE TEMP VIEW summary_capture AS
SELECT (t1 - t0) / 1e9 AS duration_s,
       (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'nr_cpus') AS cpus,
       (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'events_total') AS capture_events,
       (SELECT value FROM meta WHERE key = 'end_state') AS end_state
FROM summary_window;

-- Losses in the window, per CPU: the sub-buffers flagged and the events they lost
-- (unknown_pages: the kernel did not say how many). Every CPU, whatever --cpu and the
-- task filters say: a loss on any CPU can hide any task's events.
CREATE TEMP VIEW summary_losses AS
SELECT cpu, count(*) AS pages, sum(count) AS events_lost,
       sum(count IS NULL) AS unknown_pages
FROM lost_events, summary_window
WHERE ts >= t0 AND ts < t1
GROUP BY cpu ORDER BY cpu;

-- CPU time per task: every on-CPU interval clipped to the window (the task running
-- when a CPU's recording began counts from the window's start, the one still running
-- at the end up to its end; intervals across lost events are left out), in the slice
-- by the clipped interval's start (its time, CPU, task). cpu_pct: of the window.
-- With no time or CPU filter the window is the capture's, and sched_tasks holds these
-- sums per task, made at import (import/derive_sched_totals.c): a thousand rows read
-- instead of a million intervals grouped.
CREATE TEMP VIEW summary_cpu AS
WITH w AS MATERIALIZED (SELECT t0, t1 FROM summary_window),
clipped AS (
	SELECT o.pid, o.comm, o.cpu, max(coalesce(o.start_ts, w.t0), w.t0) AS a,
	       min(coalesce(o.end_ts, w.t1), w.t1) AS b
	FROM w, oncpu o
	WHERE NOT slice_whole() AND o.status IN ('ok', 'head', 'open') AND o.pid != 0),
per_task AS (
	SELECT pid, comm, cpu_ns, slices FROM sched_tasks
	WHERE slice_whole() AND slices > 0 AND in_slice_task(pid)
	UNION ALL
	-- comm: the name in the task's latest interval (SQLite takes a bare column from
	-- the row of the one max()), so a process that exec'd shows its new name
	SELECT pid, comm, cpu_ns, slices FROM (
		SELECT pid, comm, max(b), sum(b - a) AS cpu_ns, count(*) AS slices
		FROM clipped WHERE b > a AND in_slice(a, cpu, pid)
		GROUP BY pid))
SELECT pid AS tid, comm, cpu_ns / 1e6 AS cpu_ms,
       100.0 * cpu_ns / nullif((SELECT t1 - t0 FROM w), 0) AS cpu_pct, slices
FROM per_task
ORDER BY cpu_ms DESC, tid
LIMIT (SELECT value FROM temp.report_args WHERE key = 'summary_top');

CREATE TEMP VIEW summary_runq AS
SELECT tid, comm, waits, wait_ns / 1e6 AS total_ms,
       1.0 * wait_ns / waits / 1e3 AS avg_us, max_wait_ns / 1e3 AS max_us
FROM (
	SELECT pid AS tid, runq_comm AS comm, waits, wait_ns, max_wait_ns FROM sched_tasks
	WHERE slice_whole() AND waits > 0 AND in_slice_task(pid)
	UNION ALL
	SELECT pid, max(comm), count(*), sum(wait_ns), max(wait_ns) FROM runq_waits
	WHERE NOT slice_whole() AND status = 'ok' AND in_slice(run_ts, cpu, pid)
	GROUP BY pid)
ORDER BY total_ms DESC, tid
LIMIT (SELECT value FROM temp.report_args WHERE key = 'summary_top');

-- Block I/O per issuing process (iolat's rule: an I/O is in the slice by its issue).
CREATE TEMP VIEW summary_io AS
SELECT coalesce(t.tgid, i.pid) AS pid, max(i.comm) AS comm, count(*) AS ios,
       sum(i.bytes) / 1e6 AS mb, avg(i.lat_ns) / 1e6 AS avg_ms,
       max(i.lat_ns) / 1e6 AS max_ms
FROM io i LEFT JOIN tasks t ON t.pid = i.pid
WHERE in_slice(i.issue_ts, i.issue_cpu, i.pid)
GROUP BY 1 ORDER BY ios DESC, mb DESC, pid
LIMIT (SELECT value FROM temp.report_args WHERE key = 'summary_top');

-- Programs executed (sched_process_exec), most often first.
CREATE TEMP VIEW summary_exec AS
SELECT filename, count(*) AS execs, count(DISTINCT field_pid) AS pids
FROM sched_process_exec WHERE in_slice(ts, cpu, pid)
GROUP BY filename ORDER BY execs DESC, filename
LIMIT (SELECT value FROM temp.report_args WHERE key = 'summary_top');

-- Signals sent (signal_generate: in the slice by the sender), per signal number.
-- delivered: result 0 (TRACE_SIGNAL_DELIVERED); the others were ignored, already
-- pending, failed or lost.
CREATE TEMP VIEW summary_signal AS
SELECT sig, coalesce((SELECT name FROM signal_label l WHERE l.sig = g.sig),
                     CASE WHEN sig >= 32 AND (SELECT generic_signals FROM snoop_arch)
                          THEN 'SIGRT' || (sig - 32) END) AS signal,
       count(*) AS sent, sum(result = 0) AS delivered,
       count(DISTINCT field_pid) AS targets, count(DISTINCT pid) AS senders
FROM signal_generate g WHERE in_slice(ts, cpu, pid)
GROUP BY sig ORDER BY sent DESC, sig
LIMIT (SELECT value FROM temp.report_args WHERE key = 'summary_top');
