#!/usr/bin/env bash
# tools/layers.sh - the layers of the tree hold: no #include from a folder to one it may
# not call (a higher one), so no include circle across folders either. docs/ARCHITECTURE.md
# describes each folder; this is its table. The Makefile links one library per folder in
# the same order, so a call back up fails to link as well.
#   tools/layers.sh [ROOT]   prints each offending include; exit 1 if there is one.
set -u
cd "${1:-$(dirname "$0")/..}" || exit 2

# folder: the folders its code may include (besides its own)
declare -A may=(
	[common]=""
	[format]=""
	[decode]="common format"
	[store]="common format decode"
	[import]="common format decode store"
	[reports]="common format decode store import"
	[export]="common format decode store import reports"
	[analyze]="common format decode store import reports export"
	[record]="common format"
	[tools]="common format store"
)
bad=0
for dir in "${!may[@]}"; do
	[ -d "$dir" ] || continue
	while IFS=: read -r file line inc; do
		to=${inc%%/*}
		[ "$to" = "$inc" ] && continue # a file of its own folder, or generated (report_list.h)
		[ "$to" = "$dir" ] && continue
		case " ${may[$dir]} " in *" $to "*) continue ;; esac
		echo "$file:$line: $dir/ may not include $inc ($dir/ may use: ${may[$dir]:-only itself})"
		bad=1
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$dir"/*.c "$dir"/*.h 2>/dev/null |
		 sed -E 's/^([^:]*):([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1:\2:\3/')
done
# every folder with C code has a row: a new folder states what it may call
for d in */; do
	d=${d%/}
	case $d in tests | bench | build* | docs | samples | schema) continue ;; esac
	ls "$d"/*.c >/dev/null 2>&1 || continue
	[ -n "${may[$d]+x}" ] || { echo "$d/: no row in tools/layers.sh (what may it include?)"; bad=1; }
done
exit $bad
