#!/usr/bin/env bash
# test_report_front.sh - what every `ftana report NAME` shares, for every report the
# program lists (so a new report is covered without editing this file), and the help of
# every ftana command:
#  - `--help` anywhere (before FILE, after it, after a bad option) prints that report's
#    full help on stdout, exits 0, and does not touch FILE (no database built, none
#    opened: a FILE that does not exist is fine);
#  - the help lists every common option (the front end's) and the report's own;
#  - errors are one line "ftana report NAME: ...", exit 1: an unknown option, a stray
#    argument, --csv with --json, a bad number, a missing FILE;
#  - options work before and after FILE (same output);
#  - ftana COMMAND --help exits 0 on stdout for every command; usage errors exit 1 on stderr.
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTANA"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$ROOT_DIR/samples/funcslower.ftz" "$work/"

reports=$("$FTANA" report --help | awk '/^reports:/ { on = 1; next } on && NF { print $1 }')
assert_ge "reports listed by 'ftana report --help'" 7 "$(printf '%s\n' $reports | grep -c .)"

common="--since --until --pid --tid --comm --cpu --include-ftrec --wall --csv --json --header --no-header --verbose --help"

for r in $reports; do
	# --help in three places, FILE missing: exit 0, help on stdout, nothing on stderr
	for args in "--help" "$work/none.ftz --help" "-h $work/none.ftz" "--no-such-option --help"; do
		# shellcheck disable=SC2086
		"$FTANA" report "$r" $args >"$work/out" 2>"$work/err"
		rc=$?
		assert_eq "$r $args: exit" 0 "$rc"
		assert_eq "$r $args: stderr lines" 0 "$(wc -l <"$work/err")"
		assert_contains "$r $args: usage line" "$work/out" "^usage: ftana report $r "
	done
	[ -e "$work/none.ftz.db" ] && fail "$r --help created a database"
	for o in $common; do
		grep -q -- "$o" "$work/out" || fail "$r --help does not list the common option $o"
	done
	# each of the report's own options (the lines of its "NAME options:" block) is accepted
	# by the parser: a flag given twice or with a value is never "unknown option"
	own=$(awk -v r="$r" '$0 == r " options:" { on = 1; next } on && /^$/ { exit } on' "$work/out" |
		grep -oE -- '--[a-z][a-z-]*|^ +-[A-Za-z]' | tr -d ' ')
	for o in $own; do
		"$FTANA" report "$r" "$o" --help >/dev/null 2>&1 ||
			fail "$r: its own option $o breaks --help"
	done

	# one-line errors, exit 1, the report's prefix
	for args in "--no-such-option $work/none.ftz" "$work/none.ftz stray" "--csv --json $work/none.ftz" \
		"--cpu x $work/none.ftz" "--since yesterday $work/none.ftz" "-p abc $work/none.ftz" ""; do
		# shellcheck disable=SC2086
		"$FTANA" report "$r" $args >"$work/out" 2>"$work/err"
		rc=$?
		assert_eq "$r '$args': exit" 1 "$rc"
		assert_eq "$r '$args': one line on stderr" 1 "$(wc -l <"$work/err")"
		assert_contains "$r '$args': prefix" "$work/err" "^ftana report $r: "
		assert_eq "$r '$args': nothing on stdout" 0 "$(wc -c <"$work/out")"
	done
	[ -e "$work/none.ftz.db" ] && fail "$r: a usage error created a database"
done

# options before and after FILE: the same output
"$FTANA" report funcslower -t --csv "$work/funcslower.ftz" >"$work/before" 2>&1
"$FTANA" report funcslower "$work/funcslower.ftz" -t --csv >"$work/after" 2>&1
assert_eq "funcslower: options before FILE = after it" "$(cat "$work/before")" "$(cat "$work/after")"
assert_ge "funcslower rows" 2 "$(wc -l <"$work/after")"
# bundled short options
"$FTANA" report funcslower -tP "$work/funcslower.ftz" >"$work/bundled" 2>&1
"$FTANA" report funcslower -t -P "$work/funcslower.ftz" >"$work/apart" 2>&1
assert_eq "funcslower: -tP = -t -P" "$(cat "$work/apart")" "$(cat "$work/bundled")"

# lost events: a warning on stderr in every mode, and in the JSON document too
"$FTANA" db "$work/funcslower.ftz" -o "$work/lost.db" >/dev/null 2>&1
python3 - "$work/lost.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
first = int(db.execute("SELECT value FROM meta WHERE key = 'first_ts'").fetchone()[0])
db.execute("INSERT INTO lost_events VALUES (1, ?, 17)", (first + 1000,))
db.commit()
PY
for fmt in "" --csv --json; do
	# shellcheck disable=SC2086
	"$FTANA" report funcslower $fmt "$work/lost.db" >"$work/out" 2>"$work/err"
	assert_eq "lost events, ${fmt:-text}: exit" 0 "$?"
	assert_contains "lost events, ${fmt:-text}: warning on stderr" "$work/err" \
		"^ftana report funcslower: warning: the capture lost 17 events"
	grep -q "lost 17" "$work/out" && [ "$fmt" != --json ] && fail "lost events, ${fmt:-text}: the warning reached stdout"
done
assert_eq "lost events, JSON: in the document's warnings" 1 \
	"$(python3 -c 'import json, sys; print(sum("lost 17 events" in w for w in json.load(open(sys.argv[1]))["warnings"]))' "$work/out")"
# a window after the loss: no warning
"$FTANA" report funcslower --since 0.1 "$work/lost.db" >/dev/null 2>"$work/err"
assert_eq "lost events outside --since: no warning" 0 "$(grep -c 'lost 17' "$work/err")"

# the other commands
for c in db info sql report; do
	"$FTANA" "$c" --help >"$work/out" 2>"$work/err"
	assert_eq "ftana $c --help: exit" 0 "$?"
	assert_contains "ftana $c --help: usage on stdout" "$work/out" "^usage: ftana ($c|report)"
	assert_eq "ftana $c --help: stderr" 0 "$(wc -c <"$work/err")"
	"$FTANA" "$c" >"$work/out" 2>"$work/err"
	assert_eq "ftana $c without arguments: exit" 1 "$?"
	assert_eq "ftana $c without arguments: stdout" 0 "$(wc -c <"$work/out")"
done
"$FTANA" --help >"$work/out" 2>&1
assert_eq "ftana --help: exit" 0 "$?"
for c in db info sql report; do
	grep -q "^  $c " "$work/out" || fail "ftana --help does not list $c"
done

# the man page is made from the same help texts: each command's and report's section is
# exactly what its --help prints (tools/mkman.sh, as the Makefile runs it)
printf '%s\n' $reports | sed 's/^/report /' | xargs -d '\n' "$ROOT_DIR/tools/mkman.sh" -a -d test "$FTANA" \
	>"$work/ftana.1" 2>"$work/err" || fail "mkman.sh ftana: $(cat "$work/err")"
for c in db info sql report $(printf 'report@%s ' $reports); do
	c=${c//@/ }
	# shellcheck disable=SC2086
	"$FTANA" $c --help >"$work/help"
	awk -v c="$c" '$0 == ".SS \"ftana " c "\"" { on = 1; next } on && /^\.nf$/ { next }
		on && /^\.fi$/ { exit } on' "$work/ftana.1" |
		sed -e 's/\\-/-/g' -e 's/^\\&//' -e 's/\\e/\\/g' >"$work/man"
	if cmp -s "$work/man" "$work/help"; then pass "man page: ftana $c = its --help"; else
		fail "man page: ftana $c differs from its --help"; diff "$work/help" "$work/man" | head -5
	fi
done
# `make` builds both pages (ftana.1 was once missing from `all`): make's own rule table
assert_eq "make all's prerequisites hold both man pages" 2 \
	"$(cd "$ROOT_DIR" && make -pn BUILD="$BUILD" all 2>/dev/null | grep '^all:' | head -n 1 | tr ' ' '\n' | grep -c '/man/ft[a-z]*\.1$')"
if command -v groff >/dev/null; then
	groff -man -Tutf8 -ww -z "$work/ftana.1" >"$work/groff.err" 2>&1
	assert_eq "groff warnings on ftana.1" 0 "$(wc -l <"$work/groff.err")"
fi

finish
