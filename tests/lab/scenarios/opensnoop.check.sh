# Host side of opensnoop: $1 is its output dir (opensnoop.ftz, opens.out, paths). Every
# workload process opened one known path: the report lists exactly those, per pid, with
# the fd the workload got or ENOENT, the path from the ftrec_open_path probe.
. "$(dirname "$0")/../check-lib.sh"
cd "$1" || exit 1
expect "capture: the probe ftrec_open_path recorded" 1 \
	"$(q opensnoop.ftz "SELECT count(*) FROM event_types WHERE name = 'ftrec_open_path'")"
"$FTANA" report opensnoop opensnoop.ftz --csv > report.csv 2> report.err
expect "report opensnoop --csv exit" 0 $?
# workload prints "pid=N" then "open=PATH fd=FD" (FD -1: failed); the path may hold spaces
python3 - opens.out report.csv > compare.txt <<'PY'
import csv, sys
expected, pid = [], None
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("pid="):
        pid = line[4:]
    elif line.startswith("open=") and pid:
        path, fd = line[5:].rsplit(" fd=", 1)
        expected.append((pid, path, "O_RDONLY", fd if int(fd) >= 0 else "", "" if int(fd) >= 0 else "ENOENT"))
pids = {e[0] for e in expected}
seen = [(r["pid"], r["path"], r["flags"], r["fd"], r["error"])
        for r in csv.DictReader(open(sys.argv[2], newline="")) if r["pid"] in pids]
print(len(expected))
print("\n".join("|".join(e) for e in sorted(expected)))
print("=")
print("\n".join("|".join(s) for s in sorted(seen)))
PY
expect "workload: opens (known paths)" "$(grep -c . paths)" "$(head -1 compare.txt)"
expect_rows "opens of the workloads: pid|path|flags|fd|error (left workload, right report)" \
	"$(sed -n '2,/^=$/p' compare.txt | sed '$d')" "$(sed '1,/^=$/d' compare.txt)"
expect "report: the paths of the workloads' opens are all there (no warning for them)" 0 \
	"$(for p in $(sed -n 's/^pid=//p' opens.out); do "$FTANA" report opensnoop -p "$p" opensnoop.ftz --csv 2>&1 >/dev/null; done | grep -c 'without a path')"
check_done
