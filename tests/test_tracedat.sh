#!/usr/bin/env bash
# test_tracedat.sh - ftana reads trace-cmd's trace.dat (decode/decode_tracedat.c).
# Ground truth is `trace-cmd report` on four real captures from other machines
# ($TESTDATA/tracedat, see its README.md): per-type event counts, the whole event
# sequence (cpu, ns timestamp, pid, event name, kernel stack addresses), field values,
# report tpoint's text of every event (the function names of both 32-bit files
# included), the funcgraph report of the 32-bit file, damaged (cut) copies, and a v7
# file as this trace-cmd rewrites it.
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
TESTDATA=${TESTDATA:-$ROOT_DIR/tests/data}
require_bin "$FTANA"
if ! command -v trace-cmd >/dev/null; then
	echo "trace-cmd not installed: it is the ground truth here (make deps installs it)"
	exit 77
fi
if [ ! -d "$TESTDATA/tracedat" ]; then
	fail "no test data at $TESTDATA/tracedat (set TESTDATA)"
	finish
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------- trace-cmd's side

# trace-cmd report, run again when it fails or prints no event line ("[CPU] SEC.NSEC:"):
# trace-cmd 3.1.6 reads one byte past a heap block while parsing the v6 file's empty
# trace_clock (valgrind: strtok_r in tracecmd_parse_trace_clock), so the clock it then
# believes in, and with it the timestamp format, depends on heap garbage; once in a CI
# run its output had no such line. The ground truth is then its next run. (On the cut
# files it prints no event every time: three quick runs.)
tc_report() {
	local try
	for try in 1 2 3; do
		trace-cmd report "$@" >"$tmp/tc_report.out" 2>/dev/null
		grep -qE '\[[0-9]+\] +[0-9]+\.[0-9]+:' "$tmp/tc_report.out" && break
	done
	cat "$tmp/tc_report.out"
}

# tc_events FILE: one line per event as `trace-cmd report -t` prints it,
# "CPU SEC.NSEC PID NAME", a kernel_stack folded into the event before it on the same
# CPU as " | ADDR..." (as ftana attaches stacks); unattached stacks are counted in
# $tmp/tc_orphans.
tc_events() {
	tc_report -t -i "$1" 2>/dev/null |
	sed -nE -e 's/^.*-([0-9]+) +\[([0-9]+)\] +([0-9]+\.[0-9]+): +([^ :]+):.*$/E \2 \3 \1 \4/p' \
		-e 's/^=> .*\(([0-9a-f]+)\)$/S \1/p' -e 's/^=> (0x)?([0-9a-f]+)$/S \2/p' |
	awk -v orphans="$tmp/tc_orphans" '
		$1 == "E" && $5 == "kernel_stack" {
			c = $2 + 0; cur = -1
			if ((c in last) && !(last[c] in has)) { cur = last[c]; has[cur] = 1 } else o++
			next
		}
		$1 == "E" { n++; line[n] = ($2 + 0) " " $3 " " $4 " " $5; last[$2 + 0] = n; cur = -1; next }
		$1 == "S" && cur > 0 { stk[cur] = stk[cur] " " $2 }
		END {
			for (i = 1; i <= n; i++) print line[i] ((i in has) ? " |" stk[i] : "")
			print o + 0 > orphans
		}'
}

# tc_counts FILE: "NAME COUNT" per event name, kernel_stack included.
tc_counts() {
	tc_report -t -i "$1" 2>/dev/null |
	sed -nE 's/^.*-[0-9]+ +\[[0-9]+\] +[0-9]+\.[0-9]+: +([^ :]+):.*$/\1/p' | sort | uniq -c |
	awk '{ print $2, $1 }'
}

# tc_fields FILE EVENT FIELD...: "CPU SEC.NSEC V1 V2 ..." for each EVENT, the values of
# FIELD=VALUE in the event's own print format (-N: no plugins reformat it). A value
# runs to the next " NAME=" (comms may hold spaces); decimal values lose leading zeros.
tc_fields() {
	local file=$1 ev=$2; shift 2
	tc_report -N -t -i "$file" 2>/dev/null |
	sed -nE "s/^.*-[0-9]+ +\[([0-9]+)\] +([0-9]+\.[0-9]+): +$ev: +(.*)$/\1 \2 \3/p" |
	awk -v fields="$*" '{
		n = split(fields, f, " "); out = ($1 + 0) " " $2
		rest = $0; sub(/^[^ ]+ [^ ]+ /, " ", rest)
		for (i = 1; i <= n; i++) {
			v = "?"; p = index(rest, " " f[i] "=")
			if (p) {
				v = substr(rest, p + length(f[i]) + 2)
				if (match(v, / \[?[A-Za-z_][A-Za-z0-9_]*=/)) v = substr(v, 1, RSTART - 1)
				sub(/ +$/, "", v)
				if (v ~ /^[0-9]+$/) v = v + 0
			}
			out = out " " v
		}
		print out
	}'
}

# ---------------------------------------------------------------- ftana's side

# q FILE SQL: rows of a one-column query as CSV without its header (alias it: the
# header of an unnamed column is the expression, which may span lines).
q() { "$FTANA" sql "$1" "$2" --csv 2>>"$tmp/ftana.err" | tail -n +2; }
meta() { q "$1" "SELECT value FROM meta WHERE key = '$2'"; }
TS="printf('%d %d.%09d', cpu, ts / 1000000000, ts % 1000000000)"

# ftana_events FILE: the same lines from the database (every typed table, by id).
ftana_events() {
	local union="" t name
	while read -r t name; do
		[ -n "$union" ] && union="$union UNION ALL "
		union="${union}SELECT id, cpu, ts, pid, '$name' AS name, stack_id FROM \"$t\""
	done < <(q "$1" "SELECT table_name || ' ' || name AS t FROM event_types WHERE table_name IS NOT NULL")
	q "$1" "WITH ev AS ($union),
		st AS (SELECT stack_id, group_concat(a, ' ') AS addrs FROM
		       (SELECT stack_id, printf('%x', addr) AS a FROM stacks ORDER BY stack_id, depth)
		       GROUP BY stack_id)
		SELECT $TS || ' ' || pid || ' ' || name ||
		       CASE WHEN ev.stack_id IS NULL THEN '' ELSE ' |' || ifnull(' ' || addrs, '') END AS line
		FROM ev LEFT JOIN st ON st.stack_id = ev.stack_id ORDER BY id"
}

# ftana_counts FILE: "NAME COUNT", kernel_stack = stacks attached + orphaned.
ftana_counts() {
	{
		q "$1" "SELECT name || ' ' || count AS line FROM event_types WHERE count > 0"
		local ks; ks=$(q "$1" "SELECT sum(value) AS n FROM meta WHERE key IN ('stacks_attached', 'stacks_orphan')")
		[ "${ks:-0}" -gt 0 ] && echo "kernel_stack $ks"
	} | sort
}

# ftana_fields FILE TABLE FIELD[/SQL]...: "CPU SEC.NSEC V1 V2 ..." by id; SQL (no
# spaces) when the column is named or printed differently from trace-cmd's text.
ftana_fields() {
	local file=$1 table=$2 cols="" f; shift 2
	for f in "$@"; do
		case $f in */*) f=${f#*/} ;; *) f="\"$f\"" ;; esac
		cols="$cols || ' ' || $f"
	done
	q "$file" "SELECT $TS $cols AS line FROM \"$table\" ORDER BY id"
}

# same WHAT EXPECTED_FILE SEEN_FILE: equal line for line (first differences shown).
same() {
	if [ ! -s "$2" ]; then
		fail "$1: trace-cmd gave nothing to compare"
	elif cmp -s "$2" "$3"; then
		pass "$1: $(wc -l <"$2") lines identical"
	else
		fail "$1: differs from trace-cmd (< trace-cmd, > ftana):"
		diff "$2" "$3" | head -n 12 | sed 's/^/      | /'
	fi
}

# graph_names FILE: funcgraph_entry/exit text with the function's address replaced by
# its name in the file's own kallsyms as `trace-cmd dump --kallsyms` lists them (the
# graph tracer records entry points: the address is a symbol's). Old kernels' format
# prints "--> c6b9f810 (0)", later kernels' (%ps) and ftana "--> do_IRQ (0)".
graph_names() {
	trace-cmd dump --kallsyms "$1" >"$tmp/kallsyms" 2>/dev/null
	awk 'FNR == NR { if (NF >= 3 && !($1 in name)) name[$1] = $3; next }
		/^funcgraph_(entry|exit): (-->|<--) [0-9a-f]+ \(/ && ($3 in name) { $3 = name[$3] }
		{ print }' "$tmp/kallsyms" -
}

# ---------------------------------------------------------------- per file

check_file() { # NAME FIELD-CHECKS...
	local name=$1 f="$tmp/$1"
	cp "$TESTDATA/tracedat/$name" "$f"
	chmod u+w "$f"
	echo "== $name"
	if ! "$FTANA" db "$f" >/dev/null 2>"$tmp/db.err"; then
		fail "$name: ftana db failed: $(head -n 3 "$tmp/db.err")"
		return
	fi
	"$FTANA" info "$f" >"$tmp/info.txt" 2>&1
	assert_eq "$name: ftana info exit" 0 $?
	local cpus; cpus=$(tc_report -i "$f" 2>/dev/null | sed -n 's/^cpus=//p' | head -n 1)
	assert_contains "$name: info shows trace-cmd's cpus=$cpus" "$tmp/info.txt" "^cpus +$cpus\$"
	assert_eq "$name: source format" "trace.dat v$(head -c 11 "$f" | tail -c 1)" "$(meta "$f" source_format)"

	tc_counts "$f" >"$tmp/tc_counts"
	ftana_counts "$f" >"$tmp/fa_counts"
	same "$name: events per type" "$tmp/tc_counts" "$tmp/fa_counts"
	echo "      trace-cmd: $(tr '\n' ' ' <"$tmp/tc_counts")"

	tc_events "$f" >"$tmp/tc_events"
	ftana_events "$f" >"$tmp/fa_events"
	same "$name: event sequence (cpu, ns, pid, event, stack addresses)" "$tmp/tc_events" "$tmp/fa_events"
	assert_eq "$name: events_total" "$(wc -l <"$tmp/tc_events")" "$(meta "$f" events_total)"
	assert_eq "$name: orphan stacks" "$(cat "$tmp/tc_orphans")" "$(meta "$f" stacks_orphan)"
	assert_eq "$name: lost-event rows (trace-cmd's EVENTS DROPPED lines)" \
		"$(tc_report -i "$f" 2>/dev/null | grep -c 'EVENTS DROPPED\|LOST EVENTS')" \
		"$(q "$f" "SELECT count(*) FROM lost_events")"
	# report tpoint decodes the file again and prints each event with libtraceevent:
	# its text after "EVENT: " must be trace-cmd's (-N: the event's own print format)
	"$FTANA" report tpoint "$f" 2>"$tmp/tp.err" |
		sed -nE 's/^.*\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: ([^ :]+): (.*)$/\1: \2/p' |
		grep -v '^<stack trace>' | tr -s ' ' >"$tmp/fa_text"
	assert_eq "$name: report tpoint exit" 0 "${PIPESTATUS[0]}"
	# shellcheck disable=SC2086 # TC_TEXT_OPTS is a list of options
	tc_report ${TC_TEXT_OPTS:--N} -t -i "$f" 2>/dev/null |
		sed -nE 's/^.*\[[0-9]+\] +[0-9]+\.[0-9]+: +([^ :]+): +(.*)$/\1: \2/p' |
		grep -v '^kernel_stack:' | tr -s ' ' | graph_names "$f" >"$tmp/tc_text"
	same "$name: report tpoint text of every event" "$tmp/tc_text" "$tmp/fa_text"
	shift
	local spec
	for spec in "$@"; do # "EVENT FIELD[/SQL] ..."
		# shellcheck disable=SC2086
		set -- $spec
		local ev=$1; shift
		tc_fields "$f" "$ev" "${@%%/*}" >"$tmp/tc_fields"
		ftana_fields "$f" "$ev" "$@" >"$tmp/fa_fields"
		same "$name: $ev fields (${*%%/*})" "$tmp/tc_fields" "$tmp/fa_fields"
	done
	[ -s "$tmp/ftana.err" ] && { fail "$name: ftana sql errors:"; sed 's/^/      | /' "$tmp/ftana.err"; }
	: >"$tmp/ftana.err"
}

SWITCH="sched_switch prev_comm prev_pid prev_prio next_comm next_pid next_prio"
check_file langraph-5.15-x86_64-v7.dat "$SWITCH" \
	"sched_waking comm pid/field_pid prio target_cpu" \
	"irq_handler_entry irq name" "softirq_entry vec"
check_file kernelshark-wsl2-5.15-v7.dat "$SWITCH" \
	"sched_wakeup comm pid/field_pid prio target_cpu" \
	"mm_page_alloc pfn/printf('0x%x',pfn) order migratetype" \
	"kmem_cache_alloc ptr/printf('0x%x',ptr) bytes_req bytes_alloc"
check_file labsisop-4.13-i686-funcgraph-v6.dat "irq_handler_entry irq name"
assert_eq "funcgraph file: trace-cmd text's graph events, named from its kallsyms" 14 \
	"$(grep -cE '^funcgraph_(entry|exit): (-->|<--) [A-Za-z_][A-Za-z0-9_.]* \(' "$tmp/tc_text")"
# 4.13's ftrace:function format prints " %lx <-- %lx"; trace-cmd report names the
# functions with libtraceevent's function plugin (parent shown, no indent: the form
# later kernels' " %ps <-- %ps" prints, and ftana's). The file holds only function
# events, so loading plugins changes no other event's text.
TC_TEXT_OPTS="-O parent=1 -O indent=0" check_file labsisop-4.13-i686-function-v6.dat
fn_text="$tmp/tc_text" # the ground truth just compared must itself be names, not numbers
assert_eq "function file: trace-cmd text lines naming no function" 0 \
	"$(grep -cE '^function: (0x)?[0-9a-f]+ <-- (0x)?[0-9a-f]+$' "$fn_text")"
assert_eq "function file: first event in trace-cmd's text" \
	"function: switch_mm_irqs_off <-- __schedule" "$(head -n 1 "$fn_text")"

# ---------------------------------------------------------------- 32-bit function_graph

fg="$tmp/labsisop-4.13-i686-funcgraph-v6.dat"
echo "== funcgraph (32-bit, v6)"
# -N output: "--> FUNC (DEPTH)" and "<-- FUNC (DEPTH) (start: CALLTIME  end: RETTIME) over: N", hex
tc_report -N -t -i "$fg" 2>/dev/null |
	sed -nE 's/^.*\[([0-9]+)\] +([0-9.]+): funcgraph_entry: +--> ([0-9a-f]+) \(([0-9]+)\)$/\1 \2 \3 \4/p' |
	awk '{ print ($1 + 0), $2, $3, $4 }' >"$tmp/tc_fge"
q "$fg" "SELECT $TS || printf(' %x %d', func, depth) AS line FROM funcgraph_entry ORDER BY id" >"$tmp/fa_fge"
same "funcgraph_entry func, depth" "$tmp/tc_fge" "$tmp/fa_fge"
tc_report -N -t -i "$fg" 2>/dev/null |
	sed -nE 's/^.*\[([0-9]+)\] +([0-9.]+): funcgraph_exit: +<-- ([0-9a-f]+) \(([0-9]+)\) \(start: ([0-9a-f]+) +end: ([0-9a-f]+)\) over: ([0-9]+)$/\1 \2 \3 \4 \5 \6 \7/p' |
	awk '{ print ($1 + 0), $2, $3, $4, $5, $6, $7 }' >"$tmp/tc_fgx"
q "$fg" "SELECT $TS || printf(' %x %d %x %x %d', func, depth, calltime, rettime, overrun) AS line
	 FROM funcgraph_exit ORDER BY id" >"$tmp/fa_fgx"
same "funcgraph_exit func, depth, calltime, rettime, overrun" "$tmp/tc_fgx" "$tmp/fa_fgx"

# The report: trace-cmd's function-graph view (its built-in, not a plugin) against
# `ftana report funcgraph`: the same calls, names and durations (ftana groups by task).
tc_report -i "$fg" 2>/dev/null | grep 'funcgraph_' >"$tmp/tc_graph"
"$FTANA" report funcgraph "$fg" >"$tmp/fa_graph" 2>"$tmp/fa_graph.err"
assert_eq "ftana report funcgraph exit" 0 $?
assert_eq "funcgraph entries (trace-cmd lines)" 7 "$(grep -c funcgraph_entry "$tmp/tc_graph")"
assert_eq "funcgraph exits (trace-cmd lines)" 7 "$(grep -c funcgraph_exit "$tmp/tc_graph")"
grep -oE '[0-9]+\.[0-9]{3} us' "$tmp/tc_graph" | sort >"$tmp/tc_dur"
grep -oE '[0-9]+\.[0-9]{3} us' "$tmp/fa_graph" | sort >"$tmp/fa_dur"
same "funcgraph durations" "$tmp/tc_dur" "$tmp/fa_dur"
grep funcgraph_entry "$tmp/tc_graph" | grep -oE '[A-Za-z_][A-Za-z0-9_.]*\(\)' | tr -d '()' | sort >"$tmp/tc_names"
grep -E ' us +\|' "$tmp/fa_graph" | grep -oE '[A-Za-z_][A-Za-z0-9_.]*\(\)' | tr -d '()' | sort >"$tmp/fa_names"
same "funcgraph function names" "$tmp/tc_names" "$tmp/fa_names"

# ---------------------------------------------------------------- damaged copies

echo "== damaged copies"
damaged() { # WHAT SOURCE BYTES
	local cut="$tmp/cut-$3.dat" rc
	head -c "$3" "$TESTDATA/tracedat/$2" >"$cut"
	# trace-cmd reads no event of these copies either (it may still exit 0)
	assert_eq "$1: events trace-cmd reads" 0 \
		"$(tc_report -i "$cut" 2>/dev/null | grep -cE '\[[0-9]+\] +[0-9]+\.[0-9]+:')"
	"$FTANA" info "$cut" >"$tmp/cut.out" 2>"$tmp/cut.err"
	rc=$?
	assert_eq "$1: ftana info exit (damaged)" 3 "$rc"
	assert_one_line_error "$1: error" "$tmp/cut.err" "damaged trace.dat"
}
v6=labsisop-4.13-i686-funcgraph-v6.dat v7=langraph-5.15-x86_64-v7.dat
damaged "v6 cut inside its CPU data" $v6 $(($(stat -c %s "$TESTDATA/tracedat/$v6") - 100))
damaged "v6 cut in its headers" $v6 300000
damaged "v7 cut in half" $v7 $(($(stat -c %s "$TESTDATA/tracedat/$v7") / 2))
damaged "cut inside the magic" $v7 5

# ---------------------------------------------------------------- v7 as written here

# The v7 checks made before libtracecmd reads a file (decode/tracedat_check.c) refuse
# nothing trace-cmd writes: the samples come from trace-cmd 3.1.4 and 3.3.1; this one
# rewrites the 3.1.4 file uncompressed and with zstd, and ftana reads what it reads.
echo "== v7 rewritten by this trace-cmd"
for z in none zstd; do
	f="$tmp/rewritten-$z.dat"
	if ! trace-cmd convert -i "$TESTDATA/tracedat/$v7" -o "$f" --file-version 7 \
		--compression "$z" >/dev/null 2>&1; then
		fail "trace-cmd convert to v7 ($z) failed"
		continue
	fi
	tc_counts "$f" >"$tmp/tc_counts"
	ftana_counts "$f" >"$tmp/fa_counts"
	same "v7 rewritten ($z): events per type" "$tmp/tc_counts" "$tmp/fa_counts"
done

finish
