#!/usr/bin/env bash
# The flight recorder, live on this host's syscall tracepoints:
#  - --kernel-ring with a small -b under a steady getppid stream: the capture
#    holds events right up to the stop, older ones were overwritten (the first
#    event is well after the recording started, the buffer is full), and ftrec's
#    CPU while waiting is small (reported; only a generous bound is asserted);
#  - --trigger on a single getpid of one process: the recording stops by itself,
#    the trigger event is in the file and is where the capture ends, END says
#    stop_reason=trigger, `ftana info` names it with its time; the same with
#    --kernel-ring; a filter fires on the matching event only; --post records on;
#  - SIGUSR1 stops a ring recording;
#  - a trigger the user has on the same event (top level) is back exactly after;
#    bad --trigger / --post arguments: one line naming the option, exit 1,
#    nothing left in tracefs; after kill -9, `ftrec reset` removes the trigger.
# Ground truth is the workload's own pids and timing, and the kernel's
# tracing_on / trigger files, not ftrec's own counters.
. "$(dirname "$0")/lib.sh"
require_root_tracefs
require_bin "$FTREC" "$FTANA" "$FTZDUMP"
command -v python3 >/dev/null || { echo "python3 is not installed"; exit 77; }
EV=$TRACEFS/events/syscalls/sys_enter_getpid
[ -e "$EV/trigger" ] && [ -e "$TRACEFS/events/syscalls/sys_enter_getppid/trigger" ] ||
	{ echo "no syscalls:sys_enter_getpid/getppid events with triggers"; exit 77; }

LOAD="python3 $TESTS_DIR/ring_load.py"
tmp=$(mktemp -d)
pids=()
planted=
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; done
      [ -n "$planted" ] && echo "!traceoff" >>"$EV/trigger"; rm -rf "$tmp"' EXIT
before=$tmp/before
snapshot_tracefs_state >"$before"

# q FILE SQL: the rows, CSV without the header.
q() { "$FTANA" sql "$1" "$2" --csv 2>/dev/null | tail -n +2; }
meta() { q "$1" "SELECT value FROM meta WHERE key = '$2'"; }
stream() { $LOAD stream "$1" & pids+=($!); }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
wait_gone() { # PID SECONDS: 0 when ftrec ended by itself in time
	local i
	for i in $(seq $(($2 * 10))); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
	return 1
}

# ------------------------------------------------------------- kernel ring
stream 30
out=$tmp/ring.ftz
"$FTREC" record -e syscalls:sys_enter_getppid --kernel-ring -b 256 -o "$out" 2>"$tmp/err.ring" &
rec=$!
if wait_for_recording $rec "$tmp/err.ring"; then
	assert_eq "kernel ring: overwrite mode in the instance" 1 "$(cat "$TRACEFS/instances/ftrec-$rec/options/overwrite")"
	t0=$(cpu_ticks $rec)
	sleep 3
	t1=$(cpu_ticks $rec)
	echo "note: ftrec CPU while the kernel ring recorded for 3 s: $((t1 - t0)) ticks ($(getconf CLK_TCK)/s)"
	# Generous: a reader that polled the ring would use about all of a CPU here.
	[ $((t1 - t0)) -le 30 ] && pass "kernel ring: ftrec CPU while waiting $((t1 - t0)) ticks <= 30" ||
		fail "kernel ring: ftrec used $((t1 - t0)) ticks of CPU in 3 s while waiting"
	kill -INT $rec
	wait $rec
	assert_eq "kernel ring: exit status" 0 $?
	assert_eq "kernel ring: end of file" clean "$(ftz_end "$out")"
	assert_eq "kernel ring: INFO kernel_ring" 1 "$(meta "$out" kernel_ring)"
	assert_eq "kernel ring: stop reason" signal "$(meta "$out" stop_reason)"
	start=$(meta "$out" start_trace_ns) end=$(meta "$out" end_trace_ns)
	# Per CPU: the stream migrates, and a CPU it left early never filled its ring, so
	# the CPU whose ring holds the latest first event is the one that overwrote.
	first=$(q "$out" "SELECT max(f) FROM (SELECT min(ts) AS f FROM sys_enter_getppid GROUP BY cpu)")
	last=$(q "$out" "SELECT max(ts) FROM sys_enter_getppid")
	# The stream ran all along (3 s and more): its first events were overwritten. How
	# much of it the ring still holds depends on the stream's rate on a loaded host,
	# so only "well after the start" is asserted; the count is the summary's, below.
	assert_ge "kernel ring: first event, ms after the start (older ones overwritten)" 300 $(((first - start) / 1000000))
	assert_ge "kernel ring: last event within 200 ms of the stop (ms margin)" 0 $(((end - last) / 1000000))
	[ $((end - last)) -lt 200000000 ] && pass "kernel ring: events right up to the stop ($(((end - last) / 1000)) us before)" ||
		fail "kernel ring: last event $(((end - last) / 1000000)) ms before the stop"
	pages=$(summary_column "$tmp/err.ring" all 2)
	# 256 KB per CPU are 64 sub-buffers of 4 KB: at least one CPU's ring was full.
	assert_ge "kernel ring: pages drained (one CPU's ring is 64)" 56 "$pages"
	assert_contains "kernel ring: summary tells the overwrite, not a loss" "$tmp/err.ring" "kernel ring: [0-9]+ older events overwritten"
	# ftana says the same: info names the overwrite; a report warns of no loss (the
	# loss the kernel flags at each CPU's first event is the ring's design, not a gap)
	"$FTANA" info "$out" >"$tmp/info.ring" 2>&1
	assert_contains "kernel ring: ftana info names the overwrite" "$tmp/info.ring" \
		"^ring +[0-9]+ older events overwritten by the kernel ring"
	"$FTANA" report tpoint --json "$out" >"$tmp/tp.json" 2>"$tmp/tp.err"
	assert_eq "kernel ring: report warnings (stderr)" 0 "$(grep -c 'lost' "$tmp/tp.err")"
	# (the one warning there may be: where every CPU's kept stretch begins, the window's
	# start; tests/test_capture_window.sh checks it)
	assert_eq "kernel ring: report warnings (JSON) but the ragged start's" "[]" \
		"$(python3 -c 'import json, sys; print([w for w in json.load(open(sys.argv[1]))["warnings"]
			if "a ring kept some CPUs" not in w])' "$tmp/tp.json")"
else
	fail "kernel ring: ftrec did not start"; cat "$tmp/err.ring"
fi
assert_no_leftovers

# ------------------------------------------------------------- SIGUSR1
out=$tmp/usr1.ftz
"$FTREC" record -e syscalls:sys_enter_getppid --kernel-ring -b 64 -o "$out" 2>"$tmp/err.usr1" &
rec=$!
if wait_for_recording $rec "$tmp/err.usr1"; then
	sleep 0.5
	kill -USR1 $rec
	wait_gone $rec 10 || fail "SIGUSR1: ftrec still running 10 s later"
	wait $rec
	assert_eq "SIGUSR1: exit status" 0 $?
	assert_eq "SIGUSR1: stop reason" SIGUSR1 "$(meta "$out" stop_reason)"
	assert_ge "SIGUSR1: events drained" 1 "$(ftz_event_count "$out" sys_enter_getppid)"
else
	fail "SIGUSR1: ftrec did not start"; cat "$tmp/err.usr1"
fi
kill "${pids[@]}" 2>/dev/null

# ------------------------------------------------------------- triggers
# The user's own trigger on the same event, at the top level: must come back as it was.
echo 'traceoff:3 if common_pid < 0' >>"$EV/trigger" && planted=1
user_trigger=$(cat "$EV/trigger")

# trigger_run NAME DELAY TRIGGER-CALL FILTER-ON-PID(1/0) OPTIONS...: a getppid stream,
# one process making ONE TRIGGER-CALL after DELAY s; ftrec must stop by itself.
trigger_run() {
	local name=$1 delay=$2 call=$3 use_filter=$4; shift 4
	stream 20
	local stream_pid=${pids[-1]}
	$LOAD once "$delay" "$call" & once=$!; pids+=($once)
	local spec="syscalls:sys_enter_$call"
	[ "$use_filter" = 1 ] && spec="$spec if common_pid == $once"
	out=$tmp/$name.ftz
	"$FTREC" record -e syscalls:sys_enter_getppid --trigger "$spec" "$@" -d 30 -o "$out" 2>"$tmp/err.$name" &
	rec=$!
	wait_for_recording $rec "$tmp/err.$name" || { fail "$name: ftrec did not start"; cat "$tmp/err.$name"; return 1; }
	if [ -e "$TRACEFS/instances/ftrec-$rec" ]; then
		assert_contains "$name: the kernel trigger in the instance" \
			<(cat "$TRACEFS/instances/ftrec-$rec/events/syscalls/sys_enter_$call/trigger") "^traceoff:(count=)?1 "
	fi
	wait_gone $rec 20 || fail "$name: ftrec still running 20 s later (trigger missed)"
	wait $rec
	assert_eq "$name: exit status" 0 $?
	assert_eq "$name: end of file" clean "$(ftz_end "$out")"
	assert_eq "$name: END stop_reason" trigger "$(meta "$out" stop_reason)"
	assert_eq "$name: END stop_trigger" "$spec" "$(meta "$out" stop_trigger)"
	# The trigger event: in the file, made by the workload's process.
	trig_ts=$(q "$out" "SELECT max(ts) FROM sys_enter_$call WHERE pid = $once")
	[ -n "$trig_ts" ] && pass "$name: trigger event by pid $once in the file" ||
		fail "$name: no sys_enter_$call of pid $once in the file"
	"$FTANA" info "$out" >"$tmp/info.$name" 2>&1
	assert_contains "$name: ftana info names the trigger" "$tmp/info.$name" "^trigger +$spec, last fired at ts"
	# Its time is the last event of the type: the trigger's, or (same type on another
	# CPU while the kernel was switching tracing off) microseconds from it.
	local info_ts; info_ts=$(sed -n 's/^trigger .*last fired at ts \([0-9]*\) .*/\1/p' "$tmp/info.$name")
	[ -n "$info_ts" ] && [ -n "$trig_ts" ] && [ $((info_ts - trig_ts)) -ge 0 ] && [ $((info_ts - trig_ts)) -lt 1000000 ] &&
		pass "$name: ftana info's trigger time $info_ts = the event's $trig_ts (+$((info_ts - trig_ts)) ns)" ||
		fail "$name: ftana info's trigger time '$info_ts', the event's '$trig_ts'"
	kill $stream_pid 2>/dev/null
	return 0
}

if trigger_run trig 3 getpid 1; then
	last=$(q "$out" "SELECT max(ts) FROM events")
	# Nothing after the incident: a few us for the other CPU to see tracing off.
	[ -n "$trig_ts" ] && [ $((last - trig_ts)) -lt 5000000 ] && pass "trig: capture ends at the trigger event (+$(((last - trig_ts) / 1000)) us)" ||
		fail "trig: last event $last, trigger $trig_ts"
	assert_ge "trig: stream events before the trigger" 1000 "$(q "$out" "SELECT count(*) FROM sys_enter_getppid WHERE ts < $trig_ts")"
fi

if trigger_run trigring 3 getpid 1 --kernel-ring -b 128; then
	# the CPU that overwrote (see the kernel ring's check above)
	first=$(q "$out" "SELECT max(f) FROM (SELECT min(ts) AS f FROM sys_enter_getppid GROUP BY cpu)")
	start=$(meta "$out" start_trace_ns)
	assert_ge "trigring: older events overwritten: first event ms after the start" 1000 $(((trig_ts - start) / 1000000))
	assert_ge "trigring: the buffer filled from before the trigger: first event ms after the start" 200 $(((first - start) / 1000000))
	assert_ge "trigring: pages drained (one CPU's ring is 32)" 28 "$(summary_column "$tmp/err.trigring" all 2)"
	assert_contains "trigring: the ring overwrote older events" "$tmp/err.trigring" "kernel ring: [1-9][0-9]* older events overwritten"
	last=$(q "$out" "SELECT max(ts) FROM events")
	[ $((last - trig_ts)) -lt 5000000 ] && pass "trigring: capture ends at the trigger event" ||
		fail "trigring: last event $last, trigger $trig_ts"
fi

# A filter: the stream's getppid never matches, the one of the other process does.
if trigger_run filtered 3 getppid 1; then
	assert_ge "filtered: stream's getppid before the match (did not fire)" 1000 \
		"$(q "$out" "SELECT count(*) FROM sys_enter_getppid WHERE pid <> $once AND ts < $trig_ts")"
	assert_eq "filtered: the matching getppid is the last of its process" 1 \
		"$(q "$out" "SELECT count(*) FROM sys_enter_getppid WHERE pid = $once")"
fi

# --post: recording goes on after the trigger.
if trigger_run post 2 getpid 1 --post 1.5; then
	last=$(q "$out" "SELECT max(ts) FROM sys_enter_getppid")
	assert_ge "post: stream events recorded ms after the trigger" 1000 $(((last - trig_ts) / 1000000))
fi
kill "${pids[@]}" 2>/dev/null
wait 2>/dev/null
pids=()

assert_eq "the user's trigger on the event is back exactly" "$user_trigger" "$(cat "$EV/trigger")"
echo '!traceoff' >>"$EV/trigger" && planted=

# ------------------------------------------------------------- kill -9, then ftrec reset
# The trigger file is in the undo state file like every other write: reset removes it.
"$FTREC" record -e syscalls:sys_enter_getppid --kernel-ring --trigger 'syscalls:sys_enter_getpid if common_pid < 0' \
	-o "$tmp/killed.ftz" 2>"$tmp/err.killed" &
rec=$!
if wait_for_recording $rec "$tmp/err.killed"; then
	assert_contains "kill -9: trigger armed in the instance" \
		<(cat "$TRACEFS/instances/ftrec-$rec/events/syscalls/sys_enter_getpid/trigger") "^traceoff"
	kill -9 $rec
	wait $rec 2>/dev/null
	"$FTREC" reset >"$tmp/reset.out" 2>&1
	assert_eq "kill -9: ftrec reset exit status" 0 $?
	[ -e "$TRACEFS/instances/ftrec-$rec" ] && fail "kill -9: instance ftrec-$rec left after reset" ||
		pass "kill -9: ftrec reset removed the instance and its trigger"
else
	fail "kill -9: ftrec did not start"; cat "$tmp/err.killed"
fi

# ------------------------------------------------------------- bad arguments
bad() { # NAME PATTERN ARGS...
	local name=$1 pat=$2; shift 2
	"$FTREC" record -e syscalls:sys_enter_getppid -d 1 -o "$tmp/bad.ftz" "$@" >/dev/null 2>"$tmp/err.bad"
	assert_eq "$name: exit status" 1 $?
	assert_one_line_error "$name" "$tmp/err.bad" "$pat"
	[ -e "$tmp/bad.ftz" ] && fail "$name: left $tmp/bad.ftz"
}
bad "no such trigger event" "--trigger nosys:nope: no such event" --trigger nosys:nope
bad "filter the kernel refuses" "--trigger .*kernel refused.*Field not found" --trigger 'syscalls:sys_enter_getpid if nosuch == 1'
bad "no SYS:EVENT" "--trigger 'getpid'" --trigger getpid
bad "glob" "--trigger 'syscalls:\*'" --trigger 'syscalls:*'
bad "empty filter" "empty FILTER" --trigger 'syscalls:sys_enter_getpid if '
bad "two triggers" "--trigger given twice" --trigger syscalls:sys_enter_getpid --trigger syscalls:sys_enter_getppid
bad "--post without --trigger" "--post needs --trigger" --post 1
bad "--post with --kernel-ring" "--post cannot go with --kernel-ring" --kernel-ring --trigger syscalls:sys_enter_getpid --post 1
bad "--post not a number" "--post: expected a number" --trigger syscalls:sys_enter_getpid --post soon
assert_no_leftovers
assert_state_unchanged "$before"
finish
