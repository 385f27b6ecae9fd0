-- info.sql - what `ftana info` prints, as TEMP views (nothing is written):
-- info_summary(ord, key, value), info_event_counts(type, system, count),
-- info_losses(cpu, lost_pages, lost_counted, overrun, dropped).

CREATE TEMP VIEW IF NOT EXISTS info_summary AS
WITH m(key, value) AS (SELECT key, value FROM meta)
SELECT 1 AS ord, 'file' AS key, (SELECT value FROM m WHERE key = 'source') AS value
UNION ALL SELECT 2, 'host', (SELECT value FROM m WHERE key = 'hostname')
UNION ALL SELECT 3, 'kernel', (SELECT group_concat(value, ' ') FROM
	(SELECT value FROM m WHERE key IN ('uname_sysname', 'uname_release', 'uname_machine')
	 ORDER BY CASE key WHEN 'uname_sysname' THEN 1 WHEN 'uname_release' THEN 2 ELSE 3 END))
UNION ALL SELECT 4, 'clock', (SELECT value FROM m WHERE key = 'clock')
-- started: when tracing was switched on (the first instant events could be recorded) in
-- UTC, to the us: its trace-clock time (END's traced_from_trace_ns, or in older files
-- the first event, ftrec's marker right after tracing on; a capture cut before its END:
-- the first event, so said) plus the wall-clock offset, both whole numbers and their sum
-- one too (else no time: what reports say of such a capture); else when ftrec started,
-- before its set-up
UNION ALL SELECT 5, 'started', coalesce(
	(SELECT datetime(w / 1000000000, 'unixepoch') || printf('.%06d UTC (%s)', w % 1000000000 / 1000,
		CASE WHEN EXISTS (SELECT 1 FROM m WHERE key IN ('traced_from_trace_ns', 'end_trace_ns'))
		     THEN 'tracing on'
		     ELSE 'first event: the capture has no END' END)
	 FROM (SELECT CAST(f.value AS INTEGER) + CAST(o.value AS INTEGER) AS w
	       FROM m f, m o WHERE f.key = 'traced_from_ns' AND o.key = 'wall_offset_ns'
	       AND CAST(f.value AS INTEGER) || '' = f.value AND CAST(o.value AS INTEGER) || '' = o.value)
	 WHERE typeof(w) = 'integer' AND w >= 0),
	(SELECT datetime(value / 1000000000, 'unixepoch') || ' UTC (ftrec started, before its set-up)'
	 FROM m WHERE key = 'start_wall_ns'))
UNION ALL SELECT 6, 'duration', (SELECT printf('%.6f s (first to last event)', value / 1e9)
	FROM m WHERE key = 'duration_ns')
UNION ALL SELECT 6, 'recorded', (SELECT printf('%.6f s (tracing on %.6f to stop %.6f, trace clock s)',
	(e.value - f.value) / 1e9, f.value / 1e9, e.value / 1e9)
	FROM m f, m e WHERE f.key = 'traced_from_ns' AND e.key = 'traced_until_ns')
UNION ALL SELECT 6, 'complete', (SELECT printf('every CPU from %.6f s: before it a ring kept some CPUs'' events only (%.6f s; reports start there unless --ragged)',
	c.value / 1e9, (c.value - f.value) / 1e9)
	FROM m c, m f WHERE c.key = 'complete_from_ns' AND f.key = 'first_ts' AND c.value + 0 > f.value + 0)
UNION ALL SELECT 7, 'cpus', (SELECT value FROM m WHERE key = 'nr_cpus')
UNION ALL SELECT 8, 'command', (SELECT value FROM m WHERE key = 'cmdline')
UNION ALL SELECT 9, 'end', (SELECT value FROM m WHERE key = 'end_state') ||
	ifnull(' (' || (SELECT value FROM m WHERE key = 'stop_reason') || ')', '') ||
	ifnull(' at offset ' || (SELECT value FROM m WHERE key = 'damage_offset') || ': ' ||
	       (SELECT value FROM m WHERE key = 'damage_reason'), '')
UNION ALL SELECT 10, 'events', (SELECT value FROM m WHERE key = 'events_total')
UNION ALL SELECT 11, 'stacks', (SELECT value FROM m WHERE key = 'stacks_attached') ||
	' attached, ' || (SELECT count(DISTINCT stack_id) FROM stacks) || ' distinct'
-- A trace.dat has no page figures of ours (source_format names it): only its size.
UNION ALL SELECT 12, 'size', (SELECT CASE WHEN r.value > 0
	THEN printf('%d bytes of pages, %d stored (%.1fx), file %d bytes',
	            r.value, s.value, 1.0 * r.value / max(s.value, 1), f.value)
	ELSE printf('file %d bytes', f.value) END
	FROM m r, m s, m f WHERE r.key = 'page_bytes_raw' AND s.key = 'page_bytes_stored'
	AND f.key = 'source_size')
UNION ALL SELECT 13, 'format', (SELECT value FROM m WHERE key = 'source_format')
-- funccount --profile: the counts are profiler rounds, not events.
UNION ALL SELECT 14, 'profile', (SELECT printf('function profiler: %d rounds over %.3f s; functions hit: %d',
	count(*), (max(mono_ns) - min(mono_ns)) / 1e9,
	(SELECT count(DISTINCT func) FROM function_profile)) FROM profile_rounds HAVING count(*) > 0)
UNION ALL SELECT 15, 'ftrec tids', (SELECT value FROM m WHERE key = 'ftrec_tids')
-- --stop-if: the condition, and the task, latency and time that met it (capture_stop).
UNION ALL SELECT 16, 'stop-if', (SELECT c.value || ': ' || ifnull((SELECT CASE s.kind
	WHEN 'runq' THEN printf('tid %d%s waited %.3f ms for a CPU after its wakeup', s.tid, ifnull(' (' || s.comm || ')', ''), s.lat_ns / 1e6)
	WHEN 'syscall' THEN printf('tid %d%s was %.3f ms in %s', s.tid, ifnull(' (' || s.comm || ')', ''), s.lat_ns / 1e6,
	                           trim(substr(s.condition, 8, instr(s.condition, '>') - 8)))
	ELSE printf('a block request%s took %.3f ms from issue to completion',
	            ifnull(printf(' issued by tid %d', s.tid) || ifnull(' (' || s.comm || ')', ''), ''), s.lat_ns / 1e6) END ||
	printf(', until ts %d (%.6f s after the first event): the recording stopped there', s.ts,
	       (s.ts - (SELECT value FROM m WHERE key = 'first_ts')) / 1e9)
	FROM capture_stop s), 'never held in the capture') FROM m c WHERE c.key = 'stop_if')
-- --trigger: the spec, and the time of its event's last occurrence before ftrec saw it had fired.
UNION ALL SELECT 16, 'trigger', (SELECT t.value || ifnull((SELECT printf(', last fired at ts %d (%.6f s after the first event)', max(e.ts), (max(e.ts) - (SELECT value FROM m WHERE key = 'first_ts')) / 1e9) FROM events e WHERE e.type = (SELECT table_name FROM event_types WHERE system || ':' || name = (SELECT value FROM m WHERE key = 'trigger_event')) AND e.ts <= ifnull((SELECT value FROM m WHERE key = 'trigger_seen_trace_ns'), e.ts) HAVING count(*) > 0), ', its event is not in the capture') FROM m t WHERE t.key = 'trigger'
	AND NOT EXISTS (SELECT 1 FROM m WHERE key = 'stop_if'))
-- --kernel-ring: the loss the kernel flags at each CPU's first event is the ring
-- overwriting older events by design (not a gap): said here, left out of report warnings.
UNION ALL SELECT 17, 'ring', (SELECT printf('%d older events overwritten by the kernel ring before each CPU''s first event (by design: not gaps)', sum(l.count))
	FROM lost_events l WHERE (SELECT value FROM m WHERE key = 'kernel_ring') = '1'
	AND l.ts <= (SELECT first_ts FROM cpu_spans e WHERE e.cpu = l.cpu) HAVING count(*) > 0);

CREATE TEMP VIEW IF NOT EXISTS info_event_counts AS
SELECT table_name AS type, system, count FROM event_types
WHERE count > 0 ORDER BY count DESC, table_name;

-- Kernel counters and page flags side by side; a CPU appears when either knows it.
CREATE TEMP VIEW IF NOT EXISTS info_losses AS
WITH cpus(cpu) AS (SELECT cpu FROM cpu_stats UNION SELECT cpu FROM lost_events)
SELECT c.cpu,
       (SELECT count(*) FROM lost_events l WHERE l.cpu = c.cpu)   AS lost_pages,
       (SELECT sum(count) FROM lost_events l WHERE l.cpu = c.cpu) AS lost_counted,
       d.overrun, d.dropped
FROM cpus c LEFT JOIN cpu_stats_delta d ON d.cpu = c.cpu ORDER BY c.cpu;
