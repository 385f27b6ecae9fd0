#!/usr/bin/env bash
# ftrec keeps its own threads out of a whole-system recording (set_event_notrace_pid,
# kernels from 5.8): otherwise every capture of system calls would be full of ftrec
# reading pages and writing the file. Ground truth: ftrec's threads as /proc lists them
# while it records, and a workload of known size recorded at the same time.
. "$(dirname "$0")/lib.sh"
require_root_tracefs
require_bin "$FTREC" "$FTANA"
[ -e "$TRACEFS/set_event_notrace_pid" ] || { echo "kernel before 5.8: no set_event_notrace_pid"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$FTREC" record -q -e raw_syscalls:sys_enter -d 3 -o "$tmp/self.ftz" 2>"$tmp/err" &
rec=$!
# ftrec's threads once the readers run (one per CPU, plus the main thread).
want=$(( $(ls -d "$TRACEFS"/per_cpu/cpu* | wc -l) + 1 ))
for _ in $(seq 50); do
	[ "$(ls /proc/$rec/task 2>/dev/null | wc -l)" -ge "$want" ] && break
	sleep 0.1
done
threads=$(ls /proc/$rec/task | sort -n | tr '\n' ' ' | sed 's/ $//')
sleep 0.5 # its readers are now reading pages: every page they read is a system call
# A workload of known size during the recording: 2000 read(2) system calls of dd.
dd if=/dev/zero of=/dev/null bs=1 count=2000 status=none &
dd_pid=$!
wait $dd_pid
wait $rec
assert_eq "ftrec exit" 0 $?

assert_eq "ftrec's threads (from /proc) = END notrace_pids" "$threads" \
	"$("$FTANA" sql "$tmp/self.ftz" "SELECT value FROM meta WHERE key = 'notrace_pids'" --csv | sed 1d | tr ' ' '\n' | sort -n | tr '\n' ' ' | sed 's/ $//')"
# (ftrec's own start marker, an ftrace:print event, is written before and kept on purpose.)
assert_eq "system calls recorded from ftrec's threads" 0 \
	"$("$FTANA" sql "$tmp/self.ftz" "SELECT count(*) FROM sys_enter WHERE pid IN ($(echo "$threads" | tr ' ' ','))" --csv | sed 1d)"
assert_ge "read(2) calls recorded from dd (2000 made)" 2000 \
	"$("$FTANA" sql "$tmp/self.ftz" "SELECT count(*) FROM sys_enter WHERE pid = $dd_pid AND field_id = 0" --csv | sed 1d)"
finish
