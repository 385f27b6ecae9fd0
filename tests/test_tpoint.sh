#!/usr/bin/env bash
# test_tpoint.sh - `ftrec tpoint -s` with an in-kernel filter, `ftana report tpoint`
# and `ftana report stacks`, on a workload of known reads and writes: 10 direct 4 KiB
# reads then 5 direct writes of one file by dd. Ground truth: the workload, the
# filter (only reads may appear), /proc/kallsyms (every stack frame is a kernel
# symbol), and the event count the database holds.
. "$(dirname "$0")/lib.sh"
require_root_tracefs
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTREC" "$FTANA"

work=$(mktemp -d -p /var/tmp ftrec-tpoint.XXXXXX)
trap 'rm -rf "$work"' EXIT
dd if=/dev/zero of="$work/data" bs=64k count=4 status=none && sync

"$FTREC" tpoint -q -s -o "$work/rq.ftz" block:block_rq_insert 'rwbs ~ "*R*"' -- sh -c '
	dd if="$1" of=/dev/null bs=4k count=10 iflag=direct status=none
	dd if=/dev/zero of="$1" bs=4k count=5 oflag=direct conv=notrunc status=none' sh "$work/data" \
	2>"$work/ftrec.err" || { fail "ftrec tpoint failed:"; cat "$work/ftrec.err"; }

"$FTANA" report tpoint "$work/rq.ftz" >"$work/tpoint.txt" 2>"$work/tpoint.err" ||
	{ fail "ftana report tpoint failed:"; cat "$work/tpoint.err"; }

# Event lines: "TASK-PID [CPU] FLAGS TIME: block_rq_insert: MAJ,MIN RWBS BYTES (CMD) ... [COMM]"
events=$(grep -c ': block_rq_insert: ' "$work/tpoint.txt")
reads=$(awk '/: block_rq_insert: / { for (i = 1; i <= NF; i++) if ($i == "block_rq_insert:") { if ($(i + 2) ~ /R/) n++; break } } END { print n + 0 }' "$work/tpoint.txt")
dd_reads=$(grep ': block_rq_insert: ' "$work/tpoint.txt" | grep -c '\[dd\]$')
assert_ge "dd's direct reads printed" 10 "$dd_reads"
assert_eq "events whose rwbs has R (the filter 'rwbs ~ \"*R*\"')" "$events" "$reads"
assert_eq "events in the database" "$events" \
	"$("$FTANA" sql "$work/rq.ftz" 'select count(*) from block_rq_insert' --csv | tail -n 1)"

# Each event is followed by its "<stack trace>" line and " => function" lines.
layout=$(awk '/: block_rq_insert: / { if (want) bad++; want = 1; ev++; next }
	/: <stack trace>$/ { if (!want) bad++; want = 0; st++; next }
	/^ => / { frames++; next }
	END { print ev + 0, st + 0, bad + 0, frames + 0 }' "$work/tpoint.txt")
read -r ev st bad frames <<<"$layout"
assert_eq "stacks printed, one per event" "$ev" "$st"
assert_eq "events without their stack right after" 0 "$bad"
assert_ge "stack frames printed" "$ev" "$frames"

# Every frame is a function name that /proc/kallsyms has.
grep '^ => ' "$work/tpoint.txt" | sed 's/^ => //' | sort -u >"$work/frames.txt"
awk '{ print $3 }' /proc/kallsyms | sort -u >"$work/kallsyms.txt"
unresolved=$(comm -23 "$work/frames.txt" "$work/kallsyms.txt" | head -n 5 | tr '\n' ' ')
assert_eq "frames that are not kernel symbols" "" "$unresolved"
assert_contains "the read path is in the stacks" "$work/frames.txt" '^(ext4_file_read_iter|iomap_dio_rw|blk_mq_submit_bio|submit_bio.*)$'

# stacks --folded: "root;...;leaf count", counts summing to the events.
"$FTANA" report stacks "$work/rq.ftz" --folded >"$work/folded.txt" ||
	fail "ftana report stacks --folded failed"
assert_eq "folded counts summed" "$ev" "$(awk '{ s += $NF } END { print s + 0 }' "$work/folded.txt")"
assert_eq "folded lines that are not 'frame;frame... count'" 0 \
	"$(grep -cvE '^[^ ;]+(;[^ ;]+)* [0-9]+$' "$work/folded.txt")"
assert_contains "folded stacks start at the syscall entry (root first)" "$work/folded.txt" '^entry_SYSCALL'
"$FTANA" report stacks "$work/rq.ftz" --event block:block_rq_insert -v >"$work/stacks.txt" 2>"$work/stacks.err" ||
	fail "ftana report stacks failed"
assert_contains "stacks count (a note with -v)" "$work/stacks.err" "note: $ev events with a kernel stack, [0-9]+ distinct stacks$"
assert_eq "stacks listing: counts summed" "$ev" "$(awk '/^    [0-9]+ \(/ { s += $1 } END { print s + 0 }' "$work/stacks.txt")"

# --json: the same events, in rows of ts_s/cpu/pid/comm/event/text
"$FTANA" report tpoint "$work/rq.ftz" --json >"$work/tpoint.json" || fail "ftana report tpoint --json failed"
assert_eq "tpoint --json: block_rq_insert rows" "$ev" \
	"$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(sum(r["event"] == "block_rq_insert" for r in d["rows"]))' "$work/tpoint.json")"

# A .db alone has no raw records: one line saying so.
"$FTANA" db "$work/rq.ftz" -o "$work/rq.db" >/dev/null 2>&1 || fail "ftana db failed"
if "$FTANA" report tpoint "$work/rq.db" >/dev/null 2>"$work/db.err"; then
	fail "ftana report tpoint accepted a .db"
else
	assert_one_line_error "tpoint on a .db" "$work/db.err" "needs the .ftz"
fi
# Options the text listing cannot honour are refused, not ignored: -H (no header line
# in the kernel's format), --wall (its times are the trace clock's); CSV takes both.
for opt in -H --wall; do
	"$FTANA" report tpoint "$work/rq.ftz" $opt >"$work/opt.out" 2>"$work/opt.err"
	assert_eq "tpoint text $opt: exit 1" 1 "$?"
	assert_one_line_error "tpoint text $opt: refused in one line" "$work/opt.err" "^ftana report tpoint: $opt: "
	assert_eq "tpoint text $opt: nothing on stdout" 0 "$(wc -c <"$work/opt.out")"
	"$FTANA" report tpoint "$work/rq.ftz" $opt --csv >/dev/null 2>&1
	assert_eq "tpoint --csv $opt: accepted" 0 "$?"
done
"$FTANA" report kprobe "$ROOT_DIR/samples/kprobe_read.ftz" -H >/dev/null 2>"$work/opt.err"
assert_eq "kprobe text -H: exit 1" 1 "$?"
assert_one_line_error "kprobe text -H: refused in one line" "$work/opt.err" "^ftana report kprobe: -H: "
"$FTANA" report tpoint "$work/rq.ftz" --csv --wall 2>/dev/null | awk -F, 'NR == 2 { print $1 }' >"$work/wall"
assert_contains "tpoint --csv --wall: wall-clock times" "$work/wall" "^20[0-9][0-9]-"
assert_no_leftovers
finish
