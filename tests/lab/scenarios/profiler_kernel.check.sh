# Host side of profiler_kernel: $1 is its output dir (stat/function<CPU> after the workload's
# K getppid() calls with the filter *sys_getppid, stat-reenabled/ right after enabling again).
. "$(dirname "$0")/../check-lib.sh"
cd "$1" || exit 1
k=$(cat expected_calls)
# "function hits" per function, summed over the CPUs; the two header lines ("Function Hit
# Time Avg s^2" and its underline) are skipped.
hits() { awk 'FNR > 2 && NF >= 2 { n[$1] += $2 } END { for (f in n) print f, n[f] }' "$@" | sort; }
expect "null_blk completion_nsec (command line)" 2000000 "$(cat nullb_completion_nsec)"
expect "/dev/nullb0 block device" yes "$(cat nullb_present 2>/dev/null)"
expect "trace_stat files (one per CPU)" 2 "$(ls stat | grep -c '^function[0-9]*$')"
expect "set_ftrace_filter" "$(cat traced_functions)" "$(cat filter_set)"
# Every function the filter selects, each with exactly K hits, and nothing else.
expect_rows "profiled functions: hits summed over CPUs" \
	"$(sed "s/\$/ $k/" traced_functions | sort)" "$(hits stat/function*)"
# ftrec funccount --profile relies on this: enabling the profiler starts its counts from zero.
reenabled=$(hits stat-reenabled/function* | paste -sd ' ' -)
expect "functions with hits right after enabling again" none "${reenabled:-none}"
check_done
