#!/usr/bin/env bash
# test_report_counts_json.sh - `ftana report funccount|kprobe|stacks|tpoint --json` on
# every committed capture (samples/, tests/data/tracedat/), parsed by python3's json
# module and checked against `ftana sql` on the same capture:
#   funccount: per function, the calls equal the function events (ftrec's own threads
#     left out), or for a --profile capture the profiler's own last running totals;
#     -i intervals add up to the totals; -T leaves the intervals out; a time window
#     (--since inclusive, --until exclusive) keeps exactly the events in it;
#   kprobe: one row per row of the probe tables, args as probe_hits gives them, and the
#     arguments' text equal to what `report tpoint` (libtraceevent, the print format the
#     kernel made from the declared types) prints for the same hit;
#   stacks: the counts add up to the events with a stack (meta stacks_attached, which
#     the importer counted while attaching them, and a count over the event tables;
#     kernelshark-wsl2-5.15-v7.dat has 8 events whose stack has no frame: "[empty]");
#   tpoint: one row per event of the events view, plus one per attached stack; -p (the
#     process, by tasks.tgid), -L and --cpu keep exactly those events and stacks; a .db
#     is refused in one line (tpoint re-decodes the capture's raw records).
# A capture without a report's data must give one line naming what is missing, exit 1.
# Each capture is copied to a scratch directory first: ftana writes its cache next to it.
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
TESTDATA=${TESTDATA:-$ROOT_DIR/tests/data}
require_bin "$FTANA"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

check_capture() { # FILE
	local f=$1 name; name=$(basename "$1")
	python3 - "$FTANA" "$f" >"$work/check.out" 2>&1 <<'EOF'
import json, subprocess, sys

ftana, capture = sys.argv[1], sys.argv[2]
errors, done = [], []

def run(*args, ok=(0,)):
    p = subprocess.run([ftana, *args], capture_output=True, text=True)
    if p.returncode not in ok:
        sys.exit(f"ftana {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    return p

def sql(query):
    """The rows of `ftana sql --json` (a list of objects)."""
    return json.loads(run("sql", capture, query, "--json").stdout)

def one(query):
    return list(sql(query)[0].values())[0]

def report(name, *opts):
    doc = json.loads(run("report", name, capture, "--json", *opts).stdout)
    if doc.get("report") != name or not isinstance(doc.get("warnings"), list):
        errors.append(f"{name} {opts}: not a {name} document: {sorted(doc)}")
    return doc

def refused(name, pattern):
    """The report must refuse this capture in one line naming what is missing."""
    p = run("report", name, capture, ok=(1,))
    lines = p.stderr.strip().splitlines()
    if len(lines) != 1 or pattern not in lines[0] or p.stdout:
        errors.append(f"{name}: refusal is not one line with '{pattern}': {p.stderr!r}")

def expect(what, want, seen):
    if want != seen:
        errors.append(f"{what}: ftana sql says {want!r}, the report {seen!r}")

def has_table(t):
    return one(f"SELECT count(*) FROM sqlite_master WHERE name = '{t}'") > 0

# What every report leaves out by default: the events of ftrec's own threads (meta
# ftrec_tids; captures made before it name the same threads notrace_pids).
not_ftrec = ("coalesce(' ' || (SELECT value FROM meta WHERE key IN ('ftrec_tids', 'notrace_pids') "
             "ORDER BY key = 'ftrec_tids' DESC LIMIT 1) || ' ', '') NOT LIKE '% ' || pid || ' %'")
first = int(one("SELECT coalesce((SELECT value FROM meta WHERE key = 'first_ts'), 0)"))

def secs(ts):
    """A trace-clock ns as --since/--until take it: +seconds from the first event."""
    return f"+{(ts - first) // 10**9}.{(ts - first) % 10**9:09d}"

def windows(lo, hi):
    """Windows around the first, middle and last of [lo, hi] (ns)."""
    mid = lo + (hi - lo) // 2
    return ((lo, mid), (lo, lo + 1), (lo + 1, hi), (mid, hi + 1))

# --- funccount
profile = one("SELECT count(*) FROM meta WHERE key = 'function_profile' AND value = '1'") > 0
if profile:
    # the profiler's own running totals at the last round, per function, over CPUs
    # (no resets in these captures: the last total is every call)
    truth = {r["func"]: r["n"] for r in sql(
        "SELECT func, sum(hits) AS n FROM function_profile p WHERE round = "
        "(SELECT max(round) FROM function_profile q WHERE q.cpu = p.cpu AND q.func = p.func) "
        "GROUP BY func")}
elif has_table("function"):
    truth = {r["func"]: r["n"] for r in sql(
        f"SELECT func, count(*) AS n FROM func_hits WHERE {not_ftrec} GROUP BY func")}
    expect("funccount: function events", one(f"SELECT count(*) FROM function WHERE {not_ftrec}"),
           sum(truth.values()))
else:
    truth = None
    refused("funccount", "no function events")
if truth is not None:
    doc = report("funccount")
    expect("funccount: calls per function", truth, {r["func"]: r["count"] for r in doc["rows"]})
    expect("funccount: no intervals without -i", False, "intervals" in doc)
    doc = report("funccount", "-i", "0.05")
    per = {}
    for r in doc["intervals"]:
        per[r["func"]] = per.get(r["func"], 0) + r["count"]
        if r["end_s"] <= r["start_s"]:
            errors.append(f"funccount -i: an interval that ends before it starts: {r}")
    expect("funccount -i: intervals add up", truth, per)
    expect("funccount --totals: no intervals", False, "intervals" in report("funccount", "-i", "0.05", "--totals"))
    # -T, perf-tools' "include timestamp (for -i)": each interval in wall-clock time
    stamped = report("funccount", "-i", "0.05", "-T")["intervals"]
    expect("funccount -T: the intervals of --wall", report("funccount", "-i", "0.05", "--wall")["intervals"], stamped)
    if stamped and "start_wall" not in stamped[0]:
        errors.append(f"funccount -T: no wall-clock times: {stamped[0]}")
    expect("funccount view func_counts", truth, {r["func"]: r["count"] for r in sql("SELECT * FROM func_counts")})
    if not profile and truth:
        lo, hi = one(f"SELECT min(ts) FROM function WHERE {not_ftrec}"), one(f"SELECT max(ts) FROM function WHERE {not_ftrec}")
        for a, b in windows(lo, hi):
            want = one(f"SELECT count(*) FROM function WHERE {not_ftrec} AND ts >= {a} AND ts < {b}")
            got = sum(r["count"] for r in report("funccount", "--since", secs(a), "--until", secs(b))["rows"])
            expect(f"funccount: calls in [{secs(a)}, {secs(b)}) s", want, got)
    done.append(f"funccount {sum(truth.values())} calls")

# --- kprobe (and what tpoint prints for the same hits)
probes = [r["name"] for r in sql("SELECT name FROM kprobe_tables")]
if probes:
    hits = sql(f"SELECT ts, probe, args FROM probe_hits WHERE {not_ftrec} ORDER BY id")
    expect("kprobe: hits in the probe tables", sum(one(f"SELECT count(*) FROM \"{p}\" WHERE {not_ftrec}") for p in probes), len(hits))
    rows = report("kprobe")["rows"]
    expect("kprobe: rows", [(h["probe"], h["args"]) for h in hits], [(r["probe"], r["args"]) for r in rows])
    if capture.endswith((".ftz", ".dat")):
        # tpoint's text is the kernel's: "(ADDR...) name=value ..."; the arguments after
        # the ") " must read the same as kprobe's
        tp = [(r["event"], r["text"].split(") ", 1)[1] if ") " in r["text"] else "")
              for r in report("tpoint")["rows"] if r["event"] in probes]
        expect("kprobe args == tpoint's text", tp, [(r["probe"], r["args"]) for r in rows])
    if len(hits) > 1:
        a, b = hits[1]["ts"], hits[-1]["ts"] + 1
        expect("kprobe: hits in a window", len(hits) - 1,
               len(report("kprobe", "--since", secs(a), "--until", secs(b))["rows"]))
    done.append(f"kprobe {len(hits)} hits")
else:
    refused("kprobe", "no kprobe events")

# --- stacks
tables = [r["name"] for r in sql(
    "SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND (SELECT count(*) FROM "
    "pragma_table_info(m.name) c WHERE c.name IN ('id', 'ts', 'cpu', 'pid', 'stack_id')) = 5")]
with_stack = " UNION ALL ".join(f"SELECT ts, pid FROM \"{t}\" WHERE stack_id IS NOT NULL" for t in tables)
with_stack_cpu = " UNION ALL ".join(f"SELECT ts, cpu, pid FROM \"{t}\" WHERE stack_id IS NOT NULL" for t in tables)
if has_table("stacks") and with_stack:
    n = one(f"SELECT count(*) FROM ({with_stack}) WHERE {not_ftrec}")
    attached = sql("SELECT value FROM meta WHERE key = 'stacks_attached'")
    if attached and one(f"SELECT count(*) FROM ({with_stack}) WHERE NOT ({not_ftrec})") == 0:
        expect("stacks: events with a stack (meta stacks_attached)", int(attached[0]["value"]), n)
    rows = report("stacks")["rows"]
    expect("stacks: counts add up", n, sum(r["count"] for r in rows))
    expect("stacks: distinct frames", len(rows), len({r["frames"] for r in rows}))
    folded = {r["folded"] for r in sql("SELECT folded FROM stack_folded")} | {"[empty]"}
    missing = [r["frames"] for r in rows if r["frames"] not in folded]
    expect("stacks: frames the stack_folded view has", [], missing)
    if n > 1:
        lo = one(f"SELECT min(ts) FROM ({with_stack}) WHERE {not_ftrec}")
        hi = one(f"SELECT max(ts) FROM ({with_stack}) WHERE {not_ftrec}")
        for a, b in windows(lo, hi):
            want = one(f"SELECT count(*) FROM ({with_stack}) WHERE {not_ftrec} AND ts >= {a} AND ts < {b}")
            got = sum(r["count"] for r in report("stacks", "--since", secs(a), "--until", secs(b))["rows"])
            expect(f"stacks in [{secs(a)}, {secs(b)}) s", want, got)
    done.append(f"stacks {n} events")
elif not has_table("stacks"):
    refused("stacks", "no stacks events")

# --- tpoint
if capture.endswith((".ftz", ".dat")):
    rows = report("tpoint")["rows"]
    events = one(f"SELECT count(*) FROM events WHERE {not_ftrec}")
    expect("tpoint: event rows", events, sum(r["event"] != "kernel_stack" for r in rows))
    if has_table("stacks") and with_stack:
        expect("tpoint: stack rows", one(f"SELECT count(*) FROM ({with_stack}) WHERE {not_ftrec}"),
               sum(r["event"] == "kernel_stack" for r in rows))
    keys = ["ts_s", "cpu", "pid", "comm", "event", "text"]
    expect("tpoint: keys", [keys] * min(1, len(rows)), [list(r) for r in rows[:1]])
    if events > 1:
        lo, hi = one(f"SELECT min(ts) FROM events WHERE {not_ftrec}"), one(f"SELECT max(ts) FROM events WHERE {not_ftrec}")
        for a, b in windows(lo, hi):
            want = one(f"SELECT count(*) FROM events WHERE {not_ftrec} AND ts >= {a} AND ts < {b}")
            got = sum(r["event"] != "kernel_stack" for r in report("tpoint", "--since", secs(a), "--until", secs(b))["rows"])
            expect(f"tpoint: events in [{secs(a)}, {secs(b)}) s", want, got)
    # the task and CPU filters, on the busiest task: -p is the process (its threads by
    # tasks.tgid), -L the thread; a stack goes with the event before it
    busiest = sql(f"SELECT pid, count(*) AS n FROM events WHERE {not_ftrec} GROUP BY pid ORDER BY n DESC LIMIT 1")
    if busiest:
        p = busiest[0]["pid"]
        proc = f"(pid = {p} OR pid IN (SELECT pid FROM tasks WHERE tgid = {p}))"
        for opts, where in ((("-p", str(p)), proc), (("-L", str(p)), f"pid = {p}"), (("--cpu", "0"), "cpu = 0")):
            got = report("tpoint", *opts)["rows"]
            expect(f"tpoint {' '.join(opts)}: events", one(f"SELECT count(*) FROM events WHERE {not_ftrec} AND {where}"),
                   sum(r["event"] != "kernel_stack" for r in got))
            if has_table("stacks") and with_stack:
                expect(f"tpoint {' '.join(opts)}: stacks",
                       one(f"SELECT count(*) FROM ({with_stack_cpu}) WHERE {not_ftrec} AND {where}"),
                       sum(r["event"] == "kernel_stack" for r in got))
    done.append(f"tpoint {events} events")

if errors:
    print("\n".join(errors))
    sys.exit(1)
print(", ".join(done) or "nothing to report")
EOF
	local rc=$?
	if [ "$rc" = 0 ]; then
		pass "$name: $(cat "$work/check.out")"
	else
		fail "$name: the reports disagree with ftana sql:"
		cat "$work/check.out"
	fi
}

n=0
for f in "$ROOT_DIR"/samples/*.ftz "$TESTDATA"/tracedat/*.dat; do
	[ -e "$f" ] || continue
	cp "$f" "$work/" && f=$work/$(basename "$f")
	check_capture "$f"
	n=$((n + 1))
	rm -f "$f" "$f".db
done
assert_ge "captures checked" 9 "$n"

# A .db has no raw records for tpoint to print: one line saying so.
cp "$ROOT_DIR/samples/tpoint.ftz" "$work/"
"$FTANA" db "$work/tpoint.ftz" -o "$work/tpoint.db" >/dev/null 2>&1 || fail "ftana db failed"
"$FTANA" report tpoint "$work/tpoint.db" --json >"$work/db.out" 2>"$work/db.err"
assert_eq "tpoint on a .db: exit" 1 $?
assert_one_line_error "tpoint on a .db" "$work/db.err" "needs the .ftz"
# --folded is FlameGraph's text: refused with --json, not silently dropped
"$FTANA" report stacks "$work/tpoint.ftz" --folded --json >"$work/f.out" 2>"$work/f.err"
assert_eq "stacks --folded --json: exit" 1 $?
assert_one_line_error "stacks --folded --json" "$work/f.err" "^ftana report stacks: --folded is text"
finish
