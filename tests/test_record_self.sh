#!/usr/bin/env bash
# ftrec's own threads in a whole-system recording. They are named in END (ftrec_tids),
# so queries can leave their system calls out, and they are NOT filtered in the kernel:
# set_event_notrace_pid drops every event raised while they run, interrupts included,
# which lost block_rq_complete events of other tasks' I/O. Ground truth: ftrec's threads
# as /proc lists them while it records, and dd runs of known size recorded meanwhile.
. "$(dirname "$0")/lib.sh"
require_root_tracefs
require_bin "$FTREC" "$FTANA"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
q() { "$FTANA" sql "$1" "$2" --csv | sed 1d; }

"$FTREC" record -q -e raw_syscalls:sys_enter -d 3 -o "$tmp/self.ftz" 2>"$tmp/err" &
rec=$!
# ftrec's threads once the readers run (one per CPU, plus the main thread).
want=$(( $(ls -d "$TRACEFS"/per_cpu/cpu* | wc -l) + 1 ))
for _ in $(seq 50); do
	[ "$(ls /proc/$rec/task 2>/dev/null | wc -l)" -ge "$want" ] && break
	sleep 0.1
done
threads=$(ls /proc/$rec/task | sort -n | tr '\n' ' ' | sed 's/ $//')
sleep 0.5
dd if=/dev/zero of=/dev/null bs=1 count=2000 status=none &
dd_pid=$!
wait $dd_pid
wait $rec
assert_eq "ftrec exit" 0 $?
assert_eq "ftrec's threads (from /proc) = END ftrec_tids" "$threads" \
	"$(q "$tmp/self.ftz" "SELECT value FROM meta WHERE key = 'ftrec_tids'" | tr ' ' '\n' | sort -n | tr '\n' ' ' | sed 's/ $//')"
assert_ge "system calls of ftrec's own threads, recorded and attributable" 1 \
	"$(q "$tmp/self.ftz" "SELECT count(*) FROM sys_enter WHERE pid IN ($(echo "$threads" | tr ' ' ','))")"
assert_ge "read(2) calls recorded from dd (2000 made)" 2000 \
	"$(q "$tmp/self.ftz" "SELECT count(*) FROM sys_enter WHERE pid = $dd_pid AND field_id = 0")"

# Completions arrive in interrupts, often while an ftrec reader runs: with a small
# buffer (many reader wake-ups) every one of 150 direct 8 KiB writes must complete.
data=$(mktemp /var/tmp/ftrec-self.XXXXXX)
dd if=/dev/zero of="$data" bs=8k count=1 status=none
"$FTREC" iolat -q -b 4 -o "$tmp/io.ftz" -- sh -c 'for i in $(seq 150); do
	dd if=/dev/zero of="$1" bs=8k count=1 oflag=direct conv=notrunc status=none; done' sh "$data" 2>"$tmp/err"
assert_eq "ftrec iolat exit" 0 $?
rm -f "$data"
assert_eq "lost events" 0 "$(q "$tmp/io.ftz" "SELECT count(*) FROM lost_events")"
issued=$(q "$tmp/io.ftz" "SELECT count(*) FROM block_rq_issue WHERE bytes = 8192")
assert_ge "8 KiB writes issued (150 made)" 150 "$issued"
# the workload's own: other tasks' 8 KiB I/O on a busy host may begin or end outside
# the recording (a completion after the stop is not a lost event)
assert_eq "dd's 8 KiB writes, each issued and completed (150 made)" 150 \
	"$(q "$tmp/io.ftz" "SELECT count(*) FROM io WHERE comm = 'dd' AND bytes = 8192")"
finish
