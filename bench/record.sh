#!/usr/bin/env bash
# Recording benchmark (issue 2): what does ftrec cost compared with the simplest
# recorder that keeps everything, and does it keep everything?
#
# Workload: bench/getpid_gen calls getpid() N times (default 5,000,000) on CPU 1
# with syscalls:sys_enter_getpid enabled; the recorder runs on CPU 0.
#   (a) ftrec record -> .ftz; events counted by ftzdump (kbuffer walk)
#   (b) bench/baseline_read: blocking whole-page read()s of trace_pipe_raw into a
#       plain file, drained non-blocking at the end; compressed with zstd -1 here
# Recorder CPU = user+sys of the recorder and its waited-for children, minus the
# workload's own user+sys (getpid_gen reports it), so the kernel's cost of
# writing events (charged to the workload) is not counted.
# Also: a zstd level sweep on ftrec's pages (bench/ftz_levels), to weigh CPU against size.
# Env: BUILD, BENCH_N (events), BENCH_KEEP=1 keeps the temporary files.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
N=${BENCH_N:-5000000}
EVENT=syscalls:sys_enter_getpid
TRACEFS=/sys/kernel/tracing
FTREC=$PWD/$BUILD/ftrec FTZDUMP=$PWD/$BUILD/ftzdump
BASELINE=$PWD/$BUILD/bench/baseline_read GEN=$PWD/$BUILD/bench/getpid_gen
LEVELS=$PWD/$BUILD/bench/ftz_levels

if [ "$(id -u)" != 0 ]; then echo "needs root (tracefs)"; exit 77; fi
if [ ! -d $TRACEFS/events/syscalls/sys_enter_getpid ]; then
	echo "no $TRACEFS/events/syscalls/sys_enter_getpid"; exit 77
fi
if [ "$(nproc)" -lt 2 ]; then echo "needs 2 CPUs (recorder and workload pinned apart)"; exit 77; fi
for b in "$FTZDUMP" "$BASELINE" "$GEN" "$LEVELS"; do
	[ -x "$b" ] || { echo "record.sh: $b missing: run make bench" >&2; exit 1; }
done

instance=ftbench-$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftbench.XXXXXX")
cleanup() {
	[ -d $TRACEFS/instances/$instance ] && rmdir $TRACEFS/instances/$instance 2>/dev/null
	[ "${BENCH_KEEP:-}" = 1 ] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

. bench/lib.bash

echo "workload: $N x getpid() on CPU 1, $EVENT; recorder on CPU 0"

# (b) baseline
base_cpu=$(recorder_cpu taskset -c 0 "$BASELINE" -i "$instance" -e $EVENT -o "$tmp/base.raw" \
	   -- taskset -c 1 "$GEN" "$N" "$tmp/gen.cpu")
page_size=$(awk '$1 == "page_size" { print $2 }' "$tmp/rec.out")
"$FTZDUMP" --raw "$page_size" "$tmp/base.raw" >"$tmp/base.dump"
base_events=$(field "$tmp/base.dump" events)
base_missed=$(field "$tmp/base.dump" missed)
base_raw=$(stat -c %s "$tmp/base.raw")
base_z=$(zstd -1 -q -c "$tmp/base.raw" | wc -c)
rm -f "$tmp/base.raw"

# (a) ftrec
if [ -x "$FTREC" ] && "$FTREC" record --help >/dev/null 2>&1; then
	ftrec_cpu=$(recorder_cpu taskset -c 0 "$FTREC" record -e $EVENT -o "$tmp/rec.ftz" \
		    -- taskset -c 1 "$GEN" "$N" "$tmp/gen.cpu")
	"$FTZDUMP" "$tmp/rec.ftz" >"$tmp/rec.dump" || {
		echo "record.sh: ftzdump failed on ftrec's file" >&2; exit 1; }
	ftrec_events=$(awk '$1 == "event" && $2 == "sys_enter_getpid" { print $3 }' "$tmp/rec.dump")
	ftrec_raw=$(field "$tmp/rec.dump" bytes)
	# Compressed = stored bytes of the PAGES sections, so that metadata (kallsyms,
	# formats) does not blur the ratio; the whole file size is printed too.
	ftrec_z=$(awk '$1 == "section" && $3 == "PAGES(3)" { s += $7 } END { print s + 0 }' "$tmp/rec.dump")
	ftrec_file=$(stat -c %s "$tmp/rec.ftz")
	ftrec_missed=$(field "$tmp/rec.dump" missed)
else
	echo "ftrec not built or has no 'record' yet: only the baseline row is measured"
fi

row() { # name events missed-pages raw compressed cpu
	awk -v name="$1" -v ev="$2" -v m="$3" -v raw="$4" -v z="$5" -v cpu="$6" -v n="$N" 'BEGIN {
		printf "%-9s %12d %7.2f%% %6d %10.1f %10.2f %7.1fx %7.2f %8.3f\n",
		       name, ev, 100 * ev / n, m, raw / 1e6, z / 1e6, raw / z, z / ev, cpu }'
}
echo "(events: every sys_enter_getpid on the machine, so other processes' calls add a few;"
echo " lost_p: pages the kernel flagged as following lost events)"
printf "\n%-9s %12s %8s %6s %10s %10s %8s %7s %8s\n" recorder events kept lost_p raw_MB stored_MB \
	ratio B/event cpu_s
row baseline "$base_events" "$base_missed" "$base_raw" "$base_z" "$base_cpu"
if [ -n "${ftrec_cpu:-}" ]; then
	row ftrec "${ftrec_events:-0}" "$ftrec_missed" "$ftrec_raw" "$ftrec_z" "$ftrec_cpu"
	echo "(ftrec stored_MB: PAGES sections only; whole .ftz file: $ftrec_file bytes)"
	echo
	awk -v fe="${ftrec_events:-0}" -v n="$N" -v fc="$ftrec_cpu" -v bc="$base_cpu" \
	    -v raw="$ftrec_raw" -v z="$ftrec_z" -v bz="$base_z" -v braw="$base_raw" -v missed="$ftrec_missed" 'BEGIN {
		ok = fe >= n && missed == 0
		printf "target: ftrec keeps 100%% of events      %-6s (%d of %d, %d pages flagged lost)\n",
		       (ok ? "MET" : "MISSED"), fe, n, missed
		r = bc > 0 ? fc / bc : 0
		printf "target: ftrec CPU <= 1.5x baseline      %-6s (%.2fx)\n", (r <= 1.5 ? "MET" : "MISSED"), r
		printf "target: compressed >= 25x smaller       %-6s (%.1fx vs its own raw pages)\n",
		       (raw / z >= 25 ? "MET" : "MISSED"), raw / z
		printf "        ... vs the baseline'"'"'s raw file  %-6s (%.1fx: the baseline reads part-filled pages)\n",
		       (braw / z >= 25 ? "MET" : "MISSED"), braw / z
		printf "(ftrec stored / baseline stored: %.2f)\n", z / bz
	}'
	# What another ftz_writer_set_level would give on the same pages (writer only).
	echo
	echo "zstd level sweep: ftrec's pages rewritten section by section through libftz"
	"$LEVELS" "$tmp/rec.ftz" "$tmp/levels.ftz" 1 3 6 7 | sed 's/^/  /'
fi
