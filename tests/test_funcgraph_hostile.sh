#!/usr/bin/env bash
# test_funcgraph_hostile.sh - function_graph captures made to cost (issue 25), built by
# tests/hostile/ftzgen.py from the kernel's formats:
#  - N returns without entries, N = 150,000 and 300,000 (4/5 of them one thread's at
#    one depth, 1/5 of as many threads, then a return a level up that adopts the first
#    thread's; one whole call besides, so it is a funcgraph capture): report funcgraph,
#    its --tree, funcslower --graph and export end (exit 0; the timeout only detects a
#    hang) and what each writes stays bounded: at most 256 bytes per return, and at
#    300,000 at most 2.1 times what it is at 150,000 (linear, the numbers a digit
#    longer here and there; the square would be 4 times); --tree
#    the same few paths whatever N, export one slice per call. Their time grew ~3x per
#    doubling before: the algorithm is test_report_funcgraph_views.c's
#    test_many_orphan_returns; here the commands that share it, measured by output.
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTANA"
command -v python3 >/dev/null || { echo "python3 is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache

python3 - "$tmp" "$ROOT_DIR/tests/hostile" <<'PY'
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from ftzgen import Capture, graph_entry, graph_exit, graph_formats
A, B, C = 0xffffffff81000100, 0xffffffff81000200, 0xffffffff81000300
for n in (150000, 300000):
    cap = Capture(info_extra={"tracer": "function_graph", "preset": "funcgraph", "events": ""})
    for fmt in graph_formats():
        cap.event("ftrace", fmt)
    cap.files.append(("/proc/kallsyms", b"ffffffff81000100 T ksys_read\nffffffff81000200 T vfs_read\n"
                                        b"ffffffff81000300 T rw_verify_area\n"))
    cap.files.append(("saved_cmdlines", b"100 workload\n"))
    cap.record(graph_entry(200, C, 0))
    cap.record(graph_exit(200, C, 0, 500, 1000))
    for i in range(n):  # each returns 10 ns after it began, 1 us after the one before
        pid, func, depth = (100, A, 3) if i < n * 4 // 5 else (1000 + i, B, 2)
        cap.record(graph_exit(pid, func, depth, 2000 + 1000 * i - 10, 2000 + 1000 * i))
    cap.record(graph_exit(100, C, 2, 0, 5000000 + 1000 * n))
    open(os.path.join(sys.argv[1], f"r{n}.ftz"), "wb").write(cap.build())
PY
[ -s "$tmp/r300000.ftz" ] || { fail "the captures were not generated"; finish; }

declare -A bytes lines
for n in 150000 300000; do
	for view in "graph|report funcgraph" "tree|report funcgraph --tree" "slower|report funcslower --graph" \
		"export|export -o $tmp/out"; do
		name=${view%%|*}
		# shellcheck disable=SC2206  # the command's words
		cmd=(${view#*|})
		timeout 600 "$FTANA" "${cmd[@]}" "$tmp/r$n.ftz" >"$tmp/stdout" 2>"$tmp/err"
		rc=$?
		[ $rc = 124 ] && { fail "$n returns without entries, $name: still running after 600 s"; continue; }
		assert_eq "$n returns without entries, $name: exit" 0 "$rc"
		[ "$name" = export ] && mv "$tmp/out" "$tmp/stdout"
		bytes[$name.$n]=$(wc -c <"$tmp/stdout") lines[$name.$n]=$(wc -l <"$tmp/stdout")
		echo "note: $name at $n: ${lines[$name.$n]} lines, ${bytes[$name.$n]} bytes"
		[ "${bytes[$name.$n]}" -le $((256 * n)) ] && pass "$n, $name: at most 256 bytes a return" ||
			fail "$n, $name: ${bytes[$name.$n]} bytes, over 256 a return"
	done
	assert_eq "$n returns without entries, export: a slice per call" $((n + 2)) \
		"$(grep -o '"cat":"funcgraph"' "$tmp/stdout" | wc -l)"
done
for name in graph tree slower export; do
	for unit in bytes lines; do
		declare -n v=$unit
		[ "${v[$name.300000]}" -le $((21 * ${v[$name.150000]} / 10 + 1000)) ] &&
			pass "$name: ${v[$name.300000]} $unit at 300,000, at most 2.1 x ${v[$name.150000]} at 150,000" ||
			fail "$name: ${v[$name.300000]} $unit at 300,000, over 2.1 x ${v[$name.150000]} at 150,000"
		unset -n v
	done
done
assert_eq "tree: the same paths at 150,000 and 300,000 returns" "${lines[tree.150000]}" "${lines[tree.300000]}"
finish
