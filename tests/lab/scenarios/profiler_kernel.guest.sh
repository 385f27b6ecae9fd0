# profiler_kernel: the lab's self-built kernel offers the function profiler that
# `ftrec funccount --profile` uses (tracefs function_profile_enabled, trace_stat/function<CPU>),
# and it honours set_ftrace_filter; its built-in null_blk is set up as the lab expects. Ground truth: the workload's K getppid() calls, one raw
# system call each. Also kept for the host: whether enabling the profiler again starts the
# counts from zero (stat-reenabled/), which ftrec relies on.
# No `run sh -c` between enable and disable: busybox sh calls getppid() as it starts ($PPID),
# which the profiler would count.
# lab-kernel: profiler
# lab-timeout: 60
. /lab/guest-lib.sh
K=1000
echo $K > expected_calls
[ -e $T/function_profile_enabled ] || fail "no $T/function_profile_enabled (CONFIG_FUNCTION_PROFILER off)"
grep -E '^[_a-z0-9]*sys_getppid$' $T/available_filter_functions > traced_functions
[ -s traced_functions ] || fail "no getppid function in available_filter_functions"

# null_blk is built in here, set up from the kernel command line as the cloud kernel's module.
cat /sys/module/null_blk/parameters/completion_nsec > nullb_completion_nsec
[ -b "$LAB_NULLB" ] && echo yes > nullb_present

save_stats() { # dir: every CPU's trace_stat/function<CPU>
	mkdir -p "$1"
	for f in $T/trace_stat/function*; do cat "$f" > "$1/${f##*/}" || fail "cannot read $f"; done
}
echo '*sys_getppid' > $T/set_ftrace_filter || fail "cannot set set_ftrace_filter"
cat $T/set_ftrace_filter > filter_set
echo 1 > $T/function_profile_enabled || fail "cannot enable the profiler"
workload getppid $K > workload.out
rc=$?
echo 0 > $T/function_profile_enabled || fail "cannot disable the profiler"
[ $rc = 0 ] || fail "workload exit $rc"
save_stats stat
# Enabling again: do the counts start from zero? (Nothing calls getppid() in between.)
echo 1 > $T/function_profile_enabled || fail "cannot enable the profiler again"
save_stats stat-reenabled
echo 0 > $T/function_profile_enabled
echo > $T/set_ftrace_filter
grep -q "^getppid=$K\$" workload.out || fail "workload did not finish: $(cat workload.out)"
