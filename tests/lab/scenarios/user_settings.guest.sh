# user_settings: a production host's own tracing settings survive every function preset.
# Before each preset the guest plants a user's settings at the top level, all different
# from the defaults and from what ftrec wants: the function tracer with a 4-line
# set_ftrace_filter (2 functions, one module function, a function probe), 2 graph
# functions, a notrace list (a glob), a graph notrace, a pid filter, tracing_thresh,
# max_graph_depth, flipped options, a buffer size, a tracing_cpumask of CPU 0 only, a kprobe of its own, a trigger and a
# filter on events ftrec triage records, and an old error_log entry. Then each preset runs once to its end and once killed with -9 and
# cleaned up by `ftrec reset`; after each, tracefs-state.sh must print exactly what it
# printed before (the ground truth is the kernel's own listing of its files).
# The recordings themselves must not be shaped by the user's settings: the host checks
# them (funccount with 2 patterns, one a glob; funcslower sees the whole sleep although
# the user switched sleep-time off; funcgraph -m 2 records 2 levels although the user's
# max_graph_depth is 5 and set_ftrace_pid names init only; both on CPU 1, outside the
# user's tracing_cpumask).
# Kernel reasons: a refused kprobe quotes the kernel's reason from the top-level
# error_log; a refused set_ftrace_filter entry (no error_log entry) quotes nothing, not
# the user's old entry.
# lab-timeout: 900
. /lab/guest-lib.sh
# rec NAME COMMAND...: a recording that must write NAME.ftz (not `capture`: these are checks,
# not samples to publish).
rec() { n=$1; shift; run "$@"; [ -s "$n.ftz" ] || fail "$n.ftz was not written"; }

modfunc=$(grep -m 1 ' \[null_blk\]$' $T/available_filter_functions | cut -d' ' -f1)
[ -n "$modfunc" ] || fail "no traceable null_blk function"
echo "$modfunc" > module_function

plant() {
	sh /lab/tracefs-state.sh --reset
	cd $T || exit 1
	echo 1 > set_ftrace_pid
	echo vfs_write > set_ftrace_filter
	echo ksys_write >> set_ftrace_filter
	echo "$modfunc" >> set_ftrace_filter
	echo 'ksys_sync:traceoff:3' >> set_ftrace_filter
	echo vfs_read > set_graph_function
	echo vfs_write >> set_graph_function
	echo 'vfs_fsync*' > set_ftrace_notrace
	echo schedule_timeout >> set_ftrace_notrace
	echo msleep > set_graph_notrace
	echo 123 > tracing_thresh
	echo 5 > max_graph_depth
	echo 0 > options/sleep-time
	echo 1 > options/funcgraph-proc
	echo 1000 > buffer_size_kb
	echo 'p:userprobes/uread vfs_read' >> kprobe_events
	echo 'p:userbad/x no_such_function_h7' >> kprobe_events 2>/dev/null # an old error_log entry
	# the events triage and its --trigger use: the user's own trigger and filter on them
	echo 'stacktrace:2 if sig == 31' > events/signal/signal_generate/trigger # SIGSYS: never sent here
	echo 'flags == 0' > events/syscalls/sys_enter_openat/filter
	echo function > current_tracer
	echo 1 > tracing_cpumask # CPU 0 only: the function presets' workloads run on CPU 1
	cd "$OUT" || exit 1
	sh /lab/tracefs-state.sh > planted.txt
	[ "$(grep -c . $T/set_ftrace_filter)" = 4 ] || fail "planting: set_ftrace_filter has $(grep -c . $T/set_ftrace_filter) lines"
}

# kill9 LABEL FTREC-ARGS...: starts a recording, kills it with -9 once it records, resets.
kill9() {
	label=$1
	shift
	ftrec "$@" > "$label.out" 2> "$label.err" &
	pid=$!
	i=0
	while ! grep -q '^ftrec: recording' "$label.err" && [ $i -lt 600 ]; do
		kill -0 $pid 2>/dev/null || { cat "$label.err"; fail "$label: ftrec ended before recording"; }
		sleep 0.1
		i=$((i + 1))
	done
	grep -q '^ftrec: recording' "$label.err" || fail "$label: not recording after 60 s"
	kill -9 $pid
	wait $pid 2>/dev/null
	run ftrec reset
}

plant
rec funccount ftrec funccount -o funccount.ftz vfs_read '*sys_getppid' -- \
	sh -c 'workload getppid 100 && workload read /lab/bin/workload 100' > funccount.wl
same_as_planted funccount "the user's settings"
kill9 funccount-k9 funccount -o funccount-k9.ftz vfs_read '*sys_getppid'
same_as_planted funccount-k9 "the user's settings"
rec funcslower ftrec funcslower -b 2000 -o funcslower.ftz do_nanosleep 10000 -- taskset 2 workload sleep 3 20 > funcslower.wl
same_as_planted funcslower "the user's settings"
kill9 funcslower-k9 funcslower -b 2000 -o funcslower-k9.ftz do_nanosleep 10000
same_as_planted funcslower-k9 "the user's settings"
rec funcgraph ftrec funcgraph -m 2 -o funcgraph.ftz ksys_read -- taskset 2 workload read /lab/bin/workload 12345 > funcgraph.wl
same_as_planted funcgraph "the user's settings"
kill9 funcgraph-k9 funcgraph -m 2 -o funcgraph-k9.ftz ksys_read
same_as_planted funcgraph-k9 "the user's settings"
rec kprobe ftrec kprobe -o kprobe.ftz 'r:kread ksys_read ret=$retval' -- workload read /lab/bin/workload 12345 > kprobe.wl
same_as_planted kprobe "the user's settings"
kill9 kprobe-k9 kprobe -o kprobe-k9.ftz 'r:kread ksys_read ret=$retval'
same_as_planted kprobe-k9 "the user's settings"
# triage --syscalls (its optional kprobe beside the user's) as a flight recorder: the
# kernel ring, stopped by a --trigger on the event the user has a trigger of their own on
rec triage ftrec triage --syscalls --kernel-ring -b 512 \
	--trigger 'signal:signal_generate if sig == 10' -o triage.ftz -- \
	sh -c 'workload getppid 100; sleep 5 & kill -USR1 $!; sleep 2' > triage.wl
same_as_planted triage "the user's settings"
kill9 triage-k9 triage --syscalls -o triage-k9.ftz
same_as_planted triage-k9 "the user's settings"
# Refusals: exit 1, one line; the kernel's reason only when our write produced it.
ftrec kprobe -o bad.ftz 'p:nosym no_such_function_h7b' 2> kprobe-refused.err
echo $? > kprobe-refused.rc
same_as_planted kprobe-refused "the user's settings"
ftrec funccount -o bad.ftz vfs_read no_such_function_h7c 2> funccount-refused.err
echo $? > funccount-refused.rc
same_as_planted funccount-refused "the user's settings"
cp $T/error_log error_log.txt

sh /lab/tracefs-state.sh --reset
