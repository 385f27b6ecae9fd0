# funccount --profile: the kernel's function profiler counts the getppid function while
# the workload makes 3 bursts of K getppid() calls, 1 s apart; ftrec stores the profiler's
# per-CPU tables every 0.5 s. Ground truth for the host: 3*K calls, in bursts 1 s apart.
# The profiler counts every task, and nothing else here calls getppid while it runs
# (ftrec starts the workload directly, without a shell that would ask for its PPID).
# lab-kernel: profiler
# lab-timeout: 90
. /lab/guest-lib.sh
B=3 K=1000
echo $((B * K)) > expected_calls
[ -e $T/function_profile_enabled ] || fail "this kernel has no function profiler"
capture funccount_profile ftrec funccount --profile -i 0.5 -o funccount_profile.ftz '*sys_getppid' \
	-- workload bursts $B $K 1000 > workload.out
grep -q "^bursts=$B getppid=$((B * K))\$" workload.out || fail "workload did not finish: $(cat workload.out)"
# The profiler must be off again and its filter gone (the harness compares all of tracefs).
[ "$(cat $T/function_profile_enabled)" = 0 ] || fail "function profiler left on"
