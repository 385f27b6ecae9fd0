# kprobe: a return probe on ksys_read fetching $retval while the workload reads 12345
# bytes, and an entry probe on do_sys_openat2 fetching the user's path string while it
# opens a known path (with its kernel stack). Ground truth: the workload's read(2) result,
# the path it opened, and that it opened it with openat(2).
# lab-timeout: 90
. /lab/guest-lib.sh
capture kprobe_read ftrec kprobe -o kprobe_read.ftz 'r:kread ksys_read ret=$retval' -- \
	workload read /lab/bin/workload 12345 > read.out
grep -q '^read=' read.out || fail "workload did not finish: $(cat read.out)"
# 6.1 has $argN, and ustring for user memory (string would read kernel memory: fault);
# -s: the kernel stack of each hit, which must show the openat(2) system call.
capture kprobe_open ftrec kprobe -s -o kprobe_open.ftz 'p:kopen do_sys_openat2 path=+0($arg2):ustring' -- \
	workload open /lab/guest-lib.sh > open.out
grep -q '^open=' open.out || fail "workload did not finish: $(cat open.out)"
