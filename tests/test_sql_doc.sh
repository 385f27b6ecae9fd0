#!/usr/bin/env bash
# test_sql_doc.sh - the example queries of docs/SQL.md run, on the sample each names
# ("Sample: `samples/X.ftz`" before its ```sql block), and give rows; and every view
# docs/SQL.md documents under "### name" headings of the report views exists for
# `ftana sql` on some committed sample.
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
require_bin "$FTANA"
doc=$ROOT_DIR/docs/SQL.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$ROOT_DIR"/samples/*.ftz "$work/"

# Split the examples: one file per ```sql block, with the sample it names.
awk -v dir="$work" '
	/^Sample: `samples\/[^`]*`/ { match($0, /samples\/[^`]*/); sample = substr($0, RSTART + 8, RLENGTH - 8) }
	/^```sql$/ && sample != "" { n++; f = dir "/ex" n ".sql"; print sample > (dir "/ex" n ".sample"); on = 1; next }
	/^```$/ && on { on = 0; sample = ""; next }
	on { print > f }' "$doc"
n=$(ls "$work"/ex*.sql 2>/dev/null | wc -l)
assert_ge "examples in docs/SQL.md" 3 "$n"
for f in "$work"/ex*.sql; do
	sample=$(cat "${f%.sql}.sample")
	"$FTANA" sql "$work/$sample" "$(cat "$f")" --csv >"$work/out" 2>"$work/err"
	assert_eq "$(basename "$f") on $sample: exit" 0 "$?"
	[ -s "$work/err" ] && fail "$(basename "$f"): stderr: $(head -n 2 "$work/err")"
	assert_ge "$(basename "$f") on $sample: rows" 1 "$(($(wc -l <"$work/out") - 1))"
done
# ground truth for example 1: its I/O counts add up to the io view's rows, which are the
# capture's paired completions (as many as block_rq_complete rows with an issue)
"$FTANA" sql "$work/iolat.ftz" "$(cat "$work/ex1.sql" | sed 's/LIMIT 5;/;/')" --csv |
	awk -F, 'NR > 1 { n += $3 } END { print n + 0 }' >"$work/sum"
assert_eq "example 1: I/Os per process add up to io's rows" \
	"$("$FTANA" sql "$work/iolat.ftz" "SELECT count(*) FROM io" --csv | tail -n 1)" "$(cat "$work/sum")"

# every documented view exists on at least one sample: "### <name>" headings in the
# report views part name views; each must be SELECTable somewhere
views=$(awk '/<!-- REPORT VIEWS/ { on = 1 } /^## Three post-mortem/ { on = 0 } on && /^### [a-z][a-z0-9_]*( |$)/ { print $2 }' "$doc")
for v in $views; do
	found=
	for s in "$work"/*.ftz; do
		if "$FTANA" sql "$s" "SELECT * FROM \"$v\" LIMIT 1" >/dev/null 2>&1; then found=$s; break; fi
	done
	[ -n "$found" ] && pass "view $v documented and queryable ($(basename "$found"))" ||
		fail "view $v is documented in docs/SQL.md but no sample has it"
done
finish
