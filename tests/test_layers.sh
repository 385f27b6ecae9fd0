#!/usr/bin/env bash
# test_layers.sh - the folders keep their layers (tools/layers.sh: no include from a lower
# folder to a higher one), and the check itself catches a planted violation.
set -u
. "$(dirname "$0")/lib.sh"

out=$("$ROOT_DIR/tools/layers.sh" "$ROOT_DIR" 2>&1) && pass "no include goes up a layer" ||
	fail "includes that go up a layer:"$'\n'"$out"

# The check must see a violation: a copy of the tree with decode/ including reports/.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for d in common format decode store import reports export analyze record tools; do
	mkdir -p "$work/$d"
	cp "$ROOT_DIR/$d"/*.[ch] "$work/$d/" 2>/dev/null
done
cp "$ROOT_DIR/tools/layers.sh" "$work/tools/"
printf '#include "reports/report.h"\n' >> "$work/decode/decode.c"
printf '#include "analyze/commands.h"\n' >> "$work/common/msg.c"
out=$("$work/tools/layers.sh" "$work" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q '^decode/decode.c:[0-9]*: decode/ may not include reports/report.h' <<<"$out" &&
	grep -q '^common/msg.c:[0-9]*: common/ may not include analyze/commands.h' <<<"$out" &&
	pass "a planted upward include is named with its file and line" ||
	fail "planted upward includes not caught (exit $rc): $out"
mkdir "$work/newroom" && echo 'int x;' > "$work/newroom/x.c"
out=$("$work/tools/layers.sh" "$work" 2>&1)
grep -q '^newroom/: no row' <<<"$out" && pass "a new folder must state what it may include" ||
	fail "a new folder without a row passed: $out"
# The libraries too: every symbol a folder's library needs from the tree is defined in a
# folder it may call (the link order then enforces it; this names the call).
. <(sed -n '/^declare -A may=(/,/^)/p' "$ROOT_DIR/tools/layers.sh")
LAYERS="common format decode store import reports export analyze record"
calls_up() { # DIR of lib<folder>.a: prints "libX.a calls SYM of libY.a" for each call up
	local dir=$1 l o sym
	declare -A owner=()
	for l in $LAYERS; do
		while read -r sym; do owner[$sym]=$l; done < <(nm -g --defined-only "$dir/lib$l.a" 2>/dev/null |
			awk 'NF == 3 && $2 ~ /^[TDBRCV]$/ { print $3 }')
	done
	for l in $LAYERS; do
		while read -r sym; do
			o=${owner[$sym]:-}
			[ -z "$o" ] || [ "$o" = "$l" ] && continue
			case " ${may[$l]} " in *" $o "*) continue ;; esac
			echo "lib$l.a calls $sym of lib$o.a"
		done < <(nm -g --undefined-only "$dir/lib$l.a" 2>/dev/null | awk '$1 == "U" { print $2 }' | sort -u)
	done
}
libs=$ROOT_DIR/$BUILD
if [ -f "$libs/libcommon.a" ]; then
	up=$(calls_up "$libs")
	[ -z "$up" ] && pass "no library calls a folder above it" || fail "calls up a layer:"$'\n'"$up"
	# planted: store/ calling the report front end
	mkdir -p "$work/libs"
	cp "$libs"/lib*.a "$work/libs/"
	printf 'int front_run(const void *, int, char **);\nint planted(void) { return front_run(0, 0, 0); }\n' > "$work/up.c"
	${CC:-cc} -c -o "$work/up.o" "$work/up.c" && ar rs "$work/libs/libstore.a" "$work/up.o" 2>/dev/null
	grep -q '^libstore.a calls front_run of libreports.a$' <<<"$(calls_up "$work/libs")" &&
		pass "a planted call from store/ to reports/ is named" ||
		fail "a planted call up was not seen: $(calls_up "$work/libs")"
else
	fail "no $libs/libcommon.a: build first (make all)"
fi
[ $FAILS = 0 ]
