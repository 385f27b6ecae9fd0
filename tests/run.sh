#!/usr/bin/env bash
# Runs every test: cmocka unit tests (built with ASan+UBSan), live shell tests
# (tests/test_*.sh: exit 0 = pass, 77 = skip with a reason on stdout, else fail),
# then the kernel lab (tests/lab/run.sh) when qemu is available. In CI (CI=true)
# a lab that cannot run is a failure, never a silent skip.
# As root, a shell test or the lab that leaves the top-level tracefs different from
# how it found it fails, whatever it printed (snapshot_tracefs_state in tests/lib.sh).
# Each test gets its own FTREC_STATE_DIR: the ftrec undo state files left there after
# it (a recording still running, or killed and not reset) fail it, and only instances
# with a state file there are its own (another tracer on this kernel is not).
# Ends with one line: "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export FTREC=${FTREC:-$PWD/$BUILD/san/ftrec}
export FTANA=${FTANA:-$PWD/$BUILD/san/ftana}
export FTREC_STATIC=${FTREC_STATIC:-$PWD/$BUILD/ftrec}
export FTANA_PLAIN=${FTANA_PLAIN:-$PWD/$BUILD/ftana}
export FTZDUMP=${FTZDUMP:-$PWD/$BUILD/ftzdump} # independent event counter (tools/ftzdump.c)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
. tests/lib.sh # snapshot_tracefs_state, tracefs_state_settles (after the exports: it defaults them)
pass=0 fail=0 skip=0 failed=()

# Only root can change tracefs (and read all of it).
watch_tracefs=
[ "$(id -u)" = 0 ] && [ -r "$TRACEFS/tracing_on" ] && watch_tracefs=1

run_one() { # name, command...
	local name=$1; shift
	local log; log=$(mktemp)
	local t0=$SECONDS
	FTREC_STATE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/ftrec-state.XXXXXX")
	[ -n "$watch_tracefs" ] && snapshot_tracefs_state >"$log.before"
	"$@" >"$log" 2>&1
	local rc=$?
	local left; left=$(ls "$FTREC_STATE_DIR" | tr '\n' ' ')
	if [ -n "$left" ]; then
		echo "FAIL: $name left ftrec undo state (a recording still running, or killed and not reset): $left" >>"$log"
		case $rc in 0 | 77) rc=1 ;; esac
		"$FTREC" reset >/dev/null 2>&1
	fi
	if [ -n "$watch_tracefs" ]; then
		if ! tracefs_state_settles "$log.before" "$log.diff" >/dev/null; then
			{ echo "FAIL: $name left the top-level tracefs changed:"; sed 's/^/      | /' "$log.diff"; } >>"$log"
			case $rc in 0 | 77) rc=1 ;; esac
		fi
		rm -f "$log.before" "$log.diff"
	fi
	rm -rf "$FTREC_STATE_DIR"
	case $rc in
	0) pass=$((pass + 1)); printf 'PASS  %-40s %3ds\n' "$name" $((SECONDS - t0)) ;;
	77) skip=$((skip + 1)); printf 'SKIP  %-40s %s\n' "$name" "$(tail -n 1 "$log")" ;;
	*) fail=$((fail + 1)); failed+=("$name"); printf 'FAIL  %-40s (exit %d)\n' "$name" $rc
	   # the failed checks first (a long log's tail may not hold them), then the tail
	   grep -E '^(FAIL|not ok|\[  FAILED  \])' "$log" | head -n 20 | sed 's/^/    ! /'
	   sed 's/^/    | /' "$log" | tail -n 60 ;;
	esac
	rm -f "$log"
}

for t in "$BUILD"/san/tests/test_*; do
	[ -x "$t" ] && run_one "$(basename "$t")" "$t"
done
for t in tests/test_*.sh; do
	[ -f "$t" ] && run_one "$(basename "$t")" bash "$t"
done
if [ -x tests/lab/run.sh ]; then
	if command -v qemu-system-x86_64 >/dev/null || [ "${CI:-}" = true ]; then
		run_one lab tests/lab/run.sh
	else
		skip=$((skip + 1)); echo "SKIP  lab  qemu-system-x86_64 not installed (make deps installs it)"
	fi
fi

echo
[ $fail -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
