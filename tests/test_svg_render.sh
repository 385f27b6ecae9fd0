#!/usr/bin/env bash
# test_svg_render.sh - the pictures as a browser shows them: headless Chromium
# (Debian's chromium package) renders each SVG ftana writes (a flame graph of stacks,
# one of call time, the iolat and funcslower heat maps, all from samples/) to a PNG,
# decoded here with python3's zlib (no imaging library needed): it must be the
# picture's size, not blank (many colours, a real share of non-white pixels) and
# hold the picture's own colours (the flame palette, the heat-map scale); the page's
# script must raise no error. Then the flame graph's script is driven: a search for
# one function must report the share of the total its frames cover, and a click
# (zoom) on it must stretch it to the full width and hide every frame that is
# neither its ancestor nor its callee.
# Skips (77) only when no chromium can be found: install it with 'make deps'.
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTANA"
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ]; then
	echo "SKIP: no chromium to render the SVG (Debian: apt-get install chromium, or 'make deps')"
	exit 77
fi
command -v python3 >/dev/null || { echo "SKIP: no python3 to read the PNG"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$ROOT_DIR"/samples/{funcgraph,block-dd-stacks,funcslower}.ftz "$work/"

# chromium FILE.svg WIDTH HEIGHT ARGS...: its own profile in $work, nothing in $HOME.
chromium() {
	local svg=$1 w=$2 h=$3; shift 3
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$work/profile" --enable-logging=stderr --v=0 \
		--window-size="$w,$h" "$@" "file://$svg"
}

size_of() { # the <svg>'s width and height
	python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot(); print(r.get("width"), r.get("height"))' "$1"
}

cat >"$work/png.py" <<'EOF'
# png.py FILE W H KIND: decode an 8-bit non-interlaced PNG with zlib and judge it.
import struct, sys, zlib

path, want_w, want_h, kind = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
data = open(path, "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, typ = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if typ == b"IHDR":
        w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
    elif typ == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and interlace == 0 and colour in (2, 6), f"unexpected PNG: depth {depth} colour {colour}"
bpp = 3 if colour == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
rows, prev = [], bytearray(stride)
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 0xff
        elif f == 2: line[i] = (line[i] + b) & 0xff
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 0xff
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xff
    rows.append(line)
    prev = line
pixels = [tuple(r[i:i + 3]) for r in rows for i in range(0, stride, bpp)]
colours = set(pixels)
non_white = sum(1 for p in pixels if p != (255, 255, 255)) / len(pixels)
if kind == "flame":   # FlameGraph's hot palette: red 205-255, green 0-230, blue 0-55
    own = sum(1 for r, g, b in pixels if r >= 205 and b <= 55 and g <= 230)
else:                 # the heat scale: light yellow .. dark red
    own = sum(1 for r, g, b in pixels if r >= 128 and b <= 160 and g <= 237 and (r, g, b) != (255, 255, 255))
problems = []
if (w, h) != (want_w, want_h):
    problems.append(f"{w}x{h} px, the SVG is {want_w}x{want_h}")
if len(colours) < 20:
    problems.append(f"only {len(colours)} colours")
if non_white < 0.02:
    problems.append(f"only {non_white:.1%} of the pixels are not white")
if own < 200:
    problems.append(f"only {own} pixels of the {kind}'s colours")
print(f"{w}x{h}, {len(colours)} colours, {non_white:.1%} not white, {own} {kind} pixels"
      + ("" if not problems else ": " + "; ".join(problems)))
sys.exit(1 if problems else 0)
EOF

render() { # WHAT SVG KIND
	local what=$1 svg=$2 kind=$3 w h
	read -r w h < <(size_of "$svg") || { fail "$what: the SVG does not parse"; return; }
	chromium "$svg" "$w" "$h" --screenshot="$svg.png" >"$work/log" 2>&1
	if [ ! -s "$svg.png" ]; then
		fail "$what: chromium wrote no PNG:"; tail -n 5 "$work/log" | sed 's/^/      | /'; return
	fi
	if grep -q "Uncaught" "$work/log"; then
		fail "$what: the script failed: $(grep -m1 Uncaught "$work/log")"
	fi
	if python3 "$work/png.py" "$svg.png" "$w" "$h" "$kind" >"$work/png.out" 2>&1; then
		pass "$what rendered: $(cat "$work/png.out")"
	else
		fail "$what rendered: $(cat "$work/png.out")"
	fi
}

"$FTANA" report funcgraph "$work/funcgraph.ftz" --svg -o "$work/calls.svg" || fail "funcgraph --svg"
"$FTANA" report stacks "$work/block-dd-stacks.ftz" --svg -o "$work/stacks.svg" || fail "stacks --svg"
"$FTANA" report iolat "$work/block-dd-stacks.ftz" --heatmap -o "$work/iolat.svg" || fail "iolat --heatmap"
"$FTANA" report funcslower "$work/funcslower.ftz" --heatmap -o "$work/slow.svg" || fail "funcslower --heatmap"
render "call-time flame graph" "$work/calls.svg" flame
render "stacks flame graph" "$work/stacks.svg" flame
render "iolat heat map" "$work/iolat.svg" heat
render "funcslower heat map" "$work/slow.svg" heat

# Drive the flame graph's script: search (prompt answered) and zoom on vfs_read, then
# read what the page made of it from the DOM chromium dumps.
python3 - "$work/calls.svg" "$work/probe.svg" <<'EOF'
import sys
svg = open(sys.argv[1]).read()
probe = """<script type="text/ecmascript"><![CDATA[
window.prompt = function () { return "^vfs_read$"; };
search();
var z = frames.filter(function (g) { return g._name === "vfs_read"; })[0];
zoom(z);
var r = z.querySelector("rect");
document.documentElement.setAttribute("data-probe", [matched.textContent, r.getAttribute("x"),
  r.getAttribute("width"), frames.filter(function (g) { return !g.classList.contains("hide"); }).length].join("|"));
]]></script>
</svg>"""
open(sys.argv[2], "w").write(svg.replace("</svg>", probe))
EOF
read -r w h < <(size_of "$work/calls.svg")
chromium "$work/probe.svg" "$w" "$h" --dump-dom >"$work/dom" 2>"$work/log"
seen=$(grep -o 'data-probe="[^"]*"' "$work/dom" | sed 's/^data-probe="//; s/"$//')
want=$(python3 - "$work/calls.svg" <<'EOF'
import sys, xml.etree.ElementTree as E
NS = "{http://www.w3.org/2000/svg}"
root = E.parse(sys.argv[1]).getroot()
total = int(root.find(f".//{NS}g[@id='flame']").get("data-total"))
frames = []
for g in root.iter(f"{NS}g"):
    if g.get("class") == "f":
        t, r = g.find(f"{NS}title").text, g.find(f"{NS}rect")
        frames.append((t[:t.rindex(" (")], int(g.get("data-v")), float(r.get("x")),
                       float(r.get("width")), int(r.get("y"))))
matches = sorted((x, x + w) for n, v, x, w, y in frames if n == "vfs_read")
covered, end = 0.0, -1.0
for a, b in matches:  # a match inside a match counts once
    if a >= end: covered += b - a; end = b
    elif b > end: covered += b - end; end = b
z = [f for f in frames if f[0] == "vfs_read"][0]
zx, zw, zy = z[2], z[3], z[4]
visible = sum(1 for n, v, x, w, y in frames
              if (y > zy and x <= zx + 1e-6 and x + w >= zx + zw - 1e-6) or
                 (y <= zy and x >= zx - 1e-6 and x + w <= zx + zw + 1e-6))
print(f"Matched: {100 * covered / 1180:.1f}%|10.00|1180.00|{visible}")
EOF
)
assert_eq "search ^vfs_read$, then zoom on it (matched|x|width|frames shown)" "$want" "$seen"
grep -q "Uncaught" "$work/log" && fail "the probe's script failed: $(grep -m1 Uncaught "$work/log")"
finish
