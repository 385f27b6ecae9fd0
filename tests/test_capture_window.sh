#!/usr/bin/env bash
# The time a capture covers, live on this host's syscall tracepoints, against the
# workloads' own clocks (CLOCK_MONOTONIC = the trace clock `mono`) and densities:
#  - a plain recording: capture_window's start_ts is tracing on (at or before the
#    command's first instant, at most 0.5 s before it: not the set-up before), its
#    end_ts the stop (at or after the command's last instant, within 1 s); `ftana info`
#    prints it, and its "started" is tracing on in UTC (at most 0.5 s before the
#    command's first instant on CLOCK_REALTIME: not ftrec's start before its set-up);
#    summary's duration_s is that span, so its rates are per second of it;
#  - a flight recorder whose CPUs keep different stretches (--ring 1M, --kernel-ring),
#    fed a dense stream on CPU 0 and a sparse one on CPU 1: complete_from_ts is later
#    than the first event; from it on, neither CPU's stream has a gap longer than the
#    workload's period allows (ground truth: the paced workloads), while before it one
#    CPU has none of its events; reports start there with one warning and --ragged
#    keeps the part before.
#    ftrec's end summary of a --ring counts the segments' bytes (at least those on disk);
#  - a time a listing printed, given to --since, starts the listing there; a time outside
#    the capture (also year 9999) is a one-line error naming the capture's span;
#  - filters that match nothing (-p, -L, -n, --cpu) say so in one line each.
. "$(dirname "$0")/lib.sh"
require_root_tracefs
require_bin "$FTREC" "$FTANA"
command -v python3 >/dev/null || { echo "python3 is not installed"; exit 77; }
[ -d "$TRACEFS/events/syscalls/sys_enter_getppid" ] || { echo "no syscalls:sys_enter_getppid"; exit 77; }
[ "$(nproc)" -ge 2 ] || { echo "needs 2 CPUs"; exit 77; }

LOAD="python3 $TESTS_DIR/ring_load.py"
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; done; rm -rf "$tmp"' EXIT
before=$tmp/before
snapshot_tracefs_state >"$before"
export XDG_CACHE_HOME=$tmp/cache

q() { "$FTANA" sql "$1" "$2" --csv 2>/dev/null | tail -n +2; }
# has WHAT FILE TEXT: FILE holds TEXT (a fixed string)
has() {
	if grep -qF -- "$3" "$2"; then pass "$1"; else
		fail "$1: '$3' not in $2:"; sed 's/^/      | /' "$2" | tail -n 20
	fi
}
# within WHAT VALUE LO HI (numbers, awk)
within() {
	if awk -v v="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(v >= lo && v <= hi) }'; then
		pass "$1: $2 in [$3, $4]"
	else
		fail "$1: $2 not in [$3, $4]"
	fi
}

# ------------------------------------------------------------- plain recording
"$FTREC" record -e syscalls:sys_enter_getppid -q -o "$tmp/p.ftz" -- python3 -c '
import os, sys, time
t0, w0 = time.monotonic_ns(), time.time_ns()
for _ in range(1000):
    os.getppid()
time.sleep(1)
open(sys.argv[1], "w").write("%d %d %d\n" % (t0, time.monotonic_ns(), w0))' "$tmp/p.gt" 2>"$tmp/p.err" ||
	{ fail "plain: ftrec failed: $(cat "$tmp/p.err")"; finish; }
read -r c0 c1 w0 <"$tmp/p.gt"
IFS=, read -r start complete end <<<"$(q "$tmp/p.ftz" "SELECT start_ts, complete_from_ts, end_ts FROM capture_window")"
within "plain: command start - start_ts (s)" "$(awk -v a="$c0" -v b="$start" 'BEGIN { print (a - b) / 1e9 }')" 0 0.5
within "plain: end_ts - command end (s)" "$(awk -v a="$end" -v b="$c1" 'BEGIN { print (a - b) / 1e9 }')" 0 1
assert_eq "plain: complete from tracing on" "$start" "$complete"
info_start=$(q "$tmp/p.ftz" "SELECT value FROM meta WHERE key = 'start_trace_ns'")
[ "$info_start" -lt "$start" ] && pass "plain: INFO's start (before set-up) is earlier than tracing on" ||
	fail "plain: INFO start $info_start not before tracing on $start"
"$FTANA" info "$tmp/p.ftz" >"$tmp/p.info" 2>&1
has "plain: info prints the recording interval" "$tmp/p.info" \
	"$(awk -v a="$start" -v b="$end" 'BEGIN { printf "recorded   %.6f s (tracing on %.6f to stop %.6f", (b - a) / 1e9, a / 1e9, b / 1e9 }')"
started=$(sed -n 's/^started *\(.*\) UTC (tracing on)$/\1/p' "$tmp/p.info")
within "plain: command start (CLOCK_REALTIME) - info's started, tracing on in UTC (s)" \
	"$(awk -v a="$w0" -v b="$(date -u -d "${started:-1970-01-01}" +%s%N)" 'BEGIN { print (a - b) / 1e9 }')" 0 0.5
dur=$("$FTANA" report summary "$tmp/p.ftz" --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
def find(o):
    if isinstance(o, dict):
        if "duration_s" in o: return o["duration_s"]
        for v in o.values():
            r = find(v)
            if r is not None: return r
    if isinstance(o, list):
        for v in o:
            r = find(v)
            if r is not None: return r
print(find(d))')
within "plain: summary duration_s = end_ts - start_ts" "$dur" \
	"$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.9f", (b - a) / 1e9 - 1e-6 }')" \
	"$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.9f", (b - a) / 1e9 + 1e-6 }')"
# its event count is the capture's, whatever the slice, and named so (a window's
# "events" of the whole capture misled); the ground truth: ftzdump's page index
total=$("$FTZDUMP" -q "$tmp/p.ftz" | awk '$1 == "total" { print $5 }')
assert_eq "plain: summary --cpu 0 capture_events = the file's events (ftzdump)" "$total" \
	"$("$FTANA" report summary "$tmp/p.ftz" --cpu 0 --json 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["capture"][0]["capture_events"])')"

# ------------------------------------------------------------- a printed time typed back
"$FTANA" report tpoint "$tmp/p.ftz" >"$tmp/p.txt" 2>/dev/null
t500=$(awk '/sys_enter_getppid/ { n++ } n == 500 { sub(/:$/, "", $4); print $4; exit }' "$tmp/p.txt")
"$FTANA" report tpoint "$tmp/p.ftz" --since "$t500" >"$tmp/p.since" 2>"$tmp/p.since.err"
# the listing from the first line printed with that time (events of one us print alike)
first_at=$(awk -v t="$t500:" '$4 == t { print NR; exit }' "$tmp/p.txt")
assert_eq "--since $t500 (a time the listing printed): the listing from its first line at that time" \
	"$(tail -n +"${first_at:-1}" "$tmp/p.txt" | md5sum)" "$(md5sum <"$tmp/p.since")"
for bad in 99999999 9999-12-31T23:59:59Z; do
	"$FTANA" report tpoint "$tmp/p.ftz" --since "$bad" >/dev/null 2>"$tmp/bad.err"
	assert_eq "--since $bad: exit 1" 1 $?
	has "--since $bad: outside the capture, its span named" "$tmp/bad.err" \
		"--since $bad: outside the capture, whose events span"
	assert_eq "--since $bad: one line" 1 "$(wc -l <"$tmp/bad.err")"
done
"$FTANA" report tpoint "$tmp/p.ftz" --until 1970-01-02T00:00:00Z >/dev/null 2>"$tmp/bad.err"
has "--until before the capture: an error naming its span" "$tmp/bad.err" \
	"--until 1970-01-02T00:00:00Z: outside the capture"

# ------------------------------------------------------------- filters matching nothing
for f in "-p 99999|-p 99999: no process" "-L 99998|-L 99998: no thread" "-n ^nosuch$|-n '^nosuch\$': no task name" \
	"--cpu 7|--cpu 7: no event of this capture is on those CPUs (events on CPUs"; do
	opt=${f%%|*} want=${f#*|}
	# shellcheck disable=SC2086
	"$FTANA" report tpoint "$tmp/p.ftz" $opt >"$tmp/f.out" 2>"$tmp/f.err"
	rc=$?
	assert_eq "nothing matches $opt: exit 0" 0 $rc
	has "nothing matches $opt: says so" "$tmp/f.err" "$want"
	assert_eq "nothing matches $opt: one line" 1 "$(wc -l <"$tmp/f.err")"
done
"$FTANA" report tpoint "$tmp/p.ftz" -p $$ >/dev/null 2>"$tmp/f.err"
assert_eq "a filter that matches a task of the capture says nothing" "" "$(grep -v '^$' "$tmp/f.err" | grep -v 'no event' || true)"

# ------------------------------------------------------------- ragged rings
# gaps FILE SINCE_NS: per CPU, the longest gap (ms) between its getppid events of the
# paced workloads at or after SINCE_NS, and the first one's time
gaps() {
	q "$1" "SELECT cpu, max(gap) / 1e6, min(ts) FROM (SELECT cpu, ts, ts - lag(ts) OVER (PARTITION BY cpu ORDER BY ts) AS gap
	        FROM sys_enter_getppid WHERE ts >= $2 AND pid IN ($3)) GROUP BY cpu ORDER BY cpu"
}

ragged() { # WHAT FTREC-ARGS...
	local what=$1 rec out=$tmp/$1.ftz
	shift
	"$FTREC" record -e syscalls:sys_enter_getppid "$@" -o "$out" 2>"$tmp/$what.err" &
	rec=$!
	wait_for_recording $rec "$tmp/$what.err" || { fail "$what: ftrec did not start: $(cat "$tmp/$what.err")"; return; }
	# CPU 0: 400 calls a ms (dense: its pages fill fast, and a 1 MiB ring of compressed
	# pages trims within the 8 s: 200 wrote ~1.1 MiB of segments on a busy CI machine,
	# once too little to trim any); CPU 1: one call each 5 ms, for a second longer, so
	# that it still runs during CPU 0's last stretch however late a loaded machine
	# starts or ends either (a kernel ring keeps only CPU 0's last ~20 ms: once CPU 1's
	# stream had ended before it, and the check had one CPU to look at)
	$LOAD paced 0 400 1 8 & local a=$!
	$LOAD paced 1 1 5 9 & local b=$!
	pids+=($a $b)
	wait $a $b
	kill -INT $rec
	wait $rec || fail "$what: ftrec exit status $?"
	if [ "$what" = ring ]; then # ftrec's end summary counts every segment, not the head alone
		local on_disk written
		on_disk=$(cat "$tmp"/ring.ring-*.ftz | wc -c)
		written=$(sed -n 's/.*files written \([0-9.]*\) MiB$/\1/p' "$tmp/$what.err")
		within "ring: ftrec's summary: MiB written >= the segments kept on disk" "${written:-0}" \
			"$(awk -v b="$on_disk" 'BEGIN { printf "%.2f", b / 1048576 - 0.01 }')" 1e9
	fi
	IFS=, read -r first complete <<<"$(q "$out" "SELECT (SELECT value FROM meta WHERE key = 'first_ts'), complete_from_ts FROM capture_window")"
	if [ "$what" = ring ]; then # the premise: the ring trimmed its oldest segments
		assert_ge "ring: segments the ring trimmed (the workload filled it)" 1 \
			"$(q "$out" "SELECT value FROM meta WHERE key = 'ring_trimmed_segments'")"
	fi
	if [ -z "$complete" ] || [ "$complete" -le "$first" ]; then
		fail "$what: complete_from_ts $complete not after the first event $first (every CPU kept the same stretch?)"
		return
	fi
	pass "$what: complete_from_ts is $(awk -v a="$complete" -v b="$first" 'BEGIN { print (a - b) / 1e9 }') s after the first event"
	# from complete_from_ts on, each paced stream is whole: no gap near a page's span
	# (CPU 1: a 4 KiB page is ~0.5 s of its calls; a paced period is 1-5 ms)
	local ok=0 n=0
	while IFS=, read -r cpu gap t; do
		n=$((n + 1))
		awk -v g="$gap" 'BEGIN { exit !(g < 100) }' && ok=$((ok + 1)) ||
			echo "note: $what: CPU $cpu longest gap $gap ms from complete_from_ts"
	done <<<"$(gaps "$out" "$complete" "$a,$b")"
	assert_eq "$what: both CPUs' streams have no gap >= 100 ms from complete_from_ts" "2 2" "$n $ok"
	# before it, one CPU has no event of its stream: the part a report leaves out
	local cpus_before
	cpus_before=$(q "$out" "SELECT count(DISTINCT cpu) FROM sys_enter_getppid WHERE ts < $complete AND pid IN ($a, $b)")
	assert_eq "$what: before complete_from_ts only one CPU's stream is there" 1 "$cpus_before"
	"$FTANA" report tpoint "$out" --csv >"$tmp/$what.csv" 2>"$tmp/$what.rerr"
	has "$what: the report says where it starts" "$tmp/$what.rerr" "--ragged keeps them"
	assert_eq "$what: that is one line" 1 "$(grep -c . "$tmp/$what.rerr")"
	local t_first
	t_first=$(awk -F, 'NR == 2 { print $1 }' "$tmp/$what.csv")
	within "$what: the report's first event is at or after complete_from_ts (s)" "$t_first" \
		"$(awk -v a="$complete" 'BEGIN { printf "%.9f", a / 1e9 - 1e-9 }')" 1e12
	"$FTANA" report tpoint "$out" --csv --ragged >"$tmp/$what.all.csv" 2>"$tmp/$what.aerr"
	t_first=$(awk -F, 'NR == 2 { print $1 }' "$tmp/$what.all.csv")
	within "$what: with --ragged the report starts before complete_from_ts (s)" "$t_first" 0 \
		"$(awk -v a="$complete" 'BEGIN { printf "%.9f", a / 1e9 }')"
	assert_eq "$what: --ragged: no warning" "" "$(cat "$tmp/$what.aerr")"
	"$FTANA" info "$out" >"$tmp/$what.info" 2>&1
	has "$what: info says from when every CPU is complete" "$tmp/$what.info" \
		"$(awk -v a="$complete" 'BEGIN { printf "every CPU from %.6f s", a / 1e9 }')"
}
ragged ring --ring 1M
ragged kring --kernel-ring -b 128
assert_state_unchanged "$before"
finish
