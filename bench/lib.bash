# Shared by the recording benchmarks (bench/record.sh, bench/modes.sh); sourced,
# never run on its own (bench/run.sh runs *.sh only). Expects $tmp set by the caller.

# recorder_cpu COMMAND...: runs COMMAND (a recorder that runs getpid_gen writing
# $tmp/gen.cpu, or nothing when $tmp/gen.cpu is absent), prints the recorder's
# user+sys seconds minus the workload's own, so the kernel's cost of writing the
# events (charged to the workload) is not counted.
recorder_cpu() {
	local TIMEFORMAT='%U %S' t
	rm -f "$tmp/gen.cpu"
	t=$( { time "$@" >"$tmp/rec.out" 2>"$tmp/rec.err"; } 2>&1 ) || {
		echo "bench: recorder failed: $*" >&2; cat "$tmp/rec.err" >&2; return 1; }
	[ -s "$tmp/gen.cpu" ] || echo "0 0" >"$tmp/gen.cpu"
	awk -v t="$t" '{ split(t, a, " "); printf "%.3f\n", a[1] + a[2] - $1 - $2 }' "$tmp/gen.cpu"
}

# field FILE KEY: the value after KEY on ftzdump's "total" line
field() {
	awk -v k="$2" '$1 == "total" { for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"
}
