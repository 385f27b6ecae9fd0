#!/usr/bin/env bash
# Every way a recording stops: SIGTERM, SIGINT, -d expiry, COMMAND exit (its status
# in the summary, ftrec exits 0), --max-size; and kill -9 followed by `ftrec reset`.
# After each: a readable file, and tracefs as before.
. "$(dirname "$0")/lib.sh"
require_root_tracefs
require_bin "$FTREC" "$FTREC_STATIC" "$FTZDUMP" "$FTANA"

tmp=$(mktemp -d)
work=/var/tmp/ftrec-stop-$$
load_pid=
trap '[ -n "$load_pid" ] && kill $load_pid 2>/dev/null; rm -rf "$tmp" "$work"' EXIT
before=$tmp/before
snapshot_tracefs_state >"$before"

# A steady event source for the signal tests: small direct writes in a loop.
start_load() {
	( while :; do dd if=/dev/zero of="$work" bs=4k count=16 oflag=direct 2>/dev/null; done ) &
	load_pid=$!
}
stop_load() {
	kill $load_pid 2>/dev/null
	wait $load_pid 2>/dev/null
	load_pid=
}

# stop_by_signal SIG BINARY
stop_by_signal() {
	local sig=$1 bin=$2 out=$tmp/$1.ftz
	"$bin" record -e 'block:block_rq_*' -o "$out" 2>"$tmp/err.$sig" &
	local pid=$!
	if ! wait_for_recording $pid "$tmp/err.$sig"; then
		fail "$sig: ftrec did not start recording"; cat "$tmp/err.$sig"; return
	fi
	sleep 1
	kill -"$sig" $pid
	wait $pid
	assert_eq "$sig: ftrec exit status" 0 "$?"
	assert_contains "$sig: summary says why" "$tmp/err.$sig" "stopped \(signal\)"
	assert_eq "$sig: end of file" clean "$(ftz_end "$out")"
	assert_ge "$sig: block_rq_issue events recorded" 1 "$(ftz_event_count "$out" block_rq_issue)"
	assert_eq "$sig: no loss" 0 "$(summary_column "$tmp/err.$sig" all 6)"
	assert_eq "$sig: file events = kernel read events" "$(summary_column "$tmp/err.$sig" all 4)" \
		"$("$FTZDUMP" -q "$out" | awk '$1 == "total" { print $5 }')"
	assert_no_leftovers
}

start_load
stop_by_signal TERM "$FTREC_STATIC"
stop_by_signal INT "$FTREC"

# kill -9: the file stays readable up to the kill; `ftrec reset` removes the instance.
"$FTREC_STATIC" record -e 'block:block_rq_*' -o "$tmp/k9.ftz" 2>"$tmp/err.k9" &
pid=$!
if wait_for_recording $pid "$tmp/err.k9"; then
	sleep 1
	kill -9 $pid
	wait $pid 2>/dev/null
	[ -d "$TRACEFS/instances/ftrec-$pid" ] && pass "kill -9 left instance ftrec-$pid" ||
		fail "kill -9: instance ftrec-$pid not found"
	end=$(ftz_end "$tmp/k9.ftz")
	case $end in
	no-end-section | damaged) pass "kill -9: file readable up to the kill ($end)" ;;
	*) fail "kill -9: unexpected end state '$end'" ;;
	esac
	"$FTZDUMP" "$tmp/k9.ftz" >"$tmp/k9.dump"
	assert_contains "kill -9: INFO and formats intact" "$tmp/k9.dump" "file events/header_page phase start"
	"$FTREC" reset >"$tmp/reset.out" 2>&1
	assert_eq "ftrec reset exit status" 0 "$?"
	cat "$tmp/reset.out"
	assert_contains "reset removed the instance" "$tmp/reset.out" "ftrec-$pid"
	assert_no_leftovers
	# another tracer on this kernel may have left something of its own: not ours to judge
	"$FTREC" reset >"$tmp/reset2.out" 2>&1
	assert_eq "second reset: nothing of ftrec $pid left to undo" "" "$(grep -E "ftrec[- ]$pid\b" "$tmp/reset2.out")"
else
	fail "kill -9: ftrec did not start recording"; cat "$tmp/err.k9"
fi

# A live recording whose pid `ftrec reset` cannot see (reset in a PID namespace of its
# own, as in a container on the same host) stays recording, whole: through its locked
# state file where the two share the state directory, through the kernel's EBUSY for
# an instance whose buffer is being read where they do not.
if unshare --pid --fork --mount-proc true 2>/dev/null &&
	${CC:-cc} -O2 -o "$tmp/workload" tests/lab/workload.c; then
	"$FTREC" record -e syscalls:sys_enter_getppid -o "$tmp/ns.ftz" 2>"$tmp/err.ns" &
	pid=$!
	if wait_for_recording $pid "$tmp/err.ns"; then
		unshare --pid --fork --mount-proc "$FTREC" reset >"$tmp/ns.reset" 2>&1
		assert_eq "reset from another PID namespace: exit status" 0 $?
		assert_contains "reset from another PID namespace, shared state dir: left alone" "$tmp/ns.reset" \
			"pid $pid is still recording: left alone"
		FTREC_STATE_DIR=$tmp/ns-state unshare --pid --fork --mount-proc "$FTREC" reset >"$tmp/ns.reset2" 2>&1
		assert_eq "reset from another PID namespace, own state dir: exit status" 0 $?
		assert_contains "reset from another PID namespace, own state dir: the busy instance left alone" \
			"$tmp/ns.reset2" "instance ftrec-$pid is in use .*left alone"
		[ -e "$FTREC_STATE_DIR/ftrec-$pid.undo" ] && pass "the live recording's undo state is kept" ||
			fail "reset from another PID namespace replayed the live recording's undo state"
		"$tmp/workload" getppid 5000 >/dev/null &
		wl=$!
		wait $wl
		kill -INT $pid
		wait $pid
		assert_eq "the recording reset could not see: exit status" 0 $?
		"$FTANA" sql "$tmp/ns.ftz" --csv "SELECT count(*) FROM sys_enter_getppid WHERE pid = $wl" >"$tmp/ns.count" 2>&1
		assert_eq "the recording reset could not see: the workload's 5000 getppid calls" "count(*) 5000" \
			"$(tr '\n' ' ' <"$tmp/ns.count" | sed 's/ $//')"
		assert_no_leftovers
	else
		fail "namespace reset: ftrec did not start recording: $(cat "$tmp/err.ns")"
	fi
else
	echo "note: unshare --pid does not work here: reset from another PID namespace not tested"
fi

# --max-size: stops by itself and says so (START metadata alone is ~1 MiB with kallsyms).
"$FTREC" record -e 'block:*' -e 'sched:*' -e 'irq:*' --max-size 2 -d 60 -o "$tmp/max.ftz" 2>"$tmp/err.max"
assert_eq "--max-size: exit status" 0 "$?"
assert_contains "--max-size: says so" "$tmp/err.max" "stopped \(max-size\)"
size=$(stat -c %s "$tmp/max.ftz")
assert_ge "--max-size: file bytes" $((2 * 1024 * 1024)) "$size"
assert_eq "--max-size: end of file" clean "$(ftz_end "$tmp/max.ftz")"
assert_no_leftovers
stop_load

# -d expiry
"$FTREC" record -e 'sched:sched_switch' -d 0.5 -o "$tmp/d.ftz" 2>"$tmp/err.d"
assert_eq "-d: exit status" 0 "$?"
assert_contains "-d: stopped by the duration" "$tmp/err.d" "stopped \(duration\)"
assert_ge "-d: sched_switch events" 1 "$(ftz_event_count "$tmp/d.ftz" sched_switch)"
assert_no_leftovers

# COMMAND exit: ftrec exits 0 when it recorded; the command's status is reported.
"$FTREC" record -e 'sched:sched_process_exit' -o "$tmp/c.ftz" -- sh -c 'exit 3' 2>"$tmp/err.c"
assert_eq "COMMAND exit 3: ftrec exit status" 0 "$?"
assert_contains "COMMAND exit 3: reported" "$tmp/err.c" "command exited with status 3"
assert_contains "COMMAND exit 3: stop reason" "$tmp/err.c" "stopped \(command exited\)"

# -p cmd: only the command and its children (event-fork): 5 forked children exit.
"$FTREC" record -e 'sched:sched_process_exit' -p cmd -o "$tmp/p.ftz" \
	-- sh -c 'for i in 1 2 3 4 5; do /bin/true; done' 2>"$tmp/err.p"
assert_eq "-p cmd: ftrec exit status" 0 "$?"
assert_eq "-p cmd: exits of the command and its 5 children only" 6 \
	"$(ftz_event_count "$tmp/p.ftz" sched_process_exit)"
assert_no_leftovers

# From its creation, the instance holds one of its files open, so the kernel refuses
# to remove it (EBUSY) also during setup, before the readers open their buffers: what
# a reset that cannot see ftrec (another PID namespace) or any other tool tries first.
"$FTREC" record -q -e sched:sched_switch -d 2 -o "$tmp/hold.ftz" 2>"$tmp/hold.err" &
hold=$!
dir=$TRACEFS/instances/ftrec-$hold
for _ in $(seq 1 2000); do [ -d "$dir" ] && break; sleep 0.005; done
if [ -d "$dir" ]; then
	rmdir "$dir" 2>"$tmp/rmdir.err"
	assert_eq "rmdir of the instance at its first moments: refused" 1 "$?"
	assert_contains "... as busy" "$tmp/rmdir.err" "Device or resource busy"
else
	fail "the instance of ftrec $hold did not appear"
fi
wait $hold
assert_eq "the recording then ends well: exit" 0 "$?"
assert_ge "... with its events" 1 "$(ftz_event_count "$tmp/hold.ftz" sched_switch)"
assert_no_leftovers

assert_state_unchanged "$before"
finish
