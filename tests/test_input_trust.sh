#!/usr/bin/env bash
# test_input_trust.sh - inputs that would hang ftana are refused or cut short (issue 25):
#  - a FIFO (or a directory, a device) given as the capture: every command refuses it
#    in one line at once, naming what it is, without reading it (a FIFO with no
#    writer would block the first read forever);
#  - a .db given directly whose views never end (a recursive CTE under the name of
#    the events view, a table joined with itself eight times): info, sql, a report
#    and export end within the budget of VM steps its size allows, with one line
#    saying why, instead of running forever;
#  - one whose tasks view never ends: the code that reads tasks into memory (the
#    slice's task filter, the wakers' names, tpoint's comms) stops at as many rows as
#    a kernel has thread ids, so every report ends in one line within 1 GB of address
#    space (ulimit -v, the unsanitized build: it held half a gigabyte before);
#  - a ring head whose ring_prefix carries an escape, a bell, a CSI, a slash: the
#    refusal is one line with them escaped (issue 25);
#  - a --rotate series of 1,500 files, and a ring of 1,500 segments, under ulimit -n
#    1024 (ftana keeps every member open): refused in one line naming the limit, not
#    "unable to open database file" or damage at whichever member failed to open
#    (also one short of room for them and ftana's 64 others); with room, and with a
#    soft limit below a hard one that has room (raised), every event is read.
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTANA"
command -v python3 >/dev/null || { echo "python3 is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache

# ------------------------------------------------------------- not a regular file
mkfifo "$tmp/fifo.ftz"
mkdir "$tmp/dir.ftz"
for input in "$tmp/fifo.ftz|a FIFO" "$tmp/dir.ftz|a directory" "/dev/zero|a device"; do
	path=${input%%|*} what=${input#*|}
	for cmd in "info" "sql|SELECT 1" "report summary" "report tpoint" "db" "export|-o|$tmp/x.json" \
		"convert|-o|$tmp/x.dat"; do
		IFS='|' read -r -a words <<<"$cmd"
		# shellcheck disable=SC2206
		sub=(${words[0]})
		timeout 20 "$FTANA" "${sub[@]}" "$path" "${words[@]:1}" >/dev/null 2>"$tmp/err"
		rc=$?
		[ $rc = 124 ] && { fail "${words[0]} on $what: still running after 20 s"; continue; }
		[ $rc -ne 0 ] && pass "${words[0]} on $what: exit $rc" || fail "${words[0]} on $what: exit 0"
		assert_one_line_error "${words[0]} on $what: one line" "$tmp/err" "not a regular file \\($what\\)"
	done
done

# ------------------------------------------------------------- a .db whose views never end
cp "$ROOT_DIR/samples/iolat.ftz" "$tmp/io.ftz"
"$FTANA" db "$tmp/io.ftz" -o "$tmp/good.db" >/dev/null 2>&1 || { fail "ftana db failed"; finish; }
python3 - "$tmp/good.db" "$tmp/endless.db" "$tmp/join.db" "$tmp/tasks.db" <<'EOF'
import shutil, sqlite3, sys
good, endless, join, tasks = sys.argv[1:]
shutil.copy(good, tasks)
db = sqlite3.connect(tasks)
db.execute("DROP TABLE tasks")
db.execute("CREATE VIEW tasks AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
           "SELECT x AS pid, x AS tgid, 'c' || x AS comm FROM c")
db.commit()
db.close()
for path, body in (
        (endless, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                  "SELECT x AS id, x AS ts, 0 AS cpu, 0 AS pid, 'block_rq_issue' AS type FROM c"),
        (join, "SELECT a.id AS id, a.ts AS ts, a.cpu AS cpu, a.pid AS pid, 'block_rq_issue' AS type "
               "FROM block_rq_issue a, block_rq_issue b, block_rq_issue c, block_rq_issue d, "
               "block_rq_issue e, block_rq_issue f, block_rq_issue g, block_rq_issue h")):
    shutil.copy(good, path)
    db = sqlite3.connect(path)
    db.execute("DROP VIEW IF EXISTS events")
    db.execute("CREATE VIEW events AS " + body)
    db.commit()
    db.close()
EOF
for db in endless join; do
	for cmd in "info" "sql|SELECT count(*) FROM events" "report tpoint" "report summary" "export|-o|$tmp/$db.json" \
		"report iolat|--summary" "report bitesize" "diff|$tmp/$db.db|bitesize"; do
		IFS='|' read -r -a words <<<"$cmd"
		# shellcheck disable=SC2206
		sub=(${words[0]})
		start=$SECONDS
		timeout 120 "$FTANA" "${sub[@]}" "$tmp/$db.db" "${words[@]:1}" >/dev/null 2>"$tmp/err"
		rc=$?
		[ $rc = 124 ] && { fail "$db.db, ${words[0]}: still running after 120 s"; continue; }
		pass "$db.db, ${words[0]}: ended (exit $rc) in $((SECONDS - start)) s"
		if [ $rc -ne 0 ]; then
			assert_eq "$db.db, ${words[0]}: a one-line reason" 1 "$(grep -c . "$tmp/err")"
		fi
	done
done
FTANA_PLAIN=${FTANA_PLAIN:-$ROOT_DIR/$BUILD/ftana}
for cmd in "report summary" "report runqlat" "report tpoint" "report execsnoop" "sql|SELECT count(*) FROM offcpu"; do
	IFS='|' read -r -a words <<<"$cmd"
	# shellcheck disable=SC2206
	sub=(${words[0]})
	(ulimit -v 1048576; timeout 120 "$FTANA_PLAIN" "${sub[@]}" "$tmp/tasks.db" "${words[@]:1}") \
		>/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 124 ] && { fail "tasks.db, ${words[0]}: still running after 120 s"; continue; }
	assert_eq "tasks.db, ${words[0]}: ends in 1 GB (exit 0, or 1 with one line)" ok \
		"$( { [ $rc = 0 ] || { [ $rc = 1 ] && [ "$(grep -c . "$tmp/err")" = 1 ]; }; } &&
		    ! grep -q 'out of memory' "$tmp/err" && echo ok || { echo "exit $rc:"; cat "$tmp/err"; })"
done
# ------------------------------------------------------------- a SQLite file ftana did not make
python3 -c 'import sqlite3, sys; d = sqlite3.connect(sys.argv[1]); d.execute("CREATE TABLE t (x)"); d.commit()' "$tmp/other.db"
for cmd in "info" "sql|SELECT 1" "report summary" "report iolat"; do
	IFS='|' read -r -a words <<<"$cmd"
	# shellcheck disable=SC2206
	sub=(${words[0]})
	"$FTANA" "${sub[@]}" "$tmp/other.db" "${words[@]:1}" >/dev/null 2>"$tmp/err"
	assert_eq "a SQLite file without meta, ${words[0]}: exit" 1 "$?"
	assert_one_line_error "a SQLite file without meta, ${words[0]}: names it" "$tmp/err" \
		"other.db: a SQLite database, but not one ftana made"
done

# ------------------------------------------------------------- a ring's names from its INFO
# A ring head's ring_prefix is the file's own text: with an escape, a bell and a CSI in
# it (and a segment so named beside the head), or a '/' or a leading '.', the refusal
# is one line with them escaped, never raw on the terminal.
mkdir "$tmp/rp"
python3 - "$tmp/rp" "$ROOT_DIR/tests/hostile" <<'PY'
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from ftzgen import Capture, good_format, good_record
for name, prefix in [("esc", "r\x1b[2J\x07\x9b1m.ring-"), ("slash", "a/\x1b]0;x\x07b"), ("dot", ".\x1b[31m")]:
    cap = Capture(info_extra={"ring_prefix": prefix, "capture_id": "c1", "ring_size": "1048576"})
    cap.event("good", good_format())
    cap.record(good_record(1))
    open(os.path.join(sys.argv[1], name + ".ftz"), "wb").write(cap.build())
open(os.path.join(sys.argv[1], "r\x1b[2J\x07\x9b1m.ring-000001.ftz"), "wb").write(b"not a segment")
PY
for c in "esc|a ring segment without an INFO section" "slash|is not a plain file name: refused" \
	"dot|is not a plain file name: refused"; do
	name=${c%%|*} want=${c#*|}
	"$FTANA" info "$tmp/rp/$name.ftz" >"$tmp/out" 2>"$tmp/err"
	assert_eq "ring_prefix with escapes ($name): exit 1" 1 "$?"
	assert_one_line_error "ring_prefix with escapes ($name): one line" "$tmp/err" "$want"
	assert_contains "ring_prefix with escapes ($name): the escape shown as \\x1b" "$tmp/err" '\\x1b'
	assert_eq "ring_prefix with escapes ($name): no raw control byte" 0 \
		"$(LC_ALL=C tr -d '\n' <"$tmp/err" | LC_ALL=C grep -c $'[\x01-\x1f\x7f]')"
done

# ------------------------------------------------------------- more members than open files
# 1,500 members of one good event each (the ring's head holds none): a series joined
# from its files, a ring from its head.
mkdir "$tmp/series" "$tmp/ring"
python3 - "$tmp" "$ROOT_DIR/tests/hostile" <<'PY'
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from ftzgen import Capture, good_format, good_record, pages_sec, ring_files, ring_page, series_files
def one(i):
    cap = Capture()
    cap.event("good", good_format())
    cap.record(good_record(i))
    return cap
files = {"series/" + k: v for k, v in series_files("s", one, 1500).items()}
pages = [pages_sec(0, [ring_page([(1000, good_record(i))], 1000000 * i)]) for i in range(1, 1501)]
files.update({"ring/" + k: v for k, v in ring_files("r", one(0), pages).items()})
for name, data in files.items():
    open(os.path.join(sys.argv[1], name), "wb").write(data)
PY
for set in "series|1500|$tmp/series/s-*.ftz" "ring|1501|$tmp/ring/r.ftz"; do
	IFS='|' read -r kind nfiles glob <<<"$set"
	# shellcheck disable=SC2206  # the series' files, the ring's head
	args=($glob)
	for cmd in "info" "db" "sql|SELECT count(*) FROM events" "report summary"; do
		IFS='|' read -r -a words <<<"$cmd"
		# shellcheck disable=SC2206
		sub=(${words[0]})
		(ulimit -n 1024 && timeout 120 "$FTANA" "${sub[@]}" "${args[@]}" "${words[@]:1}") >/dev/null 2>"$tmp/err"
		assert_eq "a $kind of $nfiles files under ulimit -n 1024, ${words[0]}: exit" 1 "$?"
		assert_one_line_error "a $kind of $nfiles files under ulimit -n 1024, ${words[0]}: names the limit" \
			"$tmp/err" "$nfiles files in this capture, more than the open-file limit allows \(ulimit -n 1024;"
	done
	# one short of room for every member and ftana's 64 others: refused as well
	(ulimit -n $((nfiles + 63)) && timeout 120 "$FTANA" info "${args[@]}") >/dev/null 2>"$tmp/err"
	assert_one_line_error "a $kind of $nfiles files under ulimit -n $((nfiles + 63)): refused" "$tmp/err" \
		"more than the open-file limit allows \(ulimit -n $((nfiles + 63));"
	# room for every member and ftana's 64 others, exactly; a soft limit below, the hard above
	for lim in "$((nfiles + 64)) $((nfiles + 64))" "1024 $((nfiles + 100))"; do
		read -r soft hard <<<"$lim"
		if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt "$hard" ]; then
			echo "note: hard open-file limit $(ulimit -Hn) < $hard: not read under ulimit -Sn $soft -Hn $hard"
			continue
		fi
		rm -f "$tmp/$kind"/*.db
		(ulimit -Sn "$soft" && ulimit -Hn "$hard" &&
			timeout 120 "$FTANA" sql "${args[@]}" "SELECT count(*) FROM events") >"$tmp/out" 2>"$tmp/err"
		assert_eq "a $kind of $nfiles files under ulimit -Sn $soft -Hn $hard: every event read" \
			"0 1500" "$? $(tail -n 1 "$tmp/out" | tr -d ' ')"
	done
done
finish
