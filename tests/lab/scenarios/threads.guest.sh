# threads: `ftrec -p PID` on a running multi-threaded process with the function tracer
# (set_ftrace_pid, which this host's tests cannot reach) and with a tracepoint
# (set_event_pid): every thread of the process is recorded and no other task; the
# reports' -p (the process) and -L (one thread) split the capture again. Ground truth:
# the workload's 3 threads make 1*K, 2*K, 3*K getppid() calls in each of 3 bursts, and
# print their tids; WORKLOAD_START_MS gives ftrec time to attach before the first burst.
# lab-timeout: 120
. /lab/guest-lib.sh
K=300
echo $K > expected_k
grep -E '^[_a-z0-9]*sys_getppid$' $T/available_filter_functions > traced_functions
[ -s traced_functions ] || fail "no getppid function in available_filter_functions"
attach() { # NAME FTREC-ARGS...: start the workload, wait for its threads, record it with -p
	name=$1
	shift
	WORKLOAD_START_MS=8000 workload threads 3 $K 100 > "$name.wl" &
	wl=$!
	i=0
	until grep -q '^threads_ready=' "$name.wl"; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "workload threads did not start"
		sleep 1
	done
	capture "$name" ftrec "$@" -p "$wl" -d 12 -o "$name.ftz"
	wait "$wl" || fail "workload failed"
	grep -q '^burst=3 ' "$name.wl" || fail "workload did not finish: $(cat "$name.wl")"
}
attach threads_func funccount '*sys_getppid'
attach threads_tp tpoint syscalls:sys_enter_getppid
