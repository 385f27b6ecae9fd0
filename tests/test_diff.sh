#!/usr/bin/env bash
# test_diff.sh - `ftana diff BEFORE AFTER REPORT`, against ground truth it did not compute:
#  - the case study's two captures (samples/case01_iolat.ftz: the file opened while the
#    disk's readahead was 4096 sectors; case09_iolat.ftz: reopened after `blockdev
#    --setra 256`; each `./drive touch 8`: 8 page faults, docs/CASE-STUDY.md): the
#    bytes read differ by the configured factor, 8 x 2048 KiB before and 8 x 128 KiB
#    after, all of it in the 512-1023 KiB bucket before and the 128-255 KiB one after;
#  - two windows of one capture (--before-until T, --after-since T): the two sides'
#    counts add up to the whole report's, their seconds to the whole window's;
#  - captures of different lengths: a count is compared per second of each side's
#    window (`ftana info`'s recorded interval), a rate (rate_per_s) as the report has it;
#  - text: each numeric column with its unit's decimals (a count whole, a rate 3, iops
#    1), each cell the CSV's value rounded to them, points aligned;
#  - --json is one document; --top N keeps N rows; a trace.dat diffed with itself
#    changes nothing; a listing report, a bad option, a missing file: one line, exit 1;
#  - without REPORT, the page of sections: a capture with itself changes nothing in
#    any section; each section's rows are those of its report diffed alone; a section
#    the captures cannot answer says so; runqlat --summary's percentiles are not keys
#    (the rows join on comm alone: one row per command);
#  - --svg, a differential flame graph: a capture with itself is all grey, each frame's
#    before (data-b) equal to its after (data-v); two windows of one capture hold, at
#    the root, the whole capture's samples between them (`report stacks --folded`);
#    a frame only AFTER has is red; -o onto an input, --svg of a report without stacks
#    or without a REPORT: refused in one line.
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTANA"
command -v python3 >/dev/null || { echo "python3 is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache
for f in case01_iolat case09_iolat case03_funccount case10_funccount; do
	cp "$ROOT_DIR/samples/$f.ftz" "$tmp/"
done

# col CSV COLUMN: that column of every data row
col() { awk -F, -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }' "$1"; }
sum() { col "$1" "$2" | awk '{ s += $1 } END { print s + 0 }'; }

# ------------------------------------------------------------- the readahead factor
"$FTANA" diff "$tmp/case01_iolat.ftz" "$tmp/case09_iolat.ftz" bitesize --keys low_kb,high_kb \
	--value bytes --csv >"$tmp/ra.csv" 2>"$tmp/err"
assert_eq "bitesize diff: exit" 0 "$?"
assert_eq "bytes read before: 8 faults x 4096 sectors" $((8 * 4096 * 512)) "$(sum "$tmp/ra.csv" before)"
assert_eq "bytes read after: 8 faults x 256 sectors" $((8 * 256 * 512)) "$(sum "$tmp/ra.csv" after)"
assert_eq "before: all in the 512-1023 KiB bucket" $((8 * 4096 * 512)) \
	"$(awk -F, 'NR > 1 && $1 == 512 { print $3 }' "$tmp/ra.csv")"
assert_eq "after: all in the 128-255 KiB bucket" $((8 * 256 * 512)) \
	"$(awk -F, 'NR > 1 && $1 == 128 { print $4 }' "$tmp/ra.csv")"
assert_eq "the largest change first (the 512 KiB bucket)" 512 "$(awk -F, 'NR == 2 { print $1 }' "$tmp/ra.csv")"

# a key that is NULL (iolat --summary's total row has no type) joins its own kind:
# one "all" row with both sides, not one per side
"$FTANA" diff "$tmp/case01_iolat.ftz" "$tmp/case09_iolat.ftz" iolat --summary --csv >"$tmp/sum.csv"
assert_eq "iolat --summary: one total row, both sides in it" "1 1" \
	"$(awk -F, '$1 == "all" { n++; both += $3 > 0 && $4 > 0 } END { print n + 0, both + 0 }' "$tmp/sum.csv")"

# ------------------------------------------------------------- two windows of one capture
f=$tmp/case03_funccount.ftz
"$FTANA" report funccount "$f" --csv >"$tmp/whole.csv"
read -r from to < <("$FTANA" sql "$f" "SELECT complete_from_ts, end_ts FROM capture_window" --csv | tail -n 1 | tr ',' ' ')
mid=$(((from + to) / 2))
t=$(printf '%d.%09d' $((mid / 1000000000)) $((mid % 1000000000)))
"$FTANA" diff "$f" "$f" funccount --value count --before-until "$t" --after-since "$t" --csv >"$tmp/split.csv" 2>"$tmp/err"
assert_eq "split at $t: exit" 0 "$?"
for fn in $(col "$tmp/whole.csv" func); do
	whole=$(awk -F, -v f="$fn" '$1 == f { print $2 }' "$tmp/whole.csv")
	parts=$(awk -F, -v f="$fn" '$1 == f { print $2 + $3 }' "$tmp/split.csv")
	assert_eq "split: $fn before + after = the whole capture's" "$whole" "$parts"
done
"$FTANA" diff "$f" "$f" funccount --value count --before-until "$t" --after-since "$t" >"$tmp/split.txt"
secs=$(awk 'NR == 1 { gsub(/[(),]/, " "); for (i = 1; i <= NF; i++) if ($(i + 1) == "s") print $i }' "$tmp/split.txt" |
	awk '{ s += $1 } END { printf "%.3f", s }')
assert_eq "split: the two windows' seconds add up to the whole window's" \
	"$(awk -v a="$from" -v b="$to" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')" "$secs"

# ------------------------------------------------------------- different lengths: per second
b=$tmp/case03_funccount.ftz a=$tmp/case10_funccount.ftz
"$FTANA" diff "$b" "$a" funccount --value count --csv >"$tmp/len.csv"
sb=$("$FTANA" info "$b" | awk '$1 == "recorded" { print $2 }')
sa=$("$FTANA" info "$a" | awk '$1 == "recorded" { print $2 }')
while IFS=, read -r fn before after bps aps diff ratio; do
	[ "$fn" = func ] && continue
	assert_eq "$fn: before per second = count / info's recorded seconds" \
		"$(awk -v c="$before" -v s="$sb" 'BEGIN { printf "%.3f", c / s }')" "$(printf '%.3f' "$bps")"
	assert_eq "$fn: after per second" "$(awk -v c="$after" -v s="$sa" 'BEGIN { printf "%.3f", c / s }')" \
		"$(printf '%.3f' "$aps")"
	assert_eq "$fn: diff = after/s - before/s" "$(awk -v x="$aps" -v y="$bps" 'BEGIN { printf "%.6f", x - y }')" \
		"$(printf '%.6f' "$diff")"
done <"$tmp/len.csv"
"$FTANA" diff "$b" "$a" funccount --csv >"$tmp/rate.csv"
assert_eq "default value of funccount: its rate, compared as it is" \
	"$(col "$tmp/whole.csv" rate_per_s | awk '{ s += $1 } END { print s }')" "$(sum "$tmp/rate.csv" before)"

# ------------------------------------------------------------- text: decimals by unit
# Each numeric column of the text table has one number of decimals, its unit's as the
# reports print it (README "Numbers in text tables"): before and after in the compared
# value's unit (a rate per second 3, iops 1, total_ms 3; a count or bytes: whole
# numbers), the per-second columns, diff and ratio 3 (diff of iops: 1). Every cell is
# the CSV's full-precision value rounded to them, right-aligned with its points in one
# place (issue 22: "before 15.974" beside "after 16.5").
# text_decimals TEXT CSV COL:DECIMALS,...: "ok N cells", or the first difference
text_decimals() {
	python3 - "$@" <<'PYEOF'
import csv, sys
text = [l.rstrip("\n") for l in open(sys.argv[1]) if not l.startswith("#")]
rows = list(csv.reader(open(sys.argv[2])))
want = dict((c.split(":")[0], int(c.split(":")[1])) for c in sys.argv[3].split(","))
head, lines = text[0], text[1:]
names = head.split()
starts = [head.index(" " + n + " ") + 1 if i else 0 for i, n in enumerate(names[:-1])] + [head.rindex(" " + names[-1]) + 1]
ends = [starts[i + 1] - 2 for i in range(len(names) - 1)] + [max(len(l) for l in lines)]
if names != rows[0] or len(lines) != len(rows) - 1:
    sys.exit(print("text and CSV differ in shape: %r %r" % (names, rows[0])))
cells = 0
for name, d in want.items():
    i = names.index(name)
    points = set()
    for line, row in zip(lines, rows[1:]):
        cell = line[starts[i]:ends[i]].ljust(ends[i] - starts[i])
        if row[i] == "":
            if cell.strip():
                sys.exit(print("%s: %r where CSV has none" % (name, cell)))
            continue
        if cell != cell.strip().rjust(len(cell)):
            sys.exit(print("%s: %r not right-aligned" % (name, cell)))
        v = cell.strip()
        shown = len(v.split(".")[1]) if "." in v else 0
        if shown != d or abs(float(v) - float(row[i])) > 0.5 * 10 ** -d + 1e-9:
            sys.exit(print("%s: %r, want %s rounded to %d decimals" % (name, v, row[i], d)))
        points.add(starts[i] + cell.index(".") if "." in cell else ends[i])
        cells += 1
    if len(points) > 1:
        sys.exit(print("%s: decimal points at %d places" % (name, len(points))))
print("ok %d cells" % cells)
PYEOF
}
# diff_decimals WHAT COLS ARGS...: the diff as text and as CSV, checked
diff_decimals() {
	local what=$1 cols=$2
	shift 2
	"$FTANA" diff "$@" >"$tmp/dec.txt" 2>/dev/null
	"$FTANA" diff "$@" --csv >"$tmp/dec.csv" 2>/dev/null
	local r; r=$(text_decimals "$tmp/dec.txt" "$tmp/dec.csv" "$cols")
	case $r in "ok "*) pass "text decimals: $what: $r" ;; *) fail "text decimals: $what: $r" ;; esac
}
per_s=before_per_s:3,after_per_s:3,ratio:3
diff_decimals "funccount, a rate (the issue's windows)" before:3,after:3,diff:3,$per_s \
	"$tmp/case03_funccount.ftz" "$tmp/case03_funccount.ftz" funccount --after-since 56.910 --after-until 58.910
diff_decimals "funccount, a rate" before:3,after:3,diff:3,$per_s "$b" "$a" funccount
diff_decimals "funccount, a count" before:0,after:0,diff:3,$per_s "$b" "$a" funccount --value count
diff_decimals "bitesize, bytes" before:0,after:0,diff:3,$per_s,low_kb:0,high_kb:0 \
	"$tmp/case01_iolat.ftz" "$tmp/case09_iolat.ftz" bitesize --keys low_kb,high_kb --value bytes
diff_decimals "iolat --summary, iops" before:1,after:1,diff:1,$per_s \
	"$tmp/case01_iolat.ftz" "$tmp/case09_iolat.ftz" iolat --summary
cp "$ROOT_DIR/samples/triage.ftz" "$ROOT_DIR/samples/triage_stacks.ftz" "$tmp/"
diff_decimals "runqlat --summary, total_ms" before:3,after:3,diff:3,$per_s \
	"$tmp/triage.ftz" "$tmp/triage_stacks.ftz" runqlat --summary --by comm --value total_ms
assert_contains "text decimals: the issue's row: before and after with 3 decimals" <(
	"$FTANA" diff "$tmp/case03_funccount.ftz" "$tmp/case03_funccount.ftz" funccount --after-since 56.910 --after-until 58.910) \
	"^submit_bio_noacct +[0-9]+\.[0-9]{3} +16\.500 "

# ------------------------------------------------------------- formats, trace.dat, refusals
"$FTANA" diff "$b" "$a" funccount --json >"$tmp/d.json"
assert_eq "--json: one document with the rows" 3 \
	"$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(len(d["rows"]))' "$tmp/d.json")"
assert_eq "--top 1" 2 "$("$FTANA" diff "$b" "$a" funccount --top 1 --csv | wc -l)"
dat=$ROOT_DIR/tests/data/tracedat/langraph-5.15-x86_64-v7.dat
cp "$dat" "$tmp/l.dat"
"$FTANA" diff "$tmp/l.dat" "$tmp/l.dat" runqlat --csv >"$tmp/same.csv" 2>"$tmp/err"
assert_eq "a trace.dat with itself: exit" 0 "$?"
assert_eq "a trace.dat with itself: every diff 0" 0 "$(col "$tmp/same.csv" diff | awk '$1 != 0' | wc -l)"
assert_ge "a trace.dat with itself: rows" 1 "$(($(wc -l <"$tmp/same.csv") - 1))"
# a trace.dat on one side, an .ftz on the other: each side's counts are its own report's
cp "$ROOT_DIR/samples/triage.ftz" "$tmp/mix.ftz"
"$FTANA" diff "$tmp/l.dat" "$tmp/mix.ftz" runqlat --csv >"$tmp/mix.csv" 2>"$tmp/err"
assert_eq "a trace.dat before, an .ftz after: exit" 0 "$?"
"$FTANA" report runqlat "$tmp/l.dat" --csv >"$tmp/mix.b.csv" 2>/dev/null
"$FTANA" report runqlat "$tmp/mix.ftz" --csv >"$tmp/mix.a.csv" 2>/dev/null
assert_eq "a trace.dat before: its waits are its own report's" \
	"$(col "$tmp/mix.b.csv" count | awk '{ s += $1 } END { print s + 0 }')" \
	"$(col "$tmp/mix.csv" before | awk '{ s += $1 } END { print s + 0 }')"
assert_eq "an .ftz after: its waits are its own report's" \
	"$(col "$tmp/mix.a.csv" count | awk '{ s += $1 } END { print s + 0 }')" \
	"$(col "$tmp/mix.csv" after | awk '{ s += $1 } END { print s + 0 }')"
for bad in "iolat|printed a listing" "bitesize --value comm|not a value that adds up" \
	"funccount --since 1|give each side's window" "funccount --before-stop 1|give each side's window" \
	"nosuchreport|" "funccount --top 0|bad --top"; do
	args=${bad%%|*} want=${bad#*|}
	# shellcheck disable=SC2086
	"$FTANA" diff "$tmp/case01_iolat.ftz" "$tmp/case09_iolat.ftz" $args >/dev/null 2>"$tmp/err"
	assert_eq "refused: $args: exit 1" 1 "$?"
	[ -n "$want" ] && assert_contains "refused: $args: says why" "$tmp/err" "$want"
done
"$FTANA" diff "$tmp/nosuch.ftz" "$a" funccount >/dev/null 2>"$tmp/err"
assert_eq "a missing side: exit 1" 1 "$?"
assert_one_line_error "a missing side: one line" "$tmp/err" "nosuch.ftz"
# hostile sides: not a capture, a window outside it, a capture cut short (everything
# before the cut is used, as by a report: exit 3, warned)
printf 'garbage' >"$tmp/garbage.ftz"
"$FTANA" diff "$a" "$tmp/garbage.ftz" funccount >/dev/null 2>"$tmp/err"
assert_eq "not a capture after: exit 1" 1 "$?"
assert_one_line_error "not a capture after: one line naming the side and the file" "$tmp/err" \
	"^ftana diff \\(the after side\\): .*garbage.ftz: not an .ftz file"
"$FTANA" diff "$tmp/garbage.ftz" "$a" funccount >/dev/null 2>"$tmp/err"
assert_one_line_error "not a capture before: names the side" "$tmp/err" "^ftana diff \\(the before side\\): "
"$FTANA" diff "$tmp/case01_iolat.ftz" "$tmp/case09_iolat.ftz" bitesize --after-since 99999 >/dev/null 2>"$tmp/err"
assert_eq "--after-since outside the capture: exit 1" 1 "$?"
assert_one_line_error "--after-since outside: one line naming the side and the span" "$tmp/err" \
	"^ftana diff \\(the after side\\): --since 99999: outside the capture, whose events span"
size=$(stat -c %s "$tmp/case09_iolat.ftz")
head -c $((size - 100)) "$tmp/case09_iolat.ftz" >"$tmp/cut.ftz"
"$FTANA" diff "$tmp/case01_iolat.ftz" "$tmp/cut.ftz" bitesize --csv >"$tmp/cut.csv" 2>"$tmp/err"
assert_eq "a side cut short: exit 3 (damaged), as a report's" 3 "$?"
assert_contains "a side cut short: warned" "$tmp/err" "cut.ftz: warning: damaged at offset"
assert_eq "a side cut short: its rows are the whole capture's (the cut is in the END section)" \
	"$("$FTANA" diff "$tmp/case01_iolat.ftz" "$tmp/case09_iolat.ftz" bitesize --csv | cut -d, -f1-6)" \
	"$(cut -d, -f1-6 "$tmp/cut.csv")"
# ------------------------------------------------------------- without REPORT
t=$tmp/triage.ftz s=$tmp/triage_stacks.ftz
"$FTANA" diff "$t" "$t" --json >"$tmp/page.json" 2>"$tmp/err"
assert_eq "page, a capture with itself: exit" 0 "$?"
assert_eq "page, a capture with itself: sections, skipped ones, rows whose diff is not 0" \
	"cpudist runqlat offcpu iolat syscount funccount|funccount|0" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
secs = d["sections"]
print(" ".join(x["diff"] for x in secs) + "|" + " ".join(x["diff"] for x in secs if "skipped" in x)
      + "|" + str(sum(1 for x in secs for r in x.get("rows", []) if r["diff"] != 0)))' "$tmp/page.json")"
"$FTANA" diff "$t" "$s" >"$tmp/page.txt" 2>"$tmp/err"
assert_eq "page: exit, nothing on stderr" "0 0" "$? $(grep -c . "$tmp/err")"
assert_contains "page: a section the captures cannot answer says so" "$tmp/page.txt" \
	'^\(not in both captures: `ftana diff BEFORE AFTER funccount` says why\)$'
"$FTANA" diff "$t" "$s" --json >"$tmp/page.json"
"$FTANA" diff "$t" "$s" runqlat --summary --by comm --value total_ms --top 10 --json >"$tmp/one.json"
assert_eq "page: the run-queue section is runqlat --summary --by comm diffed alone" same "$(python3 -c '
import json, sys
page = json.load(open(sys.argv[1]))
one = json.load(open(sys.argv[2]))
sec = [x for x in page["sections"] if x["diff"] == "runqlat"][0]
print("same" if sec["rows"] == one["rows"] and sec["value"] == "total_ms" else "differ")' "$tmp/page.json" "$tmp/one.json")"
"$FTANA" diff "$t" "$s" runqlat --summary --by comm --csv >"$tmp/rq.csv"
assert_eq "runqlat --summary --by comm: one row per command (percentiles are not keys)" \
	"$(col "$tmp/rq.csv" comm | sort | uniq | wc -l)" "$(($(wc -l <"$tmp/rq.csv") - 1))"
for bad in "--csv|needs a REPORT" "--value calls|needs a REPORT"; do
	args=${bad%%|*} want=${bad#*|}
	# shellcheck disable=SC2086
	"$FTANA" diff "$t" "$s" $args >/dev/null 2>"$tmp/err"
	assert_eq "page refused: $args: exit 1" 1 "$?"
	assert_one_line_error "page refused: $args: one line" "$tmp/err" "$want"
done
# ------------------------------------------------------------- --svg
cp "$ROOT_DIR/samples/block-dd-stacks.ftz" "$tmp/"
bs=$tmp/block-dd-stacks.ftz
frames() { python3 -c '
import re, sys
svg = open(sys.argv[1]).read()
for m in re.finditer(r"<g class=\"f\" data-v=\"(\d+)\" data-b=\"(\d+)\"><title>([^<]*)</title><rect [^>]*fill=\"rgb\(([0-9,]+)\)\"", svg):
    print(m.group(1), m.group(2), m.group(4), m.group(3).split(" (")[0])' "$1"; }
"$FTANA" diff "$s" "$s" offcpu --svg -o "$tmp/same.svg" 2>"$tmp/err"
assert_eq "--svg, a capture with itself: exit" 0 "$?"
frames "$tmp/same.svg" >"$tmp/same.txt"
assert_ge "--svg, a capture with itself: frames" 10 "$(wc -l <"$tmp/same.txt")"
assert_eq "--svg, a capture with itself: frames not grey, or before != after" 0 \
	"$(awk '$1 != $2 || $3 != "225,225,225"' "$tmp/same.txt" | wc -l)"
whole=$("$FTANA" report stacks --folded "$bs" | awk '{ s += $NF } END { print s }')
mid=$("$FTANA" sql "$bs" "SELECT (min(ts) + max(ts)) / 2 / 1e9 FROM events" --csv | tail -n 1)
"$FTANA" diff "$bs" "$bs" stacks --svg --before-until "$mid" --after-since "$mid" >"$tmp/halves.svg" 2>"$tmp/err"
assert_eq "--svg, two halves: exit" 0 "$?"
frames "$tmp/halves.svg" | awk '$4 == "all"' >"$tmp/root.txt"
assert_eq "--svg, two halves: their samples at the root add up to the capture's" "$whole" \
	"$(awk '{ print $1 + $2 }' "$tmp/root.txt")"
"$FTANA" diff "$s" "$bs" stacks --svg -o "$tmp/d.svg" 2>"$tmp/err"
assert_eq "--svg, a frame only AFTER has is red" 0 \
	"$(frames "$tmp/d.svg" | awk '$2 == 0 && $1 > 0 && $3 !~ /^255,/' | wc -l)"
assert_ge "--svg, frames only AFTER has" 1 "$(frames "$tmp/d.svg" | awk '$2 == 0 && $1 > 0' | wc -l)"
assert_eq "--svg: well-formed XML" ok "$(python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1]); print("ok")' "$tmp/d.svg" 2>&1)"
for bad in "stacks --svg -o $bs|" "syscount --svg|folds no stacks" "--svg|needs a REPORT" \
	"stacks --svg --csv|picture" "stacks -o $tmp/x.svg|give --svg"; do
	args=${bad%%|*} want=${bad#*|}
	# shellcheck disable=SC2086
	"$FTANA" diff "$s" "$bs" $args >/dev/null 2>"$tmp/err"
	assert_eq "--svg refused: $args: exit 1" 1 "$?"
	assert_one_line_error "--svg refused: $args: one line" "$tmp/err" "$want"
done
assert_eq "--svg refused: the input is untouched" "$(sha256sum <"$ROOT_DIR/samples/block-dd-stacks.ftz")" \
	"$(sha256sum <"$bs")"
finish
