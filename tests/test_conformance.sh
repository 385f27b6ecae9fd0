#!/usr/bin/env bash
# test_conformance.sh - format/FORMAT.md's reading rules, checked on two readers:
# ftana, and tests/ftz_reader.py, an independent reader written from FORMAT.md alone.
#  1. tests/conformance/gen.py writes the same bytes as the committed set (it is
#     deterministic and the set is up to date);
#  2. every tests/conformance/NAME.ftz, read by both: the outcome (exit status,
#     end state, damage offset, events per CPU, bad pages, losses, and for the
#     cases about the clock the time of each CPU's last event) must be the
#     one written by hand in NAME.expect (tests/conformance/README.md), and an
#     exit 1 must be one stderr line naming the problem; tools/ftzdump must not
#     hang or crash on any, and count the same events on those read undamaged;
#  3. every samples/*.ftz: the Python reader's events per CPU agree with
#     tools/ftzdump's (libtraceevent's kbuffer) and ftana's (events, and the
#     kernel stacks attached to them, per CPU).
# Exit 77 only when no python3 with the zstandard module exists (Debian's
# python3-zstandard, installed by tools/deps.sh).
set -u
. "$(dirname "$0")/lib.sh"
FAILS=0
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
FTZDUMP=${FTZDUMP:-$ROOT_DIR/$BUILD/ftzdump}
require_bin "$FTANA" "$FTZDUMP"
PY=
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import zstandard' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "no python3 with the zstandard module (apt-get install python3-zstandard)"; exit 77; }
CONF=$TESTS_DIR/conformance
READER=$TESTS_DIR/ftz_reader.py
export LSAN_OPTIONS="suppressions=$TESTS_DIR/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

work=$(mktemp -d -p /var/tmp ftana-conformance.XXXXXX)
trap 'rm -rf "$work"' EXIT

# 1. the committed set is what gen.py writes
mkdir -p "$work/gen" "$work/run"
if "$PY" "$CONF/gen.py" "$work/gen" &&
	diff -r -x README.md -x gen.py -x '*.db' "$work/gen" "$CONF" >"$work/gen.diff"; then
	pass "gen.py writes the committed set ($(ls "$CONF"/*.ftz | wc -l) files)"
else
	fail "tests/conformance differs from what gen.py writes:"; head -n 5 "$work/gen.diff"
fi

# ftana's outcome in the .expect format, from its exit status, stderr and database.
OUTCOME_SQL="
select 'end=' || (select value from meta where key = 'end_state')
union all select 'damage_offset=' || value from meta
	where key = 'damage_offset' and (select value from meta where key = 'end_state') = 'damaged'
union all select 'events=' || count(*) from events
union all select * from (select 'cpu' || cpu || '_events=' || count(*) from events group by cpu)
union all select 'cpu' || cpu || '_last_ts=' || ts from events e
	where id = (select max(id) from events where cpu = e.cpu)
union all select 'bad_pages=' || coalesce((select value from meta where key = 'bad_pages'), 0)
union all select 'lost_pages=' || count(*) from lost_events
union all select 'lost_total=' || coalesce(sum(count), 0) from lost_events
union all select 'lost_unknown=' || (count(*) - count(count)) from lost_events"

ftana_outcome() { # FILE OUT ERR
	local rc
	(cd "$(dirname "$1")" && timeout 60 "$FTANA" sql --csv "$(basename "$1")" "$OUTCOME_SQL" \
		>"$2.csv" 2>"$3" </dev/null)
	rc=$?
	echo "exit=$rc"
	if [ -s "$2.csv" ]; then
		tail -n +2 "$2.csv"
	elif [ $rc = 3 ]; then # damaged before the metadata was complete: nothing read
		echo "end=damaged"
		sed -n 's/.*damaged at offset \([0-9]*\).*/damage_offset=\1/p' "$3" | head -n 1
	fi
}

# 2. every conformance file, through both readers
n=0
for exp in "$CONF"/*.expect; do
	name=$(basename "$exp" .expect)
	n=$((n + 1))
	dir=$work/run/$name
	mkdir -p "$dir"
	cp "$CONF/$name.ftz" "$dir/"
	grep -v '^message=' "$exp" | sort >"$dir/expect"
	message=$(sed -n 's/^message=//p' "$exp")
	# the time of each CPU's last event is compared where the .expect gives it
	only_expected_ts() {
		grep -vE '_last_ts=' "$1"
		grep -E '_last_ts=' "$1" | while IFS= read -r l; do
			grep -q "^${l%%=*}=" "$dir/expect" && echo "$l"
		done
	}

	"$PY" "$READER" --why "$dir/$name.ftz" >"$dir/py.full" 2>"$dir/py.err"
	grep -v '^reason=' "$dir/py.full" >"$dir/py.all"
	only_expected_ts "$dir/py.all" | sort >"$dir/py"
	if ! diff -u "$dir/expect" "$dir/py" >"$dir/py.diff"; then
		fail "$name: ftz_reader.py: $(grep '^[-+][a-z]' "$dir/py.diff" | tr '\n' ' ')"
	elif [ -n "$message" ] && ! grep -qi -- "$message" "$dir/py.full"; then
		fail "$name: ftz_reader.py's reason does not mention '$message': $(cat "$dir/py.full")"
	else
		pass "$name: ftz_reader.py"
	fi

	ftana_outcome "$dir/$name.ftz" "$dir/ftana" "$dir/ftana.err" >"$dir/ftana.all"
	only_expected_ts "$dir/ftana.all" | sort >"$dir/ftana"
	bad=()
	diff -u "$dir/expect" "$dir/ftana" >"$dir/ftana.diff" ||
		bad+=("$(grep '^[-+][a-z]' "$dir/ftana.diff" | tr '\n' ' ')")
	grep -qE 'Sanitizer|runtime error' "$dir/ftana.err" && bad+=("sanitizer report")
	if grep -qx 'exit=1' "$dir/expect"; then
		[ "$(grep -c . "$dir/ftana.err")" = 1 ] || bad+=("error is not one line")
		grep -qi -- "$message" "$dir/ftana.err" || bad+=("error does not mention '$message'")
		grep -q -- "$name.ftz" "$dir/ftana.err" || bad+=("error does not name the file")
	fi
	if [ ${#bad[@]} = 0 ]; then
		pass "$name: ftana"
	else
		fail "$name: ftana: ${bad[*]}"
		sed 's/^/      | /' "$dir/ftana.err" | head -n 3
	fi

	# ftzdump (a debugging tool: kbuffer's walk, no metadata checks, lenient with
	# invalid payloads, lost counts as kbuffer's int) never hangs or crashes, and
	# on every file read without damage counts the same events per CPU and bad pages
	timeout 60 "$FTZDUMP" -q "$dir/$name.ftz" >"$dir/dump" 2>"$dir/dump.err"
	rc=$?
	if [ $rc != 0 ] && [ $rc != 1 ] && [ $rc != 3 ]; then
		fail "$name: ftzdump exit $rc"
	elif grep -qx 'exit=0' "$dir/expect"; then
		{
			awk '$1 == "cpu" && $6 > 0 { print "cpu" $2 "_events=" $6 }
			     $1 == "total" { print "events=" $5 }
			     $1 == "bad_pages" { bad = $2 }
			     END { print "bad_pages=" bad + 0 }' "$dir/dump"
		} | sort >"$dir/dump.got"
		grep -E '^(events|cpu[0-9]+_events|bad_pages)=' "$dir/expect" | sort >"$dir/dump.want"
		if diff -u "$dir/dump.want" "$dir/dump.got" >"$dir/dump.diff"; then
			pass "$name: ftzdump"
		else
			fail "$name: ftzdump: $(grep '^[-+][a-z]' "$dir/dump.diff" | tr '\n' ' ')"
		fi
	fi
done
[ "$n" -ge 50 ] && pass "$n conformance files" || fail "only $n conformance files"

# 3. the samples: events per CPU, three readers
for f in "$ROOT_DIR"/samples/*.ftz; do
	name=$(basename "$f")
	dir=$work/run/sample-$name
	mkdir -p "$dir"
	cp "$f" "$dir/"
	"$PY" "$READER" "$dir/$name" >"$dir/py" 2>&1
	grep -E '^cpu[0-9]+_events=' "$dir/py" | sort >"$dir/py.cpus"
	grep -E '^cpu[0-9]+_last_ts=' "$dir/py" | sort >"$dir/py.ts"
	py_total=$(sed -n 's/^events=//p' "$dir/py")
	"$FTZDUMP" -q "$dir/$name" | awk '/^cpu / && $6 > 0 { print "cpu" $2 "_events=" $6 }' |
		sort >"$dir/dump.cpus"
	if grep -qx 'exit=0' "$dir/py" && [ -s "$dir/py.cpus" ] &&
		diff -u "$dir/dump.cpus" "$dir/py.cpus" >"$dir/dump.diff"; then
		pass "$name: ftz_reader.py = ftzdump ($(tr '\n' ' ' <"$dir/py.cpus"))"
	else
		fail "$name: ftz_reader.py vs ftzdump: $(cat "$dir/py" "$dir/dump.diff" | tr '\n' ' ')"
	fi
	# ftana: per CPU, its events plus the kernel stacks attached to them (a stack
	# is an ftrace:kernel_stack record on the same CPU); stacks it could not attach
	# and events without a format have no CPU in the database: totals only then.
	(cd "$dir" && "$FTANA" sql --csv "$name" "
		select 'orphans=' || (select coalesce(sum(value), 0) from meta
			where key in ('stacks_orphan', 'unknown_events'))
		union all select 'total=' || ((select count(*) from events) +
			(select coalesce(sum(value), 0) from meta
			 where key in ('stacks_attached', 'stacks_orphan', 'unknown_events')))" \
		>"$dir/ftana.csv" 2>"$dir/ftana.err")
	orphans=$(sed -n 's/^orphans=//p' "$dir/ftana.csv")
	total=$(sed -n 's/^total=//p' "$dir/ftana.csv")
	per_cpu=
	for t in $(cd "$dir" && "$FTANA" sql --csv "$name" \
		"select table_name from event_types where table_name is not null" |
		tail -n +2); do
		per_cpu+="${per_cpu:+ union all }select cpu, 1 + (stack_id is not null) as n from \"$t\""
	done
	if [ -n "$per_cpu" ]; then
		(cd "$dir" && "$FTANA" sql --csv "$name" \
			"select 'cpu' || cpu || '_events=' || sum(n) from ($per_cpu) group by cpu" |
			tail -n +2 | sort >"$dir/ftana.cpus")
	else
		: >"$dir/ftana.cpus"
	fi
	# the clock (4.3.1): each CPU's last event, where ftana holds every record as
	# an event (no kernel stacks, which are not rows of events)
	stacks=$(cd "$dir" && "$FTANA" sql --csv "$name" "select count(*) from meta
		where key in ('stacks_attached', 'stacks_orphan') and value != '0'" | tail -n 1)
	if [ "$stacks" = 0 ]; then
		(cd "$dir" && "$FTANA" sql --csv "$name" "select 'cpu' || cpu || '_last_ts=' || ts
			from events e where id = (select max(id) from events where cpu = e.cpu)" |
			tail -n +2 | sort >"$dir/ftana.ts")
		if diff -u "$dir/py.ts" "$dir/ftana.ts" >"$dir/ts.diff"; then
			pass "$name: last event per CPU at the same time ($(tr '\n' ' ' <"$dir/py.ts"))"
		else
			fail "$name: last event times: $(grep '^[-+]c' "$dir/ts.diff" | tr '\n' ' ')"
		fi
	fi
	if [ "$total" != "$py_total" ]; then
		fail "$name: ftana counts $total records (events + stacks + unknown), ftz_reader.py $py_total"
	elif [ "$orphans" = 0 ] && ! diff -u "$dir/py.cpus" "$dir/ftana.cpus" >"$dir/ftana.diff"; then
		fail "$name: ftana per CPU: $(tr '\n' ' ' <"$dir/ftana.diff")"
	else
		pass "$name: ftana = ftz_reader.py ($total records${orphans:+, $orphans without a CPU})"
	fi
done
finish
