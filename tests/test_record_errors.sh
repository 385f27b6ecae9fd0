#!/usr/bin/env bash
# Bad input: a one-line error naming the problem (prefixed "ftrec COMMAND: ", as
# every message of a command), a non-zero exit, no output file, and nothing left
# in tracefs (compared with a snapshot taken before).
. "$(dirname "$0")/lib.sh"
require_root_tracefs
require_bin "$FTREC"

tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
before=$tmp/before
snapshot_tracefs_state >"$before"

# expect_error WHAT PATTERN COMMAND...: fails with one stderr line matching PATTERN.
expect_error() {
	local what=$1 pattern=$2; shift 2
	rm -f "$tmp/out.ftz"
	"$@" >"$tmp/stdout" 2>"$tmp/err"
	local rc=$?
	if [ $rc -ne 0 ]; then pass "$what: exit $rc"; else fail "$what: exit status 0"; fi
	assert_one_line_error "$what" "$tmp/err" "$pattern"
	[ -e "$tmp/out.ftz" ] && fail "$what: left an output file" || pass "$what: no output file"
	assert_no_leftovers
}

expect_error "unknown event" "^ftrec record: -e block:no_such_event: no such event" \
	"$FTREC" record -e block:no_such_event -o "$tmp/out.ftz" -d 1
expect_error "unknown event among good ones" "^ftrec record: -e nosys:\*: no such event" \
	"$FTREC" record -e 'block:*' -e 'nosys:*' -o "$tmp/out.ftz" -d 1
expect_error "event without system" "^ftrec record: -e block_rq_issue: expected SYSTEM:EVENT" \
	"$FTREC" record -e block_rq_issue -o "$tmp/out.ftz" -d 1
# The kernel rejects the filter; its error_log explains why.
expect_error "bad filter" "^ftrec record: cannot write .*block_rq_issue/filter: Invalid argument -- kernel says: .*(no_such_field|Field not found)" \
	"$FTREC" record -e block:block_rq_issue -f 'no_such_field == 1' -o "$tmp/out.ftz" -d 1
expect_error "-f before -e" "^ftrec record: -f .* must follow the -e" \
	"$FTREC" record -f 'bytes > 1' -e block:block_rq_issue -o "$tmp/out.ftz" -d 1
expect_error "unwritable output" "^ftrec record: .*/nonexistent-dir/x.ftz" \
	"$FTREC" record -e block:block_rq_issue -o /nonexistent-dir/x.ftz -d 1
expect_error "missing -o" "^ftrec record: no output file" \
	"$FTREC" record -e block:block_rq_issue -d 1
expect_error "unknown clock" "^ftrec record: -C nosuchclock: unknown trace clock" \
	"$FTREC" record -e block:block_rq_issue -C nosuchclock -o "$tmp/out.ftz" -d 1
expect_error "bad duration" "^ftrec record: -d: expected a number" \
	"$FTREC" record -e block:block_rq_issue -d soon -o "$tmp/out.ftz"
expect_error "unknown option" "^ftrec record: unknown option '--frobnicate'" \
	"$FTREC" record -e block:block_rq_issue --frobnicate -o "$tmp/out.ftz"
expect_error "no events" "^ftrec record: no events" \
	"$FTREC" record -o "$tmp/out.ftz" -d 1
expect_error "-p cmd without command" "^ftrec record: -p cmd needs a COMMAND" \
	"$FTREC" record -e block:block_rq_issue -p cmd -o "$tmp/out.ftz"
mkdir -p "$tmp/empty"
expect_error "missing tracefs (FTREC_TRACEFS=empty dir)" "^ftrec record: no tracefs at $tmp/empty" \
	env FTREC_TRACEFS="$tmp/empty" "$FTREC" record -e block:block_rq_issue -o "$tmp/out.ftz" -d 1
expect_error "not root" "^ftrec record: must run as root" \
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	env ASAN_OPTIONS=detect_leaks=0 "$FTREC" record -e block:block_rq_issue -o "$tmp/out.ftz" -d 1
expect_error "unknown command (no command yet: the program's prefix)" "^ftrec: unknown command 'recrod'" "$FTREC" recrod
# --stop-if (issue 24): its syntax, what it cannot go with, and a kernel without synthetic
# events or hist triggers (this host's 6.18, or a fake tracefs without them) refused in one
# line before anything is changed. The lab's stopif scenario records with it on 6.1.
for bad in "runq 5ms" "syscall > 5ms" "" "runq > 5" "runq > 0.5us" "runq > 2d" "runq > -1ms"; do
	expect_error "--stop-if '$bad'" "^ftrec record: --stop-if '.*': (expected 'runq > DURATION'|'.*' is not a duration)" \
		"$FTREC" record --stop-if "$bad" -o "$tmp/out.ftz" -d 1
done
expect_error "--stop-if kind" "^ftrec record: --stop-if 'disk > 5ms': 'disk' is not runq, io or syscall" \
	"$FTREC" record --stop-if 'disk > 5ms' -o "$tmp/out.ftz" -d 1
expect_error "--stop-if with --trigger" "^ftrec record: --stop-if cannot go with --trigger" \
	"$FTREC" record --trigger sched:sched_switch --stop-if 'runq > 5ms' -o "$tmp/out.ftz" -d 1
expect_error "--trigger with --stop-if" "^ftrec record: --trigger cannot go with --stop-if" \
	"$FTREC" record --stop-if 'runq > 5ms' --trigger sched:sched_switch -o "$tmp/out.ftz" -d 1
expect_error "--stop-if twice" "^ftrec record: --stop-if cannot go with --trigger, nor be given twice" \
	"$FTREC" record --stop-if 'runq > 5ms' --stop-if 'io > 5ms' -o "$tmp/out.ftz" -d 1
expect_error "-n without --stop-if" "^ftrec record: -n COMM names the tasks a --stop-if counts" \
	"$FTREC" record -n workload -e sched:sched_switch -o "$tmp/out.ftz" -d 1
expect_error "-n with a quote" "^ftrec record: -n 'a\"b': expected a task name of 1 to 15 bytes" \
	"$FTREC" record -n 'a"b' --stop-if 'runq > 5ms' -o "$tmp/out.ftz" -d 1
expect_error "-n of 16 bytes" "^ftrec record: -n '0123456789abcdef': expected a task name" \
	"$FTREC" record -n 0123456789abcdef --stop-if 'runq > 5ms' -o "$tmp/out.ftz" -d 1
if [ -e "$TRACEFS/synthetic_events" ]; then
	note "this kernel has synthetic events: the refusal is tested with a fake tracefs only"
else
	expect_error "--stop-if without synthetic events" "^ftrec triage: --stop-if needs synthetic events, which this kernel lacks \(CONFIG_SYNTH_EVENTS" \
		"$FTREC" triage --kernel-ring --stop-if 'runq > 5ms' -o "$tmp/out.ftz" -d 1
fi
# a tracefs with synthetic_events but no hist files: the other option named
fake=$tmp/fake
mkdir -p "$fake/events/sched/sched_waking" "$fake/events/sched/sched_switch" "$fake/instances"
: > "$fake/synthetic_events"
: > "$fake/trace_marker"
: > "$fake/tracing_on"
expect_error "--stop-if without hist triggers" "^ftrec record: --stop-if needs hist triggers, which this kernel lacks \(CONFIG_HIST_TRIGGERS" \
	env FTREC_TRACEFS="$fake" "$FTREC" record --stop-if 'runq > 5ms' -o "$tmp/out.ftz" -d 1
expect_error "--stop-if unknown syscall" "^ftrec record: --stop-if 'syscall nosuch > 5ms': this kernel has no syscalls/sys_enter_nosuch" \
	env FTREC_TRACEFS="$fake" "$FTREC" record --stop-if 'syscall nosuch > 5ms' -o "$tmp/out.ftz" -d 1
mkdir -p "$fake/events/block/block_rq_issue/hist" "$fake/events/block/block_rq_complete"
expect_error "--stop-if io with -p" "^ftrec record: --stop-if 'io > 5ms' counts every block request: not with -p, -L or -n" \
	env FTREC_TRACEFS="$fake" "$FTREC" record --stop-if 'io > 5ms' -p 1 -o "$tmp/out.ftz" -d 1
[ -s "$fake/synthetic_events" ] && fail "--stop-if refused: synthetic_events written" || pass "--stop-if refused: nothing written"

# A command that cannot run: the recording still ends cleanly (exit 0), the summary says 127.
"$FTREC" record -q -e block:block_rq_issue -o "$tmp/cmd.ftz" -- /nonexistent/cmd 2>"$tmp/err"
assert_eq "missing COMMAND: ftrec exit" 0 "$?"
assert_contains "missing COMMAND: error names it" "$tmp/err" "^ftrec record: cannot run /nonexistent/cmd"
assert_contains "missing COMMAND: status in summary" "$tmp/err" "command exited with status 127"
assert_no_leftovers

assert_state_unchanged "$before"
finish
