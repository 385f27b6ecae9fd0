#!/usr/bin/env bash
# test_report_slice_live.sh - slicing a real capture, against what a workload of known
# shape did: tests/lab/workload.c `threads 3 K MS` runs 3 threads, thread i making i*K
# getppid(2) calls in each of 3 bursts MS ms apart, and prints each thread's id and
# count and each burst's CLOCK_REALTIME start and end. Recorded with
# `ftrec tpoint syscalls:sys_enter_getppid`, then `ftana report tpoint --json`:
#   -p PID            every thread of the process: 6K*3 calls (the main thread makes none)
#   -L TID            one thread: its own count, every row its tid
#   -n REGEX          the comm: the same calls as -p
#   --since/--until   a burst's wall-clock window (ISO 8601, UTC): that burst's calls only,
#                     and with HH:MM:SS.frac the same
#   --cpu             the rows of those CPUs, as `ftana sql` counts them per CPU
#   --wall            every row's ts_wall inside its burst's window
. "$(dirname "$0")/lib.sh"
require_root_tracefs
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTREC" "$FTANA"
[ -d "$TRACEFS/events/syscalls/sys_enter_getppid" ] || { echo "no syscalls:sys_enter_getppid tracepoint"; exit 77; }
command -v python3 >/dev/null || { echo "python3 missing"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -pthread -O2 -std=gnu11 -o "$work/workload" "$ROOT_DIR/tests/lab/workload.c" ||
	{ fail "cannot build the workload"; finish; }

K=200
"$FTREC" tpoint -o "$work/t.ftz" syscalls:sys_enter_getppid -- "$work/workload" threads 3 $K 200 \
	>"$work/wl" 2>"$work/ftrec.err" || { fail "ftrec tpoint failed:"; cat "$work/ftrec.err"; finish; }
pid=$(sed -n 's/^pid=//p' "$work/wl")
tids=($(sed -n 's/^tid=\([0-9]*\) .*/\1/p' "$work/wl"))
assert_eq "workload threads" 3 "${#tids[@]}"

# rows of `ftana report tpoint ARGS --json`, or "error"
rows() {
	"$FTANA" report tpoint "$work/t.ftz" --json "$@" >"$work/out.json" 2>"$work/err" || { echo error; return; }
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(len(d["rows"]))' "$work/out.json"
}

assert_eq "-p: every thread's calls" $((6 * K * 3)) "$(rows -p "$pid")"
assert_eq "-n: the comm's calls" $((6 * K * 3)) "$(rows -p "$pid" -n '^workload$')"
for i in 0 1 2; do
	n=$(rows -L "${tids[$i]}")
	assert_eq "-L thread $((i + 1)): its calls" $(((i + 1) * K * 3)) "$n"
	other=$(python3 -c 'import json, sys; print(sum(1 for r in json.load(open(sys.argv[1]))["rows"] if r["pid"] != int(sys.argv[2])))' "$work/out.json" "${tids[$i]}")
	assert_eq "-L thread $((i + 1)): rows of other tasks" 0 "$other"
done

iso() { # ns since the epoch -> ISO 8601 UTC with ns
	python3 -c 'import sys, datetime; n = int(sys.argv[1]); print(datetime.datetime.fromtimestamp(n // 10**9, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + ".%09dZ" % (n % 10**9))' "$1"
}
hms() { iso "$1" | sed 's/.*T\([0-9:.]*\)Z/\1/'; }
for b in 1 2 3; do
	read -r s e < <(sed -n "s/^burst=$b start_wall_ns=\([0-9]*\) end_wall_ns=\([0-9]*\)/\1 \2/p" "$work/wl")
	assert_eq "burst $b, ISO window: its calls" $((6 * K)) "$(rows -p "$pid" --since "$(iso "$s")" --until "$(iso "$e")")"
	assert_eq "burst $b, HH:MM:SS window: its calls" $((6 * K)) "$(rows -p "$pid" --since "$(hms "$s")" --until "$(hms "$e")")"
	rows -p "$pid" --since "$(iso "$s")" --until "$(iso "$e")" --wall >/dev/null
	outside=$(python3 -c '
import json, sys, datetime
lo, hi = int(sys.argv[2]), int(sys.argv[3])
def ns(t):
    d = datetime.datetime.strptime(t[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
    return int(d.timestamp()) * 10**9 + int(t[20:29])
print(sum(1 for r in json.load(open(sys.argv[1]))["rows"] if not lo <= ns(r["ts_wall"]) <= hi))' "$work/out.json" "$s" "$e")
	assert_eq "burst $b: --wall timestamps outside its window" 0 "$outside"
done

# --cpu: per CPU, what the database holds for the workload's threads
for cpu in $("$FTANA" sql "$work/t.ftz" "SELECT DISTINCT cpu FROM sys_enter_getppid" --csv | tail -n +2); do
	want=$("$FTANA" sql "$work/t.ftz" "SELECT count(*) FROM sys_enter_getppid e JOIN tasks t USING (pid) WHERE t.tgid = $pid AND cpu = $cpu" --csv | tail -n 1)
	assert_eq "--cpu $cpu" "$want" "$(rows -p "$pid" --cpu "$cpu")"
done

# ftrec -p PID on a running multi-threaded process records every thread of it and no
# other task (set_event_pid holds them all), and the report's -L splits them again
WORKLOAD_START_MS=1500 "$work/workload" threads 3 $K 100 >"$work/wl2" &
wl=$!
for _ in $(seq 50); do grep -q '^threads_ready=' "$work/wl2" && break; sleep 0.1; done
"$FTREC" tpoint -p "$wl" -d 4 -o "$work/p.ftz" syscalls:sys_enter_getppid >/dev/null 2>"$work/ftrec2.err" ||
	{ fail "ftrec tpoint -p failed:"; cat "$work/ftrec2.err"; }
wait "$wl"
tids2=($(sed -n 's/^tid=\([0-9]*\) .*/\1/p' "$work/wl2"))
in_list=$(IFS=,; echo "${tids2[*]}")
assert_eq "ftrec -p: events of the process's threads" $((6 * K * 3)) \
	"$("$FTANA" sql "$work/p.ftz" "SELECT count(*) FROM sys_enter_getppid WHERE pid IN ($in_list)" --csv | tail -n 1)"
assert_eq "ftrec -p: events of other tasks" 0 \
	"$("$FTANA" sql "$work/p.ftz" "SELECT count(*) FROM sys_enter_getppid WHERE pid NOT IN ($in_list)" --csv | tail -n 1)"
for i in 0 1 2; do
	n=$("$FTANA" report tpoint "$work/p.ftz" --json -L "${tids2[$i]}" 2>/dev/null |
		python3 -c 'import json, sys; print(len(json.load(sys.stdin)["rows"]))')
	assert_eq "ftrec -p, report -L thread $((i + 1))" $(((i + 1) * K * 3)) "$n"
done

# A process whose threads never run while ftrec records (blocked at their start barrier):
# the kernel's saved_tgids cannot know them, ftrec's /proc/tgids does, so the capture's
# tasks give each thread its process (what the reports' -p needs)
WORKLOAD_START_MS=4000 "$work/workload" threads 3 1 1 >"$work/wl3" &
sleeper=$!
for _ in $(seq 50); do grep -q '^threads_ready=' "$work/wl3" && break; sleep 0.1; done
sleeper_tids=$(ls /proc/$sleeper/task | grep -vx "$sleeper" | paste -sd, -)
"$FTREC" tpoint -d 1 -o "$work/idle.ftz" sched:sched_process_exit >/dev/null 2>"$work/ftrec3.err" ||
	{ fail "ftrec tpoint -d 1 failed:"; cat "$work/ftrec3.err"; }
wait "$sleeper"
assert_eq "threads that did not run: their process known" 3 \
	"$("$FTANA" sql "$work/idle.ftz" "SELECT count(*) FROM tasks WHERE pid IN ($sleeper_tids) AND tgid = $sleeper" --csv | tail -n 1)"

finish
