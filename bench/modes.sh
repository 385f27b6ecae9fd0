#!/usr/bin/env bash
# Flight-recorder benchmark (issue 12): what does each recording mode cost, against
# plain recording of the same workload in the same run?
#
#   plain          ftrec record               (reads every page as it fills)
#   ring           ftrec record --ring 1M     (disk ring: newest 1 MB kept, so it trims), when ftrec has it
#   kernel-ring    ftrec record --kernel-ring (nothing read until the stop, then the buffer drained)
#
# Workload: bench/getpid_gen calls getpid() N times (default 5,000,000) on CPU 1 with
# syscalls:sys_enter_getpid enabled, 4 MB buffer per CPU; the recorder runs on CPU 0.
# Figures per mode: events in the file, recorder CPU seconds (minus the workload's
# own, bench/lib.bash) per million events *generated* (a ring keeps only the newest,
# but pays for reading all of them or none), and stored bytes per kept event.
# Then idle: ftrec --kernel-ring vs plain, 30 s (BENCH_IDLE_S) of sched:sched_switch
# on an otherwise quiet machine: the CPU the recorder itself burns while waiting.
# Env: BUILD, BENCH_N, BENCH_IDLE_S, BENCH_KEEP=1 keeps the temporary files.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
N=${BENCH_N:-5000000}
IDLE_S=${BENCH_IDLE_S:-30}
EVENT=syscalls:sys_enter_getpid
TRACEFS=/sys/kernel/tracing
FTREC=$PWD/$BUILD/ftrec FTZDUMP=$PWD/$BUILD/ftzdump GEN=$PWD/$BUILD/bench/getpid_gen

if [ "$(id -u)" != 0 ]; then echo "needs root (tracefs)"; exit 77; fi
if [ ! -d $TRACEFS/events/syscalls/sys_enter_getpid ]; then
	echo "no $TRACEFS/events/syscalls/sys_enter_getpid"; exit 77
fi
if [ "$(nproc)" -lt 2 ]; then echo "needs 2 CPUs (recorder and workload pinned apart)"; exit 77; fi
for b in "$FTREC" "$FTZDUMP" "$GEN"; do
	[ -x "$b" ] || { echo "modes.sh: $b missing: run make bench" >&2; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftbench.XXXXXX")
cleanup() { [ "${BENCH_KEEP:-}" = 1 ] && echo "kept $tmp" || rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
. bench/lib.bash

modes="plain kernel-ring"
"$FTREC" record --help 2>/dev/null | grep -q -- '--ring SIZE' && modes="plain ring kernel-ring"

mode_args() {
	case $1 in
	plain) ;;
	ring) echo "--ring 1M" ;;
	kernel-ring) echo "--kernel-ring" ;;
	esac
}

# capture_files FILE: FILE and, for a disk ring, its segments (NAME.ring-NNNNNN.ftz)
capture_files() {
	local f
	for f in "$1" "${1%.ftz}".ring-*.ftz; do [ -f "$f" ] && echo "$f"; done
}
# stored FILE: compressed bytes of the PAGES sections of the capture's files
stored() {
	capture_files "$1" | while read -r f; do "$FTZDUMP" "$f" 2>/dev/null; done |
		awk '$1 == "section" && $3 == "PAGES(3)" { s += $7 } END { print s + 0 }'
}
# kept FILE: events in the capture's files (ftzdump's independent count)
kept() {
	capture_files "$1" | while read -r f; do "$FTZDUMP" "$f" 2>/dev/null; done |
		awk '$1 == "total" { s += $5 } END { print s + 0 }'
}

echo "workload: $N x getpid() on CPU 1, $EVENT, -b 4096; recorder on CPU 0"
printf "\n%-12s %12s %10s %10s %12s %10s\n" mode kept_events cpu_s stored_MB "cpu_s/Mev" "B/event"
declare -A cpu
for m in $modes; do
	rm -f "$tmp/$m".*
	# shellcheck disable=SC2046
	c=$(recorder_cpu taskset -c 0 "$FTREC" record -q -b 4096 $(mode_args $m) -e $EVENT \
	    -o "$tmp/$m.ftz" -- taskset -c 1 "$GEN" "$N" "$tmp/gen.cpu")
	cpu[$m]=$c
	ev=$(kept "$tmp/$m.ftz"); z=$(stored "$tmp/$m.ftz")
	awk -v m="$m" -v ev="${ev:-0}" -v c="$c" -v z="$z" -v n="$N" 'BEGIN {
		printf "%-12s %12d %10.3f %10.2f %12.3f %10.2f\n", m, ev, c, z / 1e6, c / (n / 1e6),
		       (ev > 0 ? z / ev : 0) }'
done
echo "(cpu_s/Mev: per million events generated; kept_events of a ring: the newest only;"
echo " a disk ring's figures are its segments' together)"
for m in $modes; do
	[ $m = plain ] && continue
	awk -v m=$m -v c="${cpu[$m]}" -v p="${cpu[plain]}" 'BEGIN {
		printf "%s CPU / plain CPU: %.2fx\n", m, (p > 0 ? c / p : 0) }'
done

echo
echo "idle: ${IDLE_S} s of sched:sched_switch, no workload: what the recorder burns waiting,"
echo "after its fixed cost (setup, kallsyms and formats, drain: a 0.1 s recording) is taken off"
for m in plain kernel-ring; do
	fixed=$(recorder_cpu "$FTREC" record -q $(mode_args $m) -e sched:sched_switch -d 0.1 \
		-o "$tmp/fixed-$m.ftz")
	c=$(recorder_cpu "$FTREC" record -q $(mode_args $m) -e sched:sched_switch -d "$IDLE_S" \
	    -o "$tmp/idle-$m.ftz")
	awk -v m=$m -v c="$c" -v f="$fixed" -v s="$IDLE_S" 'BEGIN {
		w = c - f; if (w < 0) w = 0
		printf "%-12s fixed %.3f cpu_s; waiting %.3f cpu_s in %d s = %.3f%% of one CPU\n",
		       m, f, w, s, 100 * w / s }'
done
