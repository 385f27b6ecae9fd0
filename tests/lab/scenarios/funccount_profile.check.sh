# Host side of funccount_profile: $1 is its output dir (funccount_profile.ftz, expected_calls).
. "$(dirname "$0")/../check-lib.sh"
cd "$1" || exit 1
n=$(cat expected_calls)
f=funccount_profile.ftz
expect "ftana: the recording says the profiler counted" 1 \
	"$(q $f "SELECT value FROM meta WHERE key = 'function_profile'")"
expect "ftana: no function events (nothing went through the ring buffer)" 0 \
	"$(q $f "SELECT count(*) FROM event_types WHERE name = 'function' AND count > 0")"
# A round every 0.5 s over at least 2 s of bursts, plus the first and the last one.
expect_ge "ftana: profiler rounds" 5 "$(q $f "SELECT count(*) FROM profile_rounds")"
expect "ftana: the profiler's last totals, summed over CPUs" "$n" \
	"$(q $f "SELECT sum(hits) FROM function_profile WHERE round = (SELECT max(round) FROM profile_rounds) AND func LIKE '%sys_getppid'")"
expect "ftana: only functions of the filter" 0 \
	"$(q $f "SELECT count(*) FROM function_profile WHERE func NOT LIKE '%sys_getppid'")"
"$FTANA" report funccount $f > report.txt 2>&1
expect "report funccount exit" 0 $?
expect "report: rows" 1 "$(grep -c 'sys_getppid' report.txt)"
expect "report: calls of *sys_getppid" "$n" "$(awk '/sys_getppid/ { print $2 }' report.txt)"
"$FTANA" report funccount $f -i 0.5 > intervals.txt 2>&1
expect "report funccount -i exit" 0 $?
expect "report -i: intervals add up to the total" "$n" \
	"$(awk '/^interval/ { on = 1 } /^total/ { on = 0 } on && /sys_getppid/ { s += $2 } END { print s }' intervals.txt)"
# Bursts 1 s apart cannot share a 0.5 s interval.
expect_ge "report -i: intervals with calls (one per burst at least)" 3 \
	"$(awk '/^interval/ { iv = $2 } /^total/ { exit } /sys_getppid/ && $2 > 0 { seen[iv] = 1 } END { print length(seen) }' intervals.txt)"
check_done
