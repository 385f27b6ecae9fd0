#!/usr/bin/env bash
# What hostile captures cost ftana (issue 10): wall time and peak RSS of `ftana db`
# (the unsanitized build) on the captures tests/hostile/gen.py writes for the
# classes where memory, descriptors or time followed what the file declared:
#   zstd_bombs   3 CPUs of PAGES declaring 1 GiB each in ~100 KB (was 3 GB RSS)
#   file_bombs   3 FILE sections of 1 GiB each (was 4 GB)
#   cpus_3000    a valid file with 3000 CPUs (was reported damaged: out of fds)
#   files_250k   250,000 empty FILE sections (was 114 s: quadratic lookup)
# plus `ftana db` on the sample captures of samples/ as the ordinary reference.
# The exit code of each run is shown (3: damaged input, the bombs' expected outcome).
# Env: BUILD.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
FTANA=$PWD/$BUILD/ftana
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time not installed"; exit 77; }
[ -x "$FTANA" ] || { echo "hostile.sh: $FTANA missing: run make bench" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fthostile.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

python3 tests/hostile/gen.py "$tmp" zstd_bombs file_bombs cpus_3000 files_250k >/dev/null ||
	{ echo "hostile.sh: tests/hostile/gen.py failed" >&2; exit 1; }
printf '%-22s %10s %8s %12s %6s\n' capture "file KB" "wall s" "peak RSS MB" exit
for f in "$tmp"/*.ftz samples/*.ftz; do
	[ -f "$f" ] || continue
	/usr/bin/time -f '%e %M' -o "$tmp/time" "$FTANA" db "$f" -o "$tmp/out.db" >/dev/null 2>&1
	rc=$?
	read -r wall rss < <(tail -n 1 "$tmp/time") # after "Command exited with ..."
	printf '%-22s %10d %8.2f %12d %6d\n' "$(basename "$f")" $(($(stat -c %s "$f") / 1024)) \
		"$wall" $((rss / 1024)) "$rc"
	rm -f "$tmp/out.db"
done
