#!/usr/bin/env bash
# test_tracedat_badfmt.sh - a trace.dat whose print fmt crashes libtraceevent costs
# that event type's print format (one warning), not the file.
#
# libtracecmd parses a trace.dat's formats inside tracecmd_open_head; ftana holds
# them back there and parses them under tep_guard (decode/decode_tracedat.c). The
# inputs are copies of a real v6 capture (tests/data/tracedat) with one or two
# print fmts overwritten in place by text known to kill libtraceevent's parser
# (`1/0`: SIGFPE; `__print_symbolic` of a missing field, `sizeof(`: SIGSEGV), padded
# with blanks to the same length, so every length and offset in the file still
# holds. Ground truth: trace-cmd report on the unmodified file (event counts, the
# text of every event whose format is intact) and ftana's rows from the unmodified
# file (test_tracedat.sh checks those against trace-cmd, and the text report tpoint
# prints for it, where function addresses become names as trace-cmd's plugins do).
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
TESTDATA=${TESTDATA:-$ROOT_DIR/tests/data}
require_bin "$FTANA"
if ! command -v trace-cmd >/dev/null || ! command -v python3 >/dev/null; then
	echo "trace-cmd (the ground truth) or python3 (edits the copies) not installed"
	exit 77
fi
SRC=$TESTDATA/tracedat/labsisop-4.13-i686-funcgraph-v6.dat
[ -f "$SRC" ] || { fail "no test data $SRC"; finish; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# print fmts of the capture, and what replaces them
IRQ_FMT='"irq=%d name=%s", REC->irq, __get_str(name)'
EXIT_FMT='"<-- %lx (%d) (start: %llx  end: %llx) over: %d", REC->func, REC->depth, REC->calltime, REC->rettime, REC->depth'
ENTRY_FMT='"--> %lx (%d)", REC->func, REC->depth'
DIV='"%d", 1/0'
SYMBOLIC='"%s", __print_symbolic(REC->nosuch, { 0, "a" })'
SIZEOF='"%d", sizeof('

# edit OUT OLD NEW [OLD NEW]: a copy of SRC with each "print fmt: OLD" overwritten by
# "print fmt: NEW" and blanks up to OLD's length.
edit() {
	python3 - "$SRC" "$@" <<'EOF'
import sys
src, out, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
data = open(src, 'rb').read()
for old, new in zip(pairs[::2], pairs[1::2]):
    old, new = b'print fmt: ' + old.encode(), b'print fmt: ' + new.encode()
    assert data.count(old) == 1 and len(new) <= len(old), old
    data = data.replace(old, new.ljust(len(old), b' '))
open(out, 'wb').write(data)
EOF
}

q() { "$FTANA" sql "$1" "$2" --csv 2>>"$tmp/sql.err" | tail -n +2; }

# trace-cmd's event lines "NAME: TEXT" (-N: the event's own print fmt), blanks squeezed
tc_text() {
	trace-cmd report -N -i "$1" 2>/dev/null |
		sed -nE 's/^.*\[[0-9]+\] +[0-9]+\.[0-9]+: +([^ :]+): +(.*)$/\1: \2/p' | tr -s ' '
}

cp "$SRC" "$tmp/orig.dat"
tc_text "$tmp/orig.dat" >"$tmp/tc_text"
sed 's/:.*//' "$tmp/tc_text" | sort | uniq -c | awk '{ print $2, $1 }' >"$tmp/tc_counts"
# fa_text FILE: report tpoint's event lines "NAME: TEXT", blanks squeezed (exit: $tmp/tp.rc)
fa_text() {
	"$FTANA" report tpoint "$1" 2>"$tmp/tp.err" |
		sed -nE 's/^.*\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: ([^ :]+): (.*)$/\1: \2/p' | tr -s ' '
	echo "${PIPESTATUS[0]}" >"$tmp/tp.rc"
}

if ! "$FTANA" db "$tmp/orig.dat" >/dev/null 2>"$tmp/orig.err"; then
	fail "the unmodified capture does not import: $(head -n 2 "$tmp/orig.err")"
	finish
fi
fa_text "$tmp/orig.dat" >"$tmp/orig_text"
assert_eq "unmodified file: report tpoint prints trace-cmd's events" "$(wc -l <"$tmp/tc_text")" \
	"$(wc -l <"$tmp/orig_text")"

# check NAME "BROKEN_EVENT..." "WARNING_REGEX..." -- OLD NEW [OLD NEW]
check() {
	local name=$1 broken=$2 warnings=$3 f="$tmp/$1.dat" w rc
	shift 4
	edit "$f" "$@" || { fail "$name: cannot edit the copy"; return; }
	echo "== $name ($broken)"
	# the input is what we think: libtraceevent itself dies on it
	rc=$( { trace-cmd report -i "$f" >/dev/null 2>&1; echo $?; } 2>/dev/null)
	if [ "$rc" -gt 128 ]; then pass "$name: trace-cmd report dies on it (signal $((rc - 128)))"
	else echo "note: trace-cmd report survived it (exit $rc): libtraceevent fixed?"; fi

	"$FTANA" db "$f" >/dev/null 2>"$tmp/db.err"
	rc=$?
	if [ "$rc" = 0 ] || [ "$rc" = 3 ]; then pass "$name: ftana db exit $rc"; else
		fail "$name: ftana db exit $rc:"; sed 's/^/      | /' "$tmp/db.err"; return
	fi
	assert_eq "$name: warnings from ftana db" "$(wc -w <<<"$broken")" "$(grep -c . "$tmp/db.err")"
	for w in $warnings; do
		assert_contains "$name: warning $w" "$tmp/db.err" \
			"^ftana[a-z ]*: $f: warning: event ${w%=*}: its print fmt crashes libtraceevent \\(${w#*=}\\); its fields are kept"
	done

	q "$f" "SELECT name || ' ' || count AS l FROM event_types WHERE count > 0 ORDER BY name" \
		>"$tmp/fa_counts"
	if cmp -s "$tmp/tc_counts" "$tmp/fa_counts"; then
		pass "$name: events per type = trace-cmd's on the unmodified file: $(tr '\n' ' ' <"$tmp/fa_counts")"
	else
		fail "$name: events per type (< trace-cmd, unmodified file; > ftana):"
		diff "$tmp/tc_counts" "$tmp/fa_counts" | sed 's/^/      | /'
	fi
	local ev
	for ev in $broken; do
		q "$tmp/orig.dat" "SELECT * FROM $ev ORDER BY id" >"$tmp/orig_rows"
		q "$f" "SELECT * FROM $ev ORDER BY id" >"$tmp/rows"
		if [ -s "$tmp/rows" ] && cmp -s "$tmp/orig_rows" "$tmp/rows"; then
			pass "$name: $ev rows (every field) = the unmodified file's: $(wc -l <"$tmp/rows")"
		else
			fail "$name: $ev rows differ from the unmodified file's"
		fi
	done

	fa_text "$f" >"$tmp/fa_text"
	assert_eq "$name: report tpoint exit" 0 "$(cat "$tmp/tp.rc")"
	assert_eq "$name: warnings from report tpoint" "$(wc -w <<<"$broken")" "$(grep -c . "$tmp/tp.err")"
	assert_eq "$name: report tpoint prints every event" "$(wc -l <"$tmp/tc_text")" \
		"$(wc -l <"$tmp/fa_text")"
	# intact types: the unmodified file's text; broken ones: NAME=VALUE for each field
	local pattern; pattern="^($(tr ' ' '|' <<<"$broken")): "
	if cmp -s <(grep -vE "$pattern" "$tmp/orig_text") <(grep -vE "$pattern" "$tmp/fa_text"); then
		pass "$name: text of the intact types = the unmodified file's"
	else
		fail "$name: text of the intact types differs from the unmodified file's (<) :"
		diff <(grep -vE "$pattern" "$tmp/orig_text") <(grep -vE "$pattern" "$tmp/fa_text") |
			head -n 8 | sed 's/^/      | /'
	fi
	for ev in $broken; do
		local fields n_lines
		fields=$(q "$f" "SELECT group_concat(name, ' ') FROM pragma_table_info('$ev')
			WHERE name NOT IN ('id', 'cpu', 'ts', 'pid', 'stack_id')" 2>/dev/null)
		n_lines=$(grep -cE "^$ev: " "$tmp/fa_text")
		local field missing=""
		for field in $fields; do
			[ "$(grep -cE "^$ev: .*\\b$field=" "$tmp/fa_text")" = "$n_lines" ] ||
				missing="$missing $field"
		done
		if [ "$n_lines" -gt 0 ] && [ -n "$fields" ] && [ -z "$missing" ]; then
			pass "$name: $ev printed by its fields ($fields), $n_lines lines"
		else
			fail "$name: $ev: $n_lines lines, fields '$fields', missing:$missing"
		fi
	done
	[ -s "$tmp/sql.err" ] && { fail "$name: ftana sql errors:"; sed 's/^/      | /' "$tmp/sql.err"; }
	: >"$tmp/sql.err"
}

check div irq_handler_entry "irq:irq_handler_entry=SIGFPE" -- "$IRQ_FMT" "$DIV"
# ftrace's own formats: libtracecmd parses them by a path of their own
check symbolic funcgraph_exit "ftrace:funcgraph_exit=SIGSEGV" -- "$EXIT_FMT" "$SYMBOLIC"
check two "funcgraph_entry irq_handler_entry" \
	"ftrace:funcgraph_entry=SIGSEGV irq:irq_handler_entry=SIGFPE" -- \
	"$ENTRY_FMT" "$SIZEOF" "$IRQ_FMT" "$DIV"
finish
