# opensnoop: `ftrec triage --syscalls` on a kernel with kprobes records the optional probe
# ftrec_open_path, so `ftana report opensnoop` has each open's path. The workload opens K
# known paths, one process each (workload open PATH: one openat(2)), one of them missing
# (ENOENT) and one with a space, a comma and a quote in its name. Ground truth for the
# host: the paths file, and each workload's pid, path and openat result (opens.out).
# lab-timeout: 120
. /lab/guest-lib.sh
weird='/tmp/o p,"q'
printf x > "$weird"
printf '%s\n' /lab/guest-lib.sh /lab/bin/workload "$weird" /nonexistent/ftrec-lab-missing > paths
# in a subshell: a failing capture's message is in triage.err, shown by fail
(capture opensnoop ftrec triage --syscalls -o opensnoop.ftz -- \
	sh -c 'while IFS= read -r p; do workload open "$p"; done < paths') > opens.out 2> triage.err ||
	fail "ftrec triage: $(cat triage.err)"
grep -c '^open=' opens.out | grep -qx 4 || fail "workloads did not finish: $(cat opens.out)"
# the probe must not have been left out on this kernel (6.1: kprobes, $argN, ustring)
if grep 'note:' triage.err; then fail "ftrec triage left something out"; fi
rm -f "$weird"
