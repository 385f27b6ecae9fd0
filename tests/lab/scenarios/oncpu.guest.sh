# oncpu: -C of funcslower and funcgraph means on-CPU time only, as in perf-tools (the
# function_graph option sleep-time off). The workload sleeps M times for 20 ms in
# nanosleep(2); the traced function is the one 6.1 sleeps in. Without -C each call
# lasts >= 20 ms (a nanosleep never returns early); with -C it is the few microseconds
# the task ran. Ground truth: the workload's sleeps and pids. funcgraph -m 1 also pins
# the depth semantics: FUNC itself is level 1, so nothing below it is recorded.
# The workload stays on CPU 0 (taskset): the kernel takes the sleep off with the per-CPU
# trace_clock_local, and the emulated CPUs' clocks can differ by milliseconds (unpinned,
# one call once kept 17 ms of its 20 ms sleep; pinned, none has).
# lab-timeout: 240
. /lab/guest-lib.sh
# rec NAME COMMAND...: a recording that must write NAME.ftz (not `capture`: these are checks,
# not samples to publish).
rec() { n=$1; shift; run "$@"; [ -s "$n.ftz" ] || fail "$n.ftz was not written"; }
M=3
echo $M > expected_sleeps
for f in do_nanosleep hrtimer_nanosleep; do
	grep -qx $f $T/available_filter_functions && { echo $f > traced_function; break; }
done
[ -s traced_function ] || fail "neither do_nanosleep nor hrtimer_nanosleep is traceable"
f=$(cat traced_function)
rec slept ftrec funcslower -o slept.ftz "$f" 1000 -- taskset 1 workload sleep $M 20 > slept.wl
rec oncpu ftrec funcslower -C -o oncpu.ftz "$f" 1 -- taskset 1 workload sleep $M 20 > oncpu.wl
rec graph_oncpu ftrec funcgraph -C -m 1 -o graph_oncpu.ftz "$f" -- taskset 1 workload sleep $M 20 > graph_oncpu.wl
rec graph_slept ftrec funcgraph -m 1 -o graph_slept.ftz "$f" -- taskset 1 workload sleep $M 20 > graph_slept.wl
ftrec funcgraph -h > funcgraph.help
