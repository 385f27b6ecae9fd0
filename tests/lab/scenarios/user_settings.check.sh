# Host side of user_settings: $1 is its output dir. The guest compared the user's
# settings itself (after-*.txt against planted.txt); here the recordings made under
# those settings are checked against the workloads and the refusals' messages.
. "$(dirname "$0")/../check-lib.sh"
cd "$1" || exit 1
for s in funccount funccount-k9 funcslower funcslower-k9 funcgraph funcgraph-k9 kprobe kprobe-k9 \
	triage triage-k9 kprobe-refused funccount-refused; do
	expect "settings back after $s" same "$(cmp -s planted.txt "after-$s.txt" && echo same || echo differ)"
done
expect "planted: tracing_cpumask CPU 0 only" 1 "$(grep -c '^tracing_cpumask=1$' planted.txt)"
expect "planted: set_ftrace_filter with 2 functions, a module's, a probe" 1 \
	"$(grep -c "^set_ftrace_filter=vfs_write ksys_write $(cat module_function) \[null_blk\] ksys_sync:traceoff:count=3\$" planted.txt)"

# Two workloads: K getppid calls, then one read(2) (one vfs_read).
pid=$(sed -n 's/^pid=//p' funccount.wl | sed -n 1p)
"$FTANA" report funccount funccount.ftz -p "$pid" > funccount.txt 2>&1
expect "funccount, 2 patterns: getppid calls of the workload" 100 "$(awk '/sys_getppid/ { print $2 }' funccount.txt)"
pid=$(sed -n 's/^pid=//p' funccount.wl | sed -n 2p)
"$FTANA" report funccount funccount.ftz -p "$pid" > funccount-read.txt 2>&1
expect "funccount, 2 patterns: vfs_read calls of the reading workload" 1 "$(awk '$1 == "vfs_read" { print $2 }' funccount-read.txt)"
"$FTANA" report funccount funccount.ftz > funccount-all.txt 2>&1
expect "funccount: only functions of the 2 patterns" 0 \
	"$(awk '$2 ~ /^[0-9]+$/ && $1 != "vfs_read" && $1 !~ /sys_getppid$/' funccount-all.txt | wc -l)"

pid=$(sed -n 's/^pid=//p' funcslower.wl)
expect "funcslower (user's sleep-time=0 and cpumask of CPU 0 overridden): returns >= 20 ms" 3 \
	"$(q funcslower.ftz "SELECT count(*) FROM funcgraph_exit WHERE pid = $pid AND rettime - calltime >= 20000000")"

pid=$(sed -n 's/^pid=//p' funcgraph.wl)
expect "funcgraph -m 2 (user's depth 5, pid filter, graph functions, cpumask overridden): ksys_read at depth 0" 1 \
	"$(q funcgraph.ftz "SELECT count(*) FROM funcgraph_exit WHERE pid = $pid AND depth = 0
		AND func IN (SELECT addr FROM symbols WHERE name = 'ksys_read')")"
expect "funcgraph -m 2: deepest level recorded" 1 \
	"$(q funcgraph.ftz "SELECT max(depth) FROM funcgraph_entry WHERE pid = $pid")"
expect_ge "funcgraph -m 2: callees of ksys_read" 1 \
	"$(q funcgraph.ftz "SELECT count(*) FROM funcgraph_entry WHERE pid = $pid AND depth = 1")"

pid=$(sed -n 's/^pid=//p' kprobe.wl)
expect "kprobe: the workload's read returned 12345" 1 \
	"$(q kprobe.ftz "SELECT count(*) FROM kread WHERE pid = $pid AND ret = 12345")"

pid=$(sed -n 's/^pid=//p' triage.wl)
expect "triage (user's trigger on signal_generate, filter on sys_enter_openat): the workload's getppid calls" \
	100 "$(q triage.ftz "SELECT count(*) FROM sys_enter_getppid WHERE pid = $pid")"
expect "triage --kernel-ring: stopped by its --trigger" 1 "$(q triage.ftz "SELECT count(*) FROM meta
	WHERE key = 'stop_reason' AND value = 'trigger'")"
expect "triage: the trigger's SIGUSR1 is the last signal_generate" 10 \
	"$(q triage.ftz "SELECT sig FROM signal_generate ORDER BY ts DESC LIMIT 1")"

expect "kprobe refused: exit" 1 "$(cat kprobe-refused.rc)"
expect "kprobe refused: one line" 1 "$(grep -c . kprobe-refused.err)"
expect "kprobe refused: the kernel's reason from the top-level error_log" 1 \
	"$(grep -c '^ftrec kprobe: cannot write .* -- kernel says: trace_kprobe: error: Invalid probed address or symbol Command: p:ftrec_[0-9]*/nosym no_such_function_h7b' kprobe-refused.err)"
expect "funccount refused: exit" 1 "$(cat funccount-refused.rc)"
expect "funccount refused: names the entry and file" 1 \
	"$(grep -c "^ftrec funccount: cannot write 'no_such_function_h7c' to .*/set_ftrace_filter: Invalid argument\$" funccount-refused.err)"
expect "funccount refused: no old error_log entry quoted" 0 "$(grep -c 'kernel says' funccount-refused.err)"
check_done
