# Host side of funcgraph: $1 is its output dir (funcgraph.ftz, workload.out).
. "$(dirname "$0")/../check-lib.sh"
cd "$1" || exit 1
pid=$(sed -n 's/^pid=//p' workload.out)
# The kernel's view: each return's duration against the returns one level deeper that ran
# inside it (same task, calltime..rettime within the parent's).
kids="SELECT p.id, p.rettime - p.calltime AS dur, sum(c.rettime - c.calltime) AS kids
	FROM funcgraph_exit p JOIN funcgraph_exit c ON c.pid = p.pid AND c.depth = p.depth + 1
	AND c.calltime >= p.calltime AND c.rettime <= p.rettime WHERE p.pid = $pid GROUP BY p.id"
expect_ge "ftana: calls with callees" 1 "$(q funcgraph.ftz "SELECT count(*) FROM ($kids)")"
expect "ftana: callers shorter than their callees" 0 "$(q funcgraph.ftz "SELECT count(*) FROM ($kids) WHERE kids > dur")"
expect "ftana: entries == exits" "$(q funcgraph.ftz "SELECT count(*) FROM funcgraph_entry WHERE pid = $pid")" \
	"$(q funcgraph.ftz "SELECT count(*) FROM funcgraph_exit WHERE pid = $pid")"

"$FTANA" report funcgraph funcgraph.ftz -p "$pid" > graph.txt 2>&1
expect "report funcgraph exit" 0 $?
expect "report: opening braces == closing braces" "$(grep -c '{$' graph.txt)" "$(grep -c '} /\*' graph.txt)"
expect "report: calls marked incomplete" 0 "$(grep -c 'not recorded\|no return' graph.txt)"
expect_ge "report: ksys_read() calls" 1 "$(grep -c '  ksys_read() {$' graph.txt)"

"$FTANA" report funcgraph funcgraph.ftz -p "$pid" --tree > tree.txt 2>&1
expect "report --tree exit" 0 $?
# Columns: CALLS TOTAL(us) SELF(us) FUNCTION PARTIAL; FUNCTION is indented 2 per level.
expect "report --tree: negative self times" 0 "$(awk 'NR > 1 && $3 < 0' tree.txt | wc -l)"
expect "report --tree: ksys_read total = kernel's (us)" \
	"$(q funcgraph.ftz "SELECT printf('%.3f', sum(rettime - calltime) / 1e3) FROM funcgraph_exit
		WHERE pid = $pid AND depth = 0 AND func IN (SELECT addr FROM symbols WHERE name = 'ksys_read')")" \
	"$(awk '$4 == "ksys_read" { print $2 }' tree.txt)"
expect "report --tree: vfs_read below ksys_read" 1 "$(grep -c '^.*[0-9]   *  vfs_read ' tree.txt)"
"$FTANA" report funcgraph funcgraph.ftz -p "$pid" --folded > folded.txt 2>&1
expect "report --folded exit" 0 $?
expect_ge "report --folded: stacks through ksys_read;vfs_read" 1 "$(grep -c '^ksys_read;vfs_read' folded.txt)"
check_done
