#!/usr/bin/env bash
# test_export_live.sh - `ftana export` and `ftana convert` on a recording of this
# host's scheduler: ftrec records sched:sched_switch (and the ftrace print events of
# its own trace_marker) while a workload of known shape runs; then
#   - the export's CPU tracks are exactly the runs the raw sched_switch rows give
#     (tests/export_check.py), each CPU has a track, the document is valid and nested;
#   - the workload's own process and thread appear under its name;
#   - the trace.dat of the same capture gives trace-cmd the same number of
#     sched_switch events as the database holds (run under `flock /tmp/tracefs.lock`
#     when other tests may use tracefs).
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTREC" "$FTANA"
require_root_tracefs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the workload: 20 sleeps of 5 ms, each a switch away from it and back
cat >"$tmp/exportload" <<'EOF'
#!/bin/sh
i=0
while [ $i -lt 20 ]; do sleep 0.005; i=$((i + 1)); done
EOF
chmod +x "$tmp/exportload"
"$FTREC" record -q -e sched:sched_switch -o "$tmp/sched.ftz" -- "$tmp/exportload" >/dev/null 2>"$tmp/rec_err"
rc=$?
if [ "$rc" != 0 ]; then
	fail "ftrec record exit status $rc: $(head -3 "$tmp/rec_err")"
	finish
fi
sql() { "$FTANA" sql "$1" "$2" --csv 2>/dev/null | tail -1; }
switches=$(sql "$tmp/sched.ftz" "select count(*) from sched_switch")
assert_ge "sched_switch events recorded" 40 "$switches"

"$FTANA" export "$tmp/sched.ftz" -o "$tmp/sched.json" --include-ftrec >/dev/null 2>"$tmp/err"
assert_eq "export exit status" 0 "$?"
python3 "$TESTS_DIR/export_check.py" doc "$tmp/sched.json" >"$tmp/counts"
assert_contains "valid document, slices nested" "$tmp/counts" "^error=none"
"$FTANA" sql "$tmp/sched.ftz" "select cpu, ts, prev_pid, next_pid from sched_switch order by cpu, ts" \
	--json >"$tmp/sw.json" 2>/dev/null
result=$(python3 "$TESTS_DIR/export_check.py" cpu-tracks "$tmp/sw.json" "$tmp/sched.json" \
	"$(sql "$tmp/sched.ftz" "select value from meta where key = 'first_ts'")" \
	"$(sql "$tmp/sched.ftz" "select value from meta where key = 'last_ts'")")
case $result in
"same "[1-9]*) pass "CPU tracks = the runs of the sched_switch rows ($result)" ;;
*) fail "CPU tracks: $result" ;;
esac
python3 - "$tmp/sched.json" >"$tmp/names" <<'EOF'
import json, sys
evs = json.load(open(sys.argv[1]))["traceEvents"]
cpus = {e["tid"] for e in evs if e["ph"] == "X" and e.get("cat") == "sched"}
named = {e["tid"]: e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "thread_name"}
runs = [named.get(e["args"]["pid"], "") for e in evs if e["ph"] == "X" and e.get("cat") == "sched"]
print("cpu_tracks=%d" % len(cpus))
print("workload_named=%s" % any(n == "exportload" for n in named.values()))
print("workload_runs=%d" % sum(1 for e in evs if e["ph"] == "X" and e.get("cat") == "sched" and e["name"] == "exportload"))
EOF
assert_contains "the workload's thread is named" "$tmp/names" "^workload_named=True"
assert_ge "the workload ran in slices of its name" 20 "$(sed -n 's/^workload_runs=//p' "$tmp/names")"

if command -v trace-cmd >/dev/null; then
	"$FTANA" convert "$tmp/sched.ftz" -o "$tmp/sched.dat" 2>"$tmp/err"
	assert_eq "convert exit status" 0 "$?"
	n=$(trace-cmd report -N "$tmp/sched.dat" 2>/dev/null | grep -c ' sched_switch: ')
	assert_eq "trace-cmd reads every sched_switch of the converted file" "$switches" "$n"
	n=$(trace-cmd report -N "$tmp/sched.dat" 2>/dev/null | grep ' sched_switch: ' | grep -c 'exportload')
	assert_ge "trace-cmd names the workload in its switches" 40 "$n"
fi
finish
