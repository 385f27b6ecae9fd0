-- iolatency_report.sql: `ftana report iolatency`, perf-tools' iolatency per disk. It
-- adds no pairing or histogram of its own: reports/report_iolatency.c runs iolat's
-- iolat_report.sql once per disk (iolat_dev = that disk, iolat_step_ns = --interval) and
-- appends that disk's iolat_intervals rows here, so the buckets, the intervals and the
-- slicing rule are iolat -i's (docs/SQL.md, iolat). Interval k is the same time span
-- for every disk (it starts at the later of --since and the capture's first event).
CREATE TEMP TABLE IF NOT EXISTS iolatency_rows (
	disk TEXT, k INTEGER, start_ts INTEGER, end_ts INTEGER, low_ms INTEGER, high_ms INTEGER,
	count INTEGER);
DELETE FROM temp.iolatency_rows;
