#!/usr/bin/env bash
# test_sql_shell.sh - `ftana sql` without the SQL as an argument (issue 22): -f FILE,
# -f - and a pipe on stdin run a file's statements; on a terminal, an interactive
# read-only shell (statements over several lines, .tables (each name once, all that
# sqlite3's .tables lists of the kept database), .schema, .mode, errors
# said and the shell going on, writes refused). Ground truth: the capture's own block
# events (32 completions in samples/case01_iolat.ftz, as the argument form counts them).
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTANA"

T=$(mktemp -d /tmp/test_sql_shell.XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME=$T/xdg
cp "$ROOT_DIR/samples/case01_iolat.ftz" "$T/c.ftz"
n=$("$FTANA" sql "$T/c.ftz" "SELECT count(*) FROM block_rq_complete" --csv | tail -1)
assert_eq "the argument form: completions" 32 "$n"

printf 'SELECT count(*) AS n FROM io;\n-- a comment\nSELECT 1 + 1 AS two;\n' >"$T/q.sql"
assert_eq "-f FILE: both statements, CSV" "n 32 two 2" "$("$FTANA" sql "$T/c.ftz" -f "$T/q.sql" --csv | tr '\n' ' ' | sed 's/ $//')"
assert_eq "-f -: stdin" "n 32 two 2" "$("$FTANA" sql "$T/c.ftz" -f - --csv <"$T/q.sql" | tr '\n' ' ' | sed 's/ $//')"
assert_eq "no SQL, a pipe: stdin" "n 32 two 2" "$("$FTANA" sql "$T/c.ftz" --csv <"$T/q.sql" | tr '\n' ' ' | sed 's/ $//')"
"$FTANA" sql "$T/c.ftz" -f "$T/nosuch.sql" >/dev/null 2>"$T/err"
assert_eq "-f of a missing file: exit status" 1 $?
assert_one_line_error "-f of a missing file: says so" "$T/err" "^ftana sql: -f .*nosuch.sql: No such file"
# SQL text is read whole: more than 64 MiB of it (a device, a file that never ends)
# is refused in one line, from a file, from stdin and from a stream without an end
head -c $((64 * 1048576 + 1)) /dev/zero | tr '\0' ' ' >"$T/big.sql"
"$FTANA" sql "$T/c.ftz" -f "$T/big.sql" >/dev/null 2>"$T/err"
assert_eq "-f of 64 MiB + 1 byte: exit status" 1 $?
assert_one_line_error "-f of 64 MiB + 1 byte: says so" "$T/err" "over 64 MiB of SQL"
"$FTANA" sql "$T/c.ftz" -f - <"$T/big.sql" >/dev/null 2>"$T/err"
assert_one_line_error "-f - of 64 MiB + 1 byte: says so" "$T/err" "over 64 MiB of SQL"
timeout 60 "$FTANA" sql "$T/c.ftz" -f /dev/zero >/dev/null 2>"$T/err"
assert_eq "-f /dev/zero: exit status (not a timeout)" 1 $?
assert_one_line_error "-f /dev/zero: says so" "$T/err" "over 64 MiB of SQL"
printf 'INSERT INTO meta VALUES (1, 2);\n' | "$FTANA" sql "$T/c.ftz" >/dev/null 2>"$T/err"
assert_eq "stdin that writes: exit status" 1 $?
assert_one_line_error "stdin that writes: refused" "$T/err" "refused: statement writes"

if command -v script >/dev/null; then
	printf '%s\n' 'SELECT count(*)' '  FROM io;' '.tables' '.schema io_rq' '.mode csv' \
		'SELECT 7 AS seven;' 'SELECT nosuch;' 'DELETE FROM meta;' '.bogus' 'SELECT 8 AS eight;' '.quit' >"$T/in"
	script -qc "\"$FTANA\" sql \"$T/c.ftz\" </dev/tty" /dev/null <"$T/in" 2>&1 |
		sed 's/\x1b\[?2004[hl]//g; s/\r//g' >"$T/out"
	assert_contains "shell: greets" "$T/out" "SQL on .*c.ftz \(read-only\)"
	assert_contains "shell: a statement over two lines" "$T/out" "^ +32$"
	assert_contains "shell: .tables lists io" "$T/out" "(^| )io( |$)"
	# each name once (issue 22: a stand-in's name was listed twice, the TEMP table and
	# the view of no rows kept in main): every name sqlite3's own .tables gives for the
	# database beside the capture is there exactly once, sched_switch (no such events
	# here: a stand-in) too
	sed -n '/^ftana> \.tables$/,/^ftana> /{/^ftana> /d;p}' "$T/out" | tr -s ' ' '\n' | sed '/^$/d' | sort >"$T/names"
	assert_ge "shell: .tables: names listed" 40 "$(wc -l <"$T/names")"
	assert_eq "shell: .tables: names listed twice" "" "$(uniq -d "$T/names" | tr '\n' ' ')"
	if command -v sqlite3 >/dev/null; then
		sqlite3 -batch "$T/c.ftz.db" .tables | tr -s ' ' '\n' | sed '/^$/d' | sort >"$T/sqlite3_names"
		assert_ge "shell: sqlite3 .tables of c.ftz.db: names" 40 "$(wc -l <"$T/sqlite3_names")"
		assert_eq "shell: .tables: names sqlite3 lists that are not listed once" "" \
			"$(join -v 1 "$T/sqlite3_names" <(uniq -u "$T/names") | tr '\n' ' ')"
	fi
	assert_eq "shell: .tables: sched_switch (a stand-in) listed" 1 "$(grep -cx sched_switch "$T/names")"
	assert_contains "shell: .schema io_rq" "$T/out" "^CREATE VIEW io_rq AS"
	assert_contains "shell: .mode csv" "$T/out" "^seven$"
	assert_contains "shell: an error is said" "$T/out" "no such column: nosuch"
	assert_contains "shell: a write is refused" "$T/out" "refused: statement writes"
	assert_contains "shell: an unknown command is said" "$T/out" "unknown command '.bogus'"
	assert_contains "shell: goes on after errors" "$T/out" "^8$"
	assert_eq "shell: nothing written" 32 "$("$FTANA" sql "$T/c.ftz" "SELECT count(*) FROM io" --csv | tail -1)"
else
	echo "note: no script(1): the interactive shell is not checked"
fi
finish
