#!/usr/bin/env bash
# test_fuzz.sh - every libFuzzer target (tests/fuzz/fuzz_*.c, built by `make fuzz-bins`):
#  1. replays tests/fuzz/regress/<target>/*, the inputs earlier runs crashed on;
#  2. fuzzes for FUZZ_TIME seconds (default 30; `make fuzz` uses 300) from seeds
#     made by tests/fuzz/mkseeds.py (samples/, trace.dat test files, tests/hostile,
#     tests/fuzz/sets for the ring and series target).
# A crash, leak, timeout (30 s per input) or RSS over 2 GB fails the test with the
# sanitizer's stack; the input is kept under /var/tmp/ftana-fuzz-findings/ so it can
# be added to tests/fuzz/regress/<target>/. Skips (77) when clang's libFuzzer is
# not installed. Prints the executions per target.
set -u
. "$(dirname "$0")/lib.sh"
FUZZ_TIME=${FUZZ_TIME:-30}
FUZZ_DIR=${FUZZ_DIR:-$ROOT_DIR/$BUILD/fuzz}
FINDINGS=${FUZZ_FINDINGS:-/var/tmp/ftana-fuzz-findings}

# target name -> suffix of its seed directory made by mkseeds.py
declare -A seeds=([ftz]=ftz [tracedat]=dat [db]=db [set]=set)
# decode/decode_tracedat.c keeps a libtracecmd handle it cannot close (closing it
# crashes libtracecmd 1.3) on purpose: one per process in ftana, one per damaged
# input here, so leak detection would stop at the first damaged trace.dat.
# The same kept handle (with its kallsyms) per damaged input adds up to ~2.5 MB each,
# hence the larger RSS limit for this target.
declare -A extra=([ftz]="" [tracedat]="-detect_leaks=0 -malloc_limit_mb=1048576 -rss_limit_mb=6144" [db]="" [set]="")
# libtracecmd mallocs sizes read from the file (tracecmd_open_head): in ftana an
# impossible size makes malloc return NULL and the open fail, so let ASan do the same
# rather than stop at each one. Library leaks we cannot fix: tests/fuzz/lsan.supp;
# for trace.dat no leak check at all, not even at exit (the kept handles, above).
declare -A env_of=([ftz]="LSAN_OPTIONS=suppressions=$TESTS_DIR/fuzz/lsan.supp:print_suppressions=0"
		   [tracedat]="ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1"
		   [db]="LSAN_OPTIONS=suppressions=$TESTS_DIR/fuzz/lsan.supp:print_suppressions=0"
		   [set]="LSAN_OPTIONS=suppressions=$TESTS_DIR/fuzz/lsan.supp:print_suppressions=0")
rt=$(${FUZZ_CC:-clang} -print-file-name="libclang_rt.fuzzer-$(uname -m).a" 2>/dev/null)
for t in "${!seeds[@]}"; do
	if [ ! -x "$FUZZ_DIR/fuzz_$t" ]; then
		if [ ! -f "$rt" ]; then
			echo "clang's libFuzzer is not installed (Debian: clang libclang-rt-14-dev; make deps)"
			exit 77
		fi
		echo "FAIL: $FUZZ_DIR/fuzz_$t not built (make BUILD=$BUILD fuzz-bins)"
		exit 1
	fi
done
command -v python3 >/dev/null || { echo "python3 not installed (seeds)"; exit 77; }

work=$(mktemp -d -p /var/tmp ftana-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
FTANA=$FTANA_PLAIN python3 "$TESTS_DIR/fuzz/mkseeds.py" "$work/seeds/ftz" "$work/seeds/dat" "$work/seeds/db" \
	"$work/seeds/set" ||
	{ echo "FAIL: mkseeds.py"; exit 1; }
# The harness's scratch files (tests/fuzz/harness.c) go here, removed with it.
export FUZZ_TMPDIR=$work
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# The sanitizer's report from a libFuzzer log, or its last lines.
show_finding() {
	if grep -qE '^==[0-9]+==ERROR|runtime error:|ERROR: libFuzzer' "$1"; then
		sed -n '/^==[0-9]*==ERROR\|runtime error:\|ERROR: libFuzzer/,/^SUMMARY/p' "$1" |
			head -n 40 | sed 's/^/      | /'
	else
		tail -n 20 "$1" | sed 's/^/      | /'
	fi
}

# keep_artifacts TARGET: copy crash inputs out of the work dir, say where.
keep_artifacts() {
	local a
	mkdir -p "$FINDINGS/$1"
	for a in "$work/art-$1-"*; do
		[ -f "$a" ] || continue
		cp "$a" "$FINDINGS/$1/"
		echo "      input kept: $FINDINGS/$1/$(basename "$a") (add it to tests/fuzz/regress/$1/)"
	done
}

for t in ftz tracedat db set; do
	bin=$FUZZ_DIR/fuzz_$t
	regress=$TESTS_DIR/fuzz/regress/$t
	# shellcheck disable=SC2206  # extra options are words
	common=(-close_fd_mask=3 -timeout=30 -rss_limit_mb=2048 ${extra[$t]})

	# 1. Regression inputs: each run once.
	inputs=("$regress"/*)
	if [ -f "${inputs[0]}" ]; then
		if env ${env_of[$t]} "$bin" "${common[@]}" "${inputs[@]}" >"$work/$t.replay.log" 2>&1; then
			pass "fuzz_$t: ${#inputs[@]} regression inputs replayed"
		else
			fail "fuzz_$t: a regression input fails again:"
			grep -E '^Running: ' "$work/$t.replay.log" | tail -n 1 | sed 's/^/      /'
			show_finding "$work/$t.replay.log"
		fi
	fi

	# 2. Fuzz from the seeds (and the regression inputs, as seeds too).
	mkdir -p "$work/corpus-$t"
	dirs=("$work/corpus-$t" "$work/seeds/${seeds[$t]}")
	[ -d "$regress" ] && dirs+=("$regress")
	# -max_total_time does not bound the first pass over the seeds: timeout does.
	timeout $((FUZZ_TIME * 3 + 120)) env ${env_of[$t]} "$bin" "${common[@]}" \
		-max_total_time="$FUZZ_TIME" -print_final_stats=1 \
		-artifact_prefix="$work/art-$t-" "${dirs[@]}" >"$work/$t.log" 2>&1
	rc=$?
	execs=$(awk -F: '/stat::number_of_executed_units/ { gsub(/ /, "", $2); print $2 }' "$work/$t.log")
	[ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$work/$t.log" | tail -n 1 | tr -d '#')
	cov=$(grep -oE 'cov: [0-9]+' "$work/$t.log" | tail -n 1)
	if [ $rc = 124 ]; then
		fail "fuzz_$t: still running after $((FUZZ_TIME * 3 + 120)) s (a hang in the seeds?)"
		tail -n 5 "$work/$t.log" | sed 's/^/      | /'
	elif [ $rc = 0 ]; then
		pass "fuzz_$t: ${execs:-?} executions in ${FUZZ_TIME} s, ${cov:-cov ?}, no finding"
	else
		fail "fuzz_$t: finding after ${execs:-?} executions (libFuzzer exit $rc):"
		show_finding "$work/$t.log"
		keep_artifacts "$t"
	fi
done

# 3. ftana itself on every regression input: the trace.dat target skips inputs on
# which libtracecmd or libtraceevent's kbuffer crash by themselves (harness.h), so
# here ftana must contain them -- exit 0, 1 or 3, never a signal, at most one
# error line, names from the file escaped, and no file left beside the input.
for t in ftz tracedat; do
	for input in "$TESTS_DIR/fuzz/regress/$t"/*; do
		[ -f "$input" ] && [ "$(basename "$input")" != .keep ] || continue
		dir=$(mktemp -d -p "$work" ftana-replay.XXXXXX)
		cp "$input" "$dir/"
		copy=$dir/$(basename "$input")
		HOME=$dir XDG_CACHE_HOME=$dir/cache timeout 120 "$FTANA_PLAIN" db "$copy" \
			-o "$dir/out.db" >"$dir/stdout" 2>"$dir/stderr"
		rc=$?
		lines=$(grep -vc 'warning' "$dir/stderr")
		stray=$(cd "$dir" && ls -A | grep -vxE "$(basename "$copy")|out\.db|cache|stdout|stderr")
		if [ $rc != 0 ] && [ $rc != 1 ] && [ $rc != 3 ]; then
			fail "ftana db on regression input $t/$(basename "$input"): exit $rc"
		elif [ "$lines" -gt 1 ]; then
			fail "ftana db on regression input $t/$(basename "$input"): $lines error lines"
		elif LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$dir/stderr" ||
		     ! iconv -f UTF-8 -t UTF-8 "$dir/stderr" >/dev/null 2>&1; then
			fail "ftana db on regression input $t/$(basename "$input"): raw control or non-UTF-8 bytes on stderr"
		elif [ -n "$stray" ]; then
			fail "ftana db on regression input $t/$(basename "$input") left $stray"
		else
			pass "ftana db contains regression input $t/$(basename "$input") (exit $rc)"
		fi
	done
done
finish
