# Host side of tpoint: $1 is its output dir (tpoint.ftz, expected_*, nullb_dev, stat_*,
# kallsyms.gz).
. "$(dirname "$0")/../check-lib.sh"
cd "$1" || exit 1
reads=$(cat expected_reads) writes=$(cat expected_writes)
# The kernel's counters: field 1 = reads completed, field 5 = writes completed.
read -r r0 _ _ _ w0 _ < stat_before; read -r r1 _ _ _ w1 _ < stat_after
expect "kernel: reads on nullb0" "$reads" $((r1 - r0))
expect "kernel: writes on nullb0" "$writes" $((w1 - w0))
IFS=: read -r maj min < nullb_dev
dev=$(((maj << 20) | min))
expect "ftana: issue rows on nullb0" "$reads" "$(q tpoint.ftz "SELECT count(*) FROM block_rq_issue WHERE dev = $dev")"
expect "ftana: rows not matching the filter" 0 "$(q tpoint.ftz "SELECT count(*) FROM block_rq_issue WHERE rwbs NOT LIKE '%R%'")"
expect "ftana: rows without a stack" 0 "$(q tpoint.ftz "SELECT count(*) FROM block_rq_issue WHERE stack_id IS NULL")"
expect_ge "ftana: stack frames" $((reads * 3)) "$(q tpoint.ftz "SELECT count(*) FROM block_rq_issue e JOIN stacks s USING (stack_id)")"
# Every frame ftana resolved must name the function /proc/kallsyms puts at that address:
# merge the frames into the sorted symbol list (fixed-width hex sorts like numbers) and take,
# for each frame, the symbols at the highest address at or below it (aliases share one).
q tpoint.ftz "SELECT DISTINCT printf('%016x', s.addr), s.symbol FROM block_rq_issue e JOIN stacks s USING (stack_id)" |
	awk -F, '{ print $1 " 1 " $2 }' > frames.txt
gzip -dc kallsyms.gz | awk '{ print $1 " 0 " $3 }' | cat - frames.txt | LC_ALL=C sort -k1,1 -k2,2n |
	awk '$2 == 0 { syms = ($1 == at ? syms "," : "") $3; at = $1; next }
	     { s = $3; sub(/\+.*/, "", s); n = split(syms, a, ","); want = a[n]
	       for (i = 1; i <= n; i++) if (a[i] == s) want = s
	       print $1, s, want }' > resolved.txt	# address, ftana's name, kallsyms' name
expect_ge "distinct frames checked against kallsyms" 3 "$(wc -l < resolved.txt)"
expect_rows "frame names (left kallsyms, right ftana)" "$(awk '{ print $1, $3 }' resolved.txt)" \
	"$(awk '{ print $1, $2 }' resolved.txt)"
# A direct read reaches the block layer through the block device's read path.
expect_ge "frames in blkdev_read_iter" 1 "$(awk '$2 == "blkdev_read_iter"' resolved.txt | wc -l)"
# The canned reports agree: one printed event per read, and the folded stacks count them all.
expect "report tpoint: block_rq_issue lines" "$reads" "$("$FTANA" report tpoint tpoint.ftz | grep -c ' block_rq_issue: ')"
expect "report stacks --folded: events" "$reads" "$("$FTANA" report stacks tpoint.ftz --folded | awk '{ n += $NF } END { print n + 0 }')"
check_done
