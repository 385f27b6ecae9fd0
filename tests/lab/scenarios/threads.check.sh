# Host side of threads: $1 is its output dir (threads_func.ftz/.wl, threads_tp.ftz/.wl).
. "$(dirname "$0")/../check-lib.sh"
cd "$1" || exit 1
k=$(cat expected_k)
for name in threads_func threads_tp; do
	table=function
	[ $name = threads_tp ] && table=sys_enter_getppid
	pid=$(sed -n 's/^pid=//p' $name.wl)
	tids=$(sed -n 's/^tid=\([0-9]*\) .*/\1/p' $name.wl | paste -sd, -)
	expect "$name: events of the process's 3 threads" $((6 * k * 3)) \
		"$(q $name.ftz "SELECT count(*) FROM $table WHERE pid IN ($tids)")"
	expect "$name: events of other tasks" 0 "$(q $name.ftz "SELECT count(*) FROM $table WHERE pid NOT IN ($tids)")"
	i=0
	for tid in $(sed -n 's/^tid=\([0-9]*\) .*/\1/p' $name.wl); do
		i=$((i + 1))
		expect "$name: thread $i's events" $((i * k * 3)) \
			"$(q $name.ftz "SELECT count(*) FROM $table WHERE pid = $tid")"
	done
	# the capture's tasks know the threads' process (saved_tgids, or ftrec's /proc/tgids when the
	# kernel saved none, as for the function tracer in an instance), so the reports' -p works
	expect "$name: threads whose tgid is the process" 3 \
		"$(q $name.ftz "SELECT count(*) FROM tasks WHERE pid IN ($tids) AND tgid = $pid")"
done
# funccount's report: -p (every thread) and -L (one thread) against the workload's counts
first=$(sed -n 's/^tid=\([0-9]*\) .*/\1/p' threads_func.wl | head -n 1)
pid=$(sed -n 's/^pid=//p' threads_func.wl)
"$FTANA" report funccount threads_func.ftz -p "$pid" --csv > fc_p.csv 2>&1
expect "report funccount -p exit" 0 $?
"$FTANA" report funccount threads_func.ftz -L "$first" --csv > fc_l.csv 2>&1
count_col() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "count") c = i; next } /sys_getppid/ { n += $c } END { print n + 0 }' "$1"; }
expect "report funccount -p: the process's calls" $((6 * k * 3)) "$(count_col fc_p.csv)"
expect "report funccount -L: the first thread's calls" $((k * 3)) "$(count_col fc_l.csv)"
check_done
