# Host side of execsnoop: $1 is its output dir (execsnoop.ftz, execs.out, cases). Every exec
# the workloads made is listed with exactly the argv they passed, quoted by the rule
# docs/SQL.md gives and escaped as every report prints values (both written again here,
# from the bytes in cases, not from our code).
. "$(dirname "$0")/../check-lib.sh"
cd "$1" || exit 1
expect "capture: the probe ftrec_exec_args recorded" 1 \
	"$(q execsnoop.ftz "SELECT count(*) FROM event_types WHERE name = 'ftrec_exec_args'")"
"$FTANA" report execsnoop execsnoop.ftz --csv > report.csv 2> report.err
expect "report execsnoop --csv exit" 0 $?
python3 - execs.out cases report.csv > compare.txt <<'PY'
import csv, io, re, sys
SAFE = re.compile(rb"^[A-Za-z0-9_./=:,+@%-]+$")
def quote(a):
    if len(a) > 256:
        return b"$'" + a[:256].replace(b"\\", b"\\\\").replace(b"'", b"\\'") + b"'[...]"
    if a == b"":
        return b"''"
    if SAFE.match(a):
        return a
    if all(0x20 <= c <= 0x7e for c in a) and b"'" not in a:
        return b"'" + a + b"'"
    return b"$'" + a.replace(b"\\", b"\\\\").replace(b"'", b"\\'") + b"'"
def shown(t):
    """As the report prints a value (common/text_escape.h): bytes that are not UTF-8,
    C0 controls but tab, CR and LF, DEL and C1 controls as \\xHH."""
    out = []
    for ch in t.decode("utf-8", errors="backslashreplace"):
        c = ord(ch)
        if (c < 0x20 and ch not in "\t\r\n") or 0x7f <= c <= 0x9f:
            out.append("\\x%02x" % c if c < 0x80 else "".join("\\x%02x" % b for b in ch.encode()))
        else:
            out.append(ch)
    return "".join(out).encode("utf-8", errors="surrogateescape")
expected = []
for line in open(sys.argv[2], "rb"):
    path, *args = line.split()
    argv = [bytes.fromhex(h[1:].decode()) for h in args]
    text = b" ".join(quote(a) for a in argv[:16]) + (b" [...]" if len(argv) >= 16 else b"")
    expected.append((path, shown(text)))
pids = {l[4:].strip() for l in open(sys.argv[1]) if l.startswith("pid=")}
raw = open(sys.argv[3], "rb").read().decode("latin-1")  # the report's bytes, as they are
# (the shell's exec of the workload itself is not one of the cases)
seen = [(r["filename"].encode("latin-1"), r["args"].encode("latin-1"))
        for r in csv.DictReader(io.StringIO(raw, newline=""))
        if r["pid"] in pids and r["filename"] != "/lab/bin/workload"]
print(len(expected))
for p, t in sorted(expected):
    print(repr((p, t)))
print("=")
for p, t in sorted(seen):
    print(repr((p, t)))
PY
expect "workloads: execs (cases written by the guest)" 6 "$(head -1 compare.txt)"
expect_rows "execs of the workloads: (filename, args) (left: the guest's argv, right: the report)" \
	"$(sed -n '2,/^=$/p' compare.txt | sed '$d')" "$(sed '1,/^=$/d' compare.txt)"
# text: the escape byte and the byte that is not UTF-8 print as \xHH inside $'...'
"$FTANA" report execsnoop execsnoop.ftz > report.txt 2>&1
expect "report text: $'a\\xffb' \$'\\x1b[2J'" 1 \
	"$(grep -F "t2 \$'a\\xffb' \$'\\x1b[2J' \$'tab" report.txt | grep -vc 'workload exec')"
check_done
