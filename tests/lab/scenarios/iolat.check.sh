# Host side of iolat: $1 is its output dir (iolat.ftz, expected_reads, nullb_dev, stat_*).
. "$(dirname "$0")/../check-lib.sh"
cd "$1" || exit 1
n=$(cat expected_reads)
# The kernel's counters: field 1 = reads completed, field 3 = sectors read.
read -r r0 _ s0 _ < stat_before; read -r r1 _ s1 _ < stat_after
expect "kernel: reads completed on nullb0" "$n" $((r1 - r0))
expect "kernel: bytes read from nullb0" $((n * 65536)) $(((s1 - s0) * 512))
# In trace records dev is the kernel's internal dev_t: major << 20 | minor.
IFS=: read -r maj min < nullb_dev
dev=$(((maj << 20) | min))
# Pair each issue with the next completion of the same (dev, sector).
pairs="SELECT i.bytes AS bytes, i.rwbs AS rwbs, c.ts - i.ts AS lat
	FROM block_rq_issue i JOIN block_rq_complete c ON c.id = (SELECT min(c2.id)
		FROM block_rq_complete c2 WHERE c2.dev = i.dev AND c2.sector = i.sector AND c2.id > i.id)
	WHERE i.dev = $dev"
expect "ftana: issue rows on nullb0" "$n" "$(q iolat.ftz "SELECT count(*) FROM block_rq_issue WHERE dev = $dev")"
expect "ftana: issue/complete pairs" "$n" "$(q iolat.ftz "SELECT count(*) FROM ($pairs)")"
expect "ftana: pairs of 65536 bytes" "$n" "$(q iolat.ftz "SELECT count(*) FROM ($pairs) WHERE bytes = 65536")"
expect "ftana: pairs that are reads" "$n" "$(q iolat.ftz "SELECT count(*) FROM ($pairs) WHERE rwbs LIKE 'R%'")"
expect_ge "ftana: smallest latency (ns)" 2000000 "$(q iolat.ftz "SELECT min(lat) FROM ($pairs)")"
# The canned report must say the same: one row per I/O
# (start_s,end_s,comm,pid,type,disk,sector,bytes,que_ms,lat_ms; disk is a quoted
# "MAJ,MIN", so the fields after it are counted from the end), each >= 2 ms.
"$FTANA" report iolat iolat.ftz -D "$maj,$min" --csv | sed 1d > report.csv
expect "report iolat: rows" "$n" "$(wc -l < report.csv)"
expect "report iolat: rows by dd, reads, 65536 bytes" "$n" \
	"$(awk -F, '$3 == "dd" && $5 ~ /^R/ && $(NF-2) == 65536' report.csv | wc -l)"
expect "report iolat: rows under 2.0 ms" 0 "$(awk -F, '$NF < 2.0' report.csv | wc -l)"
# Summary columns: disk,type,count,iops,mb_s,min_ms,avg_ms,p50_ms,p90_ms,p99_ms,max_ms;
# the total row's disk is "all" (its type empty).
"$FTANA" report iolat iolat.ftz -D "$maj,$min" --summary --csv | grep '^all,' > summary.csv
expect "report iolat --summary: count" "$n" "$(awk -F, '{ print $(NF-8) }' summary.csv)"
expect "report iolat --summary: min >= 2.0 ms" yes "$(awk -F, '{ print (($(NF-5) >= 2.0) ? "yes" : "no") }' summary.csv)"
check_done
