# stopif: the flight recorder that stops itself (--kernel-ring --stop-if COND): the kernel
# measures the latency (hist triggers and a synthetic event in ftrec's instance) and stops
# the ring at the first one over the threshold. One stall of known length per condition,
# among quick ones that stay under it, from the stall helper (its own clock readings,
# CLOCK_MONOTONIC = the trace clock mono, are the ground truth):
#   runq     `ftrec record -p` of `stall runq`: a victim thread woken every 2 ms, once
#            while a SCHED_FIFO hog holds its CPU for 50 ms ('runq > 20ms')
#   sys      `ftrec record -p` of `stall slowsleep`: 1 ms nanosleeps and one of 60 ms
#            ('syscall nanosleep > 50ms')
#   io       `ftrec record` (whole system) of `stall slowio`: 4 KiB O_DIRECT reads of
#            /dev/nullb0 (2 ms each) and one of a second null_blk made here with configfs
#            whose every request takes 120 ms ('io > 100ms')
#   triage   `ftrec triage` (whole system) of `stall slowsleep` ('syscall nanosleep > 50ms')
#   comm     the same with `ftrec record -n stall`; othercomm with `-n nosuch` (no stop)
#   post     a plain recording (not the kernel ring) with --post 1: a second more after it
#   nostop   a threshold the workload never reaches: ftrec runs to its -d, no stop
#   fail     a failure half-way (-p of a process with 70 threads): nothing left
#   k9       ftrec killed with -9 while armed; `ftrec reset` removes what it left
# Each workload goes on 3 s after its stall, so a recording that did not stop there holds
# later events. The user's own synthetic event and a hist trigger at the top level are
# planted first: after each recording the tracefs state (tracefs-state.sh, synthetic_events
# and every top-level trigger included) must be exactly as planted.
# Ground truth for the host: NAME.wl (the workload's lines), NAME.secs (how long ftrec ran),
# slow_dev and slow_nsec (the second disk and its configured latency).
# lab-timeout: 300
. /lab/guest-lib.sh
SLOW_NSEC=120000000
cfg=/sys/kernel/config/nullb/nullb1
wl='' fpid='' slow=''

unplant() {
	f=$T/events/sched/sched_waking/trigger
	grep -v '^#' $f | sed 's/ \[active\]$//' | while read -r t; do echo "!$t" >> $f; done
	grep -q '^user_lat[[:space:]]' $T/synthetic_events && echo '!user_lat' >> $T/synthetic_events
}
cleanup() {
	rc=$?
	[ -n "$wl" ] && kill "$wl" 2>/dev/null
	if [ -n "$fpid" ] && kill -9 "$fpid" 2>/dev/null; then
		wait "$fpid" 2>/dev/null
		ftrec reset > /dev/null 2>&1 # after a failure: no cascade into the next scenarios
	fi
	unplant
	[ -d "$cfg" ] && { echo 0 > "$cfg/power"; rmdir "$cfg"; }
	rm -f /tmp/stopif.go
	exit $rc
}
trap cleanup EXIT

# ---- the slow disk: a second null_blk (configfs), every request completing after 120 ms
[ -d /sys/kernel/config/nullb ] || fail "no null_blk configfs (/sys/kernel/config/nullb)"
mkdir "$cfg" || fail "cannot create $cfg"
for kv in size=64 queue_mode=2 irqmode=2 completion_nsec=$SLOW_NSEC; do
	echo "${kv#*=}" > "$cfg/${kv%%=*}" || fail "cannot set null_blk ${kv%%=*}"
done
echo 1 > "$cfg/power" || fail "cannot power on $cfg"
slow=/dev/nullb$(cat "$cfg/index")
i=0
while [ ! -b "$slow" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -b "$slow" ] || fail "no $slow"
echo "$slow" > slow_dev
cat "$cfg/completion_nsec" > slow_nsec

# ---- the user's own: a synthetic event and a hist trigger (a variable ts0) at the top level
echo 'user_lat u64 lat' >> $T/synthetic_events || fail "planting the synthetic event"
echo 'hist:keys=pid:ts0=common_timestamp' > $T/events/sched/sched_waking/trigger ||
	fail "planting the hist trigger"
sh /lab/tracefs-state.sh > planted.txt
grep -x 'synthetic_events=user_lat.u64 lat' planted.txt || fail "tracefs-state.sh does not show synthetic_events"
grep '^event trigger events/sched/sched_waking/trigger:hist:keys=pid' planted.txt ||
	fail "tracefs-state.sh does not show the hist trigger"

uptime_s() { cut -d' ' -f1 /proc/uptime; }

# start NAME FTREC-ARGS...: `ftrec ARGS -o NAME.ftz` in the background, until it records
# with its stop armed (its synthetic event ftrec_stop_<pid> defined).
start() {
	n=$1
	shift
	echo "+ $(quote_args ftrec "$@" -o "$n.ftz")"
	uptime_s > "$n.t0"
	ftrec "$@" -o "$n.ftz" > "$n.out" 2> "$n.err" &
	fpid=$!
	i=0
	until grep -qs '^ftrec: recording' "$n.err"; do
		kill -0 $fpid 2>/dev/null || { cat "$n.err"; fail "$n: ftrec ended before recording"; }
		i=$((i + 1))
		[ $i -lt 600 ] || fail "$n: not recording after 60 s"
		sleep 0.1
	done
	grep "^ftrec_stop_$fpid[[:space:]]" $T/synthetic_events > "$n.synth" ||
		fail "$n: recording, but no synthetic event ftrec_stop_$fpid: $(cat $T/synthetic_events)"
	grep -q '^user_lat[[:space:]]u64 lat$' $T/synthetic_events || fail "$n: the user's synthetic event is gone"
}
# finish NAME: ftrec must end by itself, exit 0 and write NAME.ftz; tracefs as planted.
finish() {
	wait $fpid
	rc=$?
	fpid=
	echo "$(cat "$1.t0") $(uptime_s)" | awk '{ printf "%.2f\n", $2 - $1 }' > "$1.secs"
	cat "$1.err"
	[ $rc = 0 ] || fail "$1: ftrec exit $rc"
	[ -s "$1.ftz" ] || fail "$1.ftz was not written"
	same_as_planted "$1" "the user's synthetic event and trigger, nothing of ftrec's"
}
# run_wl NAME ARGS...: the workload (the lab's stall helper), its lines in NAME.wl
run_wl() {
	n=$1
	shift
	echo "+ stall $*"
	stall "$@" > "$n.wl" || fail "$n: workload failed: $(cat "$n.wl")"
	cat "$n.wl"
}
# go_wl NAME ARGS...: the workload in the background, waiting for /tmp/stopif.go (wl=its pid)
go_wl() {
	n=$1
	shift
	rm -f /tmp/stopif.go
	echo "+ STALL_GO=/tmp/stopif.go stall $*"
	STALL_GO=/tmp/stopif.go stall "$@" > "$n.wl" &
	wl=$!
	i=0
	until grep -qs '^ready=1' "$n.wl"; do
		kill -0 $wl 2>/dev/null || fail "$n: workload ended: $(cat "$n.wl")"
		i=$((i + 1))
		[ $i -lt 300 ] || fail "$n: workload not ready after 30 s"
		sleep 0.1
	done
}
go_wait() { # NAME
	touch /tmp/stopif.go
	wait $wl || fail "$1: workload failed: $(cat "$1.wl")"
	wl=
	cat "$1.wl"
}
SCHED=sched:sched_switch,sched:sched_waking,sched:sched_wakeup
NANOSLEEP=syscalls:sys_enter_nanosleep,syscalls:sys_exit_nanosleep
BLOCK=block:block_rq_issue,block:block_rq_complete

# ---- syscall: one 60 ms nanosleep among 1 ms ones (-p)
go_wl sys slowsleep 1500 60 3000
start sys record -e $SCHED,$NANOSLEEP --kernel-ring --stop-if 'syscall nanosleep > 50ms' -p $wl -d 20
go_wait sys
finish sys

# ---- io: the whole system; one read of the slow disk among reads of nullb0
start io record -e $SCHED,$BLOCK --kernel-ring --stop-if 'io > 100ms' -d 20
run_wl io slowio "$LAB_NULLB" "$slow" 1500 3000
finish io

# ---- a preset: triage of the whole system
start triage triage --kernel-ring --stop-if 'syscall nanosleep > 50ms' -d 20
run_wl triage slowsleep 1500 60 3000
finish triage

# ---- -n: the whole system's events, but only tasks named stall count; then only a
# name no task has (no stop: ftrec ends at -d 4)
start comm record -e $SCHED,$NANOSLEEP --kernel-ring --stop-if 'syscall nanosleep > 50ms' -n stall -d 20
run_wl comm slowsleep 1500 60 3000
finish comm
start othercomm record -e $SCHED,$NANOSLEEP --kernel-ring --stop-if 'syscall nanosleep > 50ms' -n nosuch -d 4
run_wl othercomm slowsleep 500 60 500
finish othercomm

# ---- --post 1 (plain recording, not the kernel ring): tracing back on for a second after
# the stop, then ftrec ends
start post record -e $SCHED,$NANOSLEEP --stop-if 'syscall nanosleep > 50ms' --post 1 -d 20
run_wl post slowsleep 1500 60 3000
finish post

# ---- runq: the workload's threads (-p), the victim waits 50 ms once. After the other
# stops: the first of a boot took up to 0.3 ms more from the victim's switch-in to its
# clock reading under qemu TCG (code run for the first time), 0.1 ms the later ones.
go_wl runq runq 1500 50 3000
start runq record -e $SCHED --kernel-ring --stop-if 'runq > 20ms' -p $wl -d 20
go_wait runq
finish runq

# ---- no stop: the 60 ms sleep is under the threshold; ftrec ends at -d 4
start nostop record -e $SCHED,$NANOSLEEP --kernel-ring --stop-if 'syscall nanosleep > 500ms' -d 4
run_wl nostop slowsleep 500 60 500
finish nostop

# ---- a failure half-way: -p of a process with 70 threads, over the 64 a condition names
# one by one, is refused after the synthetic event and the instance were made: ftrec
# exits 1 in one line, writes no capture, and leaves tracefs as planted
echo "+ WORKLOAD_START_MS=4000 workload threads 69 1 10 &"
WORKLOAD_START_MS=4000 workload threads 69 1 10 > fail.wl &
wl=$!
i=0
until [ "$(ls /proc/$wl/task 2>/dev/null | wc -l)" -ge 70 ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "fail: the workload has not 70 threads after 10 s"
	sleep 0.1
done
echo "+ ftrec record --stop-if 'runq > 20ms' -p $wl -d 2 -o fail.ftz"
ftrec record --stop-if 'runq > 20ms' -p $wl -d 2 -o fail.ftz > fail.out 2> fail.err
echo $? > fail.rc
cat fail.err
wait $wl
wl=
[ -e fail.ftz ] && fail "fail: a capture was written"
same_as_planted fail "the user's synthetic event and trigger, nothing of ftrec's"
# ---- killed with -9 while armed: what it left (its instance, hist triggers, synthetic
# event) goes with `ftrec reset`, and only that
start k9 record -e $SCHED --kernel-ring --stop-if 'runq > 10ms' -d 60
kill -9 $fpid
wait $fpid 2>/dev/null
fpid=
sh /lab/tracefs-state.sh > k9.killed
grep -q '^synthetic_events=.*ftrec_stop_' k9.killed || fail "k9: no synthetic event left after kill -9 (nothing to reset?)"
run ftrec reset > k9.reset 2>&1
cat k9.reset
same_as_planted k9 "the user's synthetic event and trigger, nothing of ftrec's"
unplant
sh /lab/tracefs-state.sh > unplanted.txt
grep -q '^synthetic_events=$' unplanted.txt || fail "the user's synthetic event was not removed: $(cat $T/synthetic_events)"
