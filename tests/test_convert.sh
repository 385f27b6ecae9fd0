#!/usr/bin/env bash
# test_convert.sh - `ftana convert FILE.ftz -o OUT.dat` writes a trace.dat that
# trace-cmd reads (export/tracedat_write.c). Ground truth is trace-cmd itself: for
# every capture in samples/, `trace-cmd report -N` (no plugins: the kernel's print
# formats, as ftana prints them) shows the same events as `ftana report tpoint
# --include-ftrec` (count per event type, and each event's ns timestamp, CPU, pid,
# comm and text after normalising whitespace; a kernel stack's lines are folded into
# one), `trace-cmd report --stat` reads the file and shows the kernel's counters, and
# ftana reading the trace.dat back finds the same events per type. Then the command
# line: help, refusals in one line, the input never overwritten, -o - as stdout (the
# bytes of -o FILE, no file named -, exit 1 on a full stdout), no file left behind
# on failure, a cut capture converted up to the damage (exit 3), a trace.dat refused,
# and every hostile capture of tests/hostile/gen.py converted without a crash into a
# file trace-cmd reads without crashing: a print fmt that crashed libtraceevent in
# ftana's guarded parse or while ftana printed an event (export/tracedat_guard.c)
# reaches trace-cmd removed, a format with fields outside any record not at all, a
# 16 MiB comm cut to 64 bytes.
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTANA"
if ! command -v trace-cmd >/dev/null; then
	echo "trace-cmd not installed: it is the ground truth here (make deps installs it)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# libtraceevent's own leaks on hostile formats (as in test_hostile.sh)
export LSAN_OPTIONS="suppressions=$TESTS_DIR/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# compare_events TPOINT.json TRACECMD-N.txt TRACECMD.txt: one line of differences or
# "same N". Every event's text is taken from `trace-cmd report -N`, except a kernel
# stack's: without its plugin trace-cmd prints the format's fixed caller[8] array
# (8 frames, zeros past the real depth), with it the real frames ("=> func (addr)"),
# which is what the kernel and ftana print.
compare_events() {
	python3 - "$1" "$2" "$3" <<'EOF'
import json, re, sys, collections
rows = json.load(open(sys.argv[1]))["rows"]
norm = lambda s: " ".join(s.split())
ours = [(round(r["ts_s"] * 1e9), r["cpu"], r["pid"], r["comm"], r["event"], norm(r["text"]))
        for r in rows]
line_re = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+([^: ]+):\s?(.*)$")
def parse(path):
    evs = []
    for line in open(path, errors="surrogateescape"):
        line = line.rstrip("\n")
        m = line_re.match(line)
        if m:
            comm, pid, cpu, sec, ns, name, text = m.groups()
            evs.append([int(sec) * 10**9 + int(ns), int(cpu), int(pid), comm, name, text])
        elif line.lstrip().startswith("=>") and evs and evs[-1][4] == "kernel_stack":
            # one "=> func (addr)" line per frame; ftana prints the name alone
            evs[-1][5] += " " + re.sub(r" \([0-9a-f]+\)$", "", line.strip())
    return evs
# the plugin output of each stack, by (ts, cpu) (the function_graph plugin merges
# other events' lines, so the two outputs do not pair line by line)
stacks = {(e[0], e[1]): e[5].replace("<stack trace >", "<stack trace>")
          for e in parse(sys.argv[3]) if e[4] == "kernel_stack"}
theirs = [(t, c, p, comm, n, norm(stacks.get((t, c), "(no stack in plain trace-cmd report)")
                                  if n == "kernel_stack" else x))
          for t, c, p, comm, n, x in parse(sys.argv[2])]
count = lambda evs: collections.Counter(e[4] for e in evs)
if count(ours) != count(theirs):
    print("event counts differ: ftana %s, trace-cmd %s" % (dict(count(ours)), dict(count(theirs))))
    sys.exit(0)
# same instant on two CPUs: order by (ts, cpu) on both sides
for a, b in zip(sorted(ours), sorted(theirs)):
    if a != b:
        print("first difference: ftana %r, trace-cmd %r" % (a, b))
        sys.exit(0)
print("same %d" % len(ours))
EOF
}

sql_one() { "$FTANA" sql "$1" "$2" --csv 2>/dev/null | tail -1; }

# ---------------------------------------------------------------- every sample
# and a hand-made capture with 8 KiB sub-buffers (buffer_subbuf_size_kb, kernel 6.8)
# on two CPUs whose PAGES sections interleave (tests/hostile/ftzgen.py)
mkdir -p "$tmp/gen8k"
PYTHONPATH="$TESTS_DIR/hostile" python3 - "$tmp/gen8k/subbuf8k.ftz" <<'EOF'
import sys
from ftzgen import (Capture, good_format, good_record, header, info_sec, file_sec, pages_sec,
                    ring_page, end_sec)
PS = 8192
cap = Capture(nr_cpus=2, info_extra={"subbuf_size": PS})
cap.event("good", good_format())
out = bytearray(header() + info_sec(cap.info))
for name, data in cap.files + [("saved_cmdlines", b"4242 worker\n")]:
    out += file_sec(name, data)
def page(cpu, first, n, ts0):   # 150 records fill more than 4096 bytes
    return ring_page([(1000, good_record(first + i, b"cpu%d" % cpu)) for i in range(n)], ts0, PS)
out += pages_sec(0, [page(0, 0, 150, 1000000)], PS)
out += pages_sec(1, [page(1, 1000, 20, 1500000)], PS)
out += pages_sec(0, [page(0, 150, 10, 3000000)], PS)
open(sys.argv[1], "wb").write(out + end_sec())
EOF
nr_samples=0
for ftz in "$ROOT_DIR"/samples/*.ftz "$tmp/gen8k/subbuf8k.ftz"; do
	name=$(basename "$ftz" .ftz)
	nr_samples=$((nr_samples + 1))
	cp "$ftz" "$tmp/$name.ftz" # its database cache goes beside it, in $tmp
	"$FTANA" convert "$tmp/$name.ftz" -o "$tmp/$name.dat" 2>"$tmp/err"
	assert_eq "$name: convert exit status" 0 "$?"
	[ -s "$tmp/err" ] && fail "$name: convert printed: $(cat "$tmp/err")"
	"$FTANA" report tpoint --include-ftrec --json "$tmp/$name.ftz" >"$tmp/$name.json" 2>/dev/null
	trace-cmd report -N -t "$tmp/$name.dat" >"$tmp/$name.tc" 2>"$tmp/tc_err"
	assert_eq "$name: trace-cmd report exit status" 0 "$?"
	trace-cmd report -t "$tmp/$name.dat" >"$tmp/$name.tcp" 2>/dev/null
	result=$(compare_events "$tmp/$name.json" "$tmp/$name.tc" "$tmp/$name.tcp")
	case $result in
	"same "*) pass "$name: trace-cmd report and ftana report tpoint: $result events, field by field" ;;
	*) fail "$name: $result" ;;
	esac
	trace-cmd report --stat "$tmp/$name.dat" >"$tmp/stat" 2>&1
	assert_eq "$name: trace-cmd report --stat exit status" 0 "$?"
	# each CPU's data where trace-cmd mmaps it: at a multiple of the sub-buffer size
	ps=$(sql_one "$tmp/$name.ftz" "select coalesce((select value from meta where key = 'subbuf_size'), 4096)")
	misaligned=0 seen=0
	for off in $(sed -n 's/^CPU[0-9]* data recorded at offset=\(0x[0-9a-f]*\)$/\1/p' "$tmp/stat"); do
		seen=$((seen + 1))
		[ $((off % ps)) = 0 ] || misaligned=$((misaligned + 1))
	done
	assert_eq "$name: CPU data offsets (--stat lists $seen) misaligned to $ps bytes" 0 "$misaligned"
	assert_ge "$name: CPUs with data in --stat" 1 "$seen"
	# the kernel's counters, as the capture stored them at the end
	want=$("$FTANA" sql "$tmp/$name.ftz" "select count(*) from cpu_stats where phase = 'end'" --csv 2>/dev/null | tail -1)
	assert_eq "$name: --stat shows each CPU's counters" "$want" "$(grep -c '^CPU: [0-9]' "$tmp/stat")"
	# round trip: ftana reads the trace.dat back (decode_tracedat.c, libtracecmd)
	q="select type, count(*) from events group by type order by type"
	"$FTANA" sql "$tmp/$name.ftz" "$q" --csv >"$tmp/ftz_counts" 2>/dev/null
	"$FTANA" sql "$tmp/$name.dat" "$q" --csv >"$tmp/dat_counts" 2>/dev/null
	if [ -s "$tmp/ftz_counts" ] && cmp -s "$tmp/ftz_counts" "$tmp/dat_counts"; then
		pass "$name: ftana reads the trace.dat back: same events per type ($(($(wc -l <"$tmp/ftz_counts") - 1)) types)"
	else
		fail "$name: events per type differ: .ftz $(tr '\n' ' ' <"$tmp/ftz_counts"), .dat $(tr '\n' ' ' <"$tmp/dat_counts")"
	fi
done
assert_ge "captures in samples/" 1 "$nr_samples"

# ---------------------------------------------------------------- the command line
src="$tmp/tpoint.ftz"
"$FTANA" convert --help >"$tmp/out" 2>"$tmp/err"
assert_eq "--help exit status" 0 "$?"
assert_contains "--help on stdout" "$tmp/out" "^usage: ftana convert FILE.ftz -o OUT.dat"
"$FTANA" --help | grep -q "convert FILE.ftz -o OUT.dat" && pass "listed in ftana --help" ||
	fail "convert not in ftana --help"

expect_refusal() { # WHAT PATTERN ARGS...
	local what=$1 pattern=$2
	shift 2
	"$FTANA" convert "$@" >"$tmp/out" 2>"$tmp/err"
	assert_eq "$what: exit status" 1 "$?"
	assert_one_line_error "$what" "$tmp/err" "^ftana convert: .*$pattern"
}
expect_refusal "no -o" "no -o OUT.dat given" "$src"
expect_refusal "no FILE" "no FILE given" -o "$tmp/x.dat"
expect_refusal "-o without a name" "-o needs a file name" "$src" -o
expect_refusal "unknown option" "unknown option '--bogus'" "$src" --bogus -o "$tmp/x.dat"
expect_refusal "two inputs" "unexpected argument" "$src" "$src" -o "$tmp/x.dat"
expect_refusal "missing input" "nothing.ftz" "$tmp/nothing.ftz" -o "$tmp/x.dat"
echo "not a capture" >"$tmp/text.ftz"
expect_refusal "not an .ftz" "text.ftz" "$tmp/text.ftz" -o "$tmp/x.dat"
expect_refusal "a trace.dat as input" "trace.dat already" "$tmp/tpoint.dat" -o "$tmp/x.dat"
sum=$(sha256sum <"$src")
expect_refusal "output is the input" "is the input" "$src" -o "$src"
ln "$src" "$tmp/hardlink.ftz"
expect_refusal "output is the input (hard link)" "is the input" "$src" -o "$tmp/hardlink.ftz"
assert_eq "input unchanged" "$sum" "$(sha256sum <"$src")"
expect_refusal "output directory missing" "cannot write" "$src" -o "$tmp/no/such/dir/x.dat"
# not /dev/null: were it ever a regular file (something broke it), the test must not write it
mkfifo "$tmp/fifo.dat"
expect_refusal "output is a FIFO" "fifo.dat: not a regular file" "$src" -o "$tmp/fifo.dat"
[ -p "$tmp/fifo.dat" ] && pass "the FIFO is still a FIFO" || fail "the FIFO was replaced"
ln -s "$tmp/elsewhere.dat" "$tmp/link.dat"
expect_refusal "output is a symbolic link" "link.dat: not a regular file" "$src" -o "$tmp/link.dat"
[ -e "$tmp/elsewhere.dat" ] && fail "output through a symbolic link: $tmp/elsewhere.dat written"
[ -e "$tmp/x.dat" ] && fail "a refused run left $tmp/x.dat"
leftovers=$(find "$tmp" -name '*.dat.??????' | wc -l)
assert_eq "temp files left behind" 0 "$leftovers"

# -o - is standard output, as everywhere in ftana (issue 22: it wrote a file named
# "-"): the bytes of -o FILE's trace.dat, which trace-cmd reads from a pipe's copy
# too; nothing but that on stdout, no file named -, exit 1 on a full stdout
mkdir -p "$tmp/cwd" "$tmp/tmpdir"
(cd "$tmp/cwd" && TMPDIR=$tmp/tmpdir "$FTANA" convert "$src" -o - >"$tmp/stdout.dat" 2>"$tmp/err")
assert_eq "-o -: exit status" 0 "$?"
[ -s "$tmp/err" ] && fail "-o -: printed: $(cat "$tmp/err")"
cmp -s "$tmp/tpoint.dat" "$tmp/stdout.dat" && pass "-o -: stdout is -o FILE's trace.dat, byte for byte" ||
	fail "-o -: stdout ($(stat -c %s "$tmp/stdout.dat") bytes) differs from -o FILE's ($(stat -c %s "$tmp/tpoint.dat"))"
trace-cmd report -N -t "$tmp/stdout.dat" >"$tmp/stdout.tc" 2>/dev/null
assert_eq "-o -: trace-cmd reads it" 0 "$?"
assert_eq "-o -: trace-cmd reports what it reports of -o FILE's" "$(md5sum <"$tmp/tpoint.tc")" "$(md5sum <"$tmp/stdout.tc")"
assert_eq "-o -: files made in the working directory (a file named -)" "" "$(ls -A "$tmp/cwd")"
(cd "$tmp/cwd" && TMPDIR=$tmp/tmpdir "$FTANA" convert "$src" -o - >/dev/full 2>"$tmp/err")
assert_eq "-o - >/dev/full: exit status" 1 "$?"
assert_one_line_error "-o - >/dev/full" "$tmp/err" "^ftana convert: write error on standard output"
assert_eq "-o -: temp files left in \$TMPDIR" "" "$(ls -A "$tmp/tmpdir")"

# ---------------------------------------------------------------- damage
# Cut inside the PAGES sections: what came before converts, exit 3, one warning.
big="$tmp/block-dd-stacks.ftz"
size=$(stat -c %s "$big")
for cut in $((size - 100)) $((size * 9 / 10)); do
	head -c "$cut" "$big" >"$tmp/cut.ftz"
	"$FTANA" convert "$tmp/cut.ftz" -o "$tmp/cut.dat" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 3 ]; then
		assert_one_line_error "cut at $cut: warning" "$tmp/err" "^ftana convert: .*damaged at offset"
		trace-cmd report -N "$tmp/cut.dat" >/dev/null 2>&1
		assert_eq "cut at $cut: trace-cmd reads the converted prefix" 0 "$?"
		n_cut=$("$FTANA" sql "$tmp/cut.ftz" "select count(*) from events" --csv 2>/dev/null | tail -1)
		n_dat=$("$FTANA" sql "$tmp/cut.dat" "select count(*) from events" --csv 2>/dev/null | tail -1)
		assert_eq "cut at $cut: the trace.dat holds the events before the damage" "$n_cut" "$n_dat"
	else
		assert_eq "cut at $cut: exit status" 1 "$rc"
		assert_one_line_error "cut at $cut: refusal" "$tmp/err" "^ftana convert: "
	fi
done
# ---------------------------------------------------------------- hostile captures
python3 "$TESTS_DIR/hostile/gen.py" "$tmp/hostile" --small >/dev/null || fail "gen.py"
for h in "$tmp"/hostile/*.ftz; do
	hname=$(basename "$h" .ftz)
	rm -f "$tmp/h.dat"
	timeout 300 "$FTANA" convert "$h" -o "$tmp/h.dat" >/dev/null 2>"$tmp/err"
	rc=$?
	case $rc in
	0|1|3) ;;
	*) fail "hostile $hname: exit status $rc"; sed 's/^/      | /' "$tmp/err" | head -5; continue ;;
	esac
	if grep -qv "^ftana convert: " "$tmp/err"; then
		fail "hostile $hname: stderr not all ftana's lines:"; sed 's/^/      | /' "$tmp/err" | head -5
		continue
	fi
	if [ -e "$tmp/h.dat" ]; then
		# what crashed libtraceevent for ftana (parsing or printing) is left out
		timeout 60 trace-cmd report -N "$tmp/h.dat" >/dev/null 2>&1
		a=$?
		timeout 60 trace-cmd report "$tmp/h.dat" >/dev/null 2>&1
		b=$?
		assert_eq "hostile $hname: exit $rc, $(grep -c 'crashes\|outside any record' "$tmp/err") formats defused; trace-cmd report (-N, and with plugins) reads it" "0 0" "$a $b"
	else
		pass "hostile $hname: refused, exit $rc"
	fi
done
# a 16 MiB name in saved_cmdlines (gen.py's comm_16m, issue 25): written cut to the 64
# bytes ftana prints, not whole for trace-cmd to print on each of its task's lines
python3 "$TESTS_DIR/hostile/gen.py" "$tmp/comm" comm_16m >/dev/null || fail "gen.py comm_16m"
"$FTANA" convert "$tmp/comm/comm_16m.ftz" -o "$tmp/comm.dat" 2>"$tmp/err"
assert_eq "a 16 MiB comm: convert exit status" 0 "$?"
assert_eq "a 16 MiB comm: the trace.dat is small" small \
	"$([ "$(stat -c %s "$tmp/comm.dat")" -lt 1048576 ] && echo small || stat -c %s "$tmp/comm.dat")"
timeout 120 trace-cmd report "$tmp/comm.dat" >"$tmp/comm.tc" 2>/dev/null
assert_eq "a 16 MiB comm: trace-cmd report prints it cut to 64 bytes on its 3 lines, none over 200" \
	"3 0" "$(grep -c '^ *A\{64\}-4242 ' "$tmp/comm.tc") $(awk 'length > 200' "$tmp/comm.tc" | wc -l)"

# cut inside the metadata (formats, kallsyms): one line, exit 3 (or 1 for a file too
# short to be an .ftz), and either a trace.dat trace-cmd opens or none
for cut in 10 100 2000 50000; do
	head -c "$cut" "$big" >"$tmp/cut.ftz"
	rm -f "$tmp/cut.dat"
	"$FTANA" convert "$tmp/cut.ftz" -o "$tmp/cut.dat" 2>"$tmp/err"
	rc=$?
	assert_one_line_error "cut in the metadata at $cut: exit $rc" "$tmp/err" "^ftana convert: "
	[ "$rc" = 1 ] || [ "$rc" = 3 ] || fail "cut at $cut: exit status $rc"
	if [ -e "$tmp/cut.dat" ]; then
		trace-cmd report -N "$tmp/cut.dat" >/dev/null 2>&1
		assert_eq "cut at $cut: trace-cmd opens what was converted" 0 "$?"
		[ "$rc" = 3 ] || fail "cut at $cut: a trace.dat with exit status $rc"
	fi
done
finish
