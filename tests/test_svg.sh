#!/usr/bin/env bash
# test_svg.sh - the pictures on every committed capture (samples/, tests/data/tracedat/),
# read back with python3's XML parser and checked against the text/JSON reports:
#   flame graphs (report stacks --svg): well-formed XML; the root's value is the total
#     count of `report stacks --json`; every frame's width is its value's share of the
#     1180 px; each frame's own part (its value less its callees') adds up to the
#     total; the stacks rebuilt from the picture's geometry, with their own counts,
#     are exactly `report stacks --folded`'s lines (names included), also for a
#     time slice and --cpu;
#   call-time flame graphs (report funcgraph --svg): every node of `--tree --json`
#     is a frame with its path, its calls and its total time (ns) (at least its
#     callees' sum), the own parts add up to the total; -m, a slice, --cpu too;
#   heat maps (report iolat / funcslower --heatmap): the cells' counts and the
#     column totals add up to the rows of the --json report with the same options
#     (whole capture, a slice, -p, --cpu, -D, --col), and every latency bucket's total matches
#     the rows' latencies;
#   -o: written through a temp file and renamed (nothing left beside it, the mode a
#     new file gets), refused onto the capture, its database, a symlink to it, a
#     directory; a failed write (file size limit) leaves OUT as it was; no -o and
#     "-o -" write the SVG to stdout;
#   the README's pictures (docs/img/) are what `make pictures` draws today.
# Each capture is copied to a scratch directory first: ftana writes its cache next to it.
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTANA"
command -v python3 >/dev/null || { echo "SKIP: no python3 to read the SVG back"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$ROOT_DIR"/samples/*.ftz "$ROOT_DIR"/tests/data/tracedat/*.dat "$work/"

cat >"$work/check.py" <<'EOF'
import json, os, re, subprocess, sys, xml.etree.ElementTree as ET

ftana, captures = sys.argv[1], sys.argv[2:]
NS = "{http://www.w3.org/2000/svg}"
PLOT_W = 1180.0
errors, checked = [], {"stacks": 0, "funcgraph": 0, "iolat": 0, "funcslower": 0, "non-empty slices": 0}

def run(*args, ok=True):
    p = subprocess.run([ftana, *args], capture_output=True)
    if ok and p.returncode != 0:
        raise RuntimeError(f"ftana {' '.join(args)}: exit {p.returncode}: {p.stderr.decode(errors='replace').strip()}")
    return p

def doc(*args):
    return json.loads(run(*args).stdout)

def svg(*args):
    out = os.path.join(os.path.dirname(captures[0]), "out.svg")
    run(*args, "-o", out)
    return ET.parse(out).getroot()  # raises on malformed XML

def frames_of(root):
    flame = root.find(f".//{NS}g[@id='flame']")
    frames = []
    for g in root.iter(f"{NS}g"):
        if g.get("class") != "f":
            continue
        title = g.find(f"{NS}title").text
        rect = g.find(f"{NS}rect")
        frames.append(dict(name=title[:title.rindex(" (")], title=title, v=int(g.get("data-v")),
                           x=float(rect.get("x")), w=float(rect.get("width")), y=int(rect.get("y"))))
    return int(flame.get("data-total")), int(flame.get("data-omitted")), frames

def tree(frames):
    """Parent of each frame: the SVG lists frames in pre-order (a caller before its
    callees), so a frame's parent is the last frame listed one level (16 px) lower;
    it must also span it (geometry: tiny frames make containment alone ambiguous)."""
    last_at_y = {}
    for f in frames:
        f["kids"], f["parent"] = [], None
    for i, f in enumerate(frames):
        j = last_at_y.get(f["y"] + 16)
        if j is not None:
            p = frames[j]
            f["parent"] = j
            p["kids"].append(i)
            if not (p["x"] - 0.011 <= f["x"] and f["x"] + f["w"] <= p["x"] + p["w"] + 0.011):
                errors.append(f"frame {f['name']!r} at {f['x']}+{f['w']} outside its caller {p['name']!r} at {p['x']}+{p['w']}")
        last_at_y[f["y"]] = i
        # a frame listed later at a lower level closes the levels above it
        for y in [y for y in last_at_y if y < f["y"]]:
            del last_at_y[y]
    for f in frames:
        names, p = [], f
        while p["parent"] is not None:
            names.append(p["name"])
            p = frames[p["parent"]]
        f["path"] = ";".join(reversed(names))  # without the root "all"
        f["own"] = f["v"] - sum(frames[k]["v"] for k in f["kids"])

def check_geometry(what, total, omitted, frames):
    if total == 0 and not frames:  # an empty slice: nothing drawn (the picture says so)
        return
    if "--since" in what or "--until" in what:
        checked["non-empty slices"] += 1
    roots = [f for f in frames if f["parent"] is None]
    if len(roots) != 1 or roots[0]["name"] != "all" or roots[0]["v"] != total:
        errors.append(f"{what}: one root 'all' of value {total} expected, seen {[(r['name'], r['v']) for r in roots]}")
    if omitted:
        errors.append(f"{what}: --min-width 0 left out {omitted}")
    if sum(f["own"] for f in frames) != total:
        errors.append(f"{what}: own parts add up to {sum(f['own'] for f in frames)}, total {total}")
    for f in frames:
        if f["own"] < 0:
            errors.append(f"{what}: {f['path']!r} narrower than its callees")
        if total and abs(f["w"] - f["v"] / total * PLOT_W) > 0.011:
            errors.append(f"{what}: {f['path']!r} is {f['w']} px for {f['v']} of {total}")

def check_stacks(cap, *slice_args):
    what = f"{os.path.basename(cap)} stacks {' '.join(slice_args)}"
    rows = doc("report", "stacks", cap, "--json", *slice_args)["rows"]
    total, omitted, frames = frames_of(svg("report", "stacks", cap, "--svg", "--min-width", "0", *slice_args))
    tree(frames)
    if total != sum(r["count"] for r in rows):
        errors.append(f"{what}: data-total {total}, the report's rows {sum(r['count'] for r in rows)}")
    check_geometry(what, total, omitted, frames)
    folded = {}
    for line in run("report", "stacks", cap, "--folded", *slice_args).stdout.decode().splitlines():
        stack, n = line.rsplit(" ", 1)
        folded[stack] = int(n)
    seen = {f["path"]: f["own"] for f in frames if f["own"] and f["path"]}
    if seen != folded:
        errors.append(f"{what}: stacks from the picture differ from --folded: "
                      f"{sorted(set(seen.items()) ^ set(folded.items()))[:4]}")
    checked["stacks"] += 1
    return total

def check_funcgraph(cap, *args):
    what = f"{os.path.basename(cap)} funcgraph {' '.join(args)}"
    nodes = doc("report", "funcgraph", cap, "--tree", "--json", *args)["tree"]
    total, omitted, frames = frames_of(svg("report", "funcgraph", cap, "--svg", "--min-width", "0", *args))
    tree(frames)
    check_geometry(what, total, omitted, frames)
    by_path = {f["path"]: f for f in frames}
    for n in nodes:
        f = by_path.get(n["path"])
        if f is None:
            errors.append(f"{what}: --tree's {n['path']!r} is not in the picture")
            continue
        ns = round(n["total_us"] * 1000) if n["total_us"] is not None else 0
        kids = sum(frames[k]["v"] for k in f["kids"])
        if f["v"] != max(ns, kids):
            errors.append(f"{what}: {n['path']!r}: {f['v']} ns, --tree {ns} ns (callees {kids})")
        calls = re.search(r", (\d+) calls?\)$", f["title"])
        if not calls or int(calls.group(1)) != n["count"]:
            errors.append(f"{what}: {n['path']!r}: title {f['title']!r}, --tree {n['count']} calls")
    if total != sum(f["v"] for f in frames if f["parent"] is not None and frames[f["parent"]]["name"] == "all" and frames[f["parent"]]["parent"] is None):
        errors.append(f"{what}: the root is not its callers' sum")
    checked["funcgraph"] += 1

def us_bucket(lat_ns):
    us = lat_ns // 1000
    return 0 if us < 2 else us.bit_length() - 1

def check_heatmap(report, cap, *args, col=None):
    what = f"{os.path.basename(cap)} {report} --heatmap {' '.join(args)} --col {col}"
    rows = doc("report", report, cap, "--json", *args)["rows"]
    root = svg("report", report, cap, "--heatmap", *args, *(("--col", col) if col else ()))
    hm = root.find(f".//{NS}g[@id='heatmap']")
    cells = [r for r in root.iter(f"{NS}rect") if r.get("class") == "c"]
    n = sum(int(c.get("data-n")) for c in cells)
    if not (n == int(hm.get("data-total")) == len(rows)):
        errors.append(f"{what}: cells hold {n}, data-total {hm.get('data-total')}, the report {len(rows)} rows")
    cols = sum(int(r.get("data-n")) for r in root.iter(f"{NS}rect") if r.get("class") == "t")
    if cols != len(rows):
        errors.append(f"{what}: the column totals add up to {cols}, the report has {len(rows)} rows")
    # each row of cells: its bucket is its y; the buckets' totals from the rows' latencies
    key = "lat_ms" if report == "iolat" else "dur_ns"
    lats = [round(r[key] * 1e6) if key == "lat_ms" else r[key] for r in rows]
    want = {}
    for lat in lats:
        want[us_bucket(lat)] = want.get(us_bucket(lat), 0) + 1
    seen = {}
    for c in cells:
        b = re.search(r", (\d+) - \d+ us: ", c.find(f"{NS}title").text)
        bucket = 0 if int(b.group(1)) == 0 else int(b.group(1)).bit_length() - 1
        seen[bucket] = seen.get(bucket, 0) + int(c.get("data-n"))
    if seen != want:
        errors.append(f"{what}: per bucket {seen}, from the rows' latencies {want}")
    checked[report] += 1
    return len(rows)

def span(cap):
    d = doc("sql", cap, "SELECT CAST(value AS INTEGER) AS v FROM meta WHERE key IN ('first_ts', 'last_ts') ORDER BY key", "--json")
    return (d[1]["v"] - d[0]["v"]) / 1e9

for cap in captures:
    name = os.path.basename(cap)
    try:
        third = span(cap) / 3
        window = ("--since", f"{third:.9f}", "--until", f"{2 * third:.9f}")
        first_half = ("--until", f"{1.5 * third:.9f}")
        if doc("report", "stacks", cap, "--json")["rows"]:
            check_stacks(cap)
            check_stacks(cap, *window)
            check_stacks(cap, *first_half)
            check_stacks(cap, "--cpu", "0")
        if run("report", "funcgraph", cap, "--tree", "--json", ok=False).returncode == 0:
            check_funcgraph(cap)
            check_funcgraph(cap, "-m", "3")
            check_funcgraph(cap, *window)
            check_funcgraph(cap, *first_half)
            check_funcgraph(cap, "--cpu", "1")
        if run("report", "iolat", cap, "--json", ok=False).returncode == 0:
            check_heatmap("iolat", cap)
            check_heatmap("iolat", cap, *window)
            check_heatmap("iolat", cap, col="0.0005")
            first = doc("report", "iolat", cap, "--json")["rows"][0]
            check_heatmap("iolat", cap, "-D", first["disk"])
            check_heatmap("iolat", cap, "-p", str(first["pid"]))
            check_heatmap("iolat", cap, "--cpu", "1")
        if run("report", "funcslower", cap, "--json", ok=False).returncode == 0 and \
           doc("report", "funcslower", cap, "--json")["rows"]:
            check_heatmap("funcslower", cap)
            check_heatmap("funcslower", cap, *window)
    except Exception as e:
        errors.append(f"{name}: {e}")
for e in errors:
    print("FAIL:", e)
print("checked:", ", ".join(f"{k} {v}" for k, v in checked.items()))
sys.exit(1 if errors or min(checked.values()) == 0 else 0)
EOF

caps=("$work"/*.ftz "$work"/*.dat)
if python3 "$work/check.py" "$FTANA" "${caps[@]}"; then
	pass "flame graphs and heat maps agree with the text/JSON reports on every capture"
else
	fail "pictures disagree with the reports (above)"
fi

# --- -o ---
cap=$work/block-dd-stacks.ftz
before=$(sha256sum "$cap" | cut -d' ' -f1)
"$FTANA" report stacks "$cap" --svg -o "$cap" >"$work/out" 2>"$work/err"
assert_eq "-o onto the capture: exit" 1 $?
assert_one_line_error "-o onto the capture" "$work/err" "that is the input"
assert_eq "the capture is unchanged" "$before" "$(sha256sum "$cap" | cut -d' ' -f1)"
"$FTANA" report iolat "$cap" --heatmap -o "$cap.db" >"$work/out" 2>"$work/err"
assert_eq "-o onto the capture's database: exit" 1 $?
assert_one_line_error "-o onto the capture's database" "$work/err" "that is the input"
ln -s "$cap" "$work/link.svg"
"$FTANA" report stacks "$cap" --svg -o "$work/link.svg" >"$work/out" 2>"$work/err"
assert_eq "-o onto a symlink to the capture: exit" 1 $?
assert_one_line_error "-o onto a symlink to the capture" "$work/err" "that is the input"
assert_eq "the capture is still unchanged" "$before" "$(sha256sum "$cap" | cut -d' ' -f1)"
"$FTANA" report stacks "$cap" --svg -o "$work" >"$work/out" 2>"$work/err"
assert_eq "-o onto a directory: exit" 1 $?
assert_one_line_error "-o onto a directory" "$work/err" "is a directory"
# A device (here a private copy of /dev/null's node): renaming the picture over it
# would replace the device with a file, as it once replaced this machine's /dev/null.
if mknod "$work/null" c 1 3 2>/dev/null; then
	"$FTANA" report stacks "$cap" --svg -o "$work/null" >"$work/out" 2>"$work/err"
	assert_eq "-o onto a device: exit" 1 $?
	assert_one_line_error "-o onto a device" "$work/err" "null: not a regular file"
	assert_eq "the device is still a device" "character special file" "$(stat -c %F "$work/null")"
fi

mkdir "$work/pics"
echo old >"$work/pics/flame.svg"
(umask 022; "$FTANA" report stacks "$cap" --svg -o "$work/pics/flame.svg") 2>"$work/err"
assert_eq "-o replacing a file: exit" 0 $?
assert_eq "nothing left beside OUT" "flame.svg" "$(ls -A "$work/pics")"
assert_eq "OUT's mode under umask 022" 644 "$(stat -c %a "$work/pics/flame.svg")"
python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$work/pics/flame.svg" ||
	fail "-o: the written file is not XML"

# A write that fails part way (the file size limit) leaves OUT as it was, nothing beside it.
echo old >"$work/pics/flame.svg"
(trap '' XFSZ; ulimit -f 4; "$FTANA" report funcgraph "$work/funcgraph.ftz" --svg \
	-o "$work/pics/flame.svg") >"$work/out" 2>"$work/err"
assert_eq "-o with a failing write: exit" 1 $?
assert_one_line_error "-o with a failing write" "$work/err" "cannot write .*flame.svg: File too large"
assert_eq "OUT as it was" old "$(cat "$work/pics/flame.svg")"
assert_eq "no temp file left" "flame.svg" "$(ls -A "$work/pics")"

# No -o, and "-o -": the SVG on stdout.
for o in "" "-o -"; do
	# shellcheck disable=SC2086
	"$FTANA" report iolat "$cap" --heatmap $o >"$work/stdout.svg" 2>"$work/err"
	assert_eq "--heatmap ${o:-without -o}: exit" 0 $?
	python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$work/stdout.svg" &&
		pass "--heatmap ${o:-without -o}: XML on stdout" || fail "--heatmap ${o:-without -o}: not XML"
done

# docs/img/ is up to date: the Makefile's `pictures` commands, run again on a copy of
# samples/ (same relative paths, so the same subtitles), draw the committed files.
mkdir -p "$work/tree/samples" "$work/tree/docs/img"
cp "$ROOT_DIR"/samples/*.ftz "$work/tree/samples/"
n=0
while read -r report capture rest; do
	out=${rest##* }
	# shellcheck disable=SC2086
	(cd "$work/tree" && "$FTANA" report "$report" "$capture" ${rest% *} "$out") ||
		fail "pictures: ftana report $report $capture $rest"
	if cmp -s "$work/tree/$out" "$ROOT_DIR/$out"; then
		pass "$out is what 'make pictures' draws"
	else
		fail "$out differs from what 'make pictures' draws now: run 'make pictures' and commit"
	fi
	n=$((n + 1))
done < <(sed -n 's/^\t$(BUILD)\/ftana report \(.* -o docs\/img\/.*\.svg\)$/\1/p' "$ROOT_DIR/Makefile")
assert_ge "pictures checked" 2 "$n"
finish
