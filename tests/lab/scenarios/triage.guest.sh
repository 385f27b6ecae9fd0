# triage: the newcomer samples (issue 22: no committed sample had scheduler, signal or
# syscall events, so summary, execsnoop, opensnoop, killsnoop, syscount, runqlat,
# offcpu and cpudist could not be tried). One workload of known shape, recorded twice:
#   triage.ftz         ftrec triage --syscalls (every syscall, the open-path probe)
#   triage_stacks.ftz  ftrec triage -s (kernel stacks: offcpu's and stacks' pictures)
# The workload (sh -c, its $0 the capture's name, prefixing its files): a process
# making 4 bursts of 500 getppid(2) 30 ms apart, one sleeping 4 x 25 ms, 8 direct
# 64 KiB reads from null_blk (>= 2 ms each), one open of a known file, and a `sleep 5`
# killed with SIGTERM. Ground truth for the host: each part's own output (NAME.bursts,
# NAME.sleeps: workload's "pid=" and "key=value" lines; NAME.killed: the pid killed).
# lab-timeout: 180
. /lab/guest-lib.sh
W='workload bursts 4 500 30 > $0.bursts & workload sleep 4 25 > $0.sleeps &
dd if='"$LAB_NULLB"' of=/dev/null bs=65536 count=8 iflag=direct 2> $0.dd
workload open /lab/guest-lib.sh > $0.open
sleep 5 & echo $! > $0.killed; kill -TERM $!; wait'
(capture triage ftrec triage --syscalls -o triage.ftz -- sh -c "$W" triage) 2> triage.err ||
	fail "ftrec triage --syscalls: $(cat triage.err)"
(capture triage_stacks ftrec triage -s -o triage_stacks.ftz -- sh -c "$W" triage_stacks) \
	2> triage_stacks.err || fail "ftrec triage -s: $(cat triage_stacks.err)"
