# Shared helpers for the live shell tests (source it: . "$(dirname "$0")/lib.sh").
#
# Env from tests/run.sh: FTREC, FTANA (sanitized), FTREC_STATIC, FTANA_PLAIN, BUILD.
set -u
TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT_DIR=$(cd "$TESTS_DIR/.." && pwd)
BUILD=${BUILD:-build}
FTREC=${FTREC:-$ROOT_DIR/$BUILD/san/ftrec}
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
FTREC_STATIC=${FTREC_STATIC:-$ROOT_DIR/$BUILD/ftrec}
FTZDUMP=${FTZDUMP:-$ROOT_DIR/$BUILD/ftzdump}
TRACEFS=${TRACEFS:-/sys/kernel/tracing}
FAILS=0
# Every ftrec a test starts keeps its undo state file here (run.sh gives each test a
# directory of its own), so a tracefs instance or state file is the test's own exactly
# when its state file is here. Another tracer on the same kernel (a second test run, an
# engineer's ftrec, a container's) has its state elsewhere and is left out of the checks.
export FTREC_STATE_DIR=${FTREC_STATE_DIR:-${TMPDIR:-/tmp}/ftrec-tests-state}

# Skip (exit 77, reason as the last stdout line) unless root with a writable tracefs.
require_root_tracefs() {
	if [ "$(id -u)" != 0 ]; then
		echo "not root: live tracefs tests need root"
		exit 77
	fi
	if [ ! -w "$TRACEFS/tracing_on" ]; then
		echo "no writable tracefs at $TRACEFS"
		exit 77
	fi
}

# A binary the test needs must exist: a missing one is a failure, not a skip.
require_bin() {
	local b
	for b in "$@"; do
		[ -x "$b" ] || { echo "FAIL: missing $b (make test-bins BUILD=$BUILD)"; exit 1; }
	done
}

fail() {
	echo "FAIL: $*"
	FAILS=$((FAILS + 1))
}

pass() {
	echo "ok:   $*"
}

# assert_eq WHAT EXPECTED SEEN
assert_eq() {
	if [ "$2" == "$3" ]; then pass "$1 = $3"; else fail "$1: expected '$2', seen '$3'"; fi
}

# assert_ge WHAT MIN SEEN
assert_ge() {
	if [ "$3" -ge "$2" ] 2>/dev/null; then pass "$1 = $3 (>= $2)"; else fail "$1: expected >= $2, seen '$3'"; fi
}

# assert_contains WHAT FILE PATTERN (grep -E)
assert_contains() {
	if grep -qE -- "$3" "$2"; then pass "$1"; else
		fail "$1: '$3' not in $2:"; sed 's/^/      | /' "$2" | tail -n 20
	fi
}

# assert_one_line_error WHAT STDERR_FILE PATTERN: exactly one line, mentioning PATTERN.
assert_one_line_error() {
	local n; n=$(grep -c . "$2")
	if [ "$n" = 1 ] && grep -qE -- "$3" "$2"; then pass "$1: $(cat "$2")"; else
		# the lines in the FAIL line too: run.sh shows a long log's FAIL lines, not its middle
		fail "$1: expected one line matching '$3', got $n lines: $(head -n 5 "$2" | tr '\n' '|' | cut -c1-600)"
		sed 's/^/      | /' "$2"
	fi
}

# Filter names "ftrec-PID[.undo]": drop those of live processes (other tests may be
# recording at the same time) and those with no state file in FTREC_STATE_DIR (not
# started by this test: another tracer on this kernel); everything else passes.
dead_ftrec_or_other() {
	local n pid
	while read -r n; do
		pid=${n#ftrec-}; pid=${pid%.undo}
		if [ "$pid" != "$n" ] && [ -n "$pid" ]; then
			[ -d "/proc/$pid" ] && continue
			[ -e "$FTREC_STATE_DIR/ftrec-$pid.undo" ] || continue
		fi
		echo "$n"
	done
}

# The tracefs state ftrec and the tests must leave as they found it: every top-level
# setting either may touch (tracer, clock, buffer sizes as the kernel prints them,
# so a never-expanded "7 (expanded: 1408)" is told apart from "1408"), event,
# function and graph filters, pid lists, options, enabled events, event filters and
# triggers, dynamic events, instances, and the sysctls ftrec or the tests write.
# Files this kernel lacks or refuses to read (function files without the function
# tracer answer EPERM) print empty, the same way before and after.
snapshot_tracefs_state() {
	(
		cd "$TRACEFS" || exit 1
		for f in tracing_on current_tracer trace_clock buffer_size_kb buffer_subbuf_size_kb \
			buffer_percent tracing_cpumask tracing_thresh max_graph_depth saved_cmdlines_size \
			set_event set_event_pid set_event_notrace_pid set_ftrace_filter set_ftrace_notrace \
			set_ftrace_pid set_ftrace_notrace_pid set_graph_function set_graph_notrace \
			kprobe_events uprobe_events dynamic_events synthetic_events \
			per_cpu/cpu*/buffer_size_kb; do
			[ -e "$f" ] && printf '%s: %s\n' "$f" "$(tr '\n' ' ' 2>/dev/null <"$f")"
		done
		for f in options/*; do printf '%s: %s\n' "$f" "$(cat "$f")"; done
		grep -H -v '^none$' events/*/*/filter 2>/dev/null
		grep -H -v '^#' events/*/*/trigger 2>/dev/null
		printf 'instances: %s\n' "$(ls instances 2>/dev/null | dead_ftrec_or_other | tr '\n' ' ')"
		for f in kptr_restrict ftrace_enabled stack_tracer_enabled; do
			[ -e "/proc/sys/kernel/$f" ] && printf '%s: %s\n' "$f" "$(cat "/proc/sys/kernel/$f")"
		done
	)
}

# tracefs_state_settles BEFORE_FILE DIFF_FILE: true when the current snapshot equals
# BEFORE, at once or within ~6 s; otherwise the last difference is left in DIFF_FILE.
# Whoever changed tracefs has exited when this runs, so a change it made stays; a
# difference that goes away came from another program tracing at the same time
# (perf-tools, other tests on a shared host) and is reported, not failed.
tracefs_state_settles() {
	local now try; now=$(mktemp)
	for try in 1 2 3 4 5 6; do
		snapshot_tracefs_state >"$now"
		diff -u "$1" "$now" >"$2" && break
		[ $try = 1 ] && { echo "note: tracefs differs, re-checking:"; sed 's/^/      | /' "$2"; }
		sleep 1
	done
	rm -f "$now"
	[ ! -s "$2" ]
}

# assert_state_unchanged BEFORE_FILE: compare the current snapshot with an earlier one.
assert_state_unchanged() {
	local d; d=$(mktemp)
	if tracefs_state_settles "$1" "$d"; then pass "tracefs state unchanged"; else
		fail "tracefs state changed:"; sed 's/^/      | /' "$d"
	fi
	rm -f "$d"
}

# No ftrec-* instance and no undo state file of a dead ftrec may remain.
assert_no_leftovers() {
	local inst; inst=$(ls "$TRACEFS/instances" 2>/dev/null | grep '^ftrec-' | dead_ftrec_or_other | tr '\n' ' ')
	assert_eq "leftover ftrec instances" "" "$inst"
	local st; st=$(ls "$FTREC_STATE_DIR" 2>/dev/null | grep '\.undo$' | dead_ftrec_or_other | tr '\n' ' ')
	assert_eq "leftover undo state files" "" "$st"
}

# ftz_cpu_events FILE CPU -> events ftzdump counts for that CPU (0 when it has none).
ftz_cpu_events() {
	"$FTZDUMP" -q "$1" | awk -v c="$2" '$1 == "cpu" && $2 == c { print $6; f = 1 } END { if (!f) print 0 }'
}

# ftz_event_count FILE NAME -> events of type NAME.
ftz_event_count() {
	"$FTZDUMP" -q "$1" | awk -v n="$2" '$1 == "event" && $2 == n { print $3; f = 1 } END { if (!f) print 0 }'
}

# ftz_end FILE -> clean | no-end-section | damaged
ftz_end() {
	"$FTZDUMP" -q "$1" | awk '$1 == "end" { print $2 }'
}

# summary_column STDERR_FILE CPU COLUMN -> a column of ftrec's summary table
# (2 pages, 3 events, 4 kernel-read, 5 unread, 6 lost, 7 missed-flag-pages).
summary_column() {
	awk -v c="$2" -v k="$3" '/^  cpu +pages/ { t = 1; next } t && $1 == c { print $k; exit }' "$1"
}

# wait_for_instance PID: wait until ftrec PID has switched tracing on (max ~10 s).
wait_for_recording() {
	local i
	for i in $(seq 100); do
		grep -q '^ftrec: recording' "$2" 2>/dev/null && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# finish: exit status for the test.
finish() {
	if [ "$FAILS" -gt 0 ]; then echo "$FAILS check(s) failed"; exit 1; fi
	echo "all checks passed"
	exit 0
}
