# funcslower: only calls slower than the threshold reach the buffer. The workload sleeps
# M times for 50 ms and N times for 1 ms; with a 10 ms threshold exactly the M long
# sleeps must be recorded. Ground truth: the workload's counts and durations (a
# nanosleep never returns early) and pids.
# lab-timeout: 90
. /lab/guest-lib.sh
M=5 N=20
echo $M > expected_slow
# do_nanosleep is what 6.1 calls below nanosleep(2); hrtimer_nanosleep is its caller.
for f in do_nanosleep hrtimer_nanosleep; do
	grep -qx $f $T/available_filter_functions && { echo $f > traced_function; break; }
done
[ -s traced_function ] || fail "neither do_nanosleep nor hrtimer_nanosleep is traceable"
capture funcslower ftrec funcslower -o funcslower.ftz "$(cat traced_function)" 10000 -- \
	sh -c "workload sleep $M 50 && workload sleep $N 1" > workload.out
[ "$(grep -c '^sleep=' workload.out)" = 2 ] || fail "workload did not finish: $(cat workload.out)"
