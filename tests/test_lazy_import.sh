#!/usr/bin/env bash
# test_lazy_import.sh - a report imports only the event types it reads into the capture's
# cache, and a later question extends that cache (issue 23). On a trace.dat with seven
# types (tests/data/tracedat/langraph-5.15-x86_64-v7.dat) and a .ftz with kernel stacks
# (samples/block-dd-stacks.ftz):
#   1. the first report's cache holds its types (event_types.imported) and no rows of
#      the others;
#   2. `ftana sql` then asks for another type: its count is the independent reader's
#      (trace-cmd report for the trace.dat, tools/ftzdump for the .ftz);
#   3. the cache extended by report after report, then by `ftana sql` (everything), is
#      the database `ftana db` makes in one pass, table by table and row by row (the
#      same ids: the decoder numbers the events it does not hand out);
#   4. another user's ftana (another key: XDG_CACHE_HOME) does not extend a cache it
#      did not sign: a row planted in the first user's cache (rows are not signed,
#      so only a rebuild removes it) survives the first user's extension and is gone
#      after the other user's question.
# The hostile captures take the lazy path too: tests/hostile/gen.py runs a report that
# reads none of their types first, then extends its cache (test_hostile.sh).
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTANA" "$FTZDUMP"
command -v sqlite3 >/dev/null || { echo "sqlite3 (the CLI) is not installed"; exit 77; }
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed (make deps)"; exit 77; }

T=$(mktemp -d /tmp/test_lazy.XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME=$T/xdg-a

sq() { sqlite3 -batch "$1" "$2"; }
imported() { # DB -> "type:0|1" for each type the capture has, sorted
	sq "$1" "SELECT table_name || ':' || imported FROM event_types WHERE count > 0 ORDER BY 1" | tr '\n' ' '
}
# same_db WHAT A B: every table of B is in A with the same rows (and A has no other)
same_db() {
	local what=$1 a=$2 b=$3 t diff=0 tables
	tables=$(sq "$b" "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN
		('meta', 'event_types') AND name NOT LIKE 'sqlite_%' ORDER BY 1")
	assert_eq "$what: the same tables" "$(echo $tables)" "$(echo $(sq "$a" "SELECT name FROM sqlite_master WHERE
		type = 'table' AND name NOT IN ('meta', 'event_types') AND name NOT LIKE 'sqlite_%' ORDER BY 1"))"
	for t in $tables; do
		n=$(sqlite3 -batch "$a" "ATTACH '$b' AS b; SELECT (SELECT count(*) FROM (SELECT * FROM main.\"$t\"
			EXCEPT SELECT * FROM b.\"$t\")) + (SELECT count(*) FROM (SELECT * FROM b.\"$t\"
			EXCEPT SELECT * FROM main.\"$t\")) + abs((SELECT count(*) FROM main.\"$t\") -
			(SELECT count(*) FROM b.\"$t\"))" 2>&1)
		[ "$n" = 0 ] || { fail "$what: table $t differs ($n)"; diff=1; }
	done
	[ $diff = 0 ] && pass "$what: $(wc -w <<<"$tables") tables, row for row"
	assert_eq "$what: every type imported" "$(imported "$b")" "$(imported "$a")"
}

# --- the trace.dat: runqlat (sched), then tpoint -e softirq_raise, then sql
DAT=$ROOT_DIR/tests/data/tracedat/langraph-5.15-x86_64-v7.dat
mkdir "$T/dat" "$T/full"
cp "$DAT" "$T/dat/c.dat"
cp "$DAT" "$T/full/c.dat"
"$FTANA" db "$T/full/c.dat" -o "$T/full.db" >/dev/null 2>"$T/err" || { fail "ftana db"; cat "$T/err"; }

"$FTANA" report runqlat "$T/dat/c.dat" >/dev/null 2>"$T/err" || { fail "report runqlat"; cat "$T/err"; }
cache=$T/dat/c.dat.db
assert_eq "runqlat: types imported" \
	"irq_handler_entry:0 irq_handler_exit:0 sched_switch:1 sched_waking:1 softirq_entry:0 softirq_exit:0 softirq_raise:0 " \
	"$(imported "$cache")"
assert_eq "runqlat: no softirq_entry table" "" "$(sq "$cache" "SELECT name FROM sqlite_master WHERE name = 'softirq_entry'")"
assert_eq "runqlat: sched_switch rows = trace-cmd's" \
	"$(trace-cmd report "$DAT" 2>/dev/null | grep -c ' sched_switch: ')" \
	"$(sq "$cache" "SELECT count(*) FROM sched_switch")"

# the same user's second report extends the cache: a planted row survives
sq "$cache" "UPDATE sched_switch SET prev_comm = 'PLANTED' WHERE id = (SELECT min(id) FROM sched_switch)"
"$FTANA" report tpoint -e softirq_raise "$T/dat/c.dat" >"$T/tp" 2>"$T/err" || { fail "report tpoint"; cat "$T/err"; }
assert_eq "tpoint -e softirq_raise: lines = trace-cmd's" \
	"$(trace-cmd report "$DAT" 2>/dev/null | grep -c ' softirq_raise: ')" "$(grep -c 'softirq_raise:' "$T/tp")"
assert_eq "tpoint: softirq_raise imported too" \
	"irq_handler_entry:0 irq_handler_exit:0 sched_switch:1 sched_waking:1 softirq_entry:0 softirq_exit:0 softirq_raise:1 " \
	"$(imported "$cache")"
assert_eq "extended, not rebuilt: the planted row is still there" 1 \
	"$(sq "$cache" "SELECT count(*) FROM sched_switch WHERE prev_comm = 'PLANTED'")"
# put the planted row back as the import wrote it (the comparison below is row for row)
sqlite3 -batch "$cache" "ATTACH '$T/full.db' AS f; UPDATE main.sched_switch SET prev_comm =
	(SELECT prev_comm FROM f.sched_switch s WHERE s.id = main.sched_switch.id) WHERE prev_comm = 'PLANTED'"

# sql on another type: the count is trace-cmd's; then everything equals ftana db's
want=$(trace-cmd report "$DAT" 2>/dev/null | grep -c ' softirq_entry: ')
assert_eq "sql: softirq_entry rows = trace-cmd's" "$want" \
	"$("$FTANA" sql "$T/dat/c.dat" "SELECT count(*) FROM softirq_entry" 2>"$T/err" | tail -n 1 | tr -d ' ')"
[ -s "$T/err" ] && { echo "sql said:"; cat "$T/err"; }
same_db "trace.dat: runqlat + tpoint + sql" "$cache" "$T/full.db"

# --- another user: a cache signed by A is rebuilt by B, never extended
mkdir "$T/user"
cp "$DAT" "$T/user/c.dat"
"$FTANA" report runqlat "$T/user/c.dat" >/dev/null 2>&1
ucache=$T/user/c.dat.db
sq "$ucache" "UPDATE sched_switch SET prev_comm = 'PLANTED' WHERE id = (SELECT min(id) FROM sched_switch)"
XDG_CACHE_HOME=$T/xdg-b "$FTANA" sql "$T/user/c.dat" "SELECT count(*) FROM softirq_entry" >"$T/out" 2>"$T/err" ||
	{ fail "user B: sql"; cat "$T/err"; }
assert_eq "user B: softirq_entry rows" "$want" "$(tail -n 1 "$T/out" | tr -d ' ')"
assert_eq "user B rebuilt A's cache: the planted row is gone" 0 \
	"$(sq "$ucache" "SELECT count(*) FROM sched_switch WHERE prev_comm = 'PLANTED'")"
same_db "trace.dat: A's runqlat, then B's sql" "$ucache" "$T/full.db"
# and A does not extend B's: a report of A rebuilds it with only what A asked
sq "$ucache" "UPDATE sched_switch SET prev_comm = 'PLANTED' WHERE id = (SELECT min(id) FROM sched_switch)"
"$FTANA" report runqlat "$T/user/c.dat" >/dev/null 2>&1
assert_eq "A again: B's cache rebuilt (planted row gone)" 0 \
	"$(sq "$ucache" "SELECT count(*) FROM sched_switch WHERE prev_comm = 'PLANTED'")"
assert_eq "A again: only runqlat's types" \
	"irq_handler_entry:0 irq_handler_exit:0 sched_switch:1 sched_waking:1 softirq_entry:0 softirq_exit:0 softirq_raise:0 " \
	"$(imported "$ucache")"

# --- a .ftz with kernel stacks: iolat (block), then sql on print
FTZ=$ROOT_DIR/samples/block-dd-stacks.ftz
mkdir "$T/ftz"
cp "$FTZ" "$T/ftz/c.ftz"
cp "$FTZ" "$T/full/c.ftz"
"$FTANA" db "$T/full/c.ftz" -o "$T/full-ftz.db" >/dev/null 2>"$T/err" || { fail "ftana db .ftz"; cat "$T/err"; }
"$FTANA" report iolat "$T/ftz/c.ftz" >/dev/null 2>"$T/err" || { fail "report iolat"; cat "$T/err"; }
fcache=$T/ftz/c.ftz.db
assert_eq "iolat: types imported" "block_rq_complete:1 block_rq_issue:1 print:0 " "$(imported "$fcache")"
assert_eq "iolat: every stack (ids as a full import's)" \
	"$(sq "$T/full-ftz.db" "SELECT count(*), sum(stack_id) FROM stacks")" \
	"$(sq "$fcache" "SELECT count(*), sum(stack_id) FROM stacks")"
assert_eq "sql: print rows = ftzdump's" "$(ftz_event_count "$FTZ" print)" \
	"$("$FTANA" sql "$T/ftz/c.ftz" "SELECT count(*) FROM print" 2>/dev/null | tail -n 1 | tr -d ' ')"
same_db ".ftz: iolat + sql" "$fcache" "$T/full-ftz.db"

finish
