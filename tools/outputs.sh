#!/usr/bin/env bash
# tools/outputs.sh FTANA OUTDIR [INPUT...] - every output of ftana on every input, one file per
# run, so that two builds can be compared with `diff -r` (a refactor must change none; a
# change of contract shows exactly where). Each run's file holds its exit status, stdout and
# stderr; pictures, timelines and trace.dat files are reduced to their sha256.
#
# Inputs: the INPUT files given, or by default samples/*.ftz, tests/data/tracedat/*.dat,
# tests/conformance/*.ftz, the hostile captures tests/hostile/gen.py writes, and every
# capture the last lab run left in $BUILD/lab/out (LAB_OUT=DIR: another one).
# Every input is copied into a work dir of its own (its cache beside it), and ftana runs
# there with HOME, TMPDIR and XDG_CACHE_HOME inside it, under `timeout 120`.
#   tools/outputs.sh build-old/ftana /tmp/old && tools/outputs.sh build/ftana /tmp/new
#   diff -r /tmp/old /tmp/new
# OUTPUTS_JOBS=N runs N inputs at once (default: the number of CPUs). OUTPUTS_FRESH=1 removes
# the capture's cached database before every run, so each imports what it needs itself.
set -u
[ $# -ge 2 ] || { echo "usage: tools/outputs.sh FTANA OUTDIR [INPUT...]" >&2; exit 2; }
FTANA=$(realpath "$1") OUT=$(realpath -m "$2")
shift 2
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD BUILD=${BUILD:-build}
[ -x "$FTANA" ] || { echo "outputs: $FTANA is not executable" >&2; exit 2; }
mkdir -p "$OUT" || exit 1
work=$(mktemp -d -p /var/tmp ftana-outputs.XXXXXX)
trap 'rm -rf "$work"' EXIT

inputs=("$@")
if [ ${#inputs[@]} -eq 0 ]; then
	python3 tests/hostile/gen.py "$work/hostile" >/dev/null || echo "outputs: gen.py failed" >&2
	inputs=(samples/*.ftz tests/data/tracedat/*.dat tests/conformance/*.ftz)
	for f in "$work"/hostile/*.ftz "$work"/hostile/*.dat; do
		[ -f "$f" ] && inputs+=("$f")
	done
	lab=${LAB_OUT:-$BUILD/lab/out}
	# a ring's segments and a series' later files come with their head
	while IFS= read -r f; do
		inputs+=("$f")
	done < <(find "$lab" -name '*.ftz' ! -name '*.ring-*' ! -name '*-000[2-9].ftz' 2>/dev/null | sort)
fi

REPORTS=$("$FTANA" report --help | awk '/^reports:/ { on = 1; next } on && NF { print $1 }')

# one_input FILE: every run on it, into $OUT/<name>/
one_input() {
	local src=$1 name dir w f
	name=$(echo "$src" | sed "s|^$work/||; s|^\./||; s|/|__|g")
	dir=$OUT/$name w=$work/run/$name
	mkdir -p "$dir" "$w/home" "$w/tmp" "$w/xdg" "$w/in"
	# the capture and what comes with it (a ring's segments, a series' files)
	f=$(basename "$src")
	cp -p "$src" "$w/in/"
	case $f in *.ftz)
		for s in "$(dirname "$src")/${f%.ftz}".ring-*.ftz "$(dirname "$src")/${f%-0001.ftz}"-000[2-9].ftz; do
			[ -f "$s" ] && cp -p "$s" "$w/in/"
		done ;;
	esac
	# a series is opened by all its files
	local files=("in/$f")
	case $f in *-0001.ftz)
		for s in "$w/in/${f%-0001.ftz}"-000[2-9].ftz; do [ -f "$s" ] && files+=("in/$(basename "$s")"); done ;;
	esac
	run() { # label, args...
		local label=$1
		shift
		[ -n "${OUTPUTS_FRESH:-}" ] && rm -f "$w"/in/*.db
		(cd "$w" && HOME=$w/home TMPDIR=$w/tmp XDG_CACHE_HOME=$w/xdg \
			timeout 120 "$FTANA" "$@" >"$w/stdout" 2>"$w/stderr"; echo "exit $?" >"$w/rc")
		# the work dir differs from run to run: named as @WORK@
		{
			cat "$w/rc"
			echo "--- stdout"
			cat "$w/stdout"
			echo "--- stderr"
			cat "$w/stderr"
		} | sed "s|$work|@WORK@|g" >"$dir/$label"
	}
	hashed() { # label, output file, args...: the output file's sha256 instead of its bytes
		local label=$1 o=$2
		shift 2
		rm -f "$w/$o"
		run "$label" "$@"
		{ echo "--- $o"; [ -f "$w/$o" ] && sha256sum <"$w/$o" | cut -d' ' -f1; } >>"$dir/$label"
	}
	run info info "${files[@]}"
	run db-o db "${files[@]}" -o out.db
	rm -f "$w/out.db"
	local r fmt
	for r in $REPORTS; do
		for fmt in text csv json; do
			case $fmt in text) run "report-$r" report "$r" "${files[@]}" ;;
			*) run "report-$r.$fmt" report "$r" "--$fmt" "${files[@]}" ;; esac
		done
	done
	case $name in conformance__* | *hostile__*) ;; *)
		# each report's own views, in text (CSV/JSON print the same rows)
		run iolat-summary report iolat --summary --hist "${files[@]}"
		run iolat-Q report iolat -Q -s -t "${files[@]}"
		run iolat-by report iolat --summary --by comm --json "${files[@]}"
		run iolat-i report iolat --interval 1 "${files[@]}"
		run iolat-wall report iolat --wall --since 0.5 "${files[@]}"
		run iolatency-Q report iolatency -Q --interval 2 "${files[@]}"
		run funccount-i report funccount -i 1 "${files[@]}"
		run funccount-i.csv report funccount -i 1 --csv --totals "${files[@]}"
		run funcgraph-tree report funcgraph --tree "${files[@]}"
		run funcgraph-folded report funcgraph --folded "${files[@]}"
		run funcgraph-order report funcgraph --time-order -t -P "${files[@]}"
		run funcslower-hist report funcslower --hist "${files[@]}"
		run funcslower-graph report funcslower --graph -t -P "${files[@]}"
		run stacks-folded report stacks --folded "${files[@]}"
		run tpoint-wall report tpoint --wall --include-ftrec "${files[@]}"
		run summary-v report summary -v --top 3 "${files[@]}"
		run runqlat-sum report runqlat --summary --by pid "${files[@]}"
		run cpudist-sum report cpudist --summary --by comm "${files[@]}"
		run offcpu-folded report offcpu --folded "${files[@]}"
		run syscount-both report syscount --by both "${files[@]}"
		run killsnoop-a report killsnoop -a "${files[@]}"
		run slice-p report iolat -p 1 --cpu 0 "${files[@]}"
		run slice-n report summary -n 'k.*' --until 1 "${files[@]}"
		hashed svg-stacks s.svg report stacks --svg -o s.svg "${files[@]}"
		hashed svg-funcgraph g.svg report funcgraph --svg -o g.svg "${files[@]}"
		hashed heatmap-iolat h.svg report iolat --heatmap -o h.svg "${files[@]}"
		hashed heatmap-funcslower h2.svg report funcslower --heatmap -o h2.svg "${files[@]}"
		;;
	esac
	hashed export e.json export "in/$f" -o e.json
	hashed convert c.dat convert "in/$f" -o c.dat
	# the documented tables and views, as `ftana sql` sees them
	local v
	for v in event_types tasks cpu_stats lost_events symbols stacks events io calls \
		slow_calls func_counts probe_hits stack_folded execs opens kills io_sizes \
		syscall_calls oncpu runq_waits offcpu; do
		run "sql-$v" sql "${files[@]}" "SELECT count(*) FROM \"$v\"; SELECT * FROM \"$v\" ORDER BY 1 LIMIT 50"
	done
	rm -rf "$w"
}
export -f one_input
export FTANA OUT work REPORTS
printf '%s\0' "${inputs[@]}" | xargs -0 -P "${OUTPUTS_JOBS:-$(nproc)}" -I{} bash -c 'one_input "$1"' _ {}
echo "outputs: ${#inputs[@]} inputs into $OUT"
