#!/usr/bin/env bash
# test_iolat_json.sh - `ftana report iolat --json` on the committed captures, parsed by
# python3's json module and checked against `ftana sql` on the same capture: the rows
# are the io view's rows less ftrec's own threads (count, sum of bytes, max latency),
# the summary's totals and the histograms' counts add up to them, and a time slice
# (--since/--until) keeps exactly the I/Os whose issue lies in it (since inclusive,
# until exclusive). Every committed capture is tried (samples/, tests/data/tracedat/:
# kernelshark-wsl2-5.15-v7.dat holds two I/Os); one without block events must give
# one line naming what is missing, exit 1.
# Each capture is copied to a scratch directory first: ftana writes its cache next to
# the file.
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
TESTDATA=${TESTDATA:-$ROOT_DIR/tests/data}
require_bin "$FTANA"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

check_capture() { # FILE: a capture with block_rq_issue/complete events
	local f=$1 name; name=$(basename "$1")
	python3 - "$FTANA" "$f" <<'EOF' || fail "$name: the report disagrees with ftana sql (above)"
import json, subprocess, sys

ftana, capture = sys.argv[1], sys.argv[2]
errors = []

def run(*args):
    p = subprocess.run([ftana, *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"ftana {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout

def sql(query):
    """One row of `ftana sql --json` as a dict (the document is a list of objects)."""
    return json.loads(run("sql", capture, query, "--json"))[0]

def report(*opts):
    doc = json.loads(run("report", "iolat", capture, "--json", *opts))
    if doc.get("report") != "iolat" or not isinstance(doc.get("warnings"), list):
        errors.append(f"{opts}: not an iolat document: {sorted(doc)}")
    return doc

def expect(what, want, seen):
    if want != seen and not (isinstance(want, float) and abs(want - seen) < 1e-9):
        errors.append(f"{what}: ftana sql says {want!r}, the report {seen!r}")

# What the report leaves out by default: the I/Os ftrec's own threads issued.
not_ftrec = ("coalesce(' ' || (SELECT value FROM meta WHERE key = 'ftrec_tids') || ' ', '') "
             "NOT LIKE '% ' || pid || ' %'")
truth = sql(f"SELECT count(*) AS n, coalesce(sum(bytes), 0) AS bytes, max(lat_ns) / 1e6 AS max_ms, "
            f"min(issue_ts) AS first_issue, max(issue_ts) AS last_issue FROM io WHERE {not_ftrec}")
rows = report()["rows"]
expect("rows", truth["n"], len(rows))
expect("sum of bytes", truth["bytes"], sum(r["bytes"] for r in rows))
expect("max lat_ms", truth["max_ms"], max((r["lat_ms"] for r in rows), default=None))
keys = ["start_s", "end_s", "comm", "pid", "type", "disk", "sector", "bytes", "que_ms", "lat_ms"]
for r in rows[:1]:
    expect("listing keys", keys, list(r))
    expect("lat_ms = end_s - start_s", round((r["end_s"] - r["start_s"]) * 1e3, 6), round(r["lat_ms"], 6))

doc = report("--summary", "--hist", "--interval", "0.01")
if "rows" in doc:
    errors.append("--summary --hist --interval: the listing is there too")
total = [s for s in doc["summary"] if s["disk"] == "all" and s["type"] is None]
expect("summary: one total row", 1, len(total))
if total:
    expect("summary count", truth["n"], total[0]["count"])
    expect("summary max_ms", truth["max_ms"], total[0]["max_ms"])
expect("summary: groups add up", truth["n"], sum(s["count"] for s in doc["summary"]
                                                  if s["disk"] != "all"))
expect("histogram counts", truth["n"], sum(h["count"] for h in doc["histogram"]))
expect("interval counts", truth["n"], sum(h["count"] for h in doc["intervals"]))
for key, table in (("histogram", doc["histogram"]), ("intervals", doc["intervals"])):
    for h in table:
        if h["low_" + ("us" if key == "histogram" else "ms")] > h["high_" + ("us" if key == "histogram" else "ms")]:
            errors.append(f"{key}: a bucket whose low is above its high: {h}")

# Windows around the first, middle and last issue: since inclusive, until exclusive,
# on the issue's timestamp (seconds from the first event).
first = int(sql("SELECT value AS v FROM meta WHERE key = 'first_ts'")["v"])

def secs(ts):
    """A trace-clock ns as --since/--until take it: +seconds from the first event."""
    return f"+{(ts - first) // 10**9}.{(ts - first) % 10**9:09d}"

def issued_in(lo, hi):
    return sql(f"SELECT count(*) AS n FROM io WHERE {not_ftrec} AND issue_ts >= {lo} "
               f"AND issue_ts < {hi}")["n"]

if truth["n"]:
    lo = truth["first_issue"]
    hi = lo + (truth["last_issue"] - lo) // 2
    for a, b in ((lo, hi), (lo, lo + 1), (lo + 1, truth["last_issue"]), (hi, truth["last_issue"] + 1)):
        expect(f"rows issued in [{secs(a)}, {secs(b)}) s", issued_in(a, b),
               len(report("--since", secs(a), "--until", secs(b))["rows"]))

# -i TYPE (perf-tools' iotype): the I/Os whose kernel rwbs letters match the glob, in
# the listing and in iolatency's intervals
for glob in ("*R*", "*W*", "W*", "[RW]?"):
    want = sql(f"SELECT count(*) AS n FROM io WHERE {not_ftrec} AND rwbs GLOB '{glob}'")["n"]
    expect(f"-i '{glob}': rows", want, len(report("-i", glob)["rows"]))
    lat = json.loads(run("report", "iolatency", capture, "--json", "-i", glob))
    expect(f"iolatency -i '{glob}': counts", want, sum(h["count"] for h in lat["intervals"]))

if errors:
    print("\n".join(errors))
    sys.exit(1)
print(f"{truth['n']} I/Os, {truth['bytes']} bytes, max {truth['max_ms']} ms: report == ftana sql")
EOF
	pass "$name: report iolat --json == ftana sql"
}

n=0
for f in "$ROOT_DIR"/samples/*.ftz "$TESTDATA"/tracedat/*.dat; do
	[ -e "$f" ] || continue
	cp "$f" "$work/" && f=$work/$(basename "$f")
	if "$FTANA" report iolat "$f" --json >"$work/out.json" 2>"$work/err"; then
		check_capture "$f"
		n=$((n + 1))
	else
		assert_one_line_error "$(basename "$f"): no block events" "$work/err" \
			"^ftana report iolat: this capture has no block_rq_(issue|complete) events"
	fi
	rm -f "$f" "$f".db
done
assert_ge "captures with block I/O checked" 2 "$n"

# CSV holds one table: two asked for are refused, not one silently dropped.
cp "$ROOT_DIR/samples/iolat.ftz" "$work/"
"$FTANA" report iolat "$work/iolat.ftz" --csv --hist --summary >"$work/csv.out" 2>"$work/csv.err"
assert_eq "--csv --hist --summary: exit" 1 $?
assert_one_line_error "--csv --hist --summary" "$work/csv.err" "^ftana report iolat: CSV holds one table"
assert_eq "--csv --hist --summary: nothing on stdout" "" "$(cat "$work/csv.out")"
"$FTANA" report iolat "$work/iolat.ftz" --csv --json >"$work/csv.out" 2>"$work/csv.err"
assert_eq "--csv --json: exit" 1 $?
assert_one_line_error "--csv --json" "$work/csv.err" "exclude each other"
# -i is the type (perf-tools' letter): a number, the interval it once was, is refused with
# the option that is the interval now; a type or disk no I/O has is said, not an empty table
for r in iolat iolatency; do
	"$FTANA" report $r "$work/iolat.ftz" -i 1 >"$work/i.out" 2>"$work/i.err"
	assert_eq "$r -i 1: exit" 1 $?
	assert_one_line_error "$r -i 1: refused" "$work/i.err" "bad -i '1': -i is the I/O type.*--interval SECS"
	"$FTANA" report $r "$work/iolat.ftz" -i 'X*' >"$work/i.out" 2>"$work/i.err"
	assert_eq "$r -i 'X*': exit" 0 $?
	assert_one_line_error "$r -i 'X*': said" "$work/i.err" "warning: -i 'X\\*': no I/O of a type it matches in this capture \\(types: [A-Z, ]+\\)"
done
"$FTANA" report iolat "$work/iolat.ftz" -D 9,9 >"$work/i.out" 2>"$work/i.err"
assert_one_line_error "iolat -D 9,9: said" "$work/i.err" "warning: -D 9,9: no I/O to that disk in this capture \\(disks: [0-9]+,[0-9]+"
# A plain number just before the first event: as trace-clock seconds it is before the
# capture, as seconds from the first event after its end; which was meant cannot be
# told, so both --since and --until refuse it naming the span (--until took it as
# seconds from the start and kept every I/O)
read -r first last <<<"$("$FTANA" sql --csv "$work/iolat.ftz" "SELECT (SELECT value FROM meta WHERE key = 'first_ts'),
	(SELECT value FROM meta WHERE key = 'last_ts')" | tail -1 | tr , ' ')"
before=$(awk -v f="$first" 'BEGIN { printf "%.3f", f / 1e9 - 0.01 }')
if awk -v f="$first" -v l="$last" 'BEGIN { exit !(f / 1e9 - 0.01 > (l - f) / 1e9) }'; then
	for opt in --since --until; do
		"$FTANA" report iolat "$work/iolat.ftz" $opt "$before" >"$work/t.out" 2>"$work/t.err"
		assert_eq "$opt $before (10 ms before the first event): exit" 1 $?
		assert_one_line_error "$opt $before: neither meaning taken" "$work/t.err" \
			"$opt $before: before the capture's first event at [0-9.]+ s of the trace clock, and as seconds from it after its end"
	done
else
	fail "samples/iolat.ftz: its first event is too early on the trace clock for this check"
fi
# The start `ftana info` prints (six decimals, rounded down on these: case09's tracing on
# is 146.2437966..., its first I/O later) typed back to --since is the capture's start
for f in case09_iolat case05_funcgraph case12_kprobe_size; do
	cp "$ROOT_DIR/samples/$f.ftz" "$work/"
	on=$("$FTANA" info "$work/$f.ftz" | sed -n 's/.*(tracing on \([0-9.]*\) to stop.*/\1/p')
	"$FTANA" report tpoint "$work/$f.ftz" --since "$on" >"$work/t.out" 2>"$work/t.err"
	assert_eq "$f: --since $on (info's tracing on, as printed): exit" 0 $?
	assert_eq "$f: --since $on: every event" "$("$FTANA" report tpoint "$work/$f.ftz" 2>/dev/null | wc -l)" \
		"$(wc -l <"$work/t.out")"
done
finish
