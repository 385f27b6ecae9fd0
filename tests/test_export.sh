#!/usr/bin/env bash
# test_export.sh - `ftana export FILE -o OUT.json` (export/perfetto.c): a Trace Event
# Format document. Checked by python3 alone against what the database holds:
#   - the document parses (strict UTF-8, then JSON); every event has what its phase needs;
#   - per thread, the X slices nest (exact decimal microseconds, no float rounding);
#     every async request's b/e events pair up per id and its phases lie inside it;
#   - the number of call slices equals the `calls` rows, I/O requests the `io` rows
#     (queue phases the rows with an insert), markers the ftrace print events, loss
#     counters the lost_events rows (`ftana sql`);
#   - the CPU tracks are exactly the runs the raw sched_switch rows give;
#   - a hand-made capture (tests/hostile/ftzgen.py) whose comms, function names and
#     marker text hold quotes, backslashes, control bytes and invalid UTF-8 stays valid
#     JSON, with those names kept;
#   - the slice options select what the `calls` rows say; refusals are one line; the
#     input is never overwritten; a cut capture exports what came before (exit 3);
#   - a capture with nothing to draw is an error (no empty timeline); -o - is stdout.
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTANA"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# libtraceevent's own leaks on hostile formats (as in test_hostile.sh)
export LSAN_OPTIONS="suppressions=$TESTS_DIR/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# check_doc OUT.json: validates the document, prints "key=value" counts.
check_doc() { python3 "$TESTS_DIR/export_check.py" doc "$1"; }

# sql FILE QUERY: the one value
sql() { "$FTANA" sql "$1" "$2" --csv 2>/dev/null | tail -1; }

# check_capture NAME FILE.ftz [EXPORT OPTIONS...]: export, validate, compare counts.
check_capture() {
	local name=$1 ftz=$2 out
	shift 2
	out="$tmp/$name.json"
	"$FTANA" export "$ftz" -o "$out" --include-ftrec "$@" >"$tmp/stdout" 2>"$tmp/err"
	assert_eq "$name: export exit status" 0 "$?"
	[ -s "$tmp/err" ] && fail "$name: export printed on stderr: $(head -3 "$tmp/err")"
	check_doc "$out" >"$tmp/counts"
	local err; err=$(sed -n 's/^error=//p' "$tmp/counts")
	assert_eq "$name: valid JSON, X slices nested per thread, async pairs closed" none "$err"
	got() { sed -n "s/^$1=//p" "$tmp/counts"; }
	local has_calls has_io has_print
	has_calls=$(sql "$ftz" "select count(*) from sqlite_temp_master where name = 'calls'")
	if [ "$has_calls" = 1 ]; then
		assert_eq "$name: call slices = calls rows" "$(sql "$ftz" "select count(*) from calls")" "$(got calls)"
	else
		assert_eq "$name: no calls view, no call slices" 0 "$(got calls)"
	fi
	has_io=$(sql "$ftz" "select count(*) from sqlite_temp_master where name = 'io'")
	if [ "$has_io" = 1 ]; then
		assert_eq "$name: I/O requests = io rows" "$(sql "$ftz" "select count(*) from io")" "$(got io)"
		assert_eq "$name: queue phases = io rows with an insert" \
			"$(sql "$ftz" "select count(*) from io where insert_ts is not null and insert_ts <= issue_ts")" "$(got io_queue)"
		assert_eq "$name: service phases = io rows" "$(sql "$ftz" "select count(*) from io")" "$(got io_service)"
	else
		assert_eq "$name: no io view, no I/O slices" 0 "$(got io)"
	fi
	has_print=$(sql "$ftz" "select count(*) from event_types where system = 'ftrace' and name = 'print' and table_name is not null")
	if [ "$has_print" = 1 ]; then
		assert_eq "$name: markers = ftrace print events" \
			"$(sql "$ftz" "select count from event_types where system = 'ftrace' and name = 'print'")" "$(got markers)"
	fi
	assert_eq "$name: loss counters = lost_events rows" \
		"$(sql "$ftz" "select count(*) from lost_events where ts is not null")" "$(got lost)"
}

# ---------------------------------------------------------------- every sample
for ftz in "$ROOT_DIR"/samples/*.ftz; do
	name=$(basename "$ftz" .ftz)
	cp "$ftz" "$tmp/$name.ftz"
	check_capture "$name" "$tmp/$name.ftz"
done

# ---------------------------------------------------------------- nothing to draw; -o -
# A kprobe capture has no switches, calls, I/O or markers but ftrec's own start marker
# (left out without --include-ftrec): an error, no file, not an empty timeline.
cp "$ROOT_DIR/samples/kprobe_read.ftz" "$tmp/kp.ftz"
"$FTANA" export "$tmp/kp.ftz" -o "$tmp/kp.json" >/dev/null 2>"$tmp/err"
assert_eq "nothing to draw: exit 1" 1 "$?"
assert_one_line_error "nothing to draw: one line" "$tmp/err" "nothing to draw"
[ -e "$tmp/kp.json" ] && fail "nothing to draw: a document was written" || pass "nothing to draw: no document"
assert_eq "nothing to draw: the capture has no drawable rows (sql)" 0 \
	"$(sql "$tmp/kp.ftz" "select count(*) from events where type in ('sched_switch', 'funcgraph_entry', 'block_rq_issue') or (type = 'print' and instr(' ' || (select value from meta where key = 'ftrec_tids') || ' ', ' ' || pid || ' ') = 0)")"
# -o - is standard output (as for the reports' --svg): the same document as -o FILE
cp "$ROOT_DIR/samples/iolat.ftz" "$tmp/io.ftz"
(cd "$tmp" && "$FTANA" export io.ftz -o io.json >/dev/null 2>&1)
(cd "$tmp" && "$FTANA" export io.ftz -o - >"$tmp/io.stdout" 2>"$tmp/err")
assert_eq "-o -: exit 0" 0 "$?"
assert_eq "-o -: the document on stdout, byte for byte" "$(md5sum <"$tmp/io.json")" "$(md5sum <"$tmp/io.stdout")"
[ -e "$tmp/-" ] && fail "-o -: a file named - was written" || pass "-o -: no file named -"
assert_contains "-o -: the counts on stderr" "$tmp/err" "^\(stdout\): "

# ---------------------------------------------------------------- a hand-made, hostile capture
# Two CPUs: sched_switch runs, function_graph calls (a completed one with a callee, one
# never returning, one whose entry came before the capture), a marker; names with a
# quote, a backslash, control bytes and invalid UTF-8 in comms, kallsyms and the marker.
PYTHONPATH="$TESTS_DIR/hostile" python3 - "$tmp/hostile.ftz" <<'EOF'
import struct, sys
from ftzgen import Capture, common, event_format
cap = Capture(nr_cpus=2)
SW, ENTRY, EXIT, PRINT = 300, 11, 10, 5
cap.event("sched", event_format("sched_switch", SW, [
    ("char prev_comm[16]", 8, 16, 1), ("pid_t prev_pid", 24, 4, 1), ("int prev_prio", 28, 4, 1),
    ("long prev_state", 32, 8, 1), ("char next_comm[16]", 40, 16, 1), ("pid_t next_pid", 56, 4, 1),
    ("int next_prio", 60, 4, 1)],
    '"prev_comm=%s prev_pid=%d next_comm=%s next_pid=%d", REC->prev_comm, REC->prev_pid, REC->next_comm, REC->next_pid'))
cap.event("ftrace", event_format("funcgraph_entry", ENTRY, [("unsigned long func", 8, 8, 0), ("int depth", 16, 4, 1)],
                                 '"--> %ps (%d)", (void *)REC->func, REC->depth'))
cap.event("ftrace", event_format("funcgraph_exit", EXIT, [
    ("unsigned long func", 8, 8, 0), ("int depth", 16, 4, 1), ("unsigned int overrun", 20, 4, 0),
    ("unsigned long long calltime", 24, 8, 0), ("unsigned long long rettime", 32, 8, 0)],
    '"<-- %ps (%d)", (void *)REC->func, REC->depth'))
cap.event("ftrace", event_format("print", PRINT, [("unsigned long ip", 8, 8, 0), ("char buf[]", 16, 0, 1)],
                                 '"%ps: %s", (void *)REC->ip, REC->buf'))
EVIL, CHILD, OTHER = 0xffffffff81000000, 0xffffffff81000100, 0xffffffff81000200
cap.files.append(("/proc/kallsyms", b'ffffffff81000000 T evil"fn\\x\x01\xff\n'
                  b"ffffffff81000100 T child_fn\nffffffff81000200 T other_fn\nffffffff81000300 T zz_end\n"))
BAD = b'sh"el\\l\x01\xfe'
cap.files.append(("saved_cmdlines", b"100 " + BAD + b"\n200 worker\n"))
def comm16(b): return (b + b"\0" * 16)[:16]
def switch(pid, prev, prev_comm, nxt, next_comm):
    return common(SW, pid) + comm16(prev_comm) + struct.pack("<iiq", prev, 120, 0) + comm16(next_comm) + struct.pack("<ii", nxt, 120)
def entry(pid, func, depth): return common(ENTRY, pid) + struct.pack("<Qi", func, depth)
def exit_(pid, func, depth, call, ret): return common(EXIT, pid) + struct.pack("<QiIQQ", func, depth, 0, call, ret)
cap.record(switch(0, 0, b"swapper/0", 100, BAD), cpu=0)
cap.record(entry(100, EVIL, 0), cpu=0)
cap.record(entry(100, CHILD, 1), cpu=0)
cap.record(exit_(100, CHILD, 1, 5000, 5900), cpu=0)
cap.record(common(PRINT, 100) + struct.pack("<Q", EVIL) + b'mark"er\\\x1b[2J\xff\0', cpu=0)
cap.record(exit_(100, EVIL, 0, 4000, 8000), cpu=0)
cap.record(entry(100, OTHER, 0), cpu=0)          # never returns
cap.record(switch(100, 100, BAD, 0, b"swapper/0"), cpu=0)
cap.record(switch(0, 0, b"swapper/1", 200, b"worker"), cpu=1)
cap.record(exit_(200, OTHER, 0, 100, 1500), cpu=1)  # entered before the capture
cap.record(entry(200, CHILD, 0), cpu=1)
cap.record(exit_(200, CHILD, 0, 2000, 2500), cpu=1)
cap.record(switch(200, 200, b"worker", 0, b"swapper/1"), cpu=1)
# block I/O: one request through the scheduler (insert, issue, complete), one issued directly
RQ = [("dev_t dev", 8, 4, 0), ("sector_t sector", 16, 8, 0), ("unsigned int nr_sector", 24, 4, 0),
      ("unsigned int bytes", 28, 4, 0), ("char rwbs[8]", 32, 8, 1), ("char comm[16]", 40, 16, 1),
      ("__data_loc char[] cmd", 56, 4, 1)]
FMT = '"%d,%d %s %u (%s) %llu + %u [%s]", ((unsigned int) ((REC->dev) >> 20)), ((unsigned int) ((REC->dev) & ((1U << 20) - 1))), REC->rwbs, REC->bytes, __get_str(cmd), (unsigned long long)REC->sector, REC->nr_sector, REC->comm'
INSERT, ISSUE, COMPLETE = 400, 401, 402
cap.event("block", event_format("block_rq_insert", INSERT, RQ, FMT))
cap.event("block", event_format("block_rq_issue", ISSUE, RQ, FMT))
cap.event("block", event_format("block_rq_complete", COMPLETE, [
    ("dev_t dev", 8, 4, 0), ("sector_t sector", 16, 8, 0), ("unsigned int nr_sector", 24, 4, 0),
    ("int error", 28, 4, 1), ("char rwbs[8]", 32, 8, 1), ("__data_loc char[] cmd", 40, 4, 1)],
    '"%d,%d %s (%s) %llu + %u [%d]", ((unsigned int) ((REC->dev) >> 20)), ((unsigned int) ((REC->dev) & ((1U << 20) - 1))), REC->rwbs, __get_str(cmd), (unsigned long long)REC->sector, REC->nr_sector, REC->error'))
DEV = (8 << 20) | 16
def rq(tid, pid, sector, comm=b"", rwbs=b"W"):
    return common(tid, pid) + struct.pack("<IIQII", DEV, 0, sector, 8, 4096) + (rwbs + b"\0" * 8)[:8] + comm16(comm) + struct.pack("<I", (1 << 16) | 60) + b"\0"
def done(sector, rwbs=b"W"):
    return common(COMPLETE, 0) + struct.pack("<IIQIi", DEV, 0, sector, 8, 0) + (rwbs + b"\0" * 8)[:8] + struct.pack("<I", (1 << 16) | 44) + b"\0"
cap.record(rq(INSERT, 100, 800, BAD), cpu=0)
cap.record(rq(ISSUE, 100, 800, BAD), cpu=0)
cap.record(rq(ISSUE, 100, 1600, BAD, b"R"), cpu=0)
cap.record(done(800), cpu=0)
cap.record(done(1600, b"R"), cpu=0)
# CPU 1's first page (before the records above) says 7 events were lost before it
from ftzgen import ring_page, pages_sec
pg = bytearray(ring_page([(1000, common(PRINT, 200) + struct.pack("<Q", EVIL) + b"after loss\0")], 500000))
size = struct.unpack_from("<Q", pg, 8)[0]
struct.pack_into("<Q", pg, 8, size | (1 << 31) | (1 << 30))   # events lost, count stored
struct.pack_into("<Q", pg, 16 + size, 7)
cap.extra.append(pages_sec(1, [bytes(pg)]))
open(sys.argv[1], "wb").write(cap.build())
EOF
check_capture hostile "$tmp/hostile.ftz"
python3 - "$tmp/hostile.json" <<'EOF' >"$tmp/names"
import json, sys
doc = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
evs = doc["traceEvents"]
names = {e["args"]["name"] for e in evs if e["ph"] == "M" and "name" in e.get("args", {})}
calls = {e["name"] for e in evs if e["ph"] == "X" and e.get("cat") == "funcgraph"}
cpu = sorted(e["name"] for e in evs if e["ph"] == "X" and e.get("cat") == "sched")
marks = [e["args"]["text"] for e in evs if e["ph"] == "i" and e.get("cat") == "marker"]
print("comm_kept=%s" % any(n.startswith('sh"el\\l\x01') for n in names))
print("func_kept=%s" % any(n.startswith('evil"fn\\x\x01') for n in calls))
print("marker_kept=%s" % any(m.startswith('mark"er\\\x1b[2J') for m in marks))
print("cpu_runs=%s" % ",".join(c.encode("unicode_escape").decode() for c in cpu))
print("lost=%s" % [(e["name"], e["args"]["lost"]) for e in evs if e["ph"] == "C"])
EOF
assert_contains "hostile comm kept (quote, backslash, control byte)" "$tmp/names" "^comm_kept=True"
assert_contains "hostile function name kept" "$tmp/names" "^func_kept=True"
assert_contains "hostile marker text kept" "$tmp/names" "^marker_kept=True"
assert_contains "hostile: the loss is a counter of 7 on CPU 1" "$tmp/names" "^lost=\[\('lost events CPU 1', 7\)\]$"

# The CPU tracks against the raw sched_switch rows: each run of a task from one switch
# (or the capture's first event) to the next switch on its CPU (or its last event).
cpu_tracks_match() { # NAME FTZ JSON
	"$FTANA" sql "$2" "select cpu, ts, prev_pid, next_pid from sched_switch order by cpu, ts" --json >"$tmp/sw.json" 2>/dev/null
	python3 "$TESTS_DIR/export_check.py" cpu-tracks "$tmp/sw.json" "$3" \
		"$(sql "$2" "select value from meta where key = 'first_ts'")" \
		"$(sql "$2" "select value from meta where key = 'last_ts'")"
}
result=$(cpu_tracks_match hostile "$tmp/hostile.ftz" "$tmp/hostile.json")
case $result in
"same "[1-9]*) pass "hostile: CPU tracks = the runs of the sched_switch rows ($result)" ;;
*) fail "hostile: CPU tracks: $result" ;;
esac
assert_eq "hostile: calls (one never returning, one entered before the capture)" "5 1 1" \
	"$(sql "$tmp/hostile.ftz" "select count(*) || ' ' || sum(flags & 2 > 0) || ' ' || sum(flags & 1 > 0) from calls")"

# every hostile capture of tests/hostile/gen.py: no crash, and a valid document
python3 "$TESTS_DIR/hostile/gen.py" "$tmp/gen" --small >/dev/null || fail "gen.py"
for h in "$tmp"/gen/*.ftz; do
	hname=$(basename "$h" .ftz)
	rm -f "$tmp/h.json"
	timeout 300 "$FTANA" export "$h" -o "$tmp/h.json" --include-ftrec >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" != 0 ] && [ "$rc" != 1 ] && [ "$rc" != 3 ]; then
		fail "hostile $hname: exit status $rc"; sed 's/^/      | /' "$tmp/err" | head -5
	elif grep -qv "^ftana export: " "$tmp/err"; then
		fail "hostile $hname: stderr not all ftana's lines:"; sed 's/^/      | /' "$tmp/err" | head -5
	elif [ -e "$tmp/h.json" ]; then
		check_doc "$tmp/h.json" >"$tmp/counts"
		assert_contains "hostile $hname: exit $rc, valid document" "$tmp/counts" "^error=none"
	else
		pass "hostile $hname: refused, exit $rc"
	fi
done

# ---------------------------------------------------------------- slicing
fg="$tmp/funcgraph.ftz"
slice_count() { # WHAT WHERE OPTIONS...: call slices with OPTIONS = calls rows WHERE
	local what=$1 where=$2
	shift 2
	"$FTANA" export "$fg" -o "$tmp/slice.json" "$@" >/dev/null 2>"$tmp/err"
	assert_eq "$what: exit status" 0 "$?"
	check_doc "$tmp/slice.json" >"$tmp/counts"
	assert_eq "$what: call slices = calls rows $where" \
		"$(sql "$fg" "select count(*) from calls c left join tasks t on t.pid = c.pid where $where")" \
		"$(sed -n 's/^calls=//p' "$tmp/counts")"
	assert_contains "$what: still nested" "$tmp/counts" "^error=none"
}
# ftrec's threads: END's ftrec_tids (notrace_pids in older captures)
ftrec_tids=$(sql "$fg" "select coalesce((select value from meta where key in ('ftrec_tids', 'notrace_pids') order by key limit 1), '')" | tr ' ' ',')
no_ftrec="c.pid not in (${ftrec_tids:-0})"
pid=$(sql "$fg" "select c.pid from calls c where c.pid > 0 and $no_ftrec group by c.pid order by count(*) desc limit 1")
mid=$(sql "$fg" "select (max(coalesce(start_ts, end_ts)) + min(coalesce(start_ts, end_ts))) / 2 from calls")
first=$(sql "$fg" "select value from meta where key = 'first_ts'")
since=$(python3 -c "print('%.9f' % (($mid - $first) / 1e9))")
slice_count "default (ftrec's threads left out)" "$no_ftrec"
slice_count "--include-ftrec" "1" --include-ftrec
slice_count "--cpu 1" "c.cpu = 1" --cpu 1 --include-ftrec
slice_count "-L $pid" "c.pid = $pid" -L "$pid"
slice_count "-p $pid" "coalesce(t.tgid, c.pid) = $pid and $no_ftrec" -p "$pid"
slice_count "--since $since" "coalesce(c.start_ts, c.end_ts) >= $first + cast(round($since * 1e9) as int) and $no_ftrec" --since "$since"

# ---------------------------------------------------------------- the command line
src="$tmp/funcgraph.ftz"
"$FTANA" export --help >"$tmp/out" 2>"$tmp/err"
assert_eq "--help exit status" 0 "$?"
assert_contains "--help on stdout" "$tmp/out" "^usage: ftana export FILE -o OUT.json"
"$FTANA" --help | grep -q "export FILE -o OUT.json" && pass "listed in ftana --help" || fail "export not in ftana --help"
expect_refusal() { # WHAT PATTERN ARGS...
	local what=$1 pattern=$2
	shift 2
	"$FTANA" export "$@" >"$tmp/out" 2>"$tmp/err"
	assert_eq "$what: exit status" 1 "$?"
	assert_one_line_error "$what" "$tmp/err" "^ftana export: .*$pattern"
}
expect_refusal "no -o" "no -o OUT.json given" "$src"
expect_refusal "no FILE" "no FILE given" -o "$tmp/x.json"
expect_refusal "-o without a value" "needs a value" "$src" -o
expect_refusal "unknown option" "unknown option '--bogus'" "$src" --bogus -o "$tmp/x.json"
expect_refusal "two inputs" "unexpected argument" "$src" "$src" -o "$tmp/x.json"
expect_refusal "bad --since" "bad --since 'soon'" "$src" --since soon -o "$tmp/x.json"
expect_refusal "bad --cpu" "bad --cpu 'x'" "$src" --cpu x -o "$tmp/x.json"
expect_refusal "bad -p" "bad -p '-3'" "$src" -p -3 -o "$tmp/x.json"
expect_refusal "empty window" "until is not after --since" "$src" --since +0.02 --until +0.01 -o "$tmp/x.json"
expect_refusal "a window after the capture" "since \+2: outside the capture, whose events span" "$src" --since +2 -o "$tmp/x.json"
expect_refusal "missing input" "nothing.ftz" "$tmp/nothing.ftz" -o "$tmp/x.json"
sum=$(sha256sum <"$src")
expect_refusal "output is the input" "is the input" "$src" -o "$src"
assert_eq "input unchanged" "$sum" "$(sha256sum <"$src")"
expect_refusal "output directory missing" "cannot write" "$src" -o "$tmp/no/such/x.json"
# not /dev/null: were it ever a regular file (something broke it), the test must not write it
mkfifo "$tmp/fifo.json"
expect_refusal "output is a FIFO" "fifo.json: not a regular file" "$src" -o "$tmp/fifo.json"
[ -p "$tmp/fifo.json" ] && pass "the FIFO is still a FIFO" || fail "the FIFO was replaced"
ln -s "$tmp/elsewhere.json" "$tmp/link.json"
expect_refusal "output is a symbolic link" "link.json: not a regular file" "$src" -o "$tmp/link.json"
[ -e "$tmp/elsewhere.json" ] && fail "output through a symbolic link: $tmp/elsewhere.json written"
[ -e "$tmp/x.json" ] && fail "a refused run left $tmp/x.json"
assert_eq "temp files left behind" 0 "$(find "$tmp" -name '*.json.??????' | wc -l)"

# ---------------------------------------------------------------- damage
big="$tmp/block-dd-stacks.ftz"
size=$(stat -c %s "$big")
head -c $((size - 100)) "$big" >"$tmp/cut.ftz"
"$FTANA" export "$tmp/cut.ftz" -o "$tmp/cut.json" --include-ftrec >/dev/null 2>"$tmp/err"
assert_eq "cut capture: exit status" 3 "$?"
assert_one_line_error "cut capture: one warning" "$tmp/err" "damaged at offset"
check_doc "$tmp/cut.json" >"$tmp/counts"
assert_contains "cut capture: valid document" "$tmp/counts" "^error=none"
assert_eq "cut capture: I/O requests = io rows before the damage" \
	"$(sql "$tmp/cut.ftz" "select count(*) from io")" "$(sed -n 's/^io=//p' "$tmp/counts")"
head -c 100 "$big" >"$tmp/cut.ftz"
"$FTANA" export "$tmp/cut.ftz" -o "$tmp/cut2.json" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" = 3 ] && pass "cut in the header: exit 3" || fail "cut in the header: exit status $rc"
assert_one_line_error "cut in the header: one line" "$tmp/err" "^ftana export: "
[ -e "$tmp/cut2.json" ] && fail "cut in the header: a document was written"
finish
