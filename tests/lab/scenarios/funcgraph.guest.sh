# funcgraph: function_graph below ksys_read while the workload does one read(2) of a file.
# Ground truth for the host: the kernel's own calltime/rettime of every call (a callee
# runs inside its caller), the workload's pid, and that 6.1's ksys_read calls vfs_read.
# lab-timeout: 120
. /lab/guest-lib.sh
grep -qx ksys_read $T/available_filter_functions || fail "ksys_read is not traceable"
capture funcgraph ftrec funcgraph -o funcgraph.ftz ksys_read -- workload read /lab/bin/workload 12345 > workload.out
grep -q '^read=' workload.out || fail "workload did not finish: $(cat workload.out)"
