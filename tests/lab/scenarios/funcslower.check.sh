# Host side of funcslower: $1 is its output dir (funcslower.ftz, expected_slow, workload.out).
. "$(dirname "$0")/../check-lib.sh"
cd "$1" || exit 1
m=$(cat expected_slow)
pids=$(sed -n 's/^pid=//p' workload.out | paste -sd, -)
func=$(cat traced_function)
exits="SELECT rettime - calltime AS dur FROM funcgraph_exit WHERE pid IN ($pids)"
expect "ftana: returns >= 50 ms" "$m" "$(q funcslower.ftz "SELECT count(*) FROM ($exits) WHERE dur >= 50000000")"
expect "ftana: returns below the 10 ms threshold" 0 \
	"$(q funcslower.ftz "SELECT count(*) FROM ($exits) WHERE dur < 10000000")"
"$FTANA" report funcslower funcslower.ftz -P > report.txt 2>&1
expect "report funcslower exit" 0 $?
# Rows: CPU COMM-PID DURATION(us) FUNCTION; the histogram follows after an empty line.
# Only the workload's rows: other tasks sleep too (busybox timeout's watcher naps 1 s at a
# time and may land in the recording).
rows=$(awk -v pids=",$pids," 'NF == 0 { exit }
	$NF == "'"$func"'" { for (i = 1; i < NF; i++) if (match($i, /-[0-9]+$/) &&
		index(pids, "," substr($i, RSTART + 1) ",")) { print; next } }' report.txt)
expect "report: rows of $func >= 50000 us" "$m" "$(printf '%s\n' "$rows" | awk '$(NF-1) >= 50000' | grep -c .)"
expect "report: rows below 10000 us" 0 "$(printf '%s\n' "$rows" | awk '$(NF-1) < 10000' | grep -c .)"
expect "report: histogram counts every row" "$(awk 'NF == 0 { exit } NR > 1 && NF >= 4' report.txt | grep -c .)" \
	"$(awk '/->/ { n += $4 } END { print n + 0 }' report.txt)"
check_done
