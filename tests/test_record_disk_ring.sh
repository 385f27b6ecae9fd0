#!/usr/bin/env bash
# The disk ring (--ring) and the series (--rotate), live on this host.
# Ground truth is a workload of our own: it writes "s 0", "s 1", ... to the
# instance's trace_marker at a steady rate and counts the writes that succeeded
# (a write fails once ftrec switched tracing off), and the test's own sampling of
# the files on disk -- not ftrec's counters.
#  - --ring 4M under a steady stream for 62 s: the ring's files, sampled every
#    0.5 s, never exceed SIZE + one segment (+ its last batch) + the head; after
#    SIGINT the last event is within 1 s of the stop, the markers kept are
#    contiguous up to the last one written, everything before them is counted as
#    trimmed (trimmed + kept = written + ftrec's start marker), nothing is lost,
#    and `ftana info` says trimmed, not lost;
#  - kill -9 of a ring recording leaves a readable capture of the newest segments,
#    and `ftrec reset` cleans tracefs;
#  - a slow stream (100 markers a second in the default buffer), plain and --ring:
#    kill -9 1.2 s after the last marker leaves every marker in the file;
#  - --rotate SECS and SIZE: files each readable alone, whose markers add up to
#    what the workload wrote, and `ftana db` of them all joins them into one.
. "$(dirname "$0")/lib.sh"
require_root_tracefs
require_bin "$FTREC" "$FTANA"
command -v python3 >/dev/null || { echo "python3 is not installed"; exit 77; }

LOAD="python3 $TESTS_DIR/ring_load.py"
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; done; rm -rf "$tmp"' EXIT
before=$tmp/before
snapshot_tracefs_state >"$before"

q() { "$FTANA" sql "$1" "$2" --csv 2>/dev/null | tail -n +2; }
meta() { q "$1" "SELECT value FROM meta WHERE key = '$2'"; }
mono_ns() { python3 -c 'import time; print(time.monotonic_ns())'; }
dir_bytes() { find "$1" -maxdepth 1 -type f ! -name '*.db*' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
# Only the markers go into the ring: the one event enabled can never match.
REC_ARGS=(-e syscalls:sys_enter_getppid -f 'common_pid < 0' -b 4096)
# markers FILE: "count min max" of the workload's markers in the capture
markers() {
	q "$1" "SELECT count(*), min(n), max(n) FROM (SELECT CAST(substr(buf, 3) AS INTEGER) AS n
	        FROM print WHERE buf GLOB 's [0-9]*')" | tr ',' ' '
}
# recording WHAT ERRFILE ARGS...: ftrec record ARGS in the background (its pid in rec),
# until it says it records; else a failure naming WHAT, and status 1
recording() {
	local what=$1 err=$2
	shift 2
	"$FTREC" record "$@" 2>"$err" &
	rec=$!
	pids+=($rec)
	wait_for_recording $rec "$err" && return 0
	fail "$what: recording did not start: $(cat "$err")"
	return 1
}
start_load() { # RATE SECONDS COUNTFILE (after the instance exists)
	# on one CPU: the ring trims each CPU's oldest pages, so contiguity is per CPU
	taskset -c 0 $LOAD markers "$TRACEFS/instances/ftrec-$rec/trace_marker" "$1" "$2" "$3" & load=$!
	pids+=($load)
}

# ------------------------------------------------------------- ring 4M, 62 s
mkdir "$tmp/ring"
out=$tmp/ring/r.ftz
SIZE=$((4 << 20)); SEG=$((SIZE / 8)); BATCH=$((64 * 4096 + 48))
"$FTREC" record "${REC_ARGS[@]}" --ring 4M -o "$out" 2>"$tmp/err.ring" &
rec=$!
pids+=($rec)
if wait_for_recording $rec "$tmp/err.ring"; then
	start_load 40000 200 "$tmp/count.ring"
	head_size=$(stat -c %s "$out")
	bound=$((SIZE + SEG + BATCH + head_size + 65536)) # 64K: a new segment's INFO before the oldest goes
	max=0; over=0; samples=0
	for i in $(seq 124); do
		s=$(dir_bytes "$tmp/ring")
		[ "$s" -gt "$max" ] && max=$s
		[ "$s" -gt "$bound" ] && over=$((over + 1))
		samples=$((samples + 1))
		sleep 0.5
	done
	echo "note: ring files on disk: at most $max bytes over $samples samples (bound $bound)"
	assert_eq "ring: samples over the bound SIZE + segment + batch + head" 0 "$over"
	stop=$(mono_ns)
	kill -INT $rec
	wait $rec
	assert_eq "ring: ftrec exit status" 0 $?
	wait $load
	written=$(cat "$tmp/count.ring")
	segs=$(ls "$tmp/ring" | grep -c '^r\.ring-[0-9]*\.ftz$')
	echo "note: workload wrote $written markers; $segs segments kept: $(ls "$tmp/ring" | tr '\n' ' ')"
	complete=$(ls "$tmp/ring"/r.ring-*.ftz | head -n -1 | xargs stat -c %s | awk '{ s += $1 } END { print s + 0 }')
	[ "$complete" -le $SIZE ] && pass "ring: complete segments kept $complete <= $SIZE" ||
		fail "ring: complete segments hold $complete bytes > $SIZE"
	"$FTANA" info "$out" >"$tmp/info.ring" 2>&1
	assert_eq "ring: ftana info exit status" 0 $?
	assert_contains "ring: info says trimmed by the ring, not lost" "$tmp/info.ring" \
		"^ring .*trimmed by the ring .*not lost"
	grep -q MISSING "$tmp/info.ring" && fail "ring: info reports a gap" || pass "ring: no gap between segments"
	assert_eq "ring: end state" clean "$(meta "$out" end_state)"
	read -r n lo hi <<<"$(markers "$out")"
	assert_eq "ring: markers kept are contiguous (count = max - min + 1)" $((hi - lo + 1)) "$n"
	assert_eq "ring: the last marker written is the last kept" $((written - 1)) "$hi"
	[ "${lo:-0}" -gt 0 ] && pass "ring: the oldest markers were trimmed (first kept: s $lo)" ||
		fail "ring: nothing was trimmed (first kept '$lo'): the stream was too small"
	trimmed=$(meta "$out" ring_trimmed_events)
	kept=$(meta "$out" events_total)
	# ftrec's own start marker (on any CPU) is trimmed with markers 0 .. lo-1, or kept
	[ "$trimmed" = "$lo" ] || [ "$trimmed" = $((lo + 1)) ] &&
		pass "ring: trimmed events $trimmed = the markers before the first kept (+ the start marker)" ||
		fail "ring: trimmed events $trimmed, first kept marker s $lo"
	assert_eq "ring: kept + trimmed = written + start marker" $((written + 1)) $((kept + trimmed))
	assert_eq "ring: events lost (pages flagged) in the kept segments" 0 "$(q "$out" 'SELECT count(*) FROM lost_events')"
	assert_eq "ring: kernel overruns" 0 "$(q "$out" 'SELECT ifnull(sum(overrun), 0) FROM cpu_stats_delta')"
	# The cache is keyed on every file: one segment fewer is another capture.
	db1=$("$FTANA" db "$out")
	oldest=$(ls "$tmp/ring"/r.ring-*.ftz | head -1)
	gone=$(q "$out" "SELECT substr(value, instr(value, ' events ') + 8,
	           instr(substr(value, instr(value, ' events ') + 8), ' ') - 1) AS n
	           FROM meta WHERE key = 'segment_stats_1'")
	rm "$oldest"
	assert_eq "ring: without its oldest segment, events" $((kept - gone)) "$(meta "$out" events_total)"
	assert_eq "ring: ... and that segment counts as trimmed" $((trimmed + gone)) "$(meta "$out" ring_trimmed_events)"
	assert_eq "ring: the rebuilt database is the same file name" "$db1" "$("$FTANA" db "$out")"
	# A segment missing in the middle is a gap: info and every report's loss warning say so.
	middle=$(ls "$tmp/ring"/r.ring-*.ftz | sed -n 3p)
	mnum=$(basename "$middle" .ftz); mnum=$((10#${mnum#r.ring-}))
	rm "$middle"
	"$FTANA" info "$out" >"$tmp/info.gap" 2>&1
	assert_contains "ring: info names the missing segment" "$tmp/info.gap" "^gaps +MISSING $mnum:"
	"$FTANA" report tpoint "$out" >/dev/null 2>"$tmp/warn.gap"
	assert_contains "ring: a report warns of the missing segment" "$tmp/warn.gap" "warning: files $mnum of this capture .* are missing: their events are lost"
	last=$(meta "$out" last_ts)
	gap=$((stop - last)); gap=${gap#-}
	[ "$gap" -lt 1000000000 ] && pass "ring: last event $gap ns from the SIGINT (< 1 s)" ||
		fail "ring: last event $gap ns from the SIGINT"
else
	fail "ring: recording did not start: $(cat "$tmp/err.ring")"
fi

# ------------------------------------------------------------- kill -9
mkdir "$tmp/k9"
out=$tmp/k9/k.ftz
"$FTREC" record "${REC_ARGS[@]}" --ring 1M -o "$out" 2>"$tmp/err.k9" &
rec=$!
pids+=($rec)
if wait_for_recording $rec "$tmp/err.k9"; then
	start_load 40000 30 "$tmp/count.k9"
	for i in $(seq 100); do # until the ring has trimmed (a few seconds)
		[ -e "$tmp/k9/k.ring-000001.ftz" ] || [ $i -lt 10 ] || break
		sleep 0.2
	done
	kill -9 $rec
	wait $rec 2>/dev/null
	kill $load # it would write on: tracing is still on in the orphaned instance
	wait $load 2>/dev/null
	"$FTREC" reset >"$tmp/reset.out" 2>&1
	assert_eq "kill -9: ftrec reset exit status" 0 $?
	"$FTANA" info "$out" >"$tmp/info.k9" 2>&1
	st=$?
	[ $st = 0 ] || [ $st = 3 ] && pass "kill -9: ftana info reads the ring (exit $st)" ||
		fail "kill -9: ftana info exit $st: $(head -3 "$tmp/info.k9")"
	assert_contains "kill -9: no END section, trimmed segments counted" "$tmp/info.k9" "^ring +[1-9][0-9]* segments"
	read -r n lo hi <<<"$(markers "$out")"
	[ "${n:-0}" -gt 0 ] && [ $((hi - lo + 1)) = "$n" ] &&
		pass "kill -9: $n markers kept, contiguous from s $lo to s $hi" ||
		fail "kill -9: markers kept: count '$n' min '$lo' max '$hi'"
	newest=$(ls "$tmp/k9" | grep '^k\.ring-[0-9]*\.ftz$' | tail -1)
	assert_eq "kill -9: the newest segment is read" 1 \
		"$(q "$out" "SELECT count(*) FROM meta WHERE key GLOB 'segment_stats_*' AND value GLOB '$newest *'")"
	# A new ring of the same name replaces the old one's segments (else: another capture_id beside the head).
	"$FTREC" record "${REC_ARGS[@]}" --ring 1M -d 0.5 -o "$out" 2>"$tmp/err.k9b"
	assert_eq "new ring over an old one: exit status" 0 $?
	assert_contains "new ring over an old one: the old segments are removed" "$tmp/err.k9b" "removed [0-9]+ segments of an earlier recording"
	assert_eq "new ring over an old one: segments" "k.ring-000001.ftz" "$(ls "$tmp/k9" | grep '^k\.ring-[0-9]*\.ftz$' | tr '\n' ' ' | sed 's/ $//')"
	"$FTANA" info "$out" >/dev/null 2>&1
	assert_eq "new ring over an old one: ftana info exit status" 0 $?
	# A file named like a segment that is not one of this capture: refused, and not ftrec's to delete.
	cp "$tmp/ring/r.ftz" "$tmp/k9/k.ring-000099.ftz"
	"$FTANA" info "$out" >/dev/null 2>"$tmp/err.k9c"
	assert_eq "foreign segment: ftana info exit status" 1 $?
	assert_one_line_error "foreign segment: refused" "$tmp/err.k9c" "k.ring-000099.ftz: not part of the capture .*capture_id differs"
	"$FTREC" record "${REC_ARGS[@]}" --ring 1M -d 0.5 -o "$out" 2>/dev/null
	[ -e "$tmp/k9/k.ring-000099.ftz" ] && pass "new ring: a file ftrec did not write as a segment stays" ||
		fail "new ring: removed k.ring-000099.ftz, which it did not write"
else
	fail "kill -9: recording did not start: $(cat "$tmp/err.k9")"
fi

# ------------------------------------------------------------- a slow stream, kill -9
# 100 markers a second into the default buffer (the kernel wakes a reader at half of
# it, and splice gives whole pages only): 1.2 s after the last one, kill -9. Every
# marker must be in the file (ftrec writes every event within 1 s, at any rate), and
# ftrec has not lost or doubled one.
for mode in ring plain; do
	mkdir "$tmp/slow$mode"
	out=$tmp/slow$mode/s.ftz
	args=(-e syscalls:sys_enter_getppid -f 'common_pid < 0' -o "$out")
	[ $mode = ring ] && args+=(--ring 1M)
	recording "slow stream ($mode)" "$tmp/err.slow" "${args[@]}" || continue
	start_load 100 5 "$tmp/count.slow"
	wait $load
	sleep 1.2
	kill -9 $rec
	wait $rec 2>/dev/null
	"$FTREC" reset >/dev/null 2>&1
	written=$(cat "$tmp/count.slow")
	read -r n lo hi <<<"$(markers "$out")"
	assert_eq "slow stream ($mode), kill -9 1.2 s after the last marker: every marker is in the file" \
		"$written 0 $((written - 1))" "${n:-0} ${lo:-} ${hi:-}"
done

# ------------------------------------------------------------- --rotate SECS and SIZE
for mode in ${ROTATE_MODES:-2 64K}; do
	mkdir "$tmp/rot$mode"
	out=$tmp/rot$mode/s.ftz
	recording "--rotate $mode" "$tmp/err.rot" "${REC_ARGS[@]}" --rotate $mode -o "$out" || continue
	start_load 20000 200 "$tmp/count.rot"
	sleep 7
	kill -INT $rec
	wait $rec
	assert_eq "--rotate $mode: ftrec exit status" 0 $?
	wait $load
	written=$(cat "$tmp/count.rot")
	files=($(ls "$tmp/rot$mode"/s-[0-9][0-9][0-9][0-9].ftz))
	# SECS: 7 s make 3-4 files. SIZE: as many as the pages written make, which a loaded
	# machine's marker rate decides (once 2 in CI): at least one rotation, and each file
	# but the last holds SIZE of pages (the rule itself)
	least=3
	[ $mode = 64K ] && least=2
	[ ${#files[@]} -ge $least ] && [ ${#files[@]} -le 12 ] && pass "--rotate $mode: ${#files[@]} files" || fail "--rotate $mode: ${#files[@]} files"
	if [ $mode = 64K ]; then
		# (the rule counts PAGES sections with their 32-byte headers; page_bytes_stored
		# their payloads only: 90% leaves room for the headers of any batch size)
		for f in "${files[@]:0:${#files[@]}-1}"; do
			assert_ge "--rotate 64K: $(basename "$f") holds 64 KiB of pages (stored)" 58982 \
				"$(meta "$f" page_bytes_stored)"
		done
	fi
	[ -e "$out" ] && fail "--rotate $mode: $out itself was written"
	sum=0; prev=-1; alone=0
	for f in "${files[@]}"; do
		"$FTANA" info "$f" >"$tmp/info.rot" 2>&1 || { alone=1; fail "--rotate $mode: $f alone: $(head -2 "$tmp/info.rot")"; }
		# Files are not time slices: a reader's batch holds what the kernel gave it
		# since the last wake-up. The markers of all files together are checked below.
		read -r n lo hi <<<"$(markers "$f")"
		sum=$((sum + ${n:-0}))
	done
	[ $alone = 0 ] && pass "--rotate $mode: every file readable alone"
	assert_eq "--rotate $mode: markers in the files add up to the workload's writes" "$written" "$sum"
	db=$("$FTANA" db "${files[@]}" 2>"$tmp/err.join")
	assert_eq "--rotate $mode: ftana db of the series exit status" 0 $?
	read -r n lo hi <<<"$(markers "$db")"
	assert_eq "--rotate $mode: the joined capture holds every marker" "$written 0 $((written - 1))" "$n $lo $hi"
	assert_eq "--rotate $mode: joined events = the files' events + 1 start marker" $((written + 1)) "$(meta "$db" events_total)"
done

# ------------------------------------------------------------- --ring with --trigger
mkdir "$tmp/trig"
out=$tmp/trig/t.ftz
"$FTREC" record "${REC_ARGS[@]}" --ring 1M --trigger syscalls:sys_enter_getpid -d 20 -o "$out" 2>"$tmp/err.trig" &
rec=$!
pids+=($rec)
if wait_for_recording $rec "$tmp/err.trig"; then
	$LOAD once 0.5 getpid
	wait $rec
	assert_eq "--ring --trigger: exit status" 0 $?
	assert_eq "--ring --trigger: stop reason" trigger "$(meta "$out" stop_reason)"
	# (anyone's getpid fires it: the first one is recorded, the kernel stops at it)
	assert_ge "--ring --trigger: the trigger event is in the ring" 1 "$(q "$out" 'SELECT count(*) FROM sys_enter_getpid')"
else
	fail "--ring --trigger: recording did not start: $(cat "$tmp/err.trig")"
fi

# ------------------------------------------------------------- refused at once, in one line
bad() { # WHAT PATTERN ARGS...: exit 1, one line, nothing written
	local what=$1 pat=$2; shift 2
	"$FTREC" record -e syscalls:sys_enter_getppid "$@" >/dev/null 2>"$tmp/err.bad"
	assert_eq "$what: exit status" 1 $?
	assert_one_line_error "$what" "$tmp/err.bad" "$pat"
}
bad "--ring with --kernel-ring" "--ring cannot go with --kernel-ring" --ring 4M --kernel-ring -o "$tmp/b.ftz"
bad "--ring with --max-size" "--ring cannot go with --max-size" --ring 4M --max-size 10 -o "$tmp/b.ftz"
bad "--ring with --rotate" "--ring and --rotate cannot go together" --ring 4M --rotate 10 -o "$tmp/b.ftz"
bad "--ring too small" "--ring: '100K' is out of range" --ring 100K -o "$tmp/b.ftz"
bad "--ring not a size" "--ring: expected a size" --ring lots -o "$tmp/b.ftz"
bad "--rotate not a size or time" "--rotate: expected a size" --rotate 5x -o "$tmp/b.ftz"
bad "--ring output not .ftz" "must end in .ftz" --ring 4M -o "$tmp/b.trace"
ls "$tmp"/b.* >/dev/null 2>&1 && fail "a refused recording left a file" || pass "refused recordings left no file"

assert_no_leftovers
assert_state_unchanged "$before"
finish
