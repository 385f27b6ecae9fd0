# Host side of funccount: $1 is its output dir (funccount.ftz, expected_calls, workload.out).
. "$(dirname "$0")/../check-lib.sh"
cd "$1" || exit 1
k=$(cat expected_calls)
pid=$(sed -n 's/^pid=//p' workload.out)
expect "ftana: function events of the workload" "$k" \
	"$(q funccount.ftz "SELECT count(*) FROM function WHERE pid = $pid")"
"$FTANA" report funccount funccount.ftz -p "$pid" > report.txt 2>&1
expect "report funccount -p exit" 0 $?
# One row: the getppid function with exactly K calls (the name is one of its aliases).
expect "report: rows for the workload" 1 "$(grep -c 'sys_getppid' report.txt)"
expect "report: calls of *sys_getppid" "$k" "$(awk '/sys_getppid/ { print $2 }' report.txt)"
"$FTANA" report funccount funccount.ftz -i 0.5 > intervals.txt 2>&1
expect "report funccount -i exit" 0 $?
expect "report -i: intervals add up to the total" \
	"$(awk '/sys_getppid/ { print $2 }' report.txt)" \
	"$(awk '/^interval/ { on = 1 } /^total/ { on = 0 } on && /sys_getppid/ { n += $2 } END { print n }' intervals.txt)"
check_done
