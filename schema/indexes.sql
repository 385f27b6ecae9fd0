-- indexes.sql - run once after the bulk import (indexes are cheaper built at the end).

CREATE INDEX symbols_addr ON symbols (addr);
CREATE INDEX lost_events_cpu ON lost_events (cpu, ts);

-- Per-CPU counter changes over the recording (end - start), and what was lost:
-- kernel counters next to the losses the pages flagged.
CREATE VIEW cpu_stats_delta AS
SELECT e.cpu,
       e.entries - ifnull(s.entries, 0)               AS entries,
       e.overrun - ifnull(s.overrun, 0)               AS overrun,
       e.commit_overrun - ifnull(s.commit_overrun, 0) AS commit_overrun,
       e.dropped - ifnull(s.dropped, 0)               AS dropped,
       e.read - ifnull(s.read, 0)                     AS read,
       (SELECT count(*) FROM lost_events l WHERE l.cpu = e.cpu)   AS lost_pages,
       (SELECT sum(count) FROM lost_events l WHERE l.cpu = e.cpu) AS lost_counted
FROM cpu_stats e LEFT JOIN cpu_stats s ON s.cpu = e.cpu AND s.phase = 'start'
WHERE e.phase = 'end';
