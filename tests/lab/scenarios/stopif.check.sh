# Host side of stopif: $1 is its output dir (NAME.ftz, NAME.wl, NAME.secs, slow_nsec).
# For each stopped recording, capture_stop must hold the stall the workload made: one row,
# of the right kind and threshold, its latency within 2% of the workload's own measurement
# (io: also of null_blk's configured latency), measured inside the workload's interval
# (the kernel's [ts - lat_ns, ts] within the workload's clock readings around it: the same
# clock), by the right task; the ring stopped there (its last event within 1 s after the
# stall, though the workload went on 3 s) and kept what came before (the workload's events
# from 0.5 s before the stall on); `ftana info` says it, and `report --before-stop 0.5` gives
# the half second up to it, the stop last.
. "$(dirname "$0")/../check-lib.sh"
cd "$1" || exit 1

# val FILE KEY: KEY's value on the workload's lines ("stall=runq victim_tid=12 ...")
val() { tr ' ' '\n' < "$1" | sed -n "s/^$2=//p" | head -n 1; }
# expect_within LABEL EXPECTED PERCENT SEEN: |SEEN - EXPECTED| <= PERCENT% of EXPECTED
expect_within() {
	local d=$(($4 - $2)) tol=$(($2 * $3 / 100))
	if [ -n "$4" ] && [ ${d#-} -le $tol ] 2>/dev/null; then
		_check_line ok "$1" "$2 +-$3%" "$4 ($(awk -v d="$d" -v e="$2" 'BEGIN { printf "%+.2f%%", 100 * d / e }'))"
	else
		_check_line FAIL "$1" "$2 +-$3%" "$4"
	fi
}
# expect_le LABEL MAXIMUM SEEN (integers)
expect_le() {
	if [ -n "$3" ] && [ "$3" -le "$2" ] 2>/dev/null; then
		_check_line ok "$1" "<= $2" "$3"
	else
		_check_line FAIL "$1" "<= $2" "$3"
	fi
}

# stopped NAME KIND CONDITION THRESHOLD_NS START END NS TIDS: one recording that stopped
# at the stall the workload measured from START to END (NS = END - START); TIDS: the
# workload's threads, the first the one that stalled (io: the one that issued the read).
stopped() {
	local n=$1 kind=$2 cond=$3 thr=$4 start=$5 end=$6 ns=$7 tids=$8 row lat ts tid comm
	expect "$n: ftrec ran less than its -d 20 (s)" yes \
		"$(awk '{ print ($1 < 19 ? "yes" : "no (" $1 ")") }' "$n.secs")"
	expect "$n: capture_stop rows" 1 "$(q "$n.ftz" 'SELECT count(*) FROM capture_stop')"
	row=$(q "$n.ftz" 'SELECT kind, condition, threshold_ns FROM capture_stop')
	expect "$n: kind, condition, threshold_ns" "$kind,$cond,$thr" "$row"
	IFS=, read -r lat ts tid comm <<< "$(q "$n.ftz" 'SELECT lat_ns, ts, tid, comm FROM capture_stop')"
	expect_within "$n: lat_ns (the workload's: $ns)" "$ns" 2 "$lat"
	expect_ge "$n: lat_ns over the threshold" $((thr + 1)) "$lat"
	# the kernel's wakeup/issue/entry after the workload's reading before it, its
	# switch-in/completion/exit before the reading after it
	expect_ge "$n: ts - lat_ns (kernel's start) >= workload's start" "$start" $((ts - lat))
	expect_le "$n: ts (kernel's end) <= workload's end" "$end" "$ts"
	# io: the request's issuer, the workload itself (an O_DIRECT read, alone on its disk,
	# goes to the driver from the reading task)
	expect "$n: tid (the workload's stalled thread)" "${tids%%,*}" "$tid"
	expect "$n: comm (the lab's stall helper)" stall "$comm"
	expect_le "$n: last event's ts <= the stall's end + 1 s" $((end + 1000000000)) \
		"$(q "$n.ftz" 'SELECT max(ts) FROM events')"
	expect_le "$n: the workload's first event <= the stall's start - 0.5 s" \
		$((start - 500000000)) "$(q "$n.ftz" "SELECT min(ts) FROM events WHERE pid IN ($tids)")"
	# ftana info names it: the condition and the latency in ms, as the view holds it
	"$FTANA" info "$n.ftz" | grep '^stop-if' > "$n.info"
	expect "$n: ftana info's stop-if line names the condition" 1 "$(grep -cF " $cond: " "$n.info")"
	expect "$n: ftana info gives the latency in ms" 1 \
		"$(grep -cF "$(awk -v l="$lat" 'BEGIN { printf "%.3f ms", l / 1e6 }')" "$n.info")"
	# --before-stop 0.5: the report's events are the half second up to the stop, the stop's
	# own synthetic event last (tpoint's CSV: ts_s first)
	"$FTANA" report tpoint "$n.ftz" --before-stop 0.5 --csv > "$n.before.csv" 2> "$n.before.err" ||
		_check_line FAIL "$n: report tpoint --before-stop 0.5" "exit 0" "$(head -c 300 "$n.before.err")"
	IFS=, read -r first_s <<< "$(sed -n 2p "$n.before.csv")"
	last=$(tail -n 1 "$n.before.csv")
	expect_ge "$n: --before-stop 0.5: first event (ns) >= stop - 0.5 s" $((ts - 500000000)) \
		"$(awk -v t="${first_s%%,*}" 'BEGIN { printf "%.0f", t * 1e9 + 0.5 }')"
	expect_le "$n: --before-stop 0.5: ... and it starts there (the workload's events are dense)" \
		$((ts - 490000000)) "$(awk -v t="${first_s%%,*}" 'BEGIN { printf "%.0f", t * 1e9 + 0.5 }')"
	expect "$n: --before-stop 0.5: the last event is the stop (its synthetic event)" yes \
		"$(case $last in *ftrec_stop_*) echo yes ;; *) echo "no: $last" ;; esac)"
}
# quick NAME THRESHOLD_NS: the workload's other operations all stayed under the threshold
# (so the stall is the only thing that could meet it)
quick() {
	expect_ge "$1: workload: quick operations" 100 "$(val "$1.wl" quick)"
	expect_le "$1: workload: the longest quick one (ns) < threshold" $(($2 - 1)) "$(val "$1.wl" max_ns)"
}

# runq: the victim's wait, wakeup to running. Under qemu TCG the workload's readings around
# the kernel's interval added 45-310 us to it (hence a 50 ms stall: 2% is 1 ms), and the
# quick wakeups read up to 1.6 ms (up to 8 ms with the victim not SCHED_FIFO, where the
# kernel saw under 1 ms: hence 20 ms, not 10, so the quick ones stay clear of it)
w=runq.wl
quick runq 20000000
stopped runq runq 'runq > 20ms' 20000000 "$(val $w wake_mono_ns)" "$(val $w run_mono_ns)" \
	"$(val $w wait_ns)" "$(val $w victim_tid),$(val $w pid)"
expect "runq: workload: the stalled wakeup found the victim asleep" 0 "$(val $w unslept)"
d=$(val $w schedstat_delay_ns)
[ "$d" = -1 ] || expect_within "runq: workload: schedstat run_delay (kernel) vs wait_ns" "$(val $w wait_ns)" 2 "$d"

# syscall: the 60 ms nanosleep (-p) and the same under `ftrec triage` (whole system)
for n in sys triage comm; do
	w=$n.wl
	quick $n 50000000
	stopped $n syscall 'syscall nanosleep > 50ms' 50000000 "$(val $w start_mono_ns)" \
		"$(val $w end_mono_ns)" "$(val $w ns)" "$(val $w tid)"
done

# io: the read of the slow disk; its configured latency is a floor and, within 2%, the value
w=io.wl
quick io 100000000
stopped io io 'io > 100ms' 100000000 "$(val $w start_mono_ns)" "$(val $w end_mono_ns)" \
	"$(val $w ns)" "$(val $w tid)"
slow=$(cat slow_nsec)
lat=$(q io.ftz 'SELECT lat_ns FROM capture_stop')
# (10%: null_blk completes on a guest timer, late when the host is busy: +3.7% with two
# labs at once on 2 cores, +0.3% alone; the 2% ground truth is the workload's own time)
expect_within "io: lat_ns (null_blk's completion_nsec)" "$slow" 10 "$lat"
expect_ge "io: lat_ns >= null_blk's completion_nsec" "$slow" "$lat"

# nostop: under the threshold, ftrec ran to its -d 4 and no row says it stopped
expect "nostop: ftrec ran its -d 4 (s)" yes "$(awk '{ print ($1 >= 4 ? "yes" : "no (" $1 ")") }' nostop.secs)"
expect "nostop: capture_stop rows" 0 "$(q nostop.ftz 'SELECT count(*) FROM capture_stop')"
expect_ge "nostop: the 60 ms sleep is in the capture (exits of the workload)" 1 \
	"$(q nostop.ftz "SELECT count(*) FROM events WHERE pid = $(val nostop.wl tid) AND type LIKE '%sys_exit_nanosleep%'")"
# --post 1: the stop as above, and events for about a second after it (tracing is
# switched back on when ftrec notices the stop, within 0.1 s), then no more
w=post.wl
n=post
expect "post: capture_stop rows" 1 "$(q post.ftz 'SELECT count(*) FROM capture_stop')"
expect_within "post: lat_ns (the workload's)" "$(val $w ns)" 2 "$(q post.ftz 'SELECT lat_ns FROM capture_stop')"
end=$(val $w end_mono_ns)
last=$(q post.ftz "SELECT max(ts) FROM events WHERE pid = $(val $w tid)")
expect_ge "post: the workload's events go on 0.8 s after the stall" $((end + 800000000)) "$last"
expect_le "post: ... and stop within 1.5 s of it" $((end + 1500000000)) "$last"
# a failure half-way: exit 1, one line naming the limit (the guest checked tracefs)
expect "fail: ftrec exit status" 1 "$(cat fail.rc)"
expect "fail: one line, naming the 64 threads" 1 "$(grep -c 'threads, over the 64 a condition names one by one' fail.err)"
expect "fail: nothing else on stderr" 1 "$(grep -c . fail.err)"
# -n nosuch: the workload's 60 ms sleep did not count
expect "othercomm: ftrec ran its -d 4 (s)" yes "$(awk '{ print ($1 >= 4 ? "yes" : "no (" $1 ")") }' othercomm.secs)"
expect "othercomm: capture_stop rows" 0 "$(q othercomm.ftz 'SELECT count(*) FROM capture_stop')"
expect_ge "othercomm: the 60 ms sleep is in the capture" 1 \
	"$(q othercomm.ftz "SELECT count(*) FROM events WHERE pid = $(val othercomm.wl tid) AND type LIKE '%sys_exit_nanosleep%'")"
check_done
