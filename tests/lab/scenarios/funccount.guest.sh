# funccount: the function tracer counts one kernel function while the workload calls it
# a known number of times. Ground truth for the host: the workload's K getppid() calls
# (one raw syscall each) and its pid. On 6.1 the traceable function is __do_sys_getppid
# (__x64_sys_getppid is an alias at the same address, not in available_filter_functions):
# the glob picks whichever this kernel offers.
# lab-timeout: 90
. /lab/guest-lib.sh
K=1000
echo $K > expected_calls
grep -E '^[_a-z0-9]*sys_getppid$' $T/available_filter_functions > traced_functions
[ -s traced_functions ] || fail "no getppid function in available_filter_functions"
capture funccount ftrec funccount -o funccount.ftz '*sys_getppid' -- workload getppid $K > workload.out
grep -q "^getppid=$K\$" workload.out || fail "workload did not finish: $(cat workload.out)"
