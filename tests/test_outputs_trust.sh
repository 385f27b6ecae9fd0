#!/usr/bin/env bash
# test_outputs_trust.sh - what ftana writes never destroys what it reads, and a write
# that did not arrive is never a success (issue 25), on a disk ring made by
# tests/hostile/ftzgen.py (FORMAT.md 10.1: a head and 8 segments of 20,000
# function_graph calls each; no root or tracefs needed):
#  - -o onto a segment of the input ring (existing, or a name the ring would use) is
#    refused in one line by db, export, convert and a report's --svg, before any work,
#    and the segment is byte for byte what it was;
#  - info, sql (text and --json), db and a report exit non-zero when stdout is a full
#    device (/dev/full) or closed;
#  - SIGTERM, SIGINT or SIGHUP during `export -o OUT` leaves neither OUT nor a temp
#    file beside it (checked at several moments of the run);
#  - as root: with neither HOME nor XDG_CACHE_HOME (a user whose home is not
#    writable), the cache goes under TMPDIR in a directory of that user's own, not
#    /tmp/.cache.
# A ring or series with more files than the open-file limit: test_input_trust.sh.
. "$(dirname "$0")/lib.sh"
FTANA_PLAIN=${FTANA_PLAIN:-$ROOT_DIR/$BUILD/ftana}
require_bin "$FTANA" "$FTANA_PLAIN"
command -v python3 >/dev/null || { echo "python3 is not installed"; exit 77; }

tmp=$(mktemp -d -p /var/tmp ftana-trust.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache

python3 - "$tmp" "$ROOT_DIR/tests/hostile" <<'PY'
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from ftzgen import Capture, graph_entry, graph_exit, graph_formats, pages_sec, ring_files, ring_page
FUNC = 0xffffffff81000100
head = Capture(info_extra={"tracer": "function_graph", "preset": "funcgraph", "events": ""})
for fmt in graph_formats():
    head.event("ftrace", fmt)
head.files += [("/proc/kallsyms", b"ffffffff81000100 T ksys_read\n"),
               ("saved_cmdlines", b"100 workload\n")]
segments = []
for s in range(8):  # pages of 50 calls of 1 us, one a ms
    pages = []
    for p in range(400 * s, 400 * s + 400):
        t0, recs = 1000000 * (p + 1), []
        for c in range(50):
            t = t0 + 2000 * c
            recs += [(1000, graph_entry(100, FUNC, 0)),
                     (1000, graph_exit(100, FUNC, 0, t + 1000, t + 2000))]
        pages.append(ring_page(recs, t0))
    segments.append(pages_sec(0, pages))
for name, data in ring_files("r", head, segments).items():
    open(os.path.join(sys.argv[1], name), "wb").write(data)
PY
seg=$(ls "$tmp"/r.ring-*.ftz | head -n 1)
[ -n "$seg" ] || { fail "no ring segment written"; finish; }
sum=$(md5sum <"$seg")
next=$tmp/r.ring-999999.ftz # a name the ring would use: refused although it does not exist

refused() { # WHAT TARGET COMMAND...
	local what=$1 target=$2
	shift 2
	"$@" >/dev/null 2>"$tmp/err"
	assert_eq "$what: exit 1" 1 "$?"
	# (convert refuses a ring's head as its input in any case)
	assert_one_line_error "$what: one line" "$tmp/err" \
		"segment name of the input's ring|^ftana convert: .*the head of a flight-recorder ring"
}
for target in "$seg" "$next"; do
	refused "db -o $(basename "$target")" "$target" "$FTANA" db "$tmp/r.ftz" -o "$target"
	refused "export -o $(basename "$target")" "$target" "$FTANA" export "$tmp/r.ftz" -o "$target"
	refused "convert -o $(basename "$target")" "$target" "$FTANA" convert "$tmp/r.ftz" -o "$target"
	refused "stacks --svg -o $(basename "$target")" "$target" \
		"$FTANA" report stacks "$tmp/r.ftz" --svg -o "$target"
done
assert_eq "the segment is what it was" "$sum" "$(md5sum <"$seg")"
[ -e "$next" ] && fail "a file named like a future segment was written" || pass "no future segment written"
(cd "$tmp" && "$FTANA" db r.ftz -o "./$(basename "$seg")" >/dev/null 2>"$tmp/err")
assert_one_line_error "db -o ./SEGMENT (another spelling): refused" "$tmp/err" "segment name"
# a head renamed (copy.ftz): its INFO's ring_prefix still names r.ring-*, which reading
# it reads; the name of the head no longer says so
mkdir "$tmp/renamed"
cp "$tmp"/r.ring-*.ftz "$tmp/renamed/"
cp "$tmp/r.ftz" "$tmp/renamed/copy.ftz"
rseg=$tmp/renamed/$(basename "$seg")
rsum=$(md5sum <"$rseg")
for target in "$rseg" "$tmp/renamed/r.ring-999999.ftz"; do
	refused "renamed head: db -o $(basename "$target")" "$target" "$FTANA" db "$tmp/renamed/copy.ftz" -o "$target"
	refused "renamed head: export -o $(basename "$target")" "$target" \
		"$FTANA" export "$tmp/renamed/copy.ftz" -o "$target"
done
assert_eq "renamed head: the segment is what it was" "$rsum" "$(md5sum <"$rseg")"
"$FTANA" db "$tmp/renamed/copy.ftz" -o "$tmp/renamed/copy.db" >/dev/null 2>"$tmp/err"
assert_eq "renamed head: another name is written" 0 "$?"
# convert reads one file: a ring's head (no pages of its own) is refused, not written as
# an empty trace.dat with exit 0
"$FTANA" convert "$tmp/r.ftz" -o "$tmp/ring.dat" >/dev/null 2>"$tmp/err"
assert_eq "convert of a ring's head: exit 1" 1 "$?"
assert_one_line_error "convert of a ring's head: one line" "$tmp/err" "the head of a flight-recorder ring"
[ -e "$tmp/ring.dat" ] && fail "convert of a ring's head wrote a trace.dat" || pass "convert of a ring's head: no trace.dat"

# ------------------------------------------------------------- output that did not arrive
"$FTANA" db "$tmp/r.ftz" >/dev/null 2>&1 # build the cache first: each run below only writes
for cmd in "info" "sql|SELECT count(*) FROM calls" "sql --json|SELECT count(*) FROM calls" \
	"db" "report funcgraph"; do
	args=${cmd%%|*} query=${cmd#*|}
	[ "$query" = "$cmd" ] && query=
	for how in full closed; do
		# shellcheck disable=SC2086
		if [ $how = full ]; then
			"$FTANA" $args "$tmp/r.ftz" ${query:+"$query"} >/dev/full 2>"$tmp/err"
		else
			"$FTANA" $args "$tmp/r.ftz" ${query:+"$query"} >&- 2>"$tmp/err"
		fi
		rc=$?
		[ $rc -ne 0 ] && pass "$args, stdout $how: exit $rc" || fail "$args, stdout $how: exit 0"
		assert_contains "$args, stdout $how: says so" "$tmp/err" "write error on standard output"
	done
done

# ------------------------------------------------------------- -o -: nothing left in TMPDIR
# (the temp output is made in a directory of ftana's own there, removed before the copy:
# a reader that stops early, SIGPIPE, leaves nothing)
mkdir "$tmp/tmpdir"
cp "$ROOT_DIR/samples/triage.ftz" "$tmp/one.ftz"
for cmd in db export convert; do
	TMPDIR=$tmp/tmpdir "$FTANA" $cmd "$tmp/one.ftz" -o - 2>/dev/null | head -c 10 >/dev/null
	assert_eq "$cmd -o - | head -c 10: nothing left in TMPDIR" "" "$(ls -A "$tmp/tmpdir")"
done
TMPDIR=$tmp/tmpdir "$FTANA" db "$tmp/one.ftz" -o - >"$tmp/one.db" 2>/dev/null
assert_eq "db -o -: the whole database on stdout" 1 \
	"$(sqlite3 "$tmp/one.db" "SELECT count(*) > 0 FROM sched_switch" 2>/dev/null)"

# ------------------------------------------------------------- signals during export -o
# (job control on: a non-interactive shell starts background jobs with SIGINT ignored,
# and ftana, like any program, keeps a signal it was started deaf to: no test of SIGINT)
set -m
for sig in TERM INT HUP; do
	for delay in 0.05 0.2 0.5 1; do
		rm -f "$tmp"/out.json*
		"$FTANA" export "$tmp/r.ftz" -o "$tmp/out.json" >/dev/null 2>&1 &
		pid=$!
		sleep $delay
		kill -$sig $pid 2>/dev/null
		wait $pid
		rc=$?
		left=$(ls "$tmp"/out.json.* 2>/dev/null | wc -l)
		assert_eq "SIG$sig after ${delay} s (exit $rc): no temp file beside OUT" 0 "$left"
		if [ $rc -ne 0 ] && [ -e "$tmp/out.json" ]; then
			fail "SIG$sig after ${delay} s: killed, yet OUT exists"
		fi
		# not done when the signal came: ftana died of it (it heard it)
		[ -e "$tmp/out.json" ] || assert_eq "SIG$sig after ${delay} s: ftana died of it" \
			"$((128 + $(kill -l $sig)))" "$rc"
	done
done
set +m

# ------------------------------------------------------------- no HOME, no XDG_CACHE_HOME
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	mkdir -p "$tmp/ro/t" && cp "$tmp/r.ftz" "$tmp/ro/only.ftz" # a lone file: no ring beside
	cp samples/iolat.ftz "$tmp/ro/io.ftz" 2>/dev/null || cp "$ROOT_DIR/samples/iolat.ftz" "$tmp/ro/io.ftz"
	chmod 755 "$tmp/ro"
	chmod 644 "$tmp/ro/io.ftz"
	chmod 1777 "$tmp/ro/t"
	chmod 555 "$tmp/ro" # the capture's directory is not writable: the cache goes elsewhere
	uid=$(id -u nobody)
	rm -rf "/tmp/ftana-cache-$uid.test-sentinel"
	env -i PATH="$PATH" TMPDIR="$tmp/ro/t" setpriv --reuid="$uid" --regid="$(id -g nobody)" --clear-groups \
		"$FTANA_PLAIN" report iolat "$tmp/ro/io.ftz" >/dev/null 2>"$tmp/err"
	assert_eq "no HOME, no XDG_CACHE_HOME: the report runs" 0 "$?"
	[ -d "$tmp/ro/t/ftana-cache-$uid" ] && pass "the cache is under TMPDIR, the user's own" ||
		fail "no cache under TMPDIR: $(ls -la "$tmp/ro/t"; cat "$tmp/err")"
	assert_eq "... mode 700, owned by the user" "700 $uid" "$(stat -c '%a %u' "$tmp/ro/t/ftana-cache-$uid" 2>/dev/null)"
	[ -e /tmp/.cache/ftana ] && [ "$(stat -c %u /tmp/.cache/ftana)" = "$uid" ] &&
		fail "a cache of uid $uid under /tmp/.cache" || pass "nothing of the user's under /tmp/.cache"
	# someone else's directory of that name is refused, not used
	rm -rf "$tmp/ro/t/ftana-cache-$uid"
	chmod 755 "$tmp/ro"
	mkdir -m 777 "$tmp/ro/t/ftana-cache-$uid"
	chmod 555 "$tmp/ro"
	env -i PATH="$PATH" TMPDIR="$tmp/ro/t" setpriv --reuid="$uid" --regid="$(id -g nobody)" --clear-groups \
		"$FTANA_PLAIN" report iolat "$tmp/ro/io.ftz" >/dev/null 2>"$tmp/err"
	assert_eq "a planted cache directory (root's, mode 777): not used, exit 1" 1 "$?"
	assert_eq "... nothing written in it" 0 "$(ls -A "$tmp/ro/t/ftana-cache-$uid" | wc -l)"
	chmod 755 "$tmp/ro"
else
	echo "note: not root, no user nobody or no setpriv: the no-HOME case is not checked here"
fi
finish
