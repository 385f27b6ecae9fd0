#!/usr/bin/env bash
# make samples: runs the kernel lab, then publishes its real captures into samples/: every
# NAME.ftz a scenario made with guest-lib's `capture` (which keeps the exact command line in
# NAME.cmd), each at most 1.25 MiB. samples/README.md gets a section listing each file with its
# command; the section is replaced on every run, the rest of the README is left alone.
# With LAB_SCENARIOS (e.g. LAB_SCENARIOS=casestudy make samples) only those scenarios run and
# are published: the section keeps the other scenarios' entries as they were. Then the
# casestudy scenario's outputs become docs/CASE-STUDY.md (tests/lab/case-study.sh).
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
OUT=$BUILD/lab/out
MAX=$((1280 * 1024)) # 1.25 MiB: ~830 KiB of kallsyms, and a triage --syscalls capture ~200 KiB of formats
BEGIN='<!-- lab samples: written by tests/lab/samples.sh (make samples); do not edit by hand -->'
END='<!-- lab samples end -->'

BUILD=$BUILD tests/lab/run.sh
rc=$?
[ $rc = 0 ] || { echo "samples: the lab did not pass (exit $rc): samples/ left as it was"; exit $rc; }

mkdir -p samples
kpkg=$(cat "$BUILD/lab/kernel-package")	# NAME_VERSION_ARCH
section=$(mktemp)
{
	echo "$BEGIN"
	echo "## Kernel-lab captures"
	echo
	echo "Recorded by \`make samples\` in the kernel lab (tests/lab/, see its README.md): Debian's"
	echo "\`${kpkg%%_*}\` $(echo "$kpkg" | cut -d_ -f2) under qemu (TCG, 2 CPUs) unless an entry names"
	echo "another kernel (the lab's own build with the function profiler, tests/lab/profiler.config), with"
	echo "/dev/nullb0 a null_blk disk (\`queue_mode=2 irqmode=2 completion_nsec=2000000\`: every"
	echo "request takes at least 2 ms). Each command ran as root in the guest, in the scenario's"
	echo "output directory, with the tests/lab/*.c helpers (\`workload\`) in PATH. Most of each"
	echo "file is the guest's /proc/kallsyms, kept so that ftana can name kernel addresses."
	echo
} > "$section"
# One entry per capture, in entries/SCENARIO/NAME, so the section lists them in the same
# order however many scenarios ran.
entries=$(mktemp -d)
n=0 bad=0
for cmd in "$OUT"/*/*.cmd; do
	[ -f "$cmd" ] || continue
	ftz=${cmd%.cmd}.ftz name=$(basename "$ftz") scen=$(basename "$(dirname "$cmd")")
	size=$(stat -c %s "$ftz" 2>/dev/null) || { echo "samples: $ftz missing"; bad=1; continue; }
	if [ "$size" -gt $MAX ]; then
		echo "samples: $ftz is $size bytes, over the 1 MiB limit: make the scenario smaller"
		bad=1
		continue
	fi
	cp "$ftz" "samples/$name"
	mkdir -p "$entries/$scen"
	# The kernel that recorded it, from the capture's own INFO (uname -r in the guest).
	release=$("$BUILD/ftana" sql "$ftz" "SELECT value FROM meta WHERE key = 'uname_release'" --csv | sed 1d)
	case $release in *-lab-profiler) on=", kernel $release (built by the lab)" ;; *) on= ;; esac
	{
		echo "- \`$name\` ($(((size + 1023) / 1024)) KiB)$on, scenario tests/lab/scenarios/$scen.guest.sh:"
		echo
		echo '  ```'
		sed 's/^/  /' "$cmd"
		echo '  ```'
		echo
	} > "$entries/$scen/$name"
	echo "samples: samples/$name ($size bytes)"
	n=$((n + 1))
done
# A partial run keeps the README's entries of the scenarios it did not run.
if [ -n "${LAB_SCENARIOS:-}" ] && [ -f samples/README.md ]; then
	file=
	while IFS= read -r line; do
		case $line in
		"$BEGIN") on=1 file=; continue ;;
		"$END") on='' file=''; continue ;;
		'- `'*)
			[ -n "${on:-}" ] || continue
			name=${line#- \`} name=${name%%\`*}
			scen=${line##*tests/lab/scenarios/} scen=${scen%.guest.sh:}
			case " $LAB_SCENARIOS " in
			*" $scen "*) file= ;;
			*) mkdir -p "$entries/$scen" && file=$entries/$scen/$name && : > "$file" ;;
			esac
			;;
		esac
		[ -n "${on:-}" ] && [ -n "$file" ] && printf '%s\n' "$line" >> "$file"
	done < samples/README.md
fi
cat "$entries"/*/* >> "$section" 2>/dev/null
rm -rf "$entries"
echo "$END" >> "$section"
# Replace our section (or add it at the end), keeping every other line of the README.
touch samples/README.md
# Blank lines are held back until more text follows, so the README never ends in a run of them.
awk -v b="$BEGIN" -v e="$END" '
	$0 == b { skip = 1 }
	!skip && $0 == "" { blanks = blanks "\n"; next }
	!skip { printf "%s%s\n", blanks, $0; blanks = "" }
	$0 == e { skip = 0 }' samples/README.md > samples/README.md.new
[ -s samples/README.md.new ] && echo >> samples/README.md.new
cat "$section" >> samples/README.md.new
mv samples/README.md.new samples/README.md
rm -f "$section"
echo "samples: $n captures published, README section updated"
if [ -f "$OUT/casestudy/workload.out" ]; then
	if FTANA=$PWD/$BUILD/ftana tests/lab/case-study.sh "$OUT/casestudy" docs/CASE-STUDY.md.in > docs/CASE-STUDY.md.new; then
		mv docs/CASE-STUDY.md.new docs/CASE-STUDY.md
		echo "samples: docs/CASE-STUDY.md written"
	else
		echo "samples: docs/CASE-STUDY.md not written"
		rm -f docs/CASE-STUDY.md.new
		bad=1
	fi
fi
[ $bad = 0 ]
