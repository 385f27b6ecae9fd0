#!/usr/bin/env bash
# make demo: the main job. Records block I/O and a triage capture live when this host
# allows it (root and a writable tracefs), then analyses them; otherwise analyses the
# committed samples.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
FTREC=$BUILD/ftrec FTANA=$BUILD/ftana
out=${DEMO_DIR:-$BUILD/demo}
mkdir -p "$out"

can_record() {
	[ "$(id -u)" = 0 ] || return 1
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || return 1
	[ -w /sys/kernel/tracing/instances ] || [ -w /sys/kernel/tracing/tracing_on ]
}

show() { echo; echo "\$ $*"; "$@"; }

if can_record; then
	echo "== live: recording block I/O while dd writes 200 x 64 KiB with O_DIRECT"
	tmp=$(mktemp -p "${TMPDIR:-/var/tmp}" ftrec-demo.XXXXXX)
	show "$FTREC" iolat -s -o "$out/live.ftz" -- \
		dd if=/dev/zero of="$tmp" bs=64k count=200 oflag=direct status=none
	rc=$?
	rm -f "$tmp"
	if [ $rc -eq 0 ]; then
		show "$FTANA" info "$out/live.ftz"
		show "$FTANA" report iolat "$out/live.ftz" --summary --hist
		show "$FTANA" report stacks "$out/live.ftz" --event block_rq_issue
		echo
		echo "== live: the everyday post-mortem capture (ftrec triage) of a short busy workload"
		show "$FTREC" triage -q -o "$out/triage.ftz" -- \
			sh -c 'for i in 1 2 3 4 5 6 7 8; do ls / >/dev/null; done; sleep 0.2; kill -CONT $$'
		if [ $? -eq 0 ]; then
			show "$FTANA" report summary "$out/triage.ftz"
			show "$FTANA" report execsnoop "$out/triage.ftz" -n '^(ls|sh)$'
		fi
		echo; echo "Your own SQL: $FTANA sql $out/live.ftz 'select type, count(*), avg(lat_ns)/1e6 from io group by type'"
		echo "Every report: $FTANA report --help; pictures: $FTANA report stacks $out/live.ftz --svg -o flame.svg"
		exit 0
	fi
	echo "demo: live recording failed; analysing the committed samples instead" >&2
else
	echo "== no root or no writable tracefs here: analysing the committed samples"
fi
shopt -s nullglob
samples=(samples/*.ftz)
[ ${#samples[@]} -gt 0 ] || { echo "demo: no samples/*.ftz to analyse" >&2; exit 1; }
for s in "${samples[@]}"; do
	cp "$s" "$out/"
	f=$out/$(basename "$s")
	show "$FTANA" info "$f"
	case $(basename "$f" .ftz) in
	iolat|block*) show "$FTANA" report iolat "$f" --summary --hist ;;
	tpoint)       show "$FTANA" report stacks "$f" ;;
	funccount*)   show "$FTANA" report funccount "$f" -i 0.5 ;;
	funcslower)   show "$FTANA" report funcslower "$f" -t -P ;;
	funcgraph)    show "$FTANA" report funcgraph "$f" --tree ;;
	kprobe*)      show "$FTANA" report kprobe "$f" ;;
	esac
done
