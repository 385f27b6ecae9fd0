#!/usr/bin/env bash
# ftrec records block I/O of a workload of known size, loses nothing, and leaves
# tracefs as it found it.
# Ground truth: 200 direct 64 KiB writes by dd (>= 200 issue and 200 complete
# events), the kernel's per-CPU "read events" counters (must equal the events
# ftzdump counts per CPU in the file), "entries" left unread (0), overrun/dropped (0).
. "$(dirname "$0")/lib.sh"
require_root_tracefs
require_bin "$FTREC" "$FTZDUMP"

N=200
tmp=$(mktemp -d)
work=/var/tmp/ftrec-test-$$  # on the root fs (virtio disk)
trap 'rm -rf "$tmp" "$work"' EXIT
before=$tmp/before
snapshot_tracefs_state >"$before"

# kptr_restrict=2 hides kallsyms addresses even from root: ftrec lowers it for its
# read and restores it (checked by the state snapshot, taken with the original value).
kptr=$(cat /proc/sys/kernel/kptr_restrict)
trap 'echo $kptr >/proc/sys/kernel/kptr_restrict; rm -rf "$tmp" "$work"' EXIT
echo 2 >/proc/sys/kernel/kptr_restrict
"$FTREC" record -b 2048 -e block:block_rq_issue,block:block_rq_complete -o "$tmp/io.ftz" \
	-- dd if=/dev/zero of="$work" bs=64k count=$N oflag=direct 2>"$tmp/err"
rc=$?
cat "$tmp/err"
assert_eq "ftrec exit status" 0 "$rc"
assert_eq "kptr_restrict restored" 2 "$(cat /proc/sys/kernel/kptr_restrict)"
echo "$kptr" >/proc/sys/kernel/kptr_restrict
if grep -q "shows no addresses" "$tmp/err"; then fail "kallsyms without addresses"; else pass "kallsyms with addresses"; fi
assert_contains "stop reason in summary" "$tmp/err" "stopped \(command exited\)"
assert_contains "dd ran" "$tmp/err" "^$N\+0 records out"
assert_eq "end of file" clean "$(ftz_end "$tmp/io.ftz")"

assert_ge "block_rq_issue events" $N "$(ftz_event_count "$tmp/io.ftz" block_rq_issue)"
assert_ge "block_rq_complete events" $N "$(ftz_event_count "$tmp/io.ftz" block_rq_complete)"

cpus=$(ls -d "$TRACEFS"/per_cpu/cpu* | wc -l)
total=0
for ((c = 0; c < cpus; c++)); do
	in_file=$(ftz_cpu_events "$tmp/io.ftz" $c)
	assert_eq "cpu$c: events in file (ftzdump) = kernel read events" \
		"$(summary_column "$tmp/err" $c 4)" "$in_file"
	assert_eq "cpu$c: events left unread in the kernel buffer" 0 "$(summary_column "$tmp/err" $c 5)"
	assert_eq "cpu$c: events lost (kernel overrun + dropped)" 0 "$(summary_column "$tmp/err" $c 6)"
	total=$((total + in_file))
done
assert_ge "events in file" $((2 * N)) "$total"

# Metadata a decoder needs, in the order FORMAT.md gives.
"$FTZDUMP" "$tmp/io.ftz" >"$tmp/dump"
assert_eq "first section" INFO "$(awk '$1 == "section" { sub(/\(.*/, "", $3); print $3; exit }' "$tmp/dump")"
for f in "events/header_page phase start" "events/header_event phase start" \
	"events/block/block_rq_issue/format phase start" "events/ftrace/kernel_stack/format phase start" \
	"printk_formats phase start" "/proc/kallsyms phase start" "per_cpu/cpu0/stats phase start" \
	"per_cpu/cpu0/stats phase end" "saved_cmdlines phase end" "saved_tgids phase end"; do
	assert_contains "FILE $f" "$tmp/dump" "file $f "
done
for k in clock=mono nr_cpus=$cpus "instance=ftrec-[0-9]+" "events=block:block_rq_issue,block:block_rq_complete" \
	"buffer_size_kb=(204[89]|20[5-9][0-9])" "start_wall_ns=[0-9]{19}" "start_trace_ns=[1-9][0-9]*" "subbuf_size=[0-9]+"; do
	assert_contains "INFO $k" "$tmp/dump" "^    $k\$"
done
assert_contains "END stop_reason" "$tmp/dump" "^    stop_reason=command exited$"
assert_contains "start marker recorded" "$tmp/dump" "^event print [1-9]"
# kallsyms with real addresses (kptr_restrict lowered when needed)
assert_contains "summary names the instance" "$tmp/err" "instance ftrec-[0-9]+"

assert_no_leftovers
assert_state_unchanged "$before"

# The static binary (what ships) records the same way.
if [ -x "$FTREC_STATIC" ]; then
	file "$FTREC_STATIC" | grep -q 'statically linked' && pass "ftrec is statically linked" ||
		fail "ftrec is not statically linked: $(file "$FTREC_STATIC")"
	# -f applies to the -e before it only: no complete is big enough, every issue passes.
	"$FTREC_STATIC" record -q -s -e block:block_rq_issue -e block:block_rq_complete \
		-f 'nr_sector > 100000000' -o "$tmp/s.ftz" \
		-- dd if=/dev/zero of="$work" bs=64k count=$N oflag=direct 2>"$tmp/err2"
	assert_eq "static ftrec exit status" 0 "$?"
	assert_ge "static: block_rq_issue events" $N "$(ftz_event_count "$tmp/s.ftz" block_rq_issue)"
	assert_eq "static: block_rq_complete events passing 'nr_sector > 100000000'" 0 \
		"$(ftz_event_count "$tmp/s.ftz" block_rq_complete)"
	assert_ge "static -s: kernel_stack events" $N "$(ftz_event_count "$tmp/s.ftz" kernel_stack)"
	assert_eq "static: end of file" clean "$(ftz_end "$tmp/s.ftz")"
	assert_no_leftovers
	assert_state_unchanged "$before"
else
	fail "missing $FTREC_STATIC"
fi
finish
