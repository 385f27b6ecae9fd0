#!/usr/bin/env bash
# test_report_escape.sh - a capture whose comm and string fields hold terminal control
# sequences: `ftana report tpoint` (libtraceevent's text) shows them escaped as \xHH,
# never raw. Ground truth: the bytes the workload wrote to /proc/self/comm, which the
# kernel's task_rename event carries (oldcomm/newcomm) and which is the task's comm
# when it exits. (The database reports: tests/test_report_escape.c.)
. "$(dirname "$0")/lib.sh"
require_root_tracefs
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTREC" "$FTANA"
[ -d "$TRACEFS/events/task/task_rename" ] || { echo "no task:task_rename tracepoint"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# An OSC title change, then a screen clear with an 8-bit CSI (0x9b); the shell keeps
# the first name when it exits. Its pid goes to a file: only its events are checked.
"$FTREC" tpoint -q -o "$work/ren.ftz" task:task_rename -- sh -c '
	echo $$ >"$1"
	printf "x\033[2J\233" >/proc/self/comm
	printf "\033]0;pwned\007" >/proc/self/comm' sh "$work/pid" 2>"$work/ftrec.err" ||
	{ fail "ftrec tpoint failed:"; cat "$work/ftrec.err"; finish; }
pid=$(cat "$work/pid")

"$FTANA" report tpoint "$work/ren.ftz" >"$work/tpoint.txt" 2>"$work/tpoint.err" ||
	{ fail "ftana report tpoint failed:"; cat "$work/tpoint.err"; }
grep -a "task_rename: pid=$pid " "$work/tpoint.txt" >"$work/ours.txt"
assert_eq "our task_rename events printed" 3 "$(wc -l <"$work/ours.txt")"
# bytes a terminal acts on: C0 controls but tab (and the newlines grep splits at), DEL, the 8-bit CSI
assert_eq "lines with a raw control byte (whole report)" 0 \
	"$(LC_ALL=C grep -ac $'[\x01-\x08\x0b-\x1f\x7f\x9b]' "$work/tpoint.txt")"
assert_contains "screen clear shown escaped" "$work/ours.txt" \
	'oldcomm=sh newcomm=x\\x1b\[2J\\x9b oom_score_adj'
assert_contains "title change shown escaped" "$work/ours.txt" \
	'oldcomm=x\\x1b\[2J\\x9b newcomm=\\x1b\]0;pwned\\x07 oom_score_adj'
# the line header's comm (the task's name at exit) is file text too
assert_contains "the task's comm in the line header, escaped" "$work/ours.txt" \
	"^ *\\\\x1b\\]0;pwned\\\\x07-$pid +\\["

# --json: the same three events as rows, no raw control byte in the document
"$FTANA" report tpoint "$work/ren.ftz" --json >"$work/tpoint.json" 2>"$work/tpoint.err" ||
	fail "ftana report tpoint --json failed"
assert_eq "tpoint --json: lines with a raw control byte" 0 \
	"$(LC_ALL=C grep -ac $'[\x01-\x08\x0b-\x1f\x7f\x9b]' "$work/tpoint.json")"
assert_eq "tpoint --json: our task_rename rows" 3 \
	"$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(r["event"] == "task_rename" and r["pid"] == int(sys.argv[2]) for r in d["rows"]))' "$work/tpoint.json" "$pid")"

finish
