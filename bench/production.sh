#!/usr/bin/env bash
# Production-size benchmark (issue 23): how long ftana takes to answer on a one-minute
# capture of a moderately busy host, and how big its database is, against trace-cmd on
# the same events and SQLite's bare-insert ceiling, measured in the same run.
#
# The capture (recorded here, bench/mix_load.c): BENCH_PROD_S seconds (default 60) of
# getpid entry/exit (BENCH_PROD_GETPIDS calls, default 10,000,000: ~20 M events),
# sched_switch / wakeup / waking from a pipe ping-pong (~10,000 switches/s), block
# requests from 4 KiB O_DIRECT I/O, recorded with
#   ftrec record -e syscalls:sys_{enter,exit}_getpid,sched:*,block:* -b 65536
# Figures, each a fresh process (wall seconds, peak RSS):
#   ftana info (cold: no database yet)             target < 0.5 s
#   first report iolat (cold)                      target <= 1/3 of trace-cmd report -F block
#   trace-cmd report -F block on `ftana convert`'s trace.dat of the same capture
#   first report summary (cold), then warm         targets <= 5 s, <= 1 s
#   report runqlat, cpudist (database built)
#   ftana db (everything) events/s, bytes/event    targets >= 0.8 x ceiling, <= 20 B/event
#   SQLite ceiling: bench/insert_ceiling, the same number of rows
# Then BENCH_PROD_BIG (default 5) times the getpid calls in the same seconds: RSS flat.
# Env: BUILD, BENCH_PROD_S, BENCH_PROD_GETPIDS, BENCH_PROD_BIG (0: skip), BENCH_KEEP=1.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SECS=${BENCH_PROD_S:-60}
GETPIDS=${BENCH_PROD_GETPIDS:-10000000}
BIG=${BENCH_PROD_BIG:-5}
FTREC=$PWD/$BUILD/ftrec FTANA=$PWD/$BUILD/ftana FTZDUMP=$PWD/$BUILD/ftzdump
LOAD=$PWD/$BUILD/bench/mix_load CEIL=$PWD/$BUILD/bench/insert_ceiling
EVENTS='syscalls:sys_enter_getpid,syscalls:sys_exit_getpid,sched:sched_switch,sched:sched_wakeup,sched:sched_waking,sched:sched_wakeup_new,sched:sched_process_fork,sched:sched_process_exec,sched:sched_process_exit,block:block_rq_insert,block:block_rq_issue,block:block_rq_complete'

if [ "$(id -u)" != 0 ]; then echo "needs root (records with ftrec)"; exit 77; fi
[ -d /sys/kernel/tracing/events/syscalls/sys_enter_getpid ] ||
	{ echo "no syscalls:sys_enter_getpid tracepoint"; exit 77; }
for b in "$FTREC" "$FTANA" "$FTZDUMP" "$LOAD" "$CEIL" /usr/bin/time; do
	[ -x "$b" ] || { echo "production.sh: $b missing: run make bench" >&2; exit 1; }
done
tmp=$(mktemp -d -p /var/tmp ftprod.XXXXXX)
cleanup() { [ "${BENCH_KEEP:-}" = 1 ] && echo "kept $tmp" || rm -rf "$tmp"; }
trap cleanup EXIT

record() { # OUT GETPIDS
	"$FTREC" record -q -e "$EVENTS" -b 65536 -o "$1" -- "$LOAD" "$SECS" "$2" "$tmp" >"$tmp/load.out" 2>&1 ||
		{ echo "production.sh: ftrec record failed" >&2; cat "$tmp/load.out" >&2; exit 1; }
	sed -n 's/^mix_load: /workload: /p' "$tmp/load.out"
}
# timed LABEL COMMAND...: one fresh process; prints "LABEL wall_s rss_mb"
timed() {
	local label=$1
	shift
	/usr/bin/time -f '%e %M' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" ||
		{ echo "production.sh: $label failed: $*" >&2; tail -n 5 "$tmp/err" >&2; exit 1; }
	awk -v l="$label" '{ printf "%-44s %8.2f s %8d MB\n", l, $1, $2 / 1024 }' "$tmp/time"
	awk '{ print $1 }' "$tmp/time" >"$tmp/last"
}
last() { cat "$tmp/last"; }
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }
meets() { [ "$(echo "$1" | bc -l)" = 1 ] && echo "met" || echo "MISSED"; }

one_capture() { # NAME GETPIDS
	local name=$1 ftz=$tmp/$1.ftz events db
	record "$ftz" "$2"
	events=$("$FTZDUMP" -q "$ftz" | awk '$1 == "total" { print $5 }')
	printf '%s: %s events, .ftz %s MB (%.2f B/event)\n' "$name" "$events" \
		"$(($(stat -c %s "$ftz") / 1048576))" "$(echo "$(stat -c %s "$ftz") / $events" | bc -l)"
	"$FTZDUMP" -q "$ftz" | awk '$1 == "event" { printf "  %-24s %10d\n", $2, $3 }'
	rm -f "$ftz.db"
	timed "ftana info (cold)" "$FTANA" info "$ftz"; info=$(last)
	timed "first report iolat (cold)" "$FTANA" report iolat "$ftz"; iolat=$(last)
	"$FTANA" convert "$ftz" -o "$tmp/$name.dat" >/dev/null 2>&1 ||
		{ echo "production.sh: ftana convert failed" >&2; exit 1; }
	timed "trace-cmd report -F block (same events)" trace-cmd report -F block "$tmp/$name.dat"; tc=$(last)
	rm -f "$ftz.db"
	timed "first report summary (cold)" "$FTANA" report summary "$ftz"; sum_cold=$(last)
	timed "report summary (warm)" "$FTANA" report summary "$ftz"; sum_warm=$(last)
	timed "report runqlat" "$FTANA" report runqlat "$ftz"
	timed "report cpudist" "$FTANA" report cpudist "$ftz"
	timed "first report syscount (totals streamed)" "$FTANA" report syscount "$ftz"; sc=$(last)
	timed "first report syscount --since (over its window)" "$FTANA" report syscount "$ftz" --since +1; scw=$(last)
	timed "report syscount --cpu 0 (over its CPU)" "$FTANA" report syscount "$ftz" --cpu 0
	db=$tmp/$name.db
	rm -f "$db"
	timed "ftana db (every event, -o)" "$FTANA" db "$ftz" -o "$db"; full=$(last)
	"$CEIL" "$events" "$tmp/ceil.db" >"$tmp/ceil"
	ceil=$(awk '{ for (i = 1; i < NF; i++) if ($i == "rows_per_s") print $(i + 1) }' "$tmp/ceil")
	rate=$(echo "$events / $full" | bc -l | xargs printf '%.0f')
	bpe=$(echo "$(stat -c %s "$db") / $events" | bc -l | xargs printf '%.1f')
	printf '  ftana db: %s events/s, SQLite ceiling %s rows/s: %s x (target >= 0.8: %s)\n' \
		"$rate" "$ceil" "$(ratio "$rate" "$ceil")" "$(meets "$rate / $ceil >= 0.8")"
	printf '  database: %s MB, %s B/event (target <= 20: %s)\n' "$(($(stat -c %s "$db") / 1048576))" \
		"$bpe" "$(meets "$bpe <= 20")"
	printf '  info: %s s (target < 0.5: %s); first iolat / trace-cmd -F block: %s (target <= 0.33: %s)\n' \
		"$info" "$(meets "$info < 0.5")" "$(ratio "$iolat" "$tc")" "$(meets "$iolat * 3 <= $tc")"
	printf '  summary: first %s s (target <= 5: %s), warm %s s (target <= 1: %s)\n' \
		"$sum_cold" "$(meets "$sum_cold <= 5")" "$sum_warm" "$(meets "$sum_warm <= 1")"
	printf '  syscount: first %s s, first with --since %s s (target: a few seconds, <= 3: %s)\n' "$sc" "$scw" \
		"$(meets "$sc <= 3 && $scw <= 3")"
	rm -f "$db" "$tmp/ceil.db" "$ftz.db" "$tmp/$name.dat"
}

printf '%-44s %10s %11s\n' "" wall "peak RSS"
one_capture prod "$GETPIDS"
if [ "$BIG" -gt 0 ]; then
	echo
	one_capture big "$((GETPIDS * BIG))"
	echo "(RSS is flat when the big capture's figures above match the first one's)"
fi
