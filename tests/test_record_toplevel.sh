#!/usr/bin/env bash
# The top-level fallback (kernels without instances, tracers refused in an
# instance) changes tracefs settings that belong to someone else: the undo log
# must put every one of them back. Simulated safely by pointing FTREC_TRACEFS at a
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
# Someone else's settings on this "top level", which ftrec must restore:
echo 0 >"$inst/tracing_on"
echo global >"$inst/trace_clock"
echo 'nr_sector > 1' >"$inst/events/block/block_rq_complete/filter"
TRACEFS=$inst snapshot_tracefs_state >"$tmp/before"

FTREC_TRACEFS=$inst "$FTREC" record -s -b 1000 -e block:block_rq_issue -f 'nr_sector >= 128' \
	-o "$tmp/top.ftz" -- dd if=/dev/zero of="$work" bs=64k count=$N oflag=direct 2>"$tmp/err"
rc=$?
cat "$tmp/err"
assert_eq "ftrec exit status" 0 "$rc"
assert_contains "says it records at the top level" "$tmp/err" "recording at the top level"
assert_ge "block_rq_issue events" $N "$(ftz_event_count "$tmp/top.ftz" block_rq_issue)"
assert_ge "kernel_stack events" $N "$(ftz_event_count "$tmp/top.ftz" kernel_stack)"
assert_eq "end of file" clean "$(ftz_end "$tmp/top.ftz")"
assert_eq "event disabled again" 0 "$(cat "$inst/events/block/block_rq_issue/enable")"
TRACEFS=$inst assert_state_unchanged "$tmp/before"
assert_no_leftovers

# kill -9 with top-level changes in place: `ftrec reset` replays the persisted undo log.
FTREC_TRACEFS=$inst "$FTREC_STATIC" record -s -e block:block_rq_issue,block:block_rq_complete -f 'nr_sector >= 8' -o "$tmp/k9.ftz" 2>"$tmp/err.k9" &
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
finish
