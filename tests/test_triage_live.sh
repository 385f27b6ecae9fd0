#!/usr/bin/env bash
# test_triage_live.sh - `ftrec triage --syscalls` on this host while a workload of known
# shape runs, and the triage reports against that workload (ground truth from the
# workload itself, never from ftana):
#   execsnoop  7 execs of /bin/true by one shell (ppid = that shell, exit code 0), one
#              `sh -c 'exit 3'` (exit code 3), one exec of a copy of true whose path holds
#              quotes, a newline and an escape sequence (CSV/JSON stay valid, text escaped;
#              the same name as that process's comm in opensnoop);
#   opensnoop  5 opens by python with an unusual flag set: 4 existing files (fd >= 0), 1
#              missing (ENOENT);
#   killsnoop  3 SIGWINCH (default action ignore: result ignored) and 1 SIGTERM
#              (delivered) sent by python to a sleep;
#   syscount   exactly 1234 getppid() calls by a child python forked for them (-p filters
#              that process; python's own start-up calls getppid too);
#   bitesize   4 O_DIRECT reads of 64 KiB from a loop device (dd iflag=direct);
#   iolatency  those 4 reads in the loop disk's intervals.
. "$(dirname "$0")/lib.sh"
require_root_tracefs
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTREC" "$FTANA"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
command -v losetup >/dev/null || { echo "no losetup"; exit 77; }

work=$(mktemp -d)
img=$(mktemp -p /dev/shm ftrec-triage.XXXXXX)
loop=
cleanup() {
	[ -n "$loop" ] && losetup -d "$loop"
	rm -rf "$work" "$img"
}
trap cleanup EXIT
truncate -s 16M "$img"
loop=$(losetup -f --show "$img" 2>"$work/losetup.err") ||
	{ loop=; echo "cannot set up a loop device: $(cat "$work/losetup.err")"; exit 77; }
dev=$(tr : , <"/sys/block/${loop#/dev/}/dev")

weird="$work/we\"ir,d'"$'\n\e[31m'"x"
cp /bin/true "$weird"
for f in a b c d; do echo "$f" >"$work/file_$f"; done
cat >"$work/py.py" <<'PY'
import os, signal, sys, time
work = sys.argv[1]
open(work + "/py.pid", "w").write(str(os.getpid()))
flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
for name in ("file_a", "file_b", "file_c", "file_d", "missing"):
    try:
        os.close(os.open(work + "/" + name, flags))
    except FileNotFoundError:
        pass
counter = os.fork()
if counter == 0:
    for _ in range(1234):
        os.getppid()
    os._exit(0)
open(work + "/counter.pid", "w").write(str(counter))
os.waitpid(counter, 0)
child = os.fork()
if child == 0:
    os.execv("/bin/sleep", ["sleep", "30"])
open(work + "/sleep.pid", "w").write(str(child))
time.sleep(0.2)
for _ in range(3):
    os.kill(child, signal.SIGWINCH)
os.kill(child, signal.SIGTERM)
os.waitpid(child, 0)
PY
cat >"$work/load.sh" <<EOF2
echo \$\$ >"$work/sh.pid"
for i in 1 2 3 4 5 6 7; do /bin/true; done
sh -c 'exit 3'
"\$1"
python3 "$work/py.py" "$work"
dd if="$loop" of=/dev/null bs=64k count=4 iflag=direct status=none
EOF2
"$FTREC" triage --syscalls -q -o "$work/t.ftz" -- bash "$work/load.sh" "$weird" 2>"$work/ftrec.err" ||
	{ fail "ftrec triage failed: $(cat "$work/ftrec.err")"; finish; }
shpid=$(cat "$work/sh.pid") pypid=$(cat "$work/py.pid") sleeppid=$(cat "$work/sleep.pid")
counterpid=$(cat "$work/counter.pid")

# --- execsnoop
"$FTANA" report execsnoop "$work/t.ftz" --json >"$work/exec.json" 2>"$work/exec.err"
assert_eq "execsnoop: exit" 0 $?
python3 - "$work/exec.json" "$shpid" "$weird" >"$work/exec.out" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
sh = int(sys.argv[2])
true = [r for r in rows if r["filename"] == "/bin/true" and r["ppid"] == sh]
print("true", len(true), sorted(set(r["exit_code"] for r in true)), sorted(set(r["comm"] for r in true)))
print("exit3", [r["exit_code"] for r in rows if r["filename"].endswith("/sh") and r["ppid"] == sh])
print("weird", [(r["exit_code"], r["ppid"] == sh) for r in rows if r["filename"] == sys.argv[3]])
print("durations", all(r["dur_ms"] is not None and r["dur_ms"] > 0 for r in true))
PY
assert_eq "execsnoop: 7 execs of /bin/true by the shell, exit 0" "true 7 [0] ['true']" "$(sed -n 1p "$work/exec.out")"
assert_eq "execsnoop: sh -c 'exit 3' has exit code 3" "exit3 [3]" "$(sed -n 2p "$work/exec.out")"
assert_eq "execsnoop: the hostile file name comes back byte for byte in JSON" "weird [(0, True)]" \
	"$(sed -n 3p "$work/exec.out")"
assert_eq "execsnoop: each has its run time" "durations True" "$(sed -n 4p "$work/exec.out")"
"$FTANA" report execsnoop "$work/t.ftz" --csv >"$work/exec.csv" 2>/dev/null
python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
# CSV keeps the newline inside the quoted field and shows the escape byte as \x1b
print(sum(1 for r in rows if r["filename"] == sys.argv[2].replace("\x1b", "\\x1b")))' "$work/exec.csv" "$weird" >"$work/n"
assert_eq "execsnoop: CSV is valid and holds the hostile name as one field (ESC as \\x1b)" 1 "$(cat "$work/n")"
"$FTANA" report execsnoop "$work/t.ftz" >"$work/exec.txt" 2>/dev/null
assert_eq "execsnoop text: no raw escape byte reaches the terminal" 0 "$(grep -c $'\e' "$work/exec.txt")"
"$FTANA" report execsnoop -p "$shpid" "$work/t.ftz" --csv >"$work/exec_p.csv" 2>/dev/null
assert_eq "execsnoop -p: only the shell's own exec (ftrec started it: bash load.sh)" \
	"$shpid,bash" "$(tail -n +2 "$work/exec_p.csv" | cut -d, -f2,4)"

# --- opensnoop
"$FTANA" report opensnoop -p "$pypid" "$work/t.ftz" --json >"$work/open.json" 2>"$work/open.err"
assert_eq "opensnoop: exit" 0 $?
python3 - "$work/open.json" <<'PY' >"$work/open.out"
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"]
        if r["flags"] == "O_RDONLY|O_NONBLOCK|O_NOFOLLOW|O_CLOEXEC"]
print(len(rows), sum(1 for r in rows if r["fd"] is not None and r["fd"] >= 0),
      [r["error"] for r in rows if r["fd"] is None])
PY
assert_eq "opensnoop: python's 5 opens (flags decoded), 4 fds, 1 ENOENT" "5 4 ['ENOENT']" "$(cat "$work/open.out")"
"$FTANA" report opensnoop -x -p "$pypid" "$work/t.ftz" --csv 2>/dev/null | grep -c 'O_NONBLOCK|O_NOFOLLOW' >"$work/n"
assert_eq "opensnoop -x: only the failed one of them" 1 "$(cat "$work/n")"

# the hostile name as a comm (the kernel's: its last component, 15 bytes) in opensnoop
weirdpid=$(python3 -c '
import json, sys
print([r["pid"] for r in json.load(open(sys.argv[1]))["rows"] if r["filename"] == sys.argv[2]][0])' \
	"$work/exec.json" "$weird")
"$FTANA" report opensnoop -p "$weirdpid" "$work/t.ftz" --json >"$work/wo.json" 2>/dev/null
"$FTANA" report opensnoop -p "$weirdpid" "$work/t.ftz" --csv >"$work/wo.csv" 2>/dev/null
"$FTANA" report opensnoop -p "$weirdpid" "$work/t.ftz" >"$work/wo.txt" 2>/dev/null
python3 - "$work/wo.json" "$work/wo.csv" "$weird" >"$work/wo.out" <<'PY'
import csv, json, os, sys
comm = os.path.basename(sys.argv[3])[:15]
j = json.load(open(sys.argv[1]))["rows"]
c = list(csv.DictReader(open(sys.argv[2], newline="")))
print(len(j) > 0, all(r["comm"] == comm for r in j), len(c) == len(j),
      all(r["comm"] == comm.replace("\x1b", "\\x1b") for r in c))
PY
assert_eq "opensnoop: the hostile comm, exact in JSON and CSV (both parse)" "True True True True" "$(cat "$work/wo.out")"
assert_eq "opensnoop text: no raw escape byte" 0 "$(grep -c $'\e' "$work/wo.txt")"

# --- killsnoop
"$FTANA" report killsnoop -p "$pypid" "$work/t.ftz" --csv >"$work/kill.csv" 2>/dev/null
assert_eq "killsnoop: exit" 0 $?
assert_eq "killsnoop: 3 SIGWINCH ignored" 3 "$(grep -c ",$sleeppid,sleep,SIGWINCH,28,0,ignored\$" "$work/kill.csv")"
assert_eq "killsnoop: 1 SIGTERM delivered" 1 "$(grep -c ",$sleeppid,sleep,SIGTERM,15,0,delivered\$" "$work/kill.csv")"
assert_eq "killsnoop: python sent nothing else" 5 "$(wc -l <"$work/kill.csv")"
"$FTANA" report killsnoop --target "$sleeppid" "$work/t.ftz" --csv >"$work/kill_t.csv" 2>/dev/null
assert_eq "killsnoop --target: the same 4" 5 "$(wc -l <"$work/kill_t.csv")"

# --- syscount
"$FTANA" report syscount -p "$counterpid" "$work/t.ftz" --csv >"$work/sc.csv" 2>/dev/null
assert_eq "syscount: exit" 0 $?
assert_eq "syscount -p: exactly 1234 getppid calls, no errors" "getppid,1234,0" \
	"$(grep '^getppid,' "$work/sc.csv" | cut -d, -f1-3)"
"$FTANA" report syscount --by both "$work/t.ftz" --csv >"$work/sc_all.csv" 2>/dev/null
assert_eq "syscount --by both: the counting child's getppid row" 1 "$(grep -c "^getppid,$counterpid,python3,1234,0," "$work/sc_all.csv")"
assert_ge "syscount: openat errors of python counted" 1 \
	"$(grep "^openat,$pypid," "$work/sc_all.csv" | cut -d, -f5)"

# --- bitesize
# -D the loop disk: dd also reads its own program from the real disk
"$FTANA" report bitesize -n '^dd$' -D "$dev" "$work/t.ftz" --csv >"$work/bs.csv" 2>/dev/null
assert_eq "bitesize: exit" 0 $?
assert_eq "bitesize: dd's 4 reads of 64 KiB in the 64 -> 127 KB bucket" 4 \
	"$(awk -F, '$3 == 64 && $4 == 127 { print $5 }' "$work/bs.csv")"
assert_eq "bitesize: dd has no other non-empty bucket on the loop disk" 4 \
	"$(awk -F, 'NR > 1 { n += $5 } END { print n }' "$work/bs.csv")"

# --- iolatency: the loop disk's I/O is dd's 4 reads
"$FTANA" report iolatency "$work/t.ftz" --csv >"$work/il.csv" 2>/dev/null
assert_eq "iolatency: exit" 0 $?
python3 -c '
import csv, sys
print(sum(int(r["count"]) for r in csv.DictReader(open(sys.argv[1])) if r["disk"] == sys.argv[2]))' \
	"$work/il.csv" "$dev" >"$work/n"
assert_eq "iolatency: the loop disk's intervals hold its 4 I/Os" 4 "$(cat "$work/n")"
finish
