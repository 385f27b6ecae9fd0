#!/usr/bin/env bash
# Runs every benchmark (bench/*.sh except this one) and prints its figures.
# A benchmark exits 0 when done (targets missed are reported, not fatal),
# 77 when it cannot run here (reason on the last line), anything else on error.
set -u
cd "$(dirname "$0")/.."
export BUILD=${BUILD:-build}
status=0
for b in bench/*.sh; do
	[ "$b" = bench/run.sh ] && continue
	echo "=== $b"
	bash "$b"
	rc=$?
	case $rc in
	0) ;;
	77) echo "=== $b: skipped" ;;
	*) echo "=== $b: FAILED (exit $rc)"; status=1 ;;
	esac
	echo
done
exit $status
