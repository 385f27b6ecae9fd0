#!/usr/bin/env bash
# The top-level fallback (kernels without instances, tracers refused in an
# instance) changes tracefs settings that belong to someone else: the undo log
# must put every one of them back, exactly, after an exit and after a kill -9 +
# `ftrec reset`; and the kernel's reason for a refusal is quoted only when our
# write produced it. Simulated safely by pointing FTREC_TRACEFS at a
# scratch instance: it has tracing_on and events but no instances/ directory, so
# ftrec records "at the top level" of it.
. "$(dirname "$0")/lib.sh"
require_root_tracefs
require_bin "$FTREC" "$FTZDUMP"

N=20
tmp=$(mktemp -d)
inst=$TRACEFS/instances/fttest-top-$$
work=/var/tmp/ftrec-top-$$
trap 'rmdir "$inst" 2>/dev/null; rm -rf "$tmp" "$work"' EXIT
mkdir "$inst" || { echo "FAIL: cannot create $inst"; exit 1; }
# Someone else's settings on this "top level", one in every file ftrec writes for a
# tracepoint recording, each different from what ftrec wants; ftrec must restore them:
# tracing off, another clock, 2 events enabled (2 lines of set_event, one of them the
# event ftrec records) with filters of their own, a pid list of 2 (which must not hide
# dd's events from the recording either), a buffer size, a tracing_cpumask of CPU 0
# alone (dd runs on the last CPU: its events must be recorded all the same).
plant() {
	echo 0 >"$inst/tracing_on"
	echo global >"$inst/trace_clock"
	echo 'block:block_rq_issue sched:sched_process_exit' >"$inst/set_event"
	echo 'nr_sector > 1' >"$inst/events/block/block_rq_issue/filter"
	echo 'nr_sector > 1' >"$inst/events/block/block_rq_complete/filter"
	echo "1 $$" >"$inst/set_event_pid"
	[ -e "$inst/set_event_notrace_pid" ] && echo 2 >"$inst/set_event_notrace_pid"
	echo 1000 >"$inst/buffer_size_kb"
	echo 1 >"$inst/tracing_cpumask" # CPU 0 only: dd runs on CPU 1
	TRACEFS=$inst snapshot_tracefs_state >"$tmp/before"
}
last_cpu=$(($(nproc) - 1))
plant
assert_eq "planted: 2 lines of set_event" 2 "$(grep -c . "$inst/set_event")"
assert_eq "planted: 2 pids" 2 "$(grep -c . "$inst/set_event_pid")"

FTREC_TRACEFS=$inst "$FTREC" record -s -b 1200 -e block:block_rq_issue -f 'nr_sector >= 128' \
	-o "$tmp/top.ftz" -- taskset -c "$last_cpu" dd if=/dev/zero of="$work" bs=64k count=$N oflag=direct 2>"$tmp/err"
rc=$?
cat "$tmp/err"
assert_eq "ftrec exit status" 0 "$rc"
assert_contains "says it records at the top level" "$tmp/err" "recording at the top level"
assert_ge "block_rq_issue events (the user's pid list and cpumask did not hide dd's)" $N "$(ftz_event_count "$tmp/top.ftz" block_rq_issue)"
assert_ge "kernel_stack events" $N "$(ftz_event_count "$tmp/top.ftz" kernel_stack)"
assert_eq "end of file" clean "$(ftz_end "$tmp/top.ftz")"
assert_eq "the user's event enabled again" 1 "$(cat "$inst/events/block/block_rq_issue/enable")"
assert_eq "the user's filter back" 'nr_sector > 1' "$(cat "$inst/events/block/block_rq_issue/filter")"
TRACEFS=$inst assert_state_unchanged "$tmp/before"
assert_no_leftovers

# CPUs with buffers of different sizes: buffer_size_kb reads "X", which cannot be written
# back; the sizes of the CPUs must come back one by one.
echo 800 >"$inst/per_cpu/cpu0/buffer_size_kb"
TRACEFS=$inst snapshot_tracefs_state >"$tmp/before"
if [ "$(cat "$inst/buffer_size_kb")" = X ]; then
	FTREC_TRACEFS=$inst "$FTREC" record -b 1200 -e block:block_rq_issue -o "$tmp/x.ftz" -d 0.2 2>"$tmp/err.x"
	assert_eq "ftrec -b over per-CPU sizes: exit status" 0 "$?"
	TRACEFS=$inst assert_state_unchanged "$tmp/before"
else
	pass "one CPU: no per-CPU sizes to differ"
fi

# Kernel reasons only when our write made them: an old entry in the error_log (someone's
# bad filter) must not be quoted for a refusal that adds none (a buffer too large:
# ENOMEM), and a bad filter of ours quotes its own entry, not the old one.
plant
echo 'old_users_field > 1' >"$inst/events/sched/sched_switch/filter" 2>/dev/null
grep -q old_users_field "$inst/error_log" || fail "could not plant an old error_log entry"
TRACEFS=$inst snapshot_tracefs_state >"$tmp/before" # the user's refused filter is theirs too
"$FTREC" record -e block:block_rq_issue -o "$tmp/e.ftz" -d 1 >/dev/null 2>&1 # (an instance of its own: untouched log)
FTREC_TRACEFS=$inst "$FTREC" record -b 999999999 -e block:block_rq_issue -o "$tmp/e.ftz" -d 1 2>"$tmp/err.e"
assert_eq "buffer too large: exit" 1 "$?"
assert_contains "buffer too large: no kernel reason" "$tmp/err.e" "cannot write '999999999' to $inst/buffer_size_kb: Cannot allocate memory\$"
FTREC_TRACEFS=$inst "$FTREC" record -e block:block_rq_issue -f 'ours_bad_field == 1' -o "$tmp/e.ftz" -d 1 2>"$tmp/err.f"
assert_eq "bad filter: exit" 1 "$?"
assert_contains "bad filter: our own entry quoted" "$tmp/err.f" "block_rq_issue/filter: Invalid argument -- kernel says: .*ours_bad_field == 1"
assert_eq "bad filter: the old entry not quoted" 0 "$(grep -c old_users_field "$tmp/err.f")"
TRACEFS=$inst assert_state_unchanged "$tmp/before"

# kill -9 with top-level changes in place: `ftrec reset` replays the persisted undo log.
plant
FTREC_TRACEFS=$inst "$FTREC_STATIC" record -s -b 1200 -e block:block_rq_issue,block:block_rq_complete -f 'nr_sector >= 8' -o "$tmp/k9.ftz" 2>"$tmp/err.k9" &
pid=$!
if wait_for_recording $pid "$tmp/err.k9"; then
	assert_eq "while recording: trace_clock changed" "mono" \
		"$(sed 's/.*\[\(.*\)\].*/\1/' "$inst/trace_clock")"
	kill -9 $pid
	wait $pid 2>/dev/null
	"$FTREC" reset >"$tmp/reset.out" 2>&1
	assert_eq "ftrec reset exit status" 0 "$?"
	assert_contains "reset replayed the undo log of $pid" "$tmp/reset.out" "dead ftrec $pid"
	TRACEFS=$inst assert_state_unchanged "$tmp/before"
	assert_no_leftovers
else
	fail "kill -9: ftrec did not start recording"; cat "$tmp/err.k9"
fi
# The real top level, which a recording in its own instance leaves alone: its buffer may
# never have been used ("7 (expanded: 1408)" on a fresh host); that text, and everything
# else, must read the same after a recording and after a kill -9 + `ftrec reset`.
top_before=$(cat "$TRACEFS/buffer_size_kb")
snapshot_tracefs_state >"$tmp/top-before"
"$FTREC" record -b 1100 -e block:block_rq_issue -o "$tmp/inst.ftz" -d 0.5 2>"$tmp/err.inst"
assert_eq "instance recording: exit status" 0 "$?"
assert_eq "top-level buffer_size_kb as it read before" "$top_before" "$(cat "$TRACEFS/buffer_size_kb")"
assert_state_unchanged "$tmp/top-before"
"$FTREC_STATIC" record -b 1100 -e block:block_rq_issue -o "$tmp/inst-k9.ftz" 2>"$tmp/err.inst-k9" &
pid=$!
if wait_for_recording $pid "$tmp/err.inst-k9"; then
	kill -9 $pid
	wait $pid 2>/dev/null
	"$FTREC" reset >"$tmp/reset2.out" 2>&1
	assert_eq "ftrec reset exit status" 0 "$?"
	assert_eq "after kill -9 + reset: top-level buffer_size_kb" "$top_before" "$(cat "$TRACEFS/buffer_size_kb")"
	assert_state_unchanged "$tmp/top-before"
	assert_no_leftovers
else
	fail "kill -9 (instance): ftrec did not start recording"; cat "$tmp/err.inst-k9"
fi
finish
