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
"$FTANA" report funcslower funcslower.ftz -P > report.txt 2> report.err
expect "report funcslower exit" 0 $?
# Columns: cpu comm pid dur_us func (a header line first); comm may hold spaces, so
# fields count from the end. Only the workload's rows: other tasks sleep too (busybox
# timeout's watcher naps 1 s at a time and may land in the recording).
rows=$(awk -v pids=",$pids," 'NR > 1 && $NF == "'"$func"'" && index(pids, "," $(NF-2) ",")' report.txt)
expect "report: rows of $func >= 50000 us" "$m" "$(printf '%s\n' "$rows" | awk '$(NF-1) >= 50000' | grep -c .)"
expect "report: rows below 10000 us" 0 "$(printf '%s\n' "$rows" | awk '$(NF-1) < 10000' | grep -c .)"
"$FTANA" report funcslower funcslower.ftz --hist > hist.txt 2> hist.err
expect "report --hist exit" 0 $?
# Columns: low_us high_us count distribution
expect "report --hist: histogram counts every row" "$(awk 'NR > 1' report.txt | grep -c .)" \
	"$(awk 'NR > 1 { n += $3 } END { print n + 0 }' hist.txt)"
# --graph: the kernel's return lines, as perf-tools funcslower prints them with -P:
# " CPU)  COMM-PID  | MARK USECS us |  } /* FUNC */"; '*' marks calls above 10 ms.
"$FTANA" report funcslower funcslower.ftz --graph -P > graph.txt 2> graph.err
expect "report --graph exit" 0 $?
expect "report --graph: the workload's 50 ms returns" "$m" \
	"$(grep -E -- "-($(echo "$pids" | tr , '|')) +\| \* 5[0-9]{4}\.[0-9]{2} us \|  +\} /\* $func \*/$" graph.txt | grep -c .)"
check_done
