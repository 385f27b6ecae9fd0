#!/usr/bin/env bash
# ftzdump against ground truth it did not compute, and FORMAT.md against a
# second implementation:
#  1. `ftzdump --raw` on a real trace_pipe_raw capture published elsewhere
#     (tests/data, see its README.md: google/schedviz, 404 pages, 28,922 events);
#  2. the same pages packed into a .ftz by an independent writer written from
#     format/FORMAT.md alone (Python below: own CRC-32C, own layout code), read
#     by ftzdump through libftz: same counts, names from the stored format files;
#  3. that file cut inside a section: exit 3, counts of the complete sections only.
set -eu
cd "$(dirname "$0")/.."
FTZDUMP=${FTZDUMP:-$PWD/${BUILD:-build}/ftzdump}
DATA=${TESTDATA:-$PWD/tests/data}/rawpages/schedviz-sched-rawpages.tar.gz
[ -x "$FTZDUMP" ] || { echo "FAIL: $FTZDUMP not built"; exit 1; }
[ -f "$DATA" ] || { echo "FAIL: test data $DATA missing"; exit 1; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar xzf "$DATA" -C "$tmp"
fail() { echo "FAIL: $*"; exit 1; }

# 1. Plain dump: the published figures.
"$FTZDUMP" --raw 4096 "$tmp/traces/cpu0" >"$tmp/raw.out"
grep -qx 'total pages 404 events 28922 missed 0 lost 0 bytes 1654784' "$tmp/raw.out" ||
	fail "raw totals: $(grep total "$tmp/raw.out")"

# 2. Independent writer, uncompressed sections, pages split over 5 sections.
python3 - "$tmp" <<'EOF'
import os, struct, sys
d = sys.argv[1]
def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF
assert crc32c(b"123456789") == 0xE3069283
def section(t, payload):
    hdr = struct.pack("<IIQQI", t, 0, len(payload), len(payload), crc32c(payload))
    return hdr + struct.pack("<I", crc32c(hdr)) + payload
def file_sec(name, data):
    n = name.encode()
    return section(2, struct.pack("<BBH", 0, 0, len(n)) + n + data)
def snapshot_sec(name, mono, wall, rnd, data):
    n = name.encode()
    return section(5, struct.pack("<QQIHH", mono, wall, rnd, len(n), 0) + n + data)
out = bytearray(b"\x89FTZ\r\n\x1a\n" + struct.pack("<HHI", 1, 1, 0))
out += section(1, b"long_size=8\nendian=little\nnr_cpus=1\n")
out += file_sec("events/header_page", open(f"{d}/formats/header_page", "rb").read())
for ev in sorted(os.listdir(f"{d}/formats/sched")):
    out += file_sec(f"events/sched/{ev}/format", open(f"{d}/formats/sched/{ev}/format", "rb").read())
pages = open(f"{d}/traces/cpu0", "rb").read()
per = 100 * 4096
for off in range(0, len(pages), per):
    chunk = pages[off:off + per]
    out += section(3, struct.pack("<IIII", 0, 4096, len(chunk) // 4096, 0) + chunk)
cut = len(out) - 1000  # inside the last PAGES section
out += snapshot_sec("trace_stat/function0", 123456789, 1764734400000000000, 7, b"  Function  Hit\n")
out += section(4, b"stop_reason=test\n")
open(f"{d}/py.ftz", "wb").write(out)
open(f"{d}/cut.ftz", "wb").write(out[:cut])
EOF
"$FTZDUMP" "$tmp/py.ftz" >"$tmp/py.out" || fail "ftzdump exit $? on the Python-written file"
grep -qx 'cpu 0 pages 404 events 28922 missed 0 lost 0 bytes 1654784' "$tmp/py.out" ||
	fail "packed totals: $(grep '^cpu' "$tmp/py.out")"
grep -qx 'end clean' "$tmp/py.out" || fail "no clean end"
[ "$(grep -c '^section .* PAGES(3)' "$tmp/py.out")" = 5 ] || fail "expected 5 PAGES sections"
grep -q '^section .* SNAPSHOT(5) .* snapshot trace_stat/function0 round 7 mono_ns 123456789 wall_ns 1764734400000000000 len 16$' \
	"$tmp/py.out" || fail "SNAPSHOT section: $(grep SNAPSHOT "$tmp/py.out")"
# Per-type counts equal the plain dump's per-id counts, named via the format files.
for ev in sched_switch sched_wakeup sched_wakeup_new sched_migrate_task; do
	id=$(awk '$1 == "ID:" { print $2 }' "$tmp/formats/sched/$ev/format")
	want=$(awk -v id="id:$id" '$1 == "event" && $2 == id { print $3 }' "$tmp/raw.out")
	got=$(awk -v n="$ev" '$1 == "event" && $2 == n { print $3 }' "$tmp/py.out")
	[ "$got" = "$want" ] || fail "$ev: $got events, plain dump has ${want:-none}"
done

# 3. Cut inside the last PAGES section: damage, only the first 400 pages counted.
rc=0
"$FTZDUMP" -q "$tmp/cut.ftz" >"$tmp/cut.out" 2>"$tmp/cut.err" || rc=$?
[ $rc = 3 ] || fail "cut file: exit $rc, want 3"
grep -q '^cpu 0 pages 400 ' "$tmp/cut.out" || fail "cut file: $(grep '^cpu' "$tmp/cut.out")"
grep -q 'damaged at offset .*truncated' "$tmp/cut.err" || fail "cut file: $(cat "$tmp/cut.err")"
echo "ok: ftzdump counts 28922 events in the raw capture and in an independently written .ftz"
