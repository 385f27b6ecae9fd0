#!/usr/bin/env bash
# test_iolat_direct.sh - `ftana report iolat -Q` says true things about captures that
# cannot have a queue time. A loop device on tmpfs is the disk (its backing file does
# no block I/O of its own, so the capture holds only the loop's requests):
#   scheduler 'none'        the kernel issues every request directly: block_rq_insert is
#                           recorded but never happens; -Q says so, the listing works;
#   scheduler mq-deadline   the advice of that message, followed: -Q gives each request
#                           a queue time;
#   no I/O at all, and a capture without the block events: each hint fits its case.
# Ground truth: the workload (8 direct 64 KiB writes by dd) and the scheduler file.
. "$(dirname "$0")/lib.sh"
require_root_tracefs
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTREC" "$FTANA"
command -v losetup >/dev/null || { echo "no losetup"; exit 77; }

work=$(mktemp -d)
img=$(mktemp -p /dev/shm ftrec-iolat-direct.XXXXXX)
loop=
cleanup() {
	[ -n "$loop" ] && losetup -d "$loop"
	rm -rf "$work" "$img"
}
trap cleanup EXIT
truncate -s 16M "$img"
loop=$(losetup -f --show "$img" 2>"$work/losetup.err") ||
	{ loop=; echo "cannot set up a loop device: $(cat "$work/losetup.err")"; exit 77; }
disk=${loop#/dev/}
dev=$(tr : , <"/sys/block/$disk/dev")
sched=/sys/block/$disk/queue/scheduler

# rec OUT [COMMAND...]: ftrec iolat on the loop device only, while COMMAND runs.
rec() {
	local out=$1; shift
	"$FTREC" iolat -q -D "$dev" -o "$out" -- "$@" 2>"$work/ftrec.err" ||
		{ fail "ftrec iolat failed:"; cat "$work/ftrec.err"; }
}
writes() { rec "$1" dd if=/dev/zero of="$loop" bs=64k count=8 oflag=direct status=none; }

echo none >"$sched"
assert_contains "$disk's scheduler is none" "$sched" '\[none\]'
writes "$work/direct.ftz"
"$FTANA" report iolat "$work/direct.ftz" --csv >"$work/direct.csv" 2>"$work/direct.err"
assert_eq "without -Q: exit" 0 $?
# CSV (start_s,end_s,comm,pid,type,disk,...) quotes the disk ("7,0"): name it DEV
# first so fields split at commas
sed -i "s/,\"$dev\",/,DEV,/" "$work/direct.csv"
assert_eq "without -Q: dd's 8 writes listed" 8 "$(grep -c '^[^,]*,[^,]*,dd,[0-9]*,W[^,]*,DEV,' "$work/direct.csv")"
assert_eq "block_rq_insert recorded, none happened" "0" \
	"$("$FTANA" sql "$work/direct.ftz" "SELECT count FROM event_types WHERE name = 'block_rq_insert'" --csv | tail -n 1)"
"$FTANA" report iolat "$work/direct.ftz" -Q >"$work/q.out" 2>"$work/q.err"
assert_eq "-Q on direct issue: exit" 1 $?
assert_one_line_error "-Q on direct issue: says why" "$work/q.err" \
	"no request was inserted: the kernel issued each directly .*scheduler is 'none'"
assert_eq "-Q on direct issue: no advice to record with ftrec iolat (it was)" 0 \
	"$(grep -c "record with 'ftrec iolat'" "$work/q.err")"

# The message's advice: a disk with an I/O scheduler has queue times.
echo mq-deadline >"$sched" || { fail "cannot set mq-deadline on $disk"; finish; }
writes "$work/queued.ftz"
"$FTANA" report iolat "$work/queued.ftz" -Q --csv >"$work/queued.csv" 2>"$work/queued.err"
assert_eq "mq-deadline, -Q: exit" 0 $?
assert_eq "mq-deadline, -Q: columns" "start_s,end_s,comm,pid,type,disk,sector,bytes,que_ms,lat_ms" \
	"$(head -n 1 "$work/queued.csv")"
sed -i "s/,\"$dev\",/,DEV,/" "$work/queued.csv"
assert_eq "mq-deadline, -Q: dd's 8 writes with a queue time" 8 \
	"$(awk -F, '$3 == "dd" && $6 == "DEV" && $9 != "" && $9 >= 0 { n++ } END { print n + 0 }' "$work/queued.csv")"
echo none >"$sched"

# Recorded, but no I/O happened at all.
rec "$work/idle.ftz" sleep 0.2
"$FTANA" report iolat "$work/idle.ftz" >/dev/null 2>"$work/idle.err"
assert_eq "no I/O: exit" 1 $?
assert_one_line_error "no I/O: says it recorded them" "$work/idle.err" \
	"no block_rq_issue events \(it recorded them, but no block I/O happened while it ran\)"

# Not an iolat recording: the hint to record one is true there.
"$FTREC" tpoint -q -o "$work/other.ftz" sched:sched_process_exec -- true 2>"$work/ftrec.err" ||
	{ fail "ftrec tpoint failed:"; cat "$work/ftrec.err"; }
"$FTANA" report iolat "$work/other.ftz" -Q >/dev/null 2>"$work/other.err"
assert_eq "other capture: exit" 1 $?
assert_one_line_error "other capture: record with ftrec iolat" "$work/other.err" \
	"no block_rq_issue events \(record with 'ftrec iolat'\)"

finish
