#!/usr/bin/env bash
# test_report_graph_json.sh - funcgraph and funcslower with --json on the kernel lab's
# committed captures (samples/funcgraph.ftz, samples/funcslower.ftz), each document
# parsed by python3 and checked against `ftana sql` on the same capture: the same
# calls (ids, durations, parents), the slice (-p, --since/--until, -m) selecting what
# the SQL says it should, the tree and folded stacks adding up to the calls' own
# durations, funcslower's rows and histogram adding up to slow_calls.
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTANA"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$ROOT_DIR/samples/funcgraph.ftz" "$ROOT_DIR/samples/funcslower.ftz" "$work/"
g=$work/funcgraph.ftz
s=$work/funcslower.ftz
q() { "$FTANA" sql --csv "$1" "$2" | tail -n +2; }
# py FILE.json EXPR: print EXPR over the parsed document d (rows = d["rows"])
py() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); rows = d.get("rows", []); print(eval(sys.argv[2]))' "$@"; }

"$FTANA" sql "$g" 'select count(*) from calls' >"$work/sql.txt" 2>&1
assert_eq "ftana sql: the calls view exists" 0 $?

# every call, ftrec's threads included: the same ids, durations and parents as SQL
"$FTANA" report funcgraph "$g" --json --include-ftrec >"$work/all.json"
assert_eq "funcgraph --json exit" 0 $?
q "$g" 'select id, coalesce(dur_ns, -1), coalesce(parent_id, -1), pid, depth, func from calls order by id' >"$work/calls.csv"
py "$work/all.json" '"\n".join("%d,%d,%d,%d,%d,%s" % (r["id"], -1 if r["dur_ns"] is None else r["dur_ns"],
	-1 if r["parent_id"] is None else r["parent_id"], r["pid"], r["depth"], r["func"]) for r in sorted(rows, key=lambda r: r["id"]))' >"$work/json.csv"
assert_ge "calls in the capture" 100 "$(wc -l <"$work/calls.csv")"
assert_eq "funcgraph --json rows == calls (id, dur_ns, parent_id, pid, depth, func)" "$(md5sum <"$work/calls.csv")" "$(md5sum <"$work/json.csv")"
assert_eq "funcgraph --json: start_s = start_ts / 1e9" 0 "$(py "$work/all.json" 'sum(1 for r in rows if r["start_ts"] is not None and abs(r["start_s"] - r["start_ts"] / 1e9) > 1e-9)')"
assert_eq "funcgraph --json: no warnings" "[]" "$(py "$work/all.json" 'd["warnings"]')"

# default: ftrec's own threads (meta.ftrec_tids; notrace_pids in older captures) left out
tids=$(q "$g" "select value from meta where key in ('ftrec_tids', 'notrace_pids') order by key = 'ftrec_tids' desc limit 1" |
	tr -d '"' | tr ' ' ',')
"$FTANA" report funcgraph "$g" --json >"$work/def.json"
assert_eq "funcgraph --json rows without ftrec's threads" \
	"$(q "$g" "select count(*) from calls where pid not in (${tids:--1})")" "$(py "$work/def.json" 'len(rows)')"

# -p: the workload's process; --since/--until: entries in [since, until) from the first event
wl=$(q "$g" "select pid from tasks where comm = 'workload' order by pid desc limit 1")
"$FTANA" report funcgraph "$g" --json -p "$wl" >"$work/p.json"
assert_eq "funcgraph -p $wl rows" \
	"$(q "$g" "select count(*) from calls where pid in (select pid from tasks where pid = $wl or tgid = $wl)")" \
	"$(py "$work/p.json" 'len(rows)')"
first=$(q "$g" "select value from meta where key = 'first_ts'" | tr -d '"')
mid=$(q "$g" "select start_ts from calls where pid = $wl and start_ts is not null order by start_ts limit 1 offset 20")
since=$(python3 -c "print('%.9f' % (($mid - $first) / 1e9))")
"$FTANA" report funcgraph "$g" --json --include-ftrec --since "+$since" --until "+$since" >/dev/null 2>&1
assert_eq "funcgraph: an empty window is refused" 1 $?
until=$(python3 -c "print('%.9f' % (($mid - $first) / 1e9 + 0.0005))")
"$FTANA" report funcgraph "$g" --json --include-ftrec --since "+$since" --until "+$until" >"$work/w.json"
assert_eq "funcgraph --since (inclusive) --until (exclusive) rows" \
	"$(q "$g" "select count(*) from calls where coalesce(start_ts, end_ts) >= $first + round($since * 1e9)
		and coalesce(start_ts, end_ts) < $first + round($until * 1e9)")" "$(py "$work/w.json" 'len(rows)')"
assert_eq "funcgraph --since: the call entered at since is in" 1 "$(py "$work/w.json" "sum(1 for r in rows if r['start_ts'] == $mid)")"

# -m 2: depth 0 and 1 only
"$FTANA" report funcgraph "$g" --json --include-ftrec -m 2 >"$work/m.json"
assert_eq "funcgraph -m 2 rows" "$(q "$g" 'select count(*) from calls where depth < 2')" "$(py "$work/m.json" 'len(rows)')"

# --tree: the calls counted once each, ksys_read's total the kernel's durations
"$FTANA" report funcgraph "$g" --json --include-ftrec --tree >"$work/tree.json"
assert_eq "funcgraph --tree: sum of count == calls" "$(q "$g" 'select count(*) from calls')" \
	"$(py "$work/tree.json" 'sum(r["count"] for r in d["tree"])')"
assert_eq "funcgraph --tree: ksys_read total_us" \
	"$(q "$g" "select printf('%.3f', sum(rettime - calltime) / 1e3) from funcgraph_exit x join symbols s on s.addr = x.func where s.name = 'ksys_read'" | tr -d '"')" \
	"$(py "$work/tree.json" '"%.3f" % sum(r["total_us"] for r in d["tree"] if r["func"] == "ksys_read")')"
# --folded: self times add up to the calls' durations minus their callees'
"$FTANA" report funcgraph "$g" --json --include-ftrec --folded >"$work/folded.json"
assert_eq "funcgraph --folded: sum of self_ns" \
	"$(q "$g" 'select sum(dur_ns - child_dur_ns) from calls where dur_ns is not null')" \
	"$(py "$work/folded.json" 'sum(r["self_ns"] for r in d["folded"])')"

# text views on the same capture: as many function lines as events of the calls
"$FTANA" report funcgraph "$g" --include-ftrec --time-order >"$work/time.txt"
assert_eq "funcgraph --time-order exit" 0 $?
assert_ge "funcgraph --time-order: context-switch markers" 1 "$(grep -c ' => ' "$work/time.txt")"
assert_eq "funcgraph --time-order: opening == closing braces" "$(grep -c '{$' "$work/time.txt")" "$(grep -c '} /\*' "$work/time.txt")"

# funcslower: rows and histogram against slow_calls
"$FTANA" report funcslower "$s" --json >"$work/slow.json"
assert_eq "funcslower --json exit" 0 $?
assert_eq "funcslower --json rows" "$(q "$s" 'select count(*) from slow_calls')" "$(py "$work/slow.json" 'len(rows)')"
assert_eq "funcslower --json sum of dur_ns" "$(q "$s" 'select sum(dur_ns) from slow_calls')" \
	"$(py "$work/slow.json" 'sum(r["dur_ns"] for r in rows)')"
assert_eq "funcslower --json keys" "ts_s,cpu,comm,pid,dur_us,func,dur_ns,depth,id" "$(py "$work/slow.json" '",".join(rows[0].keys())')"
"$FTANA" report funcslower "$s" --json --hist >"$work/hist.json"
assert_eq "funcslower --hist: counts add up" "$(q "$s" 'select count(*) from slow_calls')" \
	"$(py "$work/hist.json" 'sum(r["count"] for r in d["histogram"])')"
"$FTANA" report funcslower "$s" --graph -P >"$work/graph.txt"
assert_eq "funcslower --graph: one return line per slow call" "$(q "$s" 'select count(*) from slow_calls')" \
	"$(grep -c ' us |  *} /\* ' "$work/graph.txt")"
finish
