#!/usr/bin/env bash
# Triage benchmark (issue 15): the event rate of `ftrec triage` on a busy host and
# what ftrec costs to keep up, with and without --syscalls.
#
# Busy host, the same in every run (BENCH_TRIAGE_S seconds, default 10):
#   - fork+exec: a shell loop running /bin/true (sched_process_*, wakeups);
#   - context switches: two processes passing a byte back and forth through pipes;
#   - block I/O: 4 KiB writes with fdatasync to a file in $TMPDIR.
# Figures: events per second in the capture, ftrec's user+sys CPU as a share of one
# CPU, and stored bytes per second. The idle row (same duration, no load) is the
# baseline measured in the same run.
# Env: BUILD, BENCH_TRIAGE_S, BENCH_KEEP=1 keeps the temporary files.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SECS=${BENCH_TRIAGE_S:-10}
FTREC=$PWD/$BUILD/ftrec FTZDUMP=$PWD/$BUILD/ftzdump

if [ "$(id -u)" != 0 ]; then echo "needs root (tracefs)"; exit 77; fi
for b in "$FTREC" "$FTZDUMP"; do
	[ -x "$b" ] || { echo "triage.sh: $b missing: run make bench" >&2; exit 1; }
done
"$FTREC" triage --help >/dev/null 2>&1 || { echo "this ftrec has no triage"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftbench.XXXXXX")
load_pids=()
stop_load() {
	[ ${#load_pids[@]} -gt 0 ] && kill "${load_pids[@]}" 2>/dev/null
	wait 2>/dev/null
	load_pids=()
}
cleanup() {
	stop_load
	[ "${BENCH_KEEP:-}" = 1 ] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
. bench/lib.bash

start_load() {
	( while :; do /bin/true; done ) &
	load_pids+=($!)
	# The child keeps only its own ends of the pipes, so it reads EOF and exits
	# when the parent is killed (stop_load kills only the parent).
	python3 -c '
import os
r1, w1 = os.pipe(); r2, w2 = os.pipe()
if os.fork() == 0:
    os.close(w1); os.close(r2)
    while os.read(r1, 1):
        os.write(w2, b"x")
    os._exit(0)
os.close(r1); os.close(w2)
while True:
    os.write(w1, b"x"); os.read(r2, 1)
' &
	load_pids+=($!)
	python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o600)
while True:
    os.pwrite(fd, b"x" * 4096, 0); os.fdatasync(fd)
' "$tmp/io.dat" &
	load_pids+=($!)
	sleep 1 # let every loop get going before the recording starts
}

echo "busy host: fork+exec loop, pipe ping-pong, 4 KiB fdatasync writes; ${SECS} s each"
printf "\n%-20s %12s %12s %10s %12s %8s\n" run events events/s ftrec_cpu% stored_KB/s lost
run() { # NAME LOAD(0|1) ARGS...
	local name=$1 load=$2 c ev z lost
	shift 2
	[ "$load" = 1 ] && start_load
	c=$(recorder_cpu "$FTREC" triage -q -d "$SECS" "$@" -o "$tmp/$name.ftz")
	stop_load
	"$FTZDUMP" "$tmp/$name.ftz" >"$tmp/dump"
	ev=$(field "$tmp/dump" events); lost=$(field "$tmp/dump" lost)
	z=$(stat -c %s "$tmp/$name.ftz")
	awk -v n="$name" -v ev="$ev" -v c="$c" -v z="$z" -v s="$SECS" -v l="$lost" 'BEGIN {
		printf "%-20s %12d %12.0f %10.2f %12.1f %8d\n", n, ev, ev / s, 100 * c / s, z / 1024 / s, l }'
}
run idle 0
run busy 1
run busy-syscalls 1 --syscalls
echo "(lost: events the kernel dropped because ftrec did not keep up)"
echo "(ftrec_cpu%: ftrec's user+sys over the run, setup and kallsyms included, as a share of one CPU)"
