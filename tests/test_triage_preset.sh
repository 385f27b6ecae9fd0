#!/usr/bin/env bash
# test_triage_preset.sh - `ftrec triage` records exactly its chosen events: without
# --syscalls the 11 scheduler/process/block/signal tracepoints and nothing else, with
# --syscalls also every syscalls:sys_enter_*/sys_exit_* this kernel has (compared with
# the kernel's own events directory); an event the kernel lacks is left out with a note
# (a stand-in tracefs missing some), none at all is a one-line error; -d as a positional;
# --syscalls' optional open-path kprobe: one note where the kernel has no kprobes.
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTREC" "$FTANA"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

want="block:block_rq_complete block:block_rq_insert block:block_rq_issue sched:sched_process_exec sched:sched_process_exit sched:sched_process_fork sched:sched_switch sched:sched_wakeup sched:sched_wakeup_new signal:signal_deliver signal:signal_generate"

# A stand-in tracefs (FTREC_TRACEFS) with only sched_switch and signal_generate: a note
# for each of the other 9, for --syscalls, then the recording itself fails on the
# stand-in (no per-CPU buffers): only the notes are checked.
fake=$tmp/fake
mkdir -p "$fake/events/sched/sched_switch" "$fake/events/signal/signal_generate"
touch "$fake/tracing_on" "$fake/events/sched/sched_switch/enable" "$fake/events/signal/signal_generate/enable"
FTREC_TRACEFS=$fake "$FTREC" triage --syscalls -d 0.1 -o "$tmp/fake.ftz" >/dev/null 2>"$tmp/fake.err"
assert_eq "stand-in: a note for each of the 9 missing events" 9 \
	"$(grep -c '^ftrec triage: note: this kernel has no [a-z_]*:[a-z_]*: left out$' "$tmp/fake.err")"
assert_eq "stand-in: no note for the two it has" 0 "$(grep -c 'no sched:sched_switch\|no signal:signal_generate' "$tmp/fake.err")"
assert_eq "stand-in: --syscalls left out with a note" 1 "$(grep -c 'no syscalls events .*--syscalls left out' "$tmp/fake.err")"
rm -rf "$fake/events/sched" "$fake/events/signal"
FTREC_TRACEFS=$fake "$FTREC" triage -o "$tmp/none.ftz" -d 0.1 >/dev/null 2>"$tmp/none.err"
assert_eq "no triage event at all: exit 1" 1 $?
assert_eq "no triage event at all: one line saying so" 1 \
	"$(grep -c "^ftrec triage: this kernel has none of the triage events (see $fake/available_events)\$" "$tmp/none.err")"
assert_eq "no triage event at all: nothing else said but the notes" 12 "$(wc -l <"$tmp/none.err")"
"$FTREC" triage --help >"$tmp/help" 2>&1
assert_eq "--help: exit 0" 0 $?
assert_contains "--help: names --syscalls" "$tmp/help" '--syscalls'
assert_contains "--help: the cost line points at make bench" "$tmp/help" "make"
"$FTREC" triage --nope >/dev/null 2>"$tmp/bad"
assert_eq "unknown option: exit 1" 1 $?

# live: what the kernel recorded is what triage chose
if [ "$(id -u)" != 0 ] || [ ! -w "$TRACEFS/tracing_on" ]; then
	echo "no writable tracefs: live part skipped"
	finish
fi
"$FTREC" triage -q -o "$tmp/t.ftz" 0.3 2>"$tmp/t.err" || fail "ftrec triage 0.3: $(cat "$tmp/t.err")"
"$FTANA" sql "$tmp/t.ftz" "SELECT system || ':' || name FROM event_types ORDER BY 1" --csv |
	tail -n +2 | grep -v '^ftrace:' | tr '\n' ' ' | sed 's/ $//' >"$tmp/events"
expected=$(for e in $want; do [ -e "$TRACEFS/events/${e%%:*}/${e#*:}" ] && echo "$e"; done | sort | tr '\n' ' ' | sed 's/ $//')
assert_eq "without --syscalls: exactly the chosen events this kernel has" "$expected" "$(cat "$tmp/events")"
assert_eq "the SECONDS positional: stopped by the duration" "duration" \
	"$("$FTANA" sql "$tmp/t.ftz" "SELECT value FROM meta WHERE key = 'stop_reason'" --csv | tail -n 1)"
if [ -d "$TRACEFS/events/syscalls" ]; then
	"$FTREC" triage --syscalls -q -o "$tmp/s.ftz" -d 0.3 2>"$tmp/s.err" || fail "ftrec triage --syscalls: $(cat "$tmp/s.err")"
	assert_eq "--syscalls: every sys_enter_/sys_exit_ event of the kernel" \
		"$(ls "$TRACEFS/events/syscalls" | grep -c '^sys_e')" \
		"$("$FTANA" sql "$tmp/s.ftz" "SELECT count(*) FROM event_types WHERE system = 'syscalls'" --csv | tail -n 1)"
	# the optional probes (open path, exec arguments): recorded where the kernel has
	# kprobes and takes them, else one note and the recording goes on; never a probe
	# left behind
	probe_hits=$("$FTANA" sql "$tmp/s.ftz" "SELECT count(*) FROM event_types WHERE name = 'ftrec_open_path'" --csv | tail -n 1)
	if [ ! -e "$TRACEFS/kprobe_events" ]; then
		# (the summary, and its loss warning on a busy host, are not about the probe)
		assert_eq "--syscalls without kprobes: one note, and no other" \
			"ftrec triage: note: this kernel has no kprobe_events: the optional probes left out" \
			"$(grep -v '^ftrec: stopped\|^  \|^ftrec triage: warning: events were LOST' "$tmp/s.err")"
		assert_eq "--syscalls without kprobes: no probe event in the capture" 0 "$probe_hits"
	else
		assert_eq "--syscalls with kprobes: the probe recorded, or one note saying it was refused" 1 \
			"$(( probe_hits + $(grep -c "^ftrec triage: note: the kernel refused the probe 'p:ftrec_open_path " "$tmp/s.err") ))"
		assert_eq "--syscalls with kprobes: no ftrec probe left in kprobe_events" 0 \
			"$(grep -c "ftrec_open_path" "$TRACEFS/kprobe_events")"
	fi
fi
finish
