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

"$FTANA" report funcgraph funcgraph.ftz -p "$pid" > graph.txt 2> graph.err
expect "report funcgraph exit" 0 $?
expect "report: opening braces == closing braces" "$(grep -c '{$' graph.txt)" "$(grep -c '} /\*' graph.txt)"
expect "report: calls marked incomplete" 0 "$(grep -c 'not recorded\|no return' graph.txt)"
expect_ge "report: ksys_read() calls" 1 "$(grep -c '  ksys_read() {$' graph.txt)"
# The kernel's line: " CPU) " then the duration column, 14 wide, then "|  ".
expect "report: lines in the kernel's layout" "$(grep -c '^ *[0-9]*) ' graph.txt)" \
	"$(awk '/^ *[0-9]+\) / { d = substr($0, index($0, ") ") + 2, 17)
		if (d ~ /^([ +!#*@$] [0-9.]+ us +| +)\|  $/) n++ } END { print n + 0 }' graph.txt)"

# --time-order -t -P: every function line of the process's calls, each with its time
# and task; as many lines as the per-thread view (same calls, same leaves unless a
# context switch came between an entry and its return).
"$FTANA" report funcgraph funcgraph.ftz -p "$pid" --time-order -t -P -H > time.txt 2> time.err
expect "report --time-order exit" 0 $?
expect "report --time-order: header" 1 "$(grep -c '^#     TIME        CPU  TASK/PID         DURATION ' time.txt)"
expect "report --time-order: opening braces == closing braces" "$(grep -c '{$' time.txt)" "$(grep -c '} /\*' time.txt)"
expect "report --time-order: every function line has time and task" \
	"$(grep -c '();$\|{$\|\*/$' time.txt)" "$(grep -cE '^ *[0-9]+\.[0-9]{6} \| +[0-9]+\) .*-[0-9]+ +\| ' time.txt)"
expect "report --time-order: timestamps never go back" 0 \
	"$(awk -F'|' '/^ *[0-9]+\.[0-9]+ \|/ { t = $1 + 0; if (t < last) n++; last = t } END { print n + 0 }' time.txt)"
# -m 1: only depth 0, each call one line whose duration is the kernel's
"$FTANA" report funcgraph funcgraph.ftz -p "$pid" -m 1 -D > depth1.txt 2> depth1.err
expect "report -m 1: one line per depth-0 call" \
	"$(q funcgraph.ftz "SELECT count(*) FROM funcgraph_exit WHERE pid = $pid AND depth = 0")" "$(grep -c '();$' depth1.txt)"
expect "report -m 1 -D: nothing deeper, no duration" 0 "$(grep -c '{$\| us ' depth1.txt)"
"$FTANA" report funcgraph funcgraph.ftz -p "$pid" --json > graph.json 2> graph.json.err
expect "report --json: rows == calls of the process" \
	"$(q funcgraph.ftz "SELECT count(*) FROM calls WHERE pid IN (SELECT pid FROM tasks WHERE pid = $pid OR tgid = $pid)")" \
	"$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["rows"]))' graph.json)"

"$FTANA" report funcgraph funcgraph.ftz -p "$pid" --tree > tree.txt 2> tree.err
expect "report --tree exit" 0 $?
# Columns: count total_us self_us func partial; func is indented 2 per level.
expect "report --tree: negative self times" 0 "$(awk 'NR > 1 && $3 < 0' tree.txt | wc -l)"
expect "report --tree: ksys_read total = kernel's (us)" \
	"$(q funcgraph.ftz "SELECT printf('%.3f', sum(rettime - calltime) / 1e3) FROM funcgraph_exit
		WHERE pid = $pid AND depth = 0 AND func IN (SELECT addr FROM symbols WHERE name = 'ksys_read')")" \
	"$(awk '$4 == "ksys_read" { print $2 }' tree.txt)"
expect "report --tree: vfs_read below ksys_read" 1 "$(grep -c '^.*[0-9]   *  vfs_read ' tree.txt)"
"$FTANA" report funcgraph funcgraph.ftz -p "$pid" --folded > folded.txt 2> folded.err
expect "report --folded exit" 0 $?
expect_ge "report --folded: stacks through ksys_read;vfs_read" 1 "$(grep -c '^ksys_read;vfs_read' folded.txt)"
check_done
