#!/usr/bin/env bash
# test_syscall_store.sh - a capture's syscalls stored once, as their pairs, each type a
# view (import/import_syscalls.c, meta syscall_store = 'pairs'), must give back exactly
# what the rows say (FTANA_SYSCALL_ROWS=1: the types imported as rows and derived by
# import/derive_syscalls.c, the oracle). On captures written byte by byte
# (tests/syscalls/store_gen.py, whose counts come from the generator's own model of the
# pairing rule):
#   1. hand-made cases (ASan build): 2..8 CPUs, many threads, exits on another CPU,
#      exits with no entry, entries with no exit, an entry after an entry, the exit of
#      another syscall, arguments (>= 2^63, outside a short record: NULL), losses at
#      random places, at an exit's very time on another CPU (either order of the tie),
#      twice at one time, thousands of events at one time, 65536 pairs at one time (the
#      store's most) and one more; and what the store gives up on (rows): a changing
#      __syscall_nr, times that go back, a time too far from the first, the kernel_stack
#      format (unless INFO says stacktrace=0), a hostile ret, 7 arguments, a text field.
#      For each: `ftana db` with the store and with the rows: the generator's counts in
#      both, syscall_store 'pairs' exactly when expected, and the same everywhere: every
#      syscall type's table or view (every column, by id), syscall_pairs (every column),
#      syscall_totals by name, syscall_range, the events view, the syscall_calls and opens
#      views; `report syscount` (--by, -x, -L, --since/--until, --cpu, CSV) and `report
#      opensnoop` the same bytes;
#   2. lazy imports: execsnoop first (sys_enter_exit_group alone: rows), then `ftana sql`
#      (the rest, rows): the generator's counts, the rows' contents; `ftana sql` first
#      (the store), then opensnoop: the rows' output; opensnoop first (every syscall
#      type: the store): the rows' output;
#   3. 200 small random captures from fixed seeds (the non-ASan build, two at a time):
#      the same checks but the reports, syscount's default output.
# syscall_pairs.syscall and syscall_names number the syscalls: the rows by their entries
# (the commonest first, docs/SQL.md), the store as first seen (it writes pairs before
# the counts are known). The test compares them by name and notes where they differ.
. "$(dirname "$0")/lib.sh"
FTANA_PLAIN=${FTANA_PLAIN:-$ROOT_DIR/$BUILD/ftana}
require_bin "$FTANA" "$FTANA_PLAIN"
# many small databases: tmpfs when there is one (a disk's fsync per `ftana db` is 10x slower)
scratch=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && scratch=/dev/shm
T=$(mktemp -d "$scratch/test_scstore.XXXXXX")
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME=$T/xdg
GEN=$TESTS_DIR/syscalls/store_gen.py
t0=$SECONDS

# dbs BIN DIR NAME: DIR/NAME.store.db with the store, DIR/NAME.rows.db with the rows
dbs() {
	"$1" db "$2/$3.ftz" -o "$2/$3.store.db" >/dev/null 2>"$2/$3.store.err"
	echo $? >"$2/$3.store.rc"
	FTANA_SYSCALL_ROWS=1 "$1" db "$2/$3.ftz" -o "$2/$3.rows.db" >/dev/null 2>"$2/$3.rows.err"
	echo $? >"$2/$3.rows.rc"
}
# the check's lines: ok/FAIL/note
tally() {
	local line
	while IFS= read -r line; do
		case $line in
		FAIL:*) fail "${line#FAIL: }" ;;
		*) echo "$line" ;;
		esac
	done
}
# same WHAT BIN ARGS...: the report on the store's .db and on the rows' .db ("@" in
# ARGS: the database), stdout, stderr and exit status alike
n_same=0 n_reports=0
same() {
	local what=$1 bin=$2 db; shift 2
	for db in store rows; do
		local -a args=()
		local x
		for x in "$@"; do [ "$x" = @ ] && args+=("$D/$name.$db.db") || args+=("$x"); done
		"$bin" "${args[@]}" >"$T/out.$db" 2>"$T/err.$db"
		echo "exit $?" >>"$T/out.$db"
		sed -i "s#$D/$name.$db.db#DB#g" "$T/out.$db" "$T/err.$db"
	done
	n_reports=$((n_reports + 1))
	if cmp -s "$T/out.store" "$T/out.rows" && cmp -s "$T/err.store" "$T/err.rows"; then
		n_same=$((n_same + 1))
	else
		fail "$name: $what: store != rows"
		diff "$T/out.store" "$T/out.rows" | head -n 8 | sed 's/^/      | /'
		diff "$T/err.store" "$T/err.rows" | head -n 4 | sed 's/^/      | /'
	fi
}
q() { # q DB SQL
	python3 -c 'import sqlite3, sys
for r in sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True).execute(sys.argv[2]):
    print(*r)' "$1" "$2"
}

# ---------------------------------------------------------------- 1. the hand-made cases
D=$T/cases
python3 "$GEN" cases "$D" >"$T/truth" || { echo "FAIL: store_gen.py cases"; exit 1; }
while read -r name _; do dbs "$FTANA" "$D" "$name"; done <"$T/truth"
while read -r name want _; do
	assert_eq "$name: ftana db exits (store, rows)" "0 0" "$(cat "$D/$name.store.rc") $(cat "$D/$name.rows.rc")"
	assert_eq "$name: ftana db says the same on stderr" "$(cat "$D/$name.rows.err")" "$(cat "$D/$name.store.err")"
done <"$T/truth"
python3 "$GEN" check "$T/truth" "$D" | tally
# the reports, over each database given directly
while read -r name want _ calls _; do
	if [ "$calls" = 0 ] || [ ! -f "$D/$name.store.db" ] || [ ! -f "$D/$name.rows.db" ]; then continue; fi
	n_same=0 n_reports=0
	read -r t1 t2 tid <<<"$(q "$D/$name.rows.db" "SELECT printf('%d.%09d', a / 1000000000, a % 1000000000),
		printf('%d.%09d', b / 1000000000, b % 1000000000), p FROM (
		SELECT (SELECT ts FROM syscall_calls ORDER BY id LIMIT 1 OFFSET (SELECT count(*) / 3 FROM syscall_calls)) AS a,
		       (SELECT ts FROM syscall_calls ORDER BY id LIMIT 1 OFFSET (SELECT 2 * count(*) / 3 FROM syscall_calls)) AS b,
		       (SELECT tid FROM syscall_calls GROUP BY tid ORDER BY count(*) DESC, tid LIMIT 1) AS p)")"
	ws=("" "--by both --csv" "--by process -x" "-L $tid --by both -x" "--since $t1 --by both"
		"--since $t1 --until $t2 -x" "--cpu 0 --by both" "--cpu 1-7 --since $t1 --csv" "--json --by both")
	# (131074 events; and where both are the rows, a look suffices)
	case $name/$want in recent_*/* | */rows) ws=("--by both" "--since $t1 --until $t2 --by both") ;; esac
	for w in "${ws[@]}"; do
		# shellcheck disable=SC2086
		same "syscount $w" "$FTANA" report syscount @ $w
	done
	if [ "$(q "$D/$name.rows.db" "SELECT count(*) FROM sys_enter_openat" 2>/dev/null)" != "" ]; then
		same "opensnoop" "$FTANA" report opensnoop @
		same "opensnoop -x --csv --since $t1" "$FTANA" report opensnoop @ -x --csv --since "$t1"
	fi
	assert_eq "$name: reports over the store's .db = over the rows' (syscount windows, -L, opensnoop)" \
		"$n_reports" "$n_same"
done <"$T/truth"

echo "took $((SECONDS - t0)) s: the hand-made cases"
# ---------------------------------------------------------------- 2. lazy imports
for name in opens mixed1_4cpu; do
	read -r _ _ _ calls _ _ _ _ types <<<"$(grep "^$name " "$T/truth")"
	reads=$(tr ',' '\n' <<<"$types" | awk -F= '$1 == "sys_enter_read" { print $2 }')
	opens=$(tr ',' '\n' <<<"$types" | awk -F= '$1 == "sys_enter_openat" { print $2 }')
	# (a) execsnoop first: the one report that imports some syscall types alone
	# (sys_enter_exit_group, sys_enter_exit: entries, no pairing), as rows; then
	# every other type, as rows (the store takes a capture's syscalls all at once)
	mkdir -p "$T/lazy_a/$name" "$T/lazy_b/$name" "$T/lazy_c/$name"
	cp "$D/$name.ftz" "$T/lazy_a/$name/c.ftz"
	cp "$D/$name.ftz" "$T/lazy_b/$name/c.ftz"
	cp "$D/$name.ftz" "$T/lazy_c/$name/c.ftz"
	A=$T/lazy_a/$name/c.ftz B=$T/lazy_b/$name/c.ftz C=$T/lazy_c/$name/c.ftz
	"$FTANA" report execsnoop "$A" >"$T/lazy_a/$name/exec" 2>&1 # (no sched_process_exec: refused)
	assert_eq "$name (a) execsnoop first: sys_enter_openat not imported yet, no store" \
		"0 none" "$(q "$A.db" "SELECT (SELECT imported FROM event_types WHERE name = 'sys_enter_openat'),
			coalesce((SELECT value FROM meta WHERE key = 'syscall_store'), 'none')")"
	assert_eq "$name (a) then ftana sql: sys_enter_read rows as written" "count(*) $reads" \
		"$("$FTANA" sql "$A" "select count(*) from sys_enter_read" 2>&1 | tr -s ' \n' '  ' | sed 's/ $//')"
	# (no store when execsnoop imported events of its types: then not every syscall
	# type is imported at once)
	store=pairs
	grep -qE '(^|,)sys_enter_exit(_group)?=' <<<"$types" && store=none
	assert_eq "$name (a) then: the store only when execsnoop imported no syscall event" "$store" \
		"$(q "$A.db" "SELECT coalesce((SELECT value FROM meta WHERE key = 'syscall_store'), 'none')")"
	assert_eq "$name (a) then: sys_enter_openat rows as written" "$opens" \
		"$(q "$A.db" "SELECT count(*) FROM sys_enter_openat")"
	assert_eq "$name (a) then: syscall_pairs holds every entry as written" "$calls" \
		"$(q "$A.db" "SELECT count(*) FROM syscall_pairs")"
	# the cache, extended twice, holds what the rows' .db does
	cp "$A.db" "$D/lazy_a_$name.store.db"
	cp "$D/$name.rows.db" "$D/lazy_a_$name.rows.db"
	expect=rows
	[ "$store" = pairs ] && expect=pairs
	grep "^$name " "$T/truth" | sed "s/^$name pairs /lazy_a_$name $expect /" >"$T/truth_a"
	python3 "$GEN" check "$T/truth_a" "$D" | tally
	# (b) ftana sql first: the store; then opensnoop: the rows' output
	assert_eq "$name (b) ftana sql first: sys_enter_read as written" "count(*) $reads" \
		"$("$FTANA" sql "$B" "select count(*) from sys_enter_read" 2>&1 | tr -s ' \n' '  ' | sed 's/ $//')"
	assert_eq "$name (b) ftana sql first: the store" "pairs view" \
		"$(q "$B.db" "SELECT (SELECT value FROM meta WHERE key = 'syscall_store'),
			(SELECT type FROM sqlite_master WHERE name = 'sys_enter_openat')")"
	"$FTANA" report opensnoop "$B" >"$T/lazy_b/$name/open" 2>&1
	echo "exit $?" >>"$T/lazy_b/$name/open"
	"$FTANA" report opensnoop "$D/$name.rows.db" >"$T/lazy_b/$name/rows" 2>&1
	echo "exit $?" >>"$T/lazy_b/$name/rows"
	assert_eq "$name (b) then opensnoop: the rows' output" "" \
		"$(diff "$T/lazy_b/$name/open" "$T/lazy_b/$name/rows" | head -n 10)"
	# (a)'s cache, whole now: opensnoop says what the rows say
	"$FTANA" report opensnoop "$A" >"$T/lazy_a/$name/again" 2>&1
	echo "exit $?" >>"$T/lazy_a/$name/again"
	assert_eq "$name (a) opensnoop, the cache whole: the rows' output" "" \
		"$(diff "$T/lazy_a/$name/again" "$T/lazy_b/$name/rows" | head -n 10)"
	# (c) opensnoop first imports every syscall type (an open pairs with its exit only
	# when no other syscall event of its thread comes between): the store, and the
	# rows' output
	"$FTANA" report opensnoop "$C" >"$T/lazy_c/$name/open" 2>&1
	echo "exit $?" >>"$T/lazy_c/$name/open"
	assert_eq "$name (c) opensnoop first: the store" "pairs" \
		"$(q "$C.db" "SELECT value FROM meta WHERE key = 'syscall_store'")"
	assert_eq "$name (c) opensnoop first: the rows' output" "" \
		"$(diff "$T/lazy_c/$name/open" "$T/lazy_b/$name/rows" | head -n 10)"
done

echo "took $((SECONDS - t0)) s: the lazy imports"
# ---------------------------------------------------------------- 3. random captures
fuzz() { # SEED N: a shard
	local F=$T/fuzz$1 name
	python3 "$GEN" fuzz "$F" "$1" "$2" >"$F.truth" || { echo "FAIL: store_gen.py fuzz $1 $2"; return; }
	while read -r name _; do
		dbs "$FTANA_PLAIN" "$F" "$name"
		[ "$(cat "$F/$name.store.rc") $(cat "$F/$name.rows.rc")" = "0 0" ] ||
			echo "FAIL: $name: ftana db exits (store, rows): $(cat "$F/$name.store.rc") $(cat "$F/$name.rows.rc"): $(
				cat "$F/$name.store.err" "$F/$name.rows.err" | head -n 2 | tr '\n' ' ')"
		"$FTANA_PLAIN" report syscount "$F/$name.store.db" --by both >"$F/$name.store.sc" 2>&1
		"$FTANA_PLAIN" report syscount "$F/$name.rows.db" --by both >"$F/$name.rows.sc" 2>&1
		cmp -s "$F/$name.store.sc" "$F/$name.rows.sc" || echo "FAIL: $name: syscount --by both: store != rows"
	done <"$F.truth"
	python3 "$GEN" check "$F.truth" "$F"
}
fuzz 1 100 >"$T/fuzz1.log" 2>&1 &
fuzz 101 100 >"$T/fuzz101.log" 2>&1
wait
cat "$T/fuzz1.log" "$T/fuzz101.log" >"$T/fuzz.log"
grep '^FAIL' "$T/fuzz.log" | head -n 40 | tally
assert_eq "fuzz: captures" 200 "$(cat "$T"/fuzz1.truth "$T"/fuzz101.truth | wc -l)"
assert_eq "fuzz: captures whose store and rows agree everywhere" 200 "$(grep -c ': store = rows' "$T/fuzz.log")"
assert_eq "fuzz: captures as the generator wrote them (store, rows)" 400 "$(grep -c "the generator's counts" "$T/fuzz.log")"
assert_eq "fuzz: syscall_store as expected" 200 "$(grep -c '^ok: .*: syscall_store ' "$T/fuzz.log")"
echo "fuzz: $(awk '{ print $2 }' "$T"/fuzz1.truth "$T"/fuzz101.truth | sort | uniq -c | tr '\n' ' ')(expected store)"
echo "note: $(grep -c '^note' "$T/fuzz.log") of 200 random captures number their syscalls otherwise in the store"
echo "took $((SECONDS - t0)) s"
finish
