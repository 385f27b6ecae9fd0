-- info_segments.sql - `ftana info` on a disk ring (ftrec --ring) or a joined
-- --rotate series, as TEMP views (nothing is written):
-- info_set(ord, key, value): what the ring trimmed (by design: not lost), the
--   segments present and the gaps between them (events missing: a real loss);
-- info_set_files(file, events, first_ts, last_ts, lost_pages, lost_events): each
--   file of the set with the losses its pages flag (decode's segment_stats_N);
--   info_set_members: the same with n, the file's place in the set.

CREATE TEMP VIEW IF NOT EXISTS info_set AS
WITH m(key, value) AS (SELECT key, value FROM meta),
     v(k) AS (SELECT 1)
SELECT 1 AS ord, 'ring' AS key, (SELECT printf('%s segments, %s pages, %s events (%.2f MiB) '
	|| 'trimmed by the ring before its oldest kept segment (by design: not lost)',
	ifnull((SELECT value FROM m WHERE key = 'ring_trimmed_segments'), '?'),
	ifnull((SELECT value FROM m WHERE key = 'ring_trimmed_pages'), '?'),
	ifnull((SELECT value FROM m WHERE key = 'ring_trimmed_events'), '?'),
	ifnull((SELECT value FROM m WHERE key = 'ring_trimmed_bytes'), 0) / 1048576.0)
	WHERE EXISTS (SELECT 1 FROM m WHERE key = 'ring_prefix')) AS value
UNION ALL SELECT 2, 'segments', (SELECT printf('%s files, numbers %s to %s', s.value,
	ifnull((SELECT value FROM m WHERE key = 'segment_first'), '-'),
	ifnull((SELECT value FROM m WHERE key = 'segment_last'), '-'))
	FROM m s WHERE s.key = 'segments')
UNION ALL SELECT 3, 'gaps', (SELECT 'MISSING ' || value || ': their events are not in the '
	|| 'capture (a loss, not a trim)' FROM m WHERE key = 'segment_gaps' AND value <> '');

CREATE TEMP VIEW IF NOT EXISTS info_set_members AS
WITH s(n, v) AS (SELECT CAST(substr(key, 15) AS INTEGER), value || ' '
	FROM meta WHERE key GLOB 'segment_stats_[0-9]*'),
f(n, file, rest) AS (SELECT n, substr(v, 1, instr(v, ' ') - 1), substr(v, instr(v, ' ') + 1) FROM s),
w(n, file, name, val, rest) AS (
	SELECT n, file, NULL, NULL, rest FROM f
	UNION ALL
	SELECT n, file, substr(rest, 1, instr(rest, ' ') - 1),
	       substr(substr(rest, instr(rest, ' ') + 1), 1, instr(substr(rest, instr(rest, ' ') + 1), ' ') - 1),
	       substr(substr(rest, instr(rest, ' ') + 1), instr(substr(rest, instr(rest, ' ') + 1), ' ') + 1)
	FROM w WHERE rest <> '' AND instr(rest, ' ') > 0)
SELECT n, file,
       max(CASE name WHEN 'events' THEN CAST(val AS INTEGER) END) AS events,
       max(CASE name WHEN 'first_ts' THEN CAST(val AS INTEGER) END) AS first_ts,
       max(CASE name WHEN 'last_ts' THEN CAST(val AS INTEGER) END) AS last_ts,
       max(CASE name WHEN 'lost_pages' THEN CAST(val AS INTEGER) END) AS lost_pages,
       max(CASE name WHEN 'lost_events' THEN CAST(val AS INTEGER) END) AS lost_events
FROM w WHERE name IS NOT NULL GROUP BY n, file ORDER BY n;

CREATE TEMP VIEW IF NOT EXISTS info_set_files AS
SELECT file, events, first_ts, last_ts, lost_pages, lost_events FROM info_set_members ORDER BY n;

-- Which file of the set each row of lost_events came from, for the reports' loss
-- warning over a time range (report_util.c): a loss is flagged on an event of its
-- file, so its ts is within that file's first_ts..last_ts; where two files overlap
-- in time (their CPUs' pages cross the switch) the earlier file is named.
CREATE TEMP VIEW IF NOT EXISTS set_lost_file AS
SELECT l.rowid AS lost_id, l.cpu, l.ts, l.count,
       (SELECT m.file FROM info_set_members m WHERE m.events > 0 AND l.ts BETWEEN m.first_ts AND m.last_ts
        ORDER BY m.n LIMIT 1) AS file,
       (SELECT m.n FROM info_set_members m WHERE m.events > 0 AND l.ts BETWEEN m.first_ts AND m.last_ts
        ORDER BY m.n LIMIT 1) AS n
FROM lost_events l;
