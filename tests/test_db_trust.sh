#!/usr/bin/env bash
# test_db_trust.sh - ftana's databases can be trusted (issue 10, "trust first"):
#   1. `ftana sql` is read-only: VACUUM [INTO], ATTACH, INSERT, CREATE [TEMP],
#      DROP, writing PRAGMAs, ... are refused with one line and exit 1, before any
#      statement runs; no file appears and the database does not change (sha256).
#      SELECT, WITH, PRAGMA table_info and the report views still answer, with the
#      counts of ftzdump (tools/ftzdump.c), which does not use ftana's code.
#   2. A cache is used only if this user's ftana signed it for this input: a
#      database planted beside the capture with matching size/mtime/version and a
#      malicious view, one signed with another user's key, and one whose MAC was
#      copied from a real cache are all rebuilt, and what they planted is gone;
#      one whose meta is an endless recursive view is checked in bounded time.
#      The key is 0600; a key file others can read is not used.
#   3. No OUT.tmp.PID survives: the importer killed by SIGSEGV/SIGABRT/SIGFPE/
#      SIGKILL (FTANA_TEST_IMPORT_CRASH hook, import_child.c) gives one line and
#      exit 1; SIGTERM/SIGINT/SIGHUP to ftana end it by that signal; a damaged
#      input ends with exit 3. None leaves a temporary file or a database.
#      -o - writes the database to stdout (sqlite3 reads it: the tables and rows of
#      -o FILE's), no file named -, exit 1 on a full stdout.
#   4. Output escapes control characters: ESC/BEL (a terminal title sequence),
#      C1 controls, bytes that are not UTF-8 and NUL never reach the terminal raw,
#      in the table, CSV, `ftana info` and warnings; JSON stays valid and keeps
#      the text (python's json module decodes it back).
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTANA" "$FTZDUMP"
command -v sqlite3 >/dev/null || { echo "sqlite3 (the CLI) is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "python3 is not installed"; exit 77; }

T=$(mktemp -d /tmp/test_db_trust.XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME=$T/xdg
mkdir -p "$T/out"
CAP=$T/cap.ftz
cp "$ROOT_DIR/samples/iolat.ftz" "$CAP"
issues=$(ftz_event_count "$CAP" block_rq_issue)

sq() { sqlite3 -batch "$@"; }
no_files_in_out() { # WHAT
	local n; n=$(find "$T/out" -mindepth 1 | wc -l)
	assert_eq "$1: files created in $T/out" 0 "$n"
}
no_tmp_left() { # WHAT DIR
	local left; left=$(find "$2" -name '*.tmp.*' | head -n 3)
	assert_eq "$1: temporary files left" "" "$left"
}

# ------------------------------------------------------------ 1. read-only sql
"$FTANA" db "$CAP" >/dev/null 2>"$T/err" || fail "ftana db: $(cat "$T/err")"
DB=$CAP.db
sum_before=$(sha256sum <"$DB")
refused=(
	"VACUUM INTO '$T/out/vacuum.db'"
	"vacuum"
	"/* a comment */ VaCuUm main INTO '$T/out/vacuum2.db'"
	"ATTACH '$T/out/attached.db' AS a"
	"ATTACH DATABASE 'file:$T/out/uri.db?mode=rwc' AS a"
	"DETACH main"
	"SELECT 1; VACUUM INTO '$T/out/second.db'"
	"INSERT INTO meta VALUES ('x', 'y')"
	"DELETE FROM meta"
	"UPDATE meta SET value = 'x'"
	"CREATE TABLE t(x)"
	"CREATE TEMP TABLE t(x)"
	"CREATE TEMP VIEW v AS SELECT 1"
	"CREATE TEMP TRIGGER tr AFTER INSERT ON meta BEGIN SELECT 1; END"
	"DROP TABLE meta"
	"DROP VIEW events"
	"ALTER TABLE meta RENAME TO m"
	"PRAGMA writable_schema=1"
	"PRAGMA writable_schema=ON; UPDATE sqlite_master SET sql = 'x'"
	"PRAGMA journal_mode=WAL"
	"PRAGMA user_version=7"
	"PRAGMA trusted_schema=ON"
	"ANALYZE"
	"BEGIN IMMEDIATE"
	"SELECT load_extension('$T/out/evil.so')"
	"REPLACE INTO meta VALUES ('source', 'x')"
)
for q in "${refused[@]}"; do
	"$FTANA" sql "$CAP" "$q" >"$T/stdout" 2>"$T/err"
	rc=$?
	assert_eq "refused, exit status: $q" 1 "$rc"
	assert_one_line_error "refused: $q" "$T/err" '^ftana sql: refused: statement writes or attaches \(.+\)$'
	assert_eq "nothing ran before the refusal: $q" "" "$(cat "$T/stdout")"
done
no_files_in_out "refused statements"
assert_eq "database unchanged by refused statements" "$sum_before" "$(sha256sum <"$DB")"

# the same on a .db given directly
"$FTANA" sql "$DB" "VACUUM INTO '$T/out/direct.db'" >/dev/null 2>"$T/err"
assert_eq "VACUUM INTO on a .db: exit status" 1 $?
no_files_in_out "VACUUM INTO on a .db"

# reads still work, with ftzdump's counts
got=$("$FTANA" sql "$CAP" "SELECT count(*) FROM block_rq_issue" --csv | tail -n +2)
assert_eq "SELECT count(*) (ftzdump: $issues)" "$issues" "$got"
got=$("$FTANA" sql "$CAP" "WITH i AS (SELECT * FROM block_rq_issue) SELECT count(*) FROM i" --csv | tail -n +2)
assert_eq "WITH ... SELECT" "$issues" "$got"
got=$("$FTANA" sql "$CAP" "SELECT count(*) FROM io" --csv | tail -n +2)
assert_eq "report view io (one row per issue)" "$issues" "$got"
got=$("$FTANA" sql "$CAP" "PRAGMA table_info(meta)" --csv | tail -n +2 | cut -d, -f2 | paste -sd,)
assert_eq "PRAGMA table_info(meta)" "key,value" "$got"
got=$("$FTANA" sql "$CAP" "SELECT name FROM pragma_table_info('meta')" --csv | tail -n +2 | paste -sd,)
assert_eq "pragma_table_info('meta')" "key,value" "$got"
got=$("$FTANA" sql "$CAP" "PRAGMA user_version" --csv | tail -n +2)
assert_eq "PRAGMA user_version (read)" "0" "$got"

# -------------------------------------------------------------- 2. trusted cache
key=$XDG_CACHE_HOME/ftana/key
assert_eq "key file mode" "600 16" "$(stat -c '%a %s' "$key" 2>&1)"
ino=$(stat -c %i "$DB")
"$FTANA" sql "$CAP" "SELECT 1" >/dev/null 2>"$T/err"
assert_eq "signed cache reused (same inode)" "$ino" "$(stat -c %i "$DB")"
assert_eq "signed cache reused: stderr" "" "$(cat "$T/err")"

# plant: a copy of our own cache (stamp and MAC kept) with a view that lies and a trigger
plant_view() { # DB
	sq "$1" "DROP VIEW events;
		CREATE VIEW events AS SELECT 1 AS id, 2 AS ts, 3 AS cpu, 4 AS pid, 'planted' AS type;
		INSERT INTO meta VALUES ('planted', 'yes');
		CREATE TRIGGER planted AFTER INSERT ON meta BEGIN DELETE FROM meta; END;"
}
check_rebuilt() { # WHAT
	local got
	"$FTANA" sql "$CAP" "SELECT type FROM events GROUP BY type ORDER BY type" --csv >"$T/stdout" 2>"$T/err"
	assert_eq "$1: exit status" 0 $?
	got=$(tail -n +2 "$T/stdout" | paste -sd,)
	assert_eq "$1: events view is ours again" "block_rq_complete,block_rq_issue,print" "$got"
	got=$(sq "$DB" "SELECT count(*) FROM meta WHERE key = 'planted'; SELECT count(*) FROM sqlite_master WHERE type = 'trigger'" | paste -sd,)
	assert_eq "$1: planted meta row and trigger gone" "0,0" "$got"
	no_tmp_left "$1" "$T"
}
plant_view "$DB"
touch -r "$CAP" "$CAP" # the stamp still matches: size and mtime of the capture unchanged
check_rebuilt "copy of our cache + malicious view (MAC copied)"
assert_contains "planted cache: one line says it is rebuilt" "$T/err" 'not made by this user.s ftana.*rebuilding'

# plant: a database made from scratch with a matching stamp and a made-up MAC
ver=$(sq "$DB" "SELECT value FROM meta WHERE key = 'ftana_db_version'")
size=$(stat -c %s "$CAP"); mt=$(python3 -c "import os,sys; print(os.stat(sys.argv[1]).st_mtime_ns)" "$CAP")
rm -f "$DB"
sq "$DB" "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
	INSERT INTO meta VALUES ('source_size', '$size'), ('source_mtime_ns', '$mt'),
		('ftana_db_version', '$ver'), ('cache_mac', '0123456789abcdef'), ('planted', 'yes');
	CREATE TABLE block_rq_issue (id INTEGER PRIMARY KEY, ts, cpu, pid, stack_id);
	CREATE VIEW events AS SELECT 1 AS id, 2 AS ts, 3 AS cpu, 4 AS pid, 'planted' AS type;"
check_rebuilt "database made from scratch with a matching stamp"

# plant: a meta that never ends (a recursive view): checking it is bounded, then rebuilt
rm -f "$DB"
sq "$DB" "CREATE VIEW meta(key, value) AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
	SELECT 'k' || x, x FROM c;
	CREATE VIEW events AS SELECT 1 AS id, 2 AS ts, 3 AS cpu, 4 AS pid, 'planted' AS type;"
t0=$SECONDS
timeout 120 "$FTANA" sql "$CAP" "SELECT count(*) FROM block_rq_issue" --csv >"$T/stdout" 2>"$T/err"
assert_eq "endless meta view: answers" "$issues" "$(tail -n +2 "$T/stdout")"
[ $((SECONDS - t0)) -lt 60 ] && pass "endless meta view: checked in $((SECONDS - t0)) s" ||
	fail "endless meta view: took $((SECONDS - t0)) s"
check_rebuilt "endless meta view"

# plant: a real cache of the same capture, signed with another user's key
mkdir -p "$T/other"
cp "$CAP" "$T/other/cap.ftz"
touch -r "$CAP" "$T/other/cap.ftz"
XDG_CACHE_HOME=$T/other-xdg "$FTANA" db "$T/other/cap.ftz" >/dev/null 2>&1
cp "$T/other/cap.ftz.db" "$DB"
plant_view "$DB"
check_rebuilt "cache signed with another key"

# a key file that others can read is not used: nothing is trusted, all still works
chmod 644 "$key"
"$FTANA" sql "$CAP" "SELECT count(*) FROM block_rq_issue" --csv >"$T/stdout" 2>"$T/err"
assert_eq "key readable by others: still answers" "$issues" "$(tail -n +2 "$T/stdout")"
assert_one_line_error "key readable by others: one warning" "$T/err" 'cannot keep the cache key .*not a private file'
ino=$(stat -c %i "$DB")
"$FTANA" sql "$CAP" "SELECT 1" >/dev/null 2>&1
[ "$ino" != "$(stat -c %i "$DB")" ] && pass "without a private key the cache is rebuilt every time" ||
	fail "cache reused although the key is not private"
chmod 600 "$key"

# ---------------------------------------------------- 3. no temporary file survives
CRASH_ASAN="${ASAN_OPTIONS:-}:handle_segv=0:handle_sigfpe=0:handle_abort=0:handle_sigbus=0"
for sig in 11 6 8; do
	rm -f "$DB"
	ASAN_OPTIONS=$CRASH_ASAN FTANA_TEST_IMPORT_CRASH=$sig "$FTANA" db "$CAP" >/dev/null 2>"$T/err"
	assert_eq "importer dies of signal $sig: exit status" 1 $?
	assert_one_line_error "importer dies of signal $sig" "$T/err" "^ftana[a-z ]*: $CAP: decoder crashed \\(signal $sig\\b"
	no_tmp_left "importer dies of signal $sig" "$T"
	[ -e "$DB" ] && fail "signal $sig: a database was left" || pass "signal $sig: no database"
done
ASAN_OPTIONS=$CRASH_ASAN FTANA_TEST_IMPORT_CRASH=11 "$FTANA" db "$CAP" -o "$T/out/o.db" >/dev/null 2>"$T/err"
assert_eq "ftana db -o, importer crashes: exit status" 1 $?
no_files_in_out "ftana db -o, importer crashes"

# SIGTERM/SIGINT/SIGHUP to ftana, or SIGKILL to its importer, once the import's
# temporary database exists. Python starts ftana with every signal at its default
# (a background job of this script would ignore SIGINT) and reports
# "EXIT STDERR_LINES FIRST_LINE IMPORTER_ALIVE TMP_SEEN".
interrupt() { # WHAT
	python3 - "$FTANA" "$CAP" "$T" "$1" <<'PY'
import glob, os, signal, subprocess, sys, time
ftana, cap, tmpdir, what = sys.argv[1:]
def defaults():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
p = subprocess.Popen([ftana, "db", cap], env=dict(os.environ, FTANA_TEST_IMPORT_CRASH="hang"),
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=defaults)
seen = "no-tmp"
for _ in range(200):
    if glob.glob(os.path.join(tmpdir, "*.tmp.*")):
        seen = "tmp-seen"
        break
    if p.poll() is not None:
        break
    time.sleep(0.1)
children = open(f"/proc/{p.pid}/task/{p.pid}/children").read().split() if p.poll() is None else []
if what == "KILL-CHILD":
    os.kill(int(children[0]), signal.SIGKILL)
else:
    os.kill(p.pid, getattr(signal, "SIG" + what))
err = p.communicate(timeout=30)[1].decode(errors="replace").splitlines()
time.sleep(0.2)
alive = any(os.path.exists(f"/proc/{c}") and open(f"/proc/{c}/stat").read().split()[2] != "Z" for c in children)
print(p.returncode, len(err), (err or ["-"])[0].replace(" ", "_"), "alive" if alive else "gone", seen)
PY
}
for sig in TERM INT HUP KILL-CHILD; do
	rm -f "$DB"
	read -r rc lines first child seen <<<"$(interrupt $sig)"
	assert_eq "$sig: the temporary database existed when the signal came" tmp-seen "$seen"
	if [ $sig = KILL-CHILD ]; then
		assert_eq "importer killed with SIGKILL: exit status" 1 "$rc"
		assert_eq "importer killed with SIGKILL: stderr lines" 1 "$lines"
		case $first in *decoder_crashed_\(signal_9,*) pass "SIGKILL: $first" ;;
		*) fail "importer killed with SIGKILL: message: $first" ;; esac
	else
		assert_eq "SIG$sig to ftana: dies of it" "-$(kill -l $sig)" "$rc"
		assert_eq "SIG$sig to ftana: stderr lines" 0 "$lines"
	fi
	assert_eq "$sig: the importer is gone" gone "$child"
	no_tmp_left "$sig during the import" "$T"
	[ -e "$DB" ] && fail "$sig: a database was left" || pass "$sig: no database"
done

# error return: a damaged capture (cut inside its metadata) leaves nothing either
head -c 300 "$CAP" >"$T/cut.ftz"
"$FTANA" db "$T/cut.ftz" >/dev/null 2>"$T/err"
assert_eq "capture cut inside its metadata: exit status" 3 $?
no_tmp_left "capture cut inside its metadata" "$T"
[ -e "$T/cut.ftz.db" ] && fail "cut capture: a database was left" || pass "cut capture: no database"

# -o is renamed into place: never over a device (a private copy of /dev/null's node,
# which this once replaced with a database), a symbolic link or the capture itself
if mknod "$T/null" c 1 3 2>/dev/null; then
	"$FTANA" db "$CAP" -o "$T/null" >/dev/null 2>"$T/err"
	assert_eq "db -o a device: exit status" 1 $?
	assert_one_line_error "db -o a device" "$T/err" "null: not a regular file"
	assert_eq "db -o a device: still a device" "character special file" "$(stat -c %F "$T/null")"
fi
ln -s "$T/elsewhere.db" "$T/link.db"
"$FTANA" db "$CAP" -o "$T/link.db" >/dev/null 2>"$T/err"
assert_eq "db -o a symbolic link: exit status" 1 $?
[ -e "$T/elsewhere.db" ] && fail "db -o a symbolic link: wrote through it" || pass "db -o a symbolic link: nothing written"
"$FTANA" db "$CAP" -o "$CAP" >/dev/null 2>"$T/err"
assert_eq "db -o the capture: exit status" 1 $?
assert_one_line_error "db -o the capture" "$T/err" "that is the input"

# -o - is standard output, as in export and the reports' pictures (issue 22: it made
# a file named "-"): the database's bytes on stdout, nothing else; sqlite3 opens them
# and finds the tables of -o FILE's database, row for row, and the capture's issues
"$FTANA" db "$CAP" -o "$T/file.db" >/dev/null 2>&1 || fail "ftana db -o file.db"
mkdir -p "$T/tmpdir" # the temp file it copies from: its own, removed after
(cd "$T/out" && TMPDIR=$T/tmpdir "$FTANA" db "$CAP" -o - >"$T/stdout.db" 2>"$T/err")
assert_eq "db -o -: exit status" 0 $?
no_files_in_out "db -o - (no file named -)"
assert_eq "db -o -: stdout passes sqlite3's integrity check" ok "$(sq "$T/stdout.db" 'PRAGMA integrity_check')"
table_counts() { # DB -> "name rows" per table
	local t
	for t in $(sq "$1" "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"); do
		echo "$t $(sq "$1" "SELECT count(*) FROM \"$t\"")"
	done
}
table_counts "$T/file.db" >"$T/file.tables"
table_counts "$T/stdout.db" >"$T/stdout.tables"
assert_ge "db -o -: tables" 10 "$(wc -l <"$T/stdout.tables")"
if cmp -s "$T/file.tables" "$T/stdout.tables"; then pass "db -o -: the tables and rows of -o FILE"
else fail "db -o -: tables or rows differ from -o FILE's:"; diff "$T/file.tables" "$T/stdout.tables" | head -n 10; fi
assert_eq "db -o -: block_rq_issue rows = the capture's issues" "$issues" "$(sq "$T/stdout.db" 'SELECT count(*) FROM block_rq_issue')"
(cd "$T/out" && TMPDIR=$T/tmpdir "$FTANA" db "$CAP" -o - >/dev/full 2>"$T/err")
assert_eq "db -o - >/dev/full: exit status" 1 $?
assert_one_line_error "db -o - >/dev/full" "$T/err" "write error on standard output"
no_files_in_out "db -o - >/dev/full"
assert_eq "db -o -: files left in \$TMPDIR" "" "$(ls "$T/tmpdir")"

# --------------------------------------------------------- 4. escaped output
"$FTANA" db "$CAP" -o "$T/esc.db" >/dev/null 2>&1 || fail "ftana db -o esc.db"
# comm: a terminal title sequence (OSC ... BEL); string: C1 CSI as UTF-8, a lone
# 0x9b, an invalid 0xff, a NUL, DEL, and UTF-8 that must stay as it is (é, €)
sq "$T/esc.db" "UPDATE tasks SET comm = char(27) || ']0;pwned' || char(7);
	INSERT OR REPLACE INTO meta VALUES ('hostname', char(27) || '[2J' || 'host');
	CREATE TABLE strs(s TEXT);
	INSERT INTO strs VALUES (CAST(x'61c29b62' || x'9b' || x'ff' || x'00' || x'7f' || x'c3a9e282ac' AS TEXT));
	INSERT OR REPLACE INTO meta VALUES ('end_state', 'damaged'), ('damage_offset', '7'),
		('damage_reason', char(27) || ']0;owned' || char(7));"
raw_controls() { # FILE -> count of raw ESC, BEL, C1 CSI (lone or UTF-8), 0xff, DEL bytes
	LC_ALL=C grep -c -P '[\x1b\x07\x7f\x9b\xff]' "$1"
}
"$FTANA" sql "$T/esc.db" "SELECT DISTINCT comm FROM tasks; SELECT s FROM strs" >"$T/text" 2>"$T/err"
assert_eq "text: raw control bytes" 0 "$(raw_controls "$T/text")"
assert_contains "text: ESC shown as \\x1b" "$T/text" '^\\x1b\]0;pwned\\x07 *$'
assert_contains "text: C1, invalid bytes, NUL, DEL as \\xNN, UTF-8 kept" "$T/text" \
	'^a\\xc2\\x9bb\\x9b\\xff\\x00\\x7fé€$'
assert_eq "warning from the database's meta: raw control bytes" 0 "$(raw_controls "$T/err")"
assert_contains "warning from the database's meta: escaped" "$T/err" 'damaged at offset 7 \(\\x1b\]0;owned\\x07\)'
"$FTANA" sql "$T/esc.db" "SELECT DISTINCT comm FROM tasks; SELECT s FROM strs" --csv >"$T/csv" 2>/dev/null
assert_eq "CSV: raw control bytes" 0 "$(raw_controls "$T/csv")"
assert_contains "CSV: ESC kept as \\x1b" "$T/csv" '^\\x1b\]0;pwned\\x07$'
"$FTANA" sql "$T/esc.db" "SELECT DISTINCT comm FROM tasks UNION ALL SELECT s FROM strs" --json >"$T/json" 2>/dev/null
assert_eq "JSON: raw control bytes" 0 "$(raw_controls "$T/json")"
got=$(python3 -c '
import json, sys
rows = json.load(open(sys.argv[1], encoding="utf-8"))
print(ascii([r["comm"] for r in rows]))' "$T/json" 2>&1)
assert_eq "JSON: valid, decodes to the text (not UTF-8: U+FFFD)" \
	"['\\x1b]0;pwned\\x07', 'a\\x9bb\\ufffd\\ufffd\\x00\\x7f\\xe9\\u20ac']" "$got"
"$FTANA" info "$T/esc.db" >"$T/info" 2>/dev/null
assert_eq "info: raw control bytes" 0 "$(raw_controls "$T/info")"
assert_contains "info: host escaped" "$T/info" '^host +\\x1b\[2Jhost$'

# --- numbers at int64's ends: a .db's values are its own (issue 25: signed overflow).
# Each was undefined behaviour (UBSan, this build stops at it): a return's rettime and
# calltime of opposite extremes (funcgraph_calls.c), nr_cpus = INT64_MIN (the funcgraph
# report's CPU column), wall_offset_ns = INT64_MIN under a wall-clock --since (slice.c),
# events and the capture's start at both ends (funcslower's heat map columns).
cp "$ROOT_DIR/samples/funcgraph.ftz" "$T/fg.ftz"
"$FTANA" db "$T/fg.ftz" -o "$T/fg.db" >/dev/null 2>&1 || fail "db of samples/funcgraph.ftz"
edge() { # NAME SQL REPORT-ARGS...: the report on a copy changed by SQL, 0/1/3, no UB
	local name=$1 sql=$2
	shift 2
	cp "$T/fg.db" "$T/$name.db"
	sq "$T/$name.db" "$sql"
	"$FTANA" report "$1" "$T/$name.db" "${@:2}" >"$T/$name.out" 2>"$T/$name.err"
	local rc=$?
	case $rc in 0|1|3) pass "int64 ends: $name: exit $rc" ;; *) fail "int64 ends: $name: exit $rc: $(head -c 300 "$T/$name.err")" ;; esac
	assert_eq "int64 ends: $name: no undefined behaviour" 0 "$(grep -c 'runtime error' "$T/$name.err")"
}
edge rettime "UPDATE funcgraph_exit SET calltime = -9223372036854775807, rettime = 9223372036854775807 WHERE id = (SELECT min(id) FROM funcgraph_exit)" funcgraph
edge nr_cpus "UPDATE meta SET value = '-9223372036854775808' WHERE key = 'nr_cpus'" funcgraph
edge wall_offset "UPDATE meta SET value = '-9223372036854775808' WHERE key = 'wall_offset_ns'" funcgraph --since 10:00:00
edge heatmap "UPDATE meta SET value = '-9223372036854775000' WHERE key IN ('first_ts', 'traced_from_ns', 'complete_from_ns');
	UPDATE funcgraph_exit SET ts = 9223372036854775000 WHERE id = (SELECT max(id) FROM funcgraph_exit);
	UPDATE funcgraph_exit SET ts = -9223372036854775000 WHERE id = (SELECT min(id) FROM funcgraph_exit)" \
	funcslower --heatmap --ragged

finish
