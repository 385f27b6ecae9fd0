#!/usr/bin/env bash
# ftrec funccount / funcslower / funcgraph / kprobe on this host. Bad arguments give one
# line and exit 1 before tracefs is touched. Live: where the kernel offers the function
# tracer / kprobes, a recording of tests/lab/workload.c must show exactly what it did
# (K getppid calls, a read returning BYTES); where it refuses them (this project's dev
# VM answers EPERM for the function tracer and has no kprobe_events), ftrec must fail
# with one line naming the file and leave tracefs exactly as it found it.
# The kernel lab (tests/lab/scenarios/func*, kprobe*) tests the full behaviour on 6.1.
. "$(dirname "$0")/lib.sh"
require_bin "$FTREC" "$FTANA"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bad() { # WHAT PATTERN ARGS...: one-line error, exit 1
	local what=$1 pat=$2; shift 2
	"$FTREC" "$@" >"$tmp/out" 2>"$tmp/err"
	assert_eq "$what: exit" 1 $?
	assert_one_line_error "$what" "$tmp/err" "$pat"
}
bad "funccount without PATTERN" "expected PATTERN" funccount -o "$tmp/x.ftz"
bad "funcslower with one argument" "expected FUNC USECS" funcslower -o "$tmp/x.ftz" do_nanosleep
bad "funcslower with bad USECS" "USECS 'ten'" funcslower -o "$tmp/x.ftz" do_nanosleep ten
bad "funcgraph -m 0" "-m needs a depth" funcgraph -m 0 -o "$tmp/x.ftz" vfs_read
bad "kprobe without p:/r:" "must start with p:" kprobe -o "$tmp/x.ftz" 'x:foo bar'
bad "kprobe without a function" "names no function" kprobe -o "$tmp/x.ftz" 'p:'
bad "funccount -i without --profile" "-i needs --profile" funccount -i 1 -o "$tmp/x.ftz" vfs_read
bad "funccount --profile -p" "-p does not work with --profile" funccount --profile -p 1 -o "$tmp/x.ftz" vfs_read
bad "funccount --profile -i 0" "-i needs seconds" funccount --profile -i 0 -o "$tmp/x.ftz" vfs_read
assert_eq "no capture written after bad arguments" "" "$(ls "$tmp" | grep ftz)"
# -m is the kernel's max_graph_depth, FUNC itself level 1; -C is on-CPU time (perf-tools).
"$FTREC" funcgraph -h >"$tmp/fg.help"
assert_contains "funcgraph -h: -m counts FUNC as level 1" "$tmp/fg.help" "FUNC itself being level 1: -m 1 is FUNC alone"
assert_contains "funcgraph -h: -C is on-CPU time" "$tmp/fg.help" "-C +on-CPU time only"
"$FTREC" funcslower -h >"$tmp/fs.help"
assert_contains "funcslower -h: -C is on-CPU time" "$tmp/fs.help" "-C +on-CPU time only"

require_root_tracefs
${CC:-cc} -O2 -o "$tmp/workload" tests/lab/workload.c || { echo "FAIL: cannot build workload"; exit 1; }
snapshot_tracefs_state >"$tmp/before"

# live_or_refused NAME: after a recording attempt that wrote $tmp/NAME.ftz on success.
# Returns 0 when it recorded; on failure checks the error and returns 1.
live_or_refused() {
	if [ "$rc" = 0 ]; then
		pass "$1 recorded"
		return 0
	fi
	assert_eq "$1 refused: exit" 1 "$rc"
	assert_contains "$1 refused: the error names a tracefs file" "$tmp/err" "/sys/kernel/tracing/|tracer .* not available"
	assert_state_unchanged "$tmp/before"
	assert_no_leftovers
	return 1
}

K=200
"$FTREC" funccount -q -o "$tmp/fc.ftz" '*sys_getppid' -- "$tmp/workload" getppid $K >"$tmp/fc.out" 2>"$tmp/err"
rc=$?
if live_or_refused funccount; then
	pid=$(sed -n 's/^pid=//p' "$tmp/fc.out")
	"$FTANA" report funccount "$tmp/fc.ftz" -p "$pid" >"$tmp/fc.txt"
	assert_eq "funccount: getppid calls of the workload" $K "$(awk '/sys_getppid/ { print $2 }' "$tmp/fc.txt")"
	assert_state_unchanged "$tmp/before"
fi

# Two patterns, one a glob: the kernel takes one entry per write to set_ftrace_filter.
"$FTREC" funccount -q -o "$tmp/fc2.ftz" vfs_read '*sys_getppid' -- "$tmp/workload" getppid $K >"$tmp/fc2.out" 2>"$tmp/err"
rc=$?
if live_or_refused "funccount, 2 patterns"; then
	pid=$(sed -n 's/^pid=//p' "$tmp/fc2.out")
	"$FTANA" report funccount "$tmp/fc2.ftz" -p "$pid" >"$tmp/fc2.txt"
	assert_eq "funccount, 2 patterns: getppid calls of the workload" $K "$(awk '/sys_getppid/ { print $2 }' "$tmp/fc2.txt")"
	assert_state_unchanged "$tmp/before"
fi

# -C: function_graph on-CPU time (where the kernel has function_graph; the lab tests durations).
"$FTREC" funcslower -C -q -o "$tmp/fs.ftz" do_nanosleep 1000 -- "$tmp/workload" sleep 2 20 >"$tmp/fs.out" 2>"$tmp/err"
rc=$?
live_or_refused "funcslower -C" && assert_state_unchanged "$tmp/before"

# The function profiler: counts every task, so the total is at least K.
"$FTREC" funccount --profile -q -o "$tmp/fp.ftz" '*sys_getppid' -- "$tmp/workload" getppid $K >"$tmp/fp.out" 2>"$tmp/err"
rc=$?
if live_or_refused "funccount --profile"; then
	"$FTANA" report funccount "$tmp/fp.ftz" >"$tmp/fp.txt"
	assert_ge "funccount --profile: getppid calls (all tasks)" $K "$(awk '/sys_getppid/ { print $2 }' "$tmp/fp.txt")"
	assert_state_unchanged "$tmp/before"
fi

"$FTREC" kprobe -q -o "$tmp/kp.ftz" 'r:kread ksys_read ret=$retval' -- \
	"$tmp/workload" read "$FTREC" 12345 >"$tmp/kp.out" 2>"$tmp/err"
rc=$?
if live_or_refused kprobe; then
	pid=$(sed -n 's/^pid=//p' "$tmp/kp.out")
	"$FTANA" report kprobe "$tmp/kp.ftz" >"$tmp/kp.txt"
	# $retval is an x64 fetch: printed as the kernel prints it (0x%Lx)
	assert_contains "kprobe: the workload's read returned 12345" "$tmp/kp.txt" "-$pid .* kread: .* ret=0x3039\$"
	assert_state_unchanged "$tmp/before"
fi
finish
