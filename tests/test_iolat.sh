#!/usr/bin/env bash
# test_iolat.sh - `ftrec iolat` + `ftana report iolat` on real block I/O of known size
# and count: N sequential 64 KiB O_DIRECT writes by dd to a file on / (virtio vda here),
# checked against the workload and, for the same I/Os, against perf-tools' iosnoop
# (iosnoop-perf), which traces in a scratch instance of its own while ftrec uses
# another, so both watch the same writes at once.
#
# iosnoop parses the trace TEXT by field position; kernel 6.x added the bytes and
# ioprio fields to block_rq_*, so it reads BLOCK as "+" and BYTES as 0 and keys its
# pairing on (dev, "+"). With ONE sequential writer each request completes before the
# next is issued, so its pairs are still right and the I/Os can be matched by time
# (both record with the "local" trace clock here). ftana reads fields by name from the
# format file the capture carries, so it gets sector and bytes on any layout.
. "$(dirname "$0")/lib.sh"
require_root_tracefs
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTREC" "$FTANA"
command -v iosnoop-perf >/dev/null || { echo "FAIL: iosnoop-perf missing (make deps: perf-tools-unstable)"; exit 1; }

N=40
work=$(mktemp -d -p /var/tmp ftrec-iolat.XXXXXX)
snapshot_tracefs_state >"$work/tracefs.before"
# iosnoop-perf works in /sys/kernel/debug/tracing, the top level, and leaves it
# changed in a way nobody can undo: its first write there (current_tracer,
# buffer_size_kb) expands a never-used buffer ("7 (expanded: 1408)" becomes "4096",
# and the old text cannot be written back). So it runs in a private mount namespace
# where /sys/kernel/debug/tracing is a scratch instance: the host's top level and
# mounts are never touched.
snoop_inst=$TRACEFS/instances/fttest-iosnoop-$$
cleanup() {
	[ -n "${snoop_pid:-}" ] && kill "$snoop_pid" 2>/dev/null && wait "$snoop_pid" 2>/dev/null
	[ -d "$snoop_inst" ] && rmdir "$snoop_inst"
	[ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

# The file exists and is written back first, so the direct writes are pure data I/O
# (no allocation, no journal traffic between them).
dd if=/dev/zero of="$work/data" bs=64k count=$N status=none && sync

mkdir "$snoop_inst" && echo local >"$snoop_inst/trace_clock" ||
	{ fail "cannot make the scratch instance $snoop_inst for iosnoop"; finish; }
# unshare -m without --fork execs: $! is iosnoop itself, so kill reaches its trap.
unshare -m --propagation private sh -c 'mount -t tmpfs none /sys/kernel/debug &&
	mkdir /sys/kernel/debug/tracing && mount --bind "$1" /sys/kernel/debug/tracing &&
	exec iosnoop-perf -ts 6' sh "$snoop_inst" >"$work/iosnoop.txt" 2>&1 &
snoop_pid=$!
for _ in $(seq 100); do grep -qs '^STARTs' "$work/iosnoop.txt" && break; sleep 0.1; done
sleep 0.5 # past its "echo > trace"

# dd's PID (sh execs it) picks its I/Os out of whatever else the machine writes.
"$FTREC" iolat -q -C local -o "$work/io.ftz" -- sh -c 'echo $$ >"$1"; exec dd if=/dev/zero \
	of="$2" bs=64k count="$3" oflag=direct conv=notrunc status=none' sh "$work/dd.pid" \
	"$work/data" $N 2>"$work/ftrec.err" || { fail "ftrec iolat failed:"; cat "$work/ftrec.err"; }
ddpid=$(cat "$work/dd.pid")
wait "$snoop_pid"
snoop_pid=
rmdir "$snoop_inst" || fail "scratch instance $snoop_inst busy after iosnoop ended"
assert_state_unchanged "$work/tracefs.before"

# --csv prints the disk as "MAJ,MIN" in quotes: make it MAJ:MIN for awk. Columns:
# 1 start_s, 2 end_s, 3 comm, 4 pid, 5 type, 6 disk, 7 sector, 8 bytes, 9 que_ms, 10 lat_ms
csv() { "$FTANA" report iolat "$work/io.ftz" --csv "$@" | sed 's/"\([0-9]*\),\([0-9]*\)"/\1:\2/'; }
csv >"$work/ours.csv" || fail "ftana report iolat --csv failed"
csv -Q >"$work/ours_q.csv" || fail "ftana report iolat -Q --csv failed"
assert_eq "CSV columns" "start_s,end_s,comm,pid,type,disk,sector,bytes,que_ms,lat_ms" \
	"$(head -n 1 "$work/ours.csv")"

# An I/O is known by its block, and belongs to the task that submitted it: the
# listing's PID (the inserter when there is an insert). --issuer's PID is the task that
# issued it to the driver (iosnoop's), now and then a kworker dispatching dd's queued
# request: those are dd's blocks too, and nobody else's.
assert_eq "dd's I/Os (its own count, N) all under dd's pid by default" "$N" \
	"$(awk -F, -v p="$ddpid" '$4 == p && $3 == "dd" && $8 == 65536' "$work/ours.csv" | wc -l)"
csv --issuer >"$work/ours_i.csv" || fail "ftana report iolat --issuer --csv failed"
iss=$(awk -F, -v p="$ddpid" 'NR == FNR { if ($4 == p && $8 == 65536) dd[$7]; next }
	FNR > 1 && $7 in dd { if ($4 == p) own++; else if ($3 ~ /^kworker/) kw++; else other++ }
	END { print own + 0, kw + 0, other + 0 }' "$work/ours.csv" "$work/ours_i.csv")
read -r own kw other <<<"$iss"
echo "note: --issuer: dd's $N I/Os issued by dd $own, by kworkers $kw"
assert_eq "--issuer: dd's blocks issued by dd or a kworker" "$N" "$((own + kw))"
assert_eq "--issuer: dd's blocks issued by another task" 0 "$other"
csv --issuer -p "$ddpid" >"$work/ours_ip.csv"
assert_eq "--issuer -p dd: the I/Os dd issued itself" "$own" "$(awk -F, '$8 == 65536' "$work/ours_ip.csv" | wc -l)"
# bitesize counts the same way: dd's N writes of 64 KiB in its 64 -> 127 KB bucket, by
# default (dd submitted them all), and with --issuer those dd issued itself.
bs() { "$FTANA" report bitesize "$work/io.ftz" --csv -p "$ddpid" "$@" |
	awk -F, '$3 == 64 && $4 == 127 { n += $5 } END { print n + 0 }'; }
assert_eq "bitesize -p dd: dd's 64 KiB writes (its own count, N)" "$N" "$(bs)"
assert_eq "bitesize --issuer -p dd: those dd issued itself" "$own" "$(bs --issuer)"
dd_rows=$(awk -F, -v p="$ddpid" 'NR == FNR { if ($4 == p && $3 == "dd" && $8 == 65536) dd[$7]; next }
	$7 in dd && $5 ~ /W/ && $8 == 65536 && $10 > 0' "$work/ours_q.csv" "$work/ours.csv" | wc -l)
assert_eq "dd writes of 65536 bytes with TYPE ~ W and latency > 0" "$N" "$dd_rows"
assert_eq "rows without a block number" 0 \
	"$(awk -F, 'NR > 1 && $8 == 65536 && $7 == ""' "$work/ours.csv" | wc -l)"

# -Q: the same I/O (same block) measured from its insert: a queue time >= 0 and a
# latency at least the issue-based one.
bad_q=$(awk -F, -v p="$ddpid" 'FNR == 1 { next }
	NR == FNR { if ($8 == 65536) lat[$7] = $10; next }
	$4 == p && $8 == 65536 { seen++; if (!($7 in lat) || $9 < 0 || $10 < lat[$7]) bad++ }
	END { print seen - 0, bad - 0 }' "$work/ours.csv" "$work/ours_q.csv")
assert_eq "-Q: dd I/Os with a queue time" "$N" "${bad_q% *}"
assert_eq "-Q: I/Os with QUEms < 0 or LATms below the issue latency" 0 "${bad_q#* }"

# iosnoop -ts: STARTs ENDs COMM PID TYPE DEV BLOCK BYTES LATms. Each of its dd rows
# is matched to ours on ENDs (within 15 us) and the latencies compared.
# While another task writes to the disk (other tests, the journal), iosnoop's
# (dev, "+") key pairs dd's start with that task's completion: such a row ends when
# one of the OTHER I/Os in our capture ends -- explained, not compared (a row ending
# within 15 us of another task's completion is ambiguous, so it is not compared either).
# iosnoop takes COMM from the kernel's pid->comm cache (saved_cmdlines), which may say
# "<...>": dd's rows are picked by its PID.
cmp=$(awk -F, -v snoop="$work/iosnoop.txt" -v pid="$ddpid" 'NR > 1 && $8 != "" {
		if ($4 == pid && $8 == 65536) { end[NR] = $2; lat[NR] = $10 } else other[NR] = $2
	}
	# Each instance timestamps its own copy of an event: a few microseconds apart
	# when the CPU is interrupted in between. dd completions are >= 30 us apart.
	function near(a, b) { return (a > b ? a - b : b - a) <= 0.000015 }
	END {
		while ((getline line < snoop) > 0) {
			n = split(line, f, " ")
			if (n != 9 || f[4] != pid || f[5] !~ /W/) continue
			theirs++
			hit = 0
			for (r in other) if (near(other[r], f[2])) { hit = 1; explained++; break }
			if (!hit) for (r in end) if (near(end[r], f[2])) {
				hit = 1; matched++; delete end[r]
				dl = lat[r] - f[9]; if (dl < 0) dl = -dl
				if (dl > 0.01) { far++; printf "far: ours %s theirs %s\n", lat[r], f[9] > "/dev/stderr" }
				break
			}
			if (!hit) print "unexplained iosnoop row: " line > "/dev/stderr"
		}
		print theirs - 0, matched - 0, explained - 0, far - 0
	}' "$work/ours.csv")
read -r theirs matched explained far <<<"$cmp"
echo "iosnoop: $theirs dd rows, $matched matched, $explained mispaired across other I/O"
# (at least a quarter: while other tasks write, iosnoop pairs many of dd's rows with
# their I/O -- 14 and 19 of 40 matched were seen on a loaded machine -- explained above)
assert_ge "iosnoop dd writes matched by completion time (at least a quarter)" $((N / 4)) "$matched"
assert_eq "iosnoop dd rows matched or explained" "$theirs" "$((matched + explained))"
assert_eq "matched latencies differing by more than 0.01 ms" 0 "$far"
[ "$FAILS" -gt 0 ] && { echo "iosnoop said:"; sed 's/^/      | /' "$work/iosnoop.txt" | head -60; }

# Everything else the report prints: summary with the writes, histogram, ftana sql.
# -Q: -p (dd's process) then selects dd's own I/Os, whoever issued them (see above).
"$FTANA" report iolat "$work/io.ftz" -Q -p "$ddpid" --summary --hist >"$work/summary.txt" ||
	fail "ftana report iolat --summary --hist failed"
assert_contains "summary line for the writes" "$work/summary.txt" "^[0-9]+,[0-9]+ +WS +$N "
assert_contains "histogram header" "$work/summary.txt" "usecs +: count +distribution"
sql_rows=$("$FTANA" sql "$work/io.ftz" "select count(*) from io where insert_pid = $ddpid and bytes = 65536" --csv | tail -n 1)
assert_eq "ftana sql: io view rows for the writes" "$N" "$sql_rows"
# -D and -i are in-kernel filters on all three events: with the disk of / and '*W*',
# direct reads of the file leave no event, and every event is a write on that disk.
majmin=$(stat -c %Hd:%Ld "$work/data")
devt=$(( (${majmin%:*} << 20) | ${majmin#*:} ))
"$FTREC" iolat -q -D "${majmin/:/,}" -i '*W*' -o "$work/w.ftz" -- sh -c '
	dd if="$1" of=/dev/null bs=64k count=8 iflag=direct status=none
	dd if=/dev/zero of="$1" bs=64k count=8 oflag=direct conv=notrunc status=none' sh "$work/data" \
	2>"$work/ftrec_w.err" || { fail "ftrec iolat -D -i failed:"; cat "$work/ftrec_w.err"; }
for ev in block_rq_insert block_rq_issue block_rq_complete; do
	assert_eq "$ev events not writes on $majmin with -D/-i" 0 "$("$FTANA" sql "$work/w.ftz" \
		"select count(*) from $ev where dev != $devt or rwbs not like '%W%'" --csv | tail -n 1)"
done
assert_ge "writes recorded with -D/-i" 8 "$("$FTANA" sql "$work/w.ftz" \
	"select count(*) from io where bytes = 65536" --csv | tail -n 1)"
# -p PID filters the starts only (completions run in whatever task was there): a
# writer that is not PID leaves no insert or issue, and PID's writes are paired.
# PID writes when ftrec's command says go (so ftrec records by then, however slow
# its start on a loaded host); PID execs dd, so dd keeps that PID.
sh -c 'while [ ! -e "$1.go" ]; do sleep 0.05; done
	exec dd if=/dev/zero of="$1" bs=64k count=10 oflag=direct conv=notrunc status=none' \
	sh "$work/data" &
wanted=$!
"$FTREC" iolat -q -p "$wanted" -o "$work/p.ftz" -- sh -c 'touch "$1.go"; sleep 0.2
	dd if=/dev/zero of="$1.other" bs=64k count=10 oflag=direct status=none; sleep 1' sh "$work/data" \
	2>"$work/ftrec_p.err" || { fail "ftrec iolat -p failed:"; cat "$work/ftrec_p.err"; }
touch "$work/data.go" # release PID if ftrec never ran its command
wait "$wanted"
for ev in block_rq_insert block_rq_issue; do
	assert_eq "$ev events of other tasks with -p" 0 "$("$FTANA" sql "$work/p.ftz" \
		"select count(*) from $ev where pid != $wanted" --csv | tail -n 1)"
done
assert_ge "-p: the task's writes paired" 1 "$("$FTANA" sql "$work/p.ftz" \
	"select count(*) from io where pid = $wanted and bytes = 65536" --csv | tail -n 1)"
# shellcheck disable=SC2089,SC2090 # the quote in a"b is the bad input itself
for bad in "-D 254" "-D x,1" "-i a\"b"; do
	# shellcheck disable=SC2086
	if "$FTREC" iolat $bad -o "$work/bad.ftz" -- true 2>"$work/bad.err"; then
		fail "ftrec iolat $bad accepted"
	else
		assert_one_line_error "ftrec iolat $bad" "$work/bad.err" "bad -[Di]"
	fi
done
# Losses: ftrec is stopped (SIGSTOP) while 2000 writes overflow its 1 KB buffers,
# then 50 writes of 8 KiB follow, one dd each. The report must say so at the top with
# the count the kernel's own overrun counter gives, pair nothing across the gap, and
# list every write after it. (One dd per write paces them, so the resumed ftrec keeps
# up with its 1 KB buffer.)
"$FTREC" iolat -q -b 1 -o "$work/lossy.ftz" -- sh -c 'kill -STOP $PPID
	dd if=/dev/zero of="$1" bs=4k count=2000 oflag=direct conv=notrunc status=none
	kill -CONT $PPID; sleep 0.5
	for i in $(seq 50); do
		dd if=/dev/zero of="$1" bs=8k count=1 oflag=direct conv=notrunc status=none
	done' sh "$work/data" 2>"$work/lossy.err" || { fail "ftrec iolat (lossy) failed:"; cat "$work/lossy.err"; }
q() { "$FTANA" sql "$work/lossy.ftz" "$1" --csv | tail -n 1; }
overrun=$(q "select sum(overrun) from cpu_stats_delta")
assert_ge "events the kernel overwrote while ftrec was stopped" 1 "$overrun"
"$FTANA" report iolat "$work/lossy.ftz" >"$work/lossy.txt" 2>"$work/lossy_report.err" ||
	fail "ftana report iolat (lossy) failed"
assert_contains "stderr: the loss and the kernel's count" "$work/lossy_report.err" \
	"^ftana report iolat: warning: the capture lost $overrun events "
assert_eq "stdout: the listing only, from its header on" "COMM 0" \
	"$(head -c 4 "$work/lossy.txt") $(grep -ci 'warning\|note' "$work/lossy.txt")"
"$FTANA" report iolat "$work/lossy.ftz" --json 2>/dev/null | python3 -c '
import json, sys
print(json.load(sys.stdin)["warnings"][0])' >"$work/lossy_json.txt" || fail "report iolat --json (lossy)"
assert_contains "JSON warnings: the loss" "$work/lossy_json.txt" "^the capture lost $overrun events "
# A page may flag a loss without its size (the count needs room at the page's end):
# the kernel's overrun counter then says how many. The same database with every
# loss's size unknown, given to ftana directly, reports the same number.
cp "$work/lossy.ftz.db" "$work/unsized.db" &&
	sqlite3 "$work/unsized.db" "UPDATE lost_events SET count = NULL" ||
	fail "a copy of the lossy database without loss sizes"
"$FTANA" report iolat "$work/unsized.db" >/dev/null 2>"$work/unsized.err"
assert_contains "unsized losses: the kernel's count" "$work/unsized.err" \
	"warning: the capture lost $overrun events \\($overrun of them by the kernel's overrun counter: [0-9]+ pages? did not say how many\\) in"
assert_eq "pairs spanning a loss" 0 "$(q "select count(*) from io, lost_events l
	where io.issue_ts < l.ts and io.complete_ts >= l.ts")"
# dd's own requests on the file's disk: the capture holds the whole machine's I/O. An
# issue's submitter (io_sizes): on a loaded host a kworker now and then issues one of
# dd's queued writes (48 of 50 issued by dd was seen).
assert_eq "8 KiB write issues submitted by dd recorded after the loss (dd made 50)" 50 \
	"$(q "select count(*) from io_sizes where bytes = 8192 and comm = 'dd' and dev = $devt")"
assert_eq "8 KiB writes after the loss listed" 50 \
	"$(awk '$1 == "dd" && $6 == 8192' "$work/lossy.txt" | wc -l)"
assert_no_leftovers
finish
