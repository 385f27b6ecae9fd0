#!/usr/bin/env bash
# Writes docs/CASE-STUDY.md from its template, docs/CASE-STUDY.md.in, and the casestudy lab
# scenario's outputs (called by samples.sh, i.e. `make samples`, after the lab passed), so
# every command and output in the page is the lab's own, never typed by hand.
#
#   tests/lab/case-study.sh OUT_DIR TEMPLATE > PAGE     (FTANA: the ftana to run)
#
# Template lines, besides plain markdown:
#   @cmd STEP          the recording STEP.cmd as run in the guest, and what it printed
#                      (STEP.out: ftrec's summary and the workload's answer)
#   @run [N] COMMAND   COMMAND run in OUT_DIR (where the captures are; `ftana` is $FTANA),
#                      shown with its output, at most N lines of it
#   {{NAME}}           anywhere: a figure from the run (see `values` below)
set -u
out=$1 template=$2
FTANA=${FTANA:-ftana}
if [ ! -d "$out" ] || [ ! -f "$template" ]; then
	echo "case-study: usage: $0 OUT_DIR TEMPLATE" >&2
	exit 1
fi
[ -f "$out/workload.out" ] || { echo "case-study: $out has no casestudy run" >&2; exit 1; }

# The figures the text quotes, from the guest's ground-truth files and the captures.
declare -A v=()
v[pid]=$(sed -n 's/^pid=//p' "$out/workload.out")
v[dev]=$(tr : , < "$out/disk_dev")
v[ra_old]=$(cat "$out/ra_at_open") v[ra_new]=$(cat "$out/ra_at_reopen")
v[ra_old_kb]=$((v[ra_old] / 2)) v[ra_new_kb]=$((v[ra_new] / 2))
v[ra_old_pages]=$((v[ra_old] / 8)) v[ra_new_pages]=$((v[ra_new] / 8))
v[ra_tuned_kb]=$(cat "$out/ra_tuned_kb")
v[max_kb]=$(cat "$out/disk_max_sectors_kb")
v[pieces]=$(((v[ra_old_kb] + v[max_kb] - 1) / v[max_kb]))	# disk requests per old readahead
v[ra_ratio]=$((v[ra_old] / v[ra_new]))
v[scheduler]=$(sed 's/.*\[\(.*\)\].*/\1/' "$out/disk_scheduler")
v[kernel]=$("$FTANA" sql "$out/case01_iolat.ftz" "SELECT value FROM meta WHERE key = 'uname_release'" --csv | sed 1d)
v[guest_secs]=$(cat "$out/guest.secs")
subst() { # a line with every {{NAME}} replaced
	local line=$1 name
	while [[ $line =~ \{\{([a-z_]+)\}\} ]]; do
		name=${BASH_REMATCH[1]}
		[ -n "${v[$name]+set}" ] || { echo "case-study: $template: unknown {{$name}}" >&2; exit 1; }
		line=${line//"{{$name}}"/${v[$name]}}
	done
	printf '%s\n' "$line"
}

ftana() { "$FTANA" "$@"; } # for the @run commands, run by bash -c
export -f ftana
export FTANA
rc=0
while IFS= read -r line; do
	line=$(subst "$line") || exit 1
	case $line in
	'@cmd '*)
		step=${line#@cmd }
		[ -f "$out/$step.cmd" ] || { echo "case-study: no $out/$step.cmd" >&2; rc=1; continue; }
		echo '```'
		echo "# $(cat "$out/$step.cmd")"
		# Without run's echo of the command; the progress line's carriage returns dropped.
		grep -v '^+ ' "$out/$step.out" | tr -d '\r'
		echo '```'
		;;
	'@run '*)
		cmd=${line#@run }
		max=1000
		if [[ $cmd =~ ^([0-9]+)\ (.*)$ ]]; then max=${BASH_REMATCH[1]} cmd=${BASH_REMATCH[2]}; fi
		result=$(cd "$out" && bash -c "$cmd" 2>&1) || { echo "case-study: '$cmd' failed:" >&2; echo "$result" >&2; rc=1; }
		n=$(printf '%s\n' "$result" | wc -l)
		echo '```'
		echo "\$ $cmd"
		printf '%s\n' "$result" | head -n "$max" | sed 's/ *$//'
		[ "$n" -le "$max" ] || echo "[... $((n - max)) more lines]"
		echo '```'
		;;
	*) printf '%s\n' "$line" ;;
	esac
done < "$template"
exit $rc
