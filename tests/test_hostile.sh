#!/usr/bin/env bash
# test_hostile.sh - ftana against captures made by an attacker (issue 10): SQL
# injection through names, field layouts that overflow, print formats that kill
# libtraceevent, decompression bombs (in one file, and spread over a disk ring), 3000 CPUs, 250k sections, terminal escapes,
# a planted cache, SQL that writes; and trace.dat v7 files whose declared sizes and
# offsets are bombs, loops or cut tables (issue 25). tests/hostile/gen.py writes one capture per
# class and a MANIFEST with the expected outcome of each run (read its header);
# this script runs `ftana db`, `info`, `report tpoint` and `sql` as it says and
# checks, for every run: the exit code, no sanitizer report, no signal and no hang
# (timeout 60), exit 1 -> one stderr line, no raw ESC on stdout/stderr, the RSS
# bound (the unsanitized ftana under prlimit --as and /usr/bin/time), and that no
# file appeared anywhere in the work dir but the capture's own cache -- in
# particular not the pwned*.db paths the captures try to ATTACH / VACUUM INTO.
# Then SIGINT/TERM/HUP during an import: no temporary database may survive.
#
# HOSTILE_CASES="sqli_system esc_text" runs only those cases. Everything happens in
# a temporary directory (cwd, HOME, TMPDIR, XDG_CACHE_HOME), removed at exit.
set -u
. "$(dirname "$0")/lib.sh"
FTANA=${FTANA:-$ROOT_DIR/$BUILD/san/ftana}
FTANA_PLAIN=${FTANA_PLAIN:-$ROOT_DIR/$BUILD/ftana}
require_bin "$FTANA" "$FTANA_PLAIN"
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
for t in prlimit /usr/bin/time timeout; do
	command -v "$t" >/dev/null || { echo "$t not installed (make deps)"; exit 77; }
done

work=$(mktemp -d -p /var/tmp ftana-hostile.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/gen" "$work/run" "$work/log" "$work/home" "$work/tmp" "$work/xdg"
# shellcheck disable=SC2086  # a list of case names
python3 "$TESTS_DIR/hostile/gen.py" "$work/gen" ${HOSTILE_CASES:-} ||
	{ echo "FAIL: gen.py"; exit 1; }

# libtraceevent leaks what a format it cannot parse had allocated (not ours to free).
export LSAN_OPTIONS="suppressions=$TESTS_DIR/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# Every path under the work dir except our own logs and the generated originals.
listing() {
	(cd "$work" && find . -path ./log -prune -o -path ./gen -prune -o -print | sort)
}

# Paths the injected statements name, wherever a relative path could resolve.
pwned_anywhere() {
	find "$work" "$ROOT_DIR" /tmp /var/tmp "$HOME" -maxdepth 3 -name 'pwned*' 2>/dev/null
}
pwned_before=$(pwned_anywhere | sort)

# Plant case: A's database, built by ftana as the same user would (same HOME and
# cache dir), as the cache of B (same size, same mtime, same format version): B
# must be read from B.
plant() {
	local dir=$1
	cp "$work/gen/planted_a.ftz" "$dir/"
	touch -d '2021-02-03 04:05:06.123456789' "$dir/planted_a.ftz" "$dir/planted_b.ftz"
	(cd "$dir" && HOME=$work/home TMPDIR=$work/tmp XDG_CACHE_HOME=$work/xdg \
		"$FTANA_PLAIN" db planted_a.ftz -o planted_b.ftz.db >/dev/null 2>&1) ||
		fail "planted_b: building A's database to plant failed"
	rm -f "$dir/planted_a.ftz"
}

declare -A case_fail case_runs
order=()
n=0
while IFS=$'\t' read -r name file cmd exits rss nofile check; do
	dir=$work/run/$name
	if [ ! -d "$dir" ]; then
		mkdir -p "$dir"
		# a ring's segments go beside its head (FORMAT.md 10.1: NAME.ring-NNNNNN.ftz)
		mapfile -t segments < <(compgen -G "$work/gen/${file%.ftz}.ring-*.ftz")
		cp "$work/gen/$file" "${segments[@]}" "$dir/"
		[ "$name" = planted_b ] && plant "$dir"
		order+=("$name")
		case_fail[$name]=0 case_runs[$name]=0
	fi
	case $cmd in
	db) args=(db "$file") ;;
	info) args=(info "$file") ;;
	tpoint) args=(report tpoint "$file") ;;
	sql:*) args=(sql "$file" "${cmd#sql:}") ;;
	report:*) read -ra words <<<"${cmd#report:}"; args=(report "${words[0]}" "$file" "${words[@]:1}") ;;
	*) fail "$name: unknown command '$cmd' in MANIFEST"; continue ;;
	esac
	n=$((n + 1))
	log=$work/log/$n
	bin=$FTANA prefix=()
	if [ "$rss" != 0 ]; then
		# ASan reserves terabytes of address space: the memory bound is measured on
		# the plain build, with an address-space limit so a regression cannot take
		# the machine down with it.
		bin=$FTANA_PLAIN
		prefix=(/usr/bin/time -f '%M' -o "$log.time" prlimit --as=$((rss * 2 * 1024 * 1024)) --)
	fi
	[ "$nofile" != 0 ] && prefix+=(prlimit --nofile="$nofile" --)
	listing >"$log.before"
	t0=$(date +%s%N)
	(cd "$dir" && HOME=$work/home TMPDIR=$work/tmp XDG_CACHE_HOME=$work/xdg \
		timeout 60 "${prefix[@]}" "$bin" "${args[@]}" >"$log.out" 2>"$log.err" </dev/null)
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	listing >"$log.after"
	case_runs[$name]=$((case_runs[$name] + 1))
	what="$name: ftana ${args[*]}"
	bad=()

	# exit status, signals, hangs, sanitizers
	if [ $rc = 124 ]; then bad+=("hung (killed after 60 s)")
	elif [ $rc -gt 128 ]; then bad+=("died of signal $((rc - 128))")
	elif [[ ",$exits," != *",$rc,"* ]]; then bad+=("exit $rc, expected $exits")
	fi
	grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:|AddressSanitizer:DEADLYSIGNAL' "$log.err" &&
		bad+=("sanitizer: $(grep -m1 -E 'ERROR: |runtime error:|DEADLYSIGNAL' "$log.err")")
	if [ $rc = 1 ] && [ "$(grep -c . "$log.err")" != 1 ]; then
		bad+=("error is not one line ($(grep -c . "$log.err") lines)")
	fi
	grep -q $'\x1b' "$log.out" "$log.err" && bad+=("raw ESC on the terminal")
	# memory
	if [ "$rss" != 0 ]; then
		kb=$(tail -n 1 "$log.time" 2>/dev/null)
		if [[ "$kb" =~ ^[0-9]+$ ]]; then
			[ "$kb" -gt $((rss * 1024)) ] && bad+=("peak RSS $((kb / 1024)) MB > $rss MB")
		else
			bad+=("no RSS measured: $(head -c 200 "$log.time" 2>/dev/null)")
		fi
	fi
	# stray files: only the capture's own cache may appear, and ftana's state in its
	# cache directory (a key that signs the caches it builds)
	stray=$(comm -13 "$log.before" "$log.after" | grep -vxF "./run/$name/$file.db" |
		grep -vxE '\./(xdg|home/\.cache)/ftana(/[^/]+)?')
	[ -n "$stray" ] && bad+=("files created: $(echo "$stray" | tr '\n' ' ')")
	# the MANIFEST's own checks
	IFS=$'\x01' read -r -a checks <<<"${check// ;; /$'\x01'}"
	for c in "${checks[@]}"; do
		case $c in
		-) ;;
		stdout=*) grep -qE -- "${c#stdout=}" "$log.out" || bad+=("no stdout line matches '${c#stdout=}'") ;;
		out=*) cat "$log.out" "$log.err" | grep -qE -- "${c#out=}" ||
			bad+=("no output line matches '${c#out=}'") ;;
		nostdout=*) grep -qE -- "${c#nostdout=}" "$log.out" && bad+=("stdout matches '${c#nostdout=}'") ;;
		nostderr=*) grep -qE -- "${c#nostderr=}" "$log.err" && bad+=("stderr matches '${c#nostderr=}'") ;;
		time=*) [ "$ms" -gt $((${c#time=} * 1000)) ] && bad+=("took $ms ms > ${c#time=} s") ;;
		errlines=*) [ "$(grep -c . "$log.err")" = "${c#errlines=}" ] ||
			bad+=("stderr has $(grep -c . "$log.err") lines, not ${c#errlines=}") ;;
		*) bad+=("unknown check '$c'") ;;
		esac
	done

	if [ ${#bad[@]} = 0 ]; then
		pass "$what -> exit $rc (${ms} ms)"
	else
		case_fail[$name]=$((case_fail[$name] + 1))
		fail "$what: $(IFS=';'; echo "${bad[*]}")"
		sed 's/^/      | /' "$log.err" | cut -c1-200 | head -n 5
	fi
done <"$work/gen/MANIFEST"

# An import interrupted by a signal ftana handles leaves no temporary database.
if [ -f "$work/gen/files_250k.ftz" ]; then
	for sig in INT TERM HUP; do
		dir=$work/run/signal-$sig
		mkdir -p "$dir"
		cp "$work/gen/files_250k.ftz" "$dir/"
		(cd "$dir" && HOME=$work/home TMPDIR=$work/tmp XDG_CACHE_HOME=$work/xdg \
			exec "$FTANA" db files_250k.ftz >/dev/null 2>"$work/log/signal-$sig.err") &
		pid=$!
		sleep 1
		kill -s "$sig" $pid 2>/dev/null
		{ wait $pid; } 2>/dev/null # no "Hangup" job notice
		rc=$?
		left=$(cd "$work" && find . -path ./log -prune -o -path ./gen -prune -o -name '*.tmp*' -print)
		if [ -z "$left" ] && ! grep -q 'Sanitizer' "$work/log/signal-$sig.err"; then
			pass "SIG$sig during an import (exit $rc): no temporary file left"
		else
			fail "SIG$sig during an import (exit $rc): left ${left:-nothing}; $(grep -m1 Sanitizer "$work/log/signal-$sig.err")"
		fi
	done
fi

pwned_after=$(pwned_anywhere | sort)
[ "$pwned_before" = "$pwned_after" ] && pass "no pwned* file anywhere" ||
	fail "injected paths exist: $(comm -13 <(echo "$pwned_before") <(echo "$pwned_after") | tr '\n' ' ')"

echo
echo "class                    runs  failed"
for name in "${order[@]}"; do
	printf '%-24s %4d  %6d  %s\n' "$name" "${case_runs[$name]}" "${case_fail[$name]}" \
		"$([ "${case_fail[$name]}" = 0 ] && echo PASS || echo FAIL)"
done
finish
