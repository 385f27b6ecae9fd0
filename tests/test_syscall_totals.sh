#!/usr/bin/env bash
# test_syscall_totals.sh - `report syscount` without a time or CPU filter is answered
# from syscall_totals streamed at import (import/import_stream.c: no syscall row is
# imported, issue 23), and must say exactly what the rows say (derive_syscalls.c, whose
# SQL oracle is tests/oracle/syscount.sql):
#   1. on captures written byte by byte (tests/syscalls/gen.py), the counts the
#      generator put there: losses after an entry, at an exit's very time on the other
#      CPU (both orders of the tie), at an entry's own time;
#   2. on those, on the samples with syscalls and on captures the stream cannot sum in
#      one pass (times that go back, a ret that is not a number: the report reads the
#      rows then), every --by and -x, text and CSV: the same bytes as the report over
#      a cache `ftana sql` built whole, and the same as the rows read through a filter
#      that keeps everything (--cpu with every CPU);
#   3. the streamed cache holds no syscall row; a later question that needs the rows
#      (`ftana sql`) extends it, and then the first answer is unchanged;
#   4. with a time or CPU filter the totals are made again over the slice's window
#      (import/dbcache_window.c: no row imported either), and say exactly what the rows
#      of a .db given directly say over windows whose edges are entries' own times
#      (--since keeps an entry at its time, --until leaves it out), CPUs, -p, -x.
# samples/triage_stacks.ftz has no syscall event: both ways say so alike.
. "$(dirname "$0")/lib.sh"
require_bin "$FTANA"
T=$(mktemp -d /tmp/test_sctot.XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME=$T/xdg

python3 "$TESTS_DIR/syscalls/gen.py" "$T/gen" >"$T/expect" || { echo "FAIL: gen.py"; exit 1; }
# q CAPTURE SQL: on its cache file as it is (`ftana sql` would first import every type)
q() {
	python3 -c 'import sqlite3, sys
for r in sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True).execute(sys.argv[2]):
    print(*r)' "$1.db" "$2"
}

# 1. the generator's counts (calls, unpaired, total ns), from the streamed totals
while read -r name calls unpaired total; do
	[ "$calls" = - ] && continue
	mkdir -p "$T/one/$name"
	cp "$T/gen/$name.ftz" "$T/one/$name/c.ftz"
	"$FTANA" report syscount "$T/one/$name/c.ftz" --csv >"$T/one/$name/out" 2>"$T/one/$name/err"
	assert_eq "$name: syscount exit" 0 $?
	got=$(awk -F, 'NR == 2 { printf "%s %s %.0f", $2, $6, $4 * 1e6 }' "$T/one/$name/out")
	assert_eq "$name: calls, unpaired, total ns as written" "$calls $unpaired $total" "$got"
done <"$T/expect"
# a loss the kernel did not count is not "0 events lost"
assert_contains "loss_between: the warning does not count an unknown loss as 0 events" "$T/one/loss_between/err" \
	"warning: the capture lost events \(1 loss of unknown size\) in this report's time range"

# 2. every way of reading agrees; 3. the cache's contents and its extension
cpus() { q "$1" "SELECT group_concat(cpu, ',') FROM (SELECT DISTINCT cpu FROM cpu_spans ORDER BY cpu)"; }
caps=""
for f in "$T"/gen/*.ftz "$ROOT_DIR"/samples/triage.ftz "$ROOT_DIR"/samples/triage_stacks.ftz \
	"$ROOT_DIR"/samples/opensnoop.ftz; do
	name=$(basename "$f" .ftz)
	caps="$caps $name"
	mkdir -p "$T/lean/$name" "$T/full/$name"
	cp "$f" "$T/lean/$name/c.ftz"
	cp "$f" "$T/full/$name/c.ftz"
	"$FTANA" sql "$T/full/$name/c.ftz" "SELECT 1" >/dev/null 2>&1 # every type, every derivation
	lean=$T/lean/$name/c.ftz
	same=0 n=0
	for by in syscall process both; do
		for x in "" -x; do
			for fmt in "" --csv; do
				n=$((n + 1))
				# shellcheck disable=SC2086
				"$FTANA" report syscount "$lean" --by $by $x $fmt >"$T/a" 2>"$T/ae"
				echo "exit $?" >>"$T/a"
				# shellcheck disable=SC2086
				"$FTANA" report syscount "$T/full/$name/c.ftz" --by $by $x $fmt >"$T/b" 2>"$T/be"
				echo "exit $?" >>"$T/b"
				if cmp -s "$T/a" "$T/b" && cmp -s "$T/ae" "$T/be"; then same=$((same + 1)); else
					echo "  $name --by $by $x $fmt:"; diff "$T/a" "$T/b" | head -5; diff "$T/ae" "$T/be" | head -3
				fi
				if [ "$n" = 1 ]; then # before anything else asked for the rows
					case $name in
					time_back | ret_bytes) want="2 1" what="the totals gave up: the rows were imported" ;;
					*) want="0 0" what="the streamed cache holds no syscall row" ;;
					esac
					assert_eq "$name: $what" "$want" \
						"$(q "$lean" "SELECT count(*) FROM event_types WHERE system = 'syscalls' AND imported AND count > 0")$(
						q "$lean" "SELECT ' ' || count(*) FROM sqlite_master WHERE name = 'syscall_pairs'")"
				fi
			done
		done
	done
	assert_eq "$name: syscount streamed = over the whole cache, every --by, -x, text and CSV" "$n" "$same"
	# the rows (a .db given directly has nothing else), through a filter that keeps
	# every CPU, say the same
	all=$(cpus "$lean")
	"$FTANA" db "$T/full/$name/c.ftz" -o "$T/full/$name/all.db" >/dev/null 2>&1
	"$FTANA" report syscount "$T/full/$name/all.db" --by both --cpu "$all" >"$T/rows" 2>/dev/null
	"$FTANA" report syscount "$lean" --by both >"$T/whole" 2>/dev/null
	assert_eq "$name: the totals = the rows of every CPU (--cpu $all)" "" "$(diff "$T/whole" "$T/rows")"
	# 4. windows: made over the slice, as the rows of the .db say
	if [ "$name" != triage_stacks ]; then
		read -r t1 t2 pid <<<"$(q "$T/full/$name/c.ftz" "SELECT printf('%d.%09d', a / 1000000000, a % 1000000000),
			printf('%d.%09d', b / 1000000000, b % 1000000000), p FROM (
			SELECT (SELECT ts FROM syscall_calls ORDER BY id LIMIT 1 OFFSET (SELECT count(*) / 3 FROM syscall_calls)) AS a,
			       (SELECT ts FROM syscall_calls ORDER BY id LIMIT 1 OFFSET (SELECT 2 * count(*) / 3 FROM syscall_calls)) AS b,
			       (SELECT tid FROM syscall_calls GROUP BY tid ORDER BY count(*) DESC LIMIT 1) AS p)")"
		same=0 n=0
		for w in "--since $t1" "--until $t1" "--since $t1 --until $t2 --by both" "--cpu 0" "--cpu 1 --by process" \
			"--since $t1 -x --by both" "--until $t2 --cpu 0 -p $pid --csv" "--since +0 --by both --csv" \
			"--since $t1 -L $pid" "-L $pid --by both"; do
			n=$((n + 1))
			# shellcheck disable=SC2086
			"$FTANA" report syscount "$lean" $w >"$T/a" 2>"$T/ae"
			echo "exit $?" >>"$T/a"
			# shellcheck disable=SC2086
			"$FTANA" report syscount "$T/full/$name/all.db" $w >"$T/b" 2>"$T/be"
			echo "exit $?" >>"$T/b"
			sed -i "s#$lean#F#g; s#$T/full/$name/all.db#F#g" "$T/ae" "$T/be"
			if cmp -s "$T/a" "$T/b" && cmp -s "$T/ae" "$T/be"; then same=$((same + 1)); else
				echo "  $name $w:"; diff "$T/a" "$T/b" | head -5; diff "$T/ae" "$T/be" | head -3
			fi
		done
		assert_eq "$name: syscount over $n windows (times, CPUs, -p, -L, -x) = the rows'" "$n" "$same"
		case $name in
		time_back | ret_bytes) ;; # (the rows were imported by the first question)
		*) assert_eq "$name: the windows imported no syscall row" "0 0" \
			"$(q "$lean" "SELECT count(*) FROM event_types WHERE system = 'syscalls' AND imported AND count > 0")$(
			q "$lean" "SELECT ' ' || count(*) FROM sqlite_master WHERE name = 'syscall_pairs'")" ;;
		esac
	fi
	# a question that needs the rows extends the streamed cache; the totals stay right
	"$FTANA" sql "$lean" "SELECT count(*) FROM syscall_calls" >/dev/null 2>&1
	[ "$name" = triage_stacks ] || # (no syscall event: nothing to pair)
		assert_eq "$name: ftana sql extended the cache with the pairs" 1 \
			"$(q "$lean" "SELECT count(*) FROM sqlite_master WHERE name = 'syscall_pairs'")"
	"$FTANA" report syscount "$lean" --by both >"$T/again" 2>/dev/null
	assert_eq "$name: syscount after the extension, unchanged" "" "$(diff "$T/whole" "$T/again")"
done
# a damaged capture whose totals give up is opened twice (the totals, then the rows):
# its damage is still said once
mkdir -p "$T/dmg"
head -c -100 "$T/gen/time_back.ftz" >"$T/dmg/c.ftz"
"$FTANA" report syscount "$T/dmg/c.ftz" >/dev/null 2>"$T/dmg/err"
assert_eq "damaged, totals given up: exit 3 (the report covers what came before)" 3 $?
assert_eq "damaged, totals given up: the damage said once" 1 "$(grep -c 'damaged at offset' "$T/dmg/err")"
# a cache a windowed question built holds no syscall row: given directly as a .db, a
# report that reads them says so in one line (it printed an empty table, exit 0)
mkdir -p "$T/asdb"
cp "$ROOT_DIR/samples/triage.ftz" "$T/asdb/c.ftz"
"$FTANA" report syscount "$T/asdb/c.ftz" --since +0.05 >/dev/null 2>&1
"$FTANA" report syscount "$T/asdb/c.ftz.db" --since +0.05 >"$T/asdb/out" 2>"$T/asdb/err"
assert_eq "the cache as a .db: syscount --since: exit 1" 1 $?
assert_one_line_error "the cache as a .db: syscount --since: the missing rows named" "$T/asdb/err" \
	"c.ftz.db: this database lacks the capture's syscalls:sys_(enter|exit)_[a-z_0-9]+ events"
assert_eq "the cache as a .db: nothing on stdout" "" "$(cat "$T/asdb/out")"
"$FTANA" sql "$T/asdb/c.ftz" "SELECT 1" >/dev/null 2>&1 # every type
"$FTANA" report syscount "$T/asdb/c.ftz.db" --since +0.05 >"$T/asdb/out2" 2>/dev/null
assert_eq "the cache as a .db, once whole: the window's answer" \
	"$("$FTANA" report syscount "$T/asdb/c.ftz" --since +0.05 2>/dev/null)" "$(cat "$T/asdb/out2")"
# a signal during a window's import (its child held by the test hook) leaves nothing
# in TMPDIR: neither the window's database nor the directory of ftana's own it is in
mkdir -p "$T/sigtmp"
cp "$ROOT_DIR/samples/triage.ftz" "$T/asdb/s.ftz"
"$FTANA" report syscount "$T/asdb/s.ftz" >/dev/null 2>&1 # the cache, without the hook
set -m
for sig in INT TERM; do
	TMPDIR=$T/sigtmp FTANA_TEST_IMPORT_CRASH=hang "$FTANA" report syscount "$T/asdb/s.ftz" --cpu 0 \
		>/dev/null 2>&1 &
	p=$!
	for _ in $(seq 100); do [ -n "$(ls -A "$T/sigtmp")" ] && break; sleep 0.1; done
	assert_eq "SIG$sig during a window's import: its directory was made" 1 "$(ls -A "$T/sigtmp" | wc -l)"
	kill -$sig $p
	wait $p
	rc=$?
	assert_eq "SIG$sig during a window's import: ftana died of it" "$((128 + $(kill -l $sig)))" $rc
	assert_eq "SIG$sig during a window's import: nothing left in TMPDIR" "" "$(ls -A "$T/sigtmp")"
done
set +m
assert_eq "captures compared" " loss_at_exit loss_between ret_bytes time_back triage triage_stacks opensnoop" "$caps"
finish
