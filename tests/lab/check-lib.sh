# Sourced by the host side of lab scenarios (scenarios/NAME.check.sh). Every check prints
# one line, expected next to seen, so a failure explains itself; check_done exits 1 if any
# check failed. FTANA is the ftana to query the captures with.
check_failed=0
_check_line() { # ok|FAIL label expected seen
	printf '%-4s %-44s expected: %-20s seen: %s\n' "$1" "$2" "$3" "$4"
	[ "$1" = ok ] || check_failed=1
}
expect() { # label expected seen
	if [ "$2" = "$3" ]; then _check_line ok "$1" "$2" "$3"; else _check_line FAIL "$1" "$2" "$3"; fi
}
expect_ge() { # label minimum seen (integers)
	if [ -n "$3" ] && [ "$3" -ge "$2" ] 2>/dev/null; then
		_check_line ok "$1" ">= $2" "$3"
	else
		_check_line FAIL "$1" ">= $2" "$3"
	fi
}
# expect_rows label expected-text seen-text: multi-line results, side by side on failure.
expect_rows() {
	if [ "$2" = "$3" ]; then
		_check_line ok "$1" "$(printf '%s\n' "$2" | wc -l) rows" "same"
	else
		_check_line FAIL "$1" "(below, left)" "(below, right)"
		diff -y -W 160 <(printf '%s\n' "$2") <(printf '%s\n' "$3")
	fi
}
# q FILE SQL: the rows of an ftana query as CSV without the header line.
q() { "$FTANA" sql "$1" "$2" --csv | sed 1d; }
check_done() { exit $check_failed; }
