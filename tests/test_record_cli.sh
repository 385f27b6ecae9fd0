#!/usr/bin/env bash
# ftrec's command line, end to end: --help of every command (exit 0, every common
# option listed, nothing recorded), usage errors (one "ftrec NAME:" line), the man
# page (tools/mkman.sh) holding exactly what --help prints; then live, against the
# kernel's own view: -p PID puts every thread of a multi-threaded workload into the
# instance's set_event_pid, -L one thread, --follow adds a thread started later
# (event-fork), bundled options (-sqp PID -d30) give the same instance and INFO as
# spelled-out ones, `ftrec iolat 1` stops by its duration (the END section says
# so), default output names, and bad PIDs are refused with nothing left behind.
. "$(dirname "$0")/lib.sh"
require_bin "$FTREC" "$FTZDUMP"
tmp=$(mktemp -d)
chmod 755 "$tmp"
workload_pid=
trap '[ -n "$workload_pid" ] && kill $workload_pid 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir "$tmp/wd"
cd "$tmp/wd" || exit 1 # default output files land here

[ "$(id -u)" = 0 ] && [ -w "$TRACEFS/tracing_on" ] && live=1 || live=
[ -n "$live" ] && snapshot_tracefs_state >"$tmp/before"

# ------------------------------------------------------------------ help
"$FTREC" --help >"$tmp/top" 2>"$tmp/err"
assert_eq "ftrec --help: exit" 0 $?
cmds=$(awk '/^Commands:/ { on = 1; next } on && /^  +[a-z]/ { print $1; next } on { exit }' "$tmp/top")
assert_eq "ftrec --help: commands listed" "record iolat tpoint funccount funcslower funcgraph kprobe triage reset" "${cmds//$'\n'/ }"
for c in $cmds; do
	"$FTREC" "$c" --help >"$tmp/help.$c" 2>"$tmp/err"
	assert_eq "ftrec $c --help: exit" 0 $?
	assert_eq "ftrec $c --help: stderr" "" "$(cat "$tmp/err")"
	assert_contains "ftrec $c --help: usage line" "$tmp/help.$c" "^usage: ftrec $c"
	[ "$c" = reset ] && continue
	for opt in "-s, --stack" "-p, --pid PID" "-L, --tid TID" "--follow" "-d, --duration SECONDS" \
		"--buffer-kb KB" "--clock CLOCK" "--max-size MB" "-o, --output FILE" "-q, --quiet" "-h, --help"; do
		grep -qF -- "$opt" "$tmp/help.$c" || fail "ftrec $c --help lacks '$opt'"
	done
	long=$(awk 'length > 79' "$tmp/help.$c")
	assert_eq "ftrec $c --help: lines within 79 columns" "" "$long"
	# -h in a bundle and after errors: still the help
	"$FTREC" "$c" -d soon --bogus -sh >"$tmp/help2" 2>"$tmp/err"
	assert_eq "ftrec $c -d soon --bogus -sh: exit" 0 $?
	cmp -s "$tmp/help.$c" "$tmp/help2" || fail "ftrec $c: -sh after errors printed something else"
	# a usage error: one line naming the command
	"$FTREC" "$c" --no-such-option >"$tmp/out" 2>"$tmp/err"
	assert_eq "ftrec $c --no-such-option: exit" 1 $?
	assert_one_line_error "ftrec $c --no-such-option" "$tmp/err" "^ftrec $c: unknown option '--no-such-option'"
done
assert_contains "iolat --help: positional duration" "$tmp/help.iolat" "^  SECONDS +record for SECONDS, as iosnoop"
assert_contains "iolat --help: default output" "$tmp/help.iolat" "default iolat.ftz"
assert_contains "funcgraph --help: -C is on-CPU, the clock --clock" "$tmp/help.funcgraph" "^      --clock CLOCK"
assert_contains "record --help: -o required" "$tmp/help.record" "output file \(required\)"
assert_eq "no file written by --help or usage errors" "" "$(ls)"

# ------------------------------------------------------------------ man page
if tools_dir=$ROOT_DIR/tools && "$tools_dir/mkman.sh" -a -d "test" "$FTREC" >"$tmp/ftrec.1" 2>"$tmp/err"; then
	pass "mkman.sh -a ftrec"
	# Each command's section, unescaped, is exactly its --help.
	for c in $cmds; do
		awk -v c="$c" '$0 == ".SS \"ftrec " c "\"" { on = 1; next } on && /^\.nf$/ { next }
			on && /^\.fi$/ { exit } on' "$tmp/ftrec.1" |
			sed -e 's/\\-/-/g' -e 's/^\\&//' -e 's/\\e/\\/g' >"$tmp/man.$c"
		if cmp -s "$tmp/man.$c" "$tmp/help.$c"; then pass "man page: ftrec $c section = its --help"; else
			fail "man page: ftrec $c section differs from --help"; diff "$tmp/help.$c" "$tmp/man.$c" | head
		fi
	done
	if command -v groff >/dev/null; then
		groff -man -Tutf8 -ww -z "$tmp/ftrec.1" >"$tmp/groff.err" 2>&1
		assert_eq "groff: no warnings on the page" "" "$(cat "$tmp/groff.err")"
	fi
	# A failing --help stops the generator: no page from a broken program.
	printf '#!/bin/sh\necho "usage: x"; [ "$1" = --help ] && exit 0; exit 1\n' >"$tmp/broken"
	chmod +x "$tmp/broken"
	"$tools_dir/mkman.sh" "$tmp/broken" sub >"$tmp/broken.1" 2>"$tmp/err"
	assert_eq "mkman.sh: a failing 'PROG CMD --help' fails" 1 $?
	assert_one_line_error "mkman.sh: names the failed command" "$tmp/err" "'broken sub --help' failed"
else
	fail "mkman.sh failed: $(cat "$tmp/err")"
fi

if [ -z "$live" ]; then
	finish # the rest needs root and tracefs
fi

# ------------------------------------------------------------------ bad PIDs
sh -c 'exit 0' &
gone=$!
wait $gone
bad_pid() { # WHAT PATTERN ARGS...: one line, exit 1, no output file, nothing left
	local what=$1 pat=$2; shift 2
	"$FTREC" "$@" >"$tmp/out" 2>"$tmp/err"
	assert_eq "$what: exit" 1 $?
	assert_one_line_error "$what" "$tmp/err" "$pat"
	assert_eq "$what: no output file" "" "$(ls)"
	assert_no_leftovers
}
bad_pid "-p of an exited process" "^ftrec tpoint: -p $gone: no such process" tpoint -p $gone sched:sched_switch
bad_pid "-L of an exited thread" "^ftrec tpoint: -L $gone: no such thread" tpoint -L $gone sched:sched_switch
for v in 0 -1 -5 2147483648 99999999999999999999 abc 12abc '' ' 1' 0x1; do
	bad_pid "-p '$v'" "^ftrec iolat: -p '$v': expected a process id" iolat -p "$v"
	bad_pid "-L '$v'" "^ftrec record: -L '$v': expected a thread id" record -e sched:sched_switch -o x.ftz -L "$v"
done
bad_pid "--follow without -p" "^ftrec tpoint: --follow needs -p" tpoint --follow sched:sched_switch

# ------------------------------------------------------------------ -p / -L, kernel's view
# A process of 1 + 3 threads; on SIGUSR1 it starts one more (for --follow).
cat >"$tmp/mt.c" <<'EOF'
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
static volatile sig_atomic_t more;
static void on_usr1(int sig) { (void)sig; more = 1; }
static void *idle(void *arg) { (void)arg; for (;;) pause(); return NULL; }
int main(void)
{
	pthread_t t;
	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < 3; i++)
		pthread_create(&t, NULL, idle, NULL);
	for (;;) {
		pause();
		if (more) {
			more = 0;
			pthread_create(&t, NULL, idle, NULL);
			printf("started\n");
			fflush(stdout);
		}
	}
}
EOF
${CC:-cc} -O2 -pthread -o "$tmp/mt" "$tmp/mt.c" || { echo "FAIL: cannot build the workload"; exit 1; }
"$tmp/mt" >"$tmp/mt.out" &
workload_pid=$!
for i in $(seq 50); do [ "$(ls /proc/$workload_pid/task | wc -l)" = 4 ] && break; sleep 0.1; done
tasks() { ls "/proc/$workload_pid/task" | sort -n | tr '\n' ' '; }
assert_eq "workload threads" 4 "$(ls /proc/$workload_pid/task | wc -l)"
second_tid=$(ls /proc/$workload_pid/task | sort -n | sed -n 2p)

# start NAME ARGS...: ftrec in the background until it records; $rec_pid, $inst
start() {
	local name=$1; shift
	"$FTREC" "$@" 2>"$tmp/err.$name" &
	rec_pid=$!
	inst=$TRACEFS/instances/ftrec-$rec_pid
	# (not -q: wait_for_recording waits for the progress line)
	wait_for_recording $rec_pid "$tmp/err.$name" || { fail "$name: did not start"; cat "$tmp/err.$name"; }
}
stop() { # NAME: SIGINT, exit 0
	kill -INT $rec_pid
	wait $rec_pid
	assert_eq "$1: ftrec exit" 0 $?
	assert_no_leftovers
}
# The instance's settings that decide what is recorded.
instance_state() {
	(
		cd "$inst" || exit 1
		echo "set_event_pid: $(sort -n set_event_pid | tr '\n' ' ')"
		for o in stacktrace event-fork function-fork record-tgid; do
			[ -e options/$o ] && echo "$o: $(cat options/$o)"
		done
		echo "clock: $(cat trace_clock)"
		echo "buffer_size_kb: $(cat buffer_size_kb)"
		echo "enabled: $(grep -l 1 events/*/*/enable | tr '\n' ' ')"
		grep -H -v '^none$' events/*/*/filter
	)
}
# INFO keys that say what was recorded (not when, nor by which process).
info_state() {
	"$FTZDUMP" "$1" | sed -n 's/^    //p' | grep -E '^(preset|events|filter|stacktrace|pid|tracer|clock|buffer_size_kb)='
}

start p tpoint -p $workload_pid -d 30 -o p.ftz sched:sched_switch
assert_eq "-p PID: set_event_pid = every thread (/proc/PID/task)" "$(tasks)" "$(sort -n "$inst/set_event_pid" | tr '\n' ' ')"
assert_eq "-p PID: event-fork off without --follow" 0 "$(cat "$inst/options/event-fork")"
instance_state >"$tmp/state.spelled"
stop "-p PID"

start L tpoint -L "$second_tid" -o L.ftz sched:sched_switch
assert_eq "-L TID: set_event_pid = that thread" "$second_tid" "$(cat "$inst/set_event_pid")"
stop "-L TID"

# Attached arguments: the same kernel-side state and INFO as spelled out above.
start bundled tpoint -p$workload_pid -d30 -obundled.ftz sched:sched_switch
instance_state >"$tmp/state.bundled"
stop bundled
if cmp -s "$tmp/state.spelled" "$tmp/state.bundled"; then pass "-pPID -d30 -oFILE: same instance state as -p PID -d 30 -o FILE"; else
	fail "attached arguments: instance state differs"; diff "$tmp/state.spelled" "$tmp/state.bundled"
fi
assert_eq "attached arguments: same INFO" "$(info_state p.ftz)" "$(info_state bundled.ftz)"
start stack-spelled tpoint -s -p $workload_pid -d 30 -o s1.ftz sched:sched_switch 'prev_pid > 0'
instance_state >"$tmp/state.s1"
stop stack-spelled
start stack-bundled tpoint sched:sched_switch -sd 30 'prev_pid > 0' --pid=$workload_pid --output=s2.ftz
instance_state >"$tmp/state.s2"
stop stack-bundled
assert_contains "-s: stacktrace on in the instance" "$tmp/state.s1" "^stacktrace: 1"
if cmp -s "$tmp/state.s1" "$tmp/state.s2"; then pass "-sd 30 and long options after the positionals: same instance state as -s -p PID -d 30"; else
	fail "-sd 30: instance state differs"; diff "$tmp/state.s1" "$tmp/state.s2"
fi
assert_eq "-sd 30: same INFO" "$(info_state s1.ftz)" "$(info_state s2.ftz)"
assert_contains "-s -p: INFO" <(info_state s2.ftz) "^stacktrace=1"

# A thread started while recording: without --follow it is not added (-p is the
# threads at the start), with --follow the kernel adds it (event-fork).
new_thread() { # N: ask the workload for one more thread, wait until it has N
	kill -USR1 $workload_pid
	for i in $(seq 50); do [ "$(ls /proc/$workload_pid/task | wc -l)" = "$1" ] && break; sleep 0.1; done
	assert_eq "workload started thread number $1" "$1" "$(ls /proc/$workload_pid/task | wc -l)"
}
start nofollow tpoint -p $workload_pid -o nofollow.ftz sched:sched_switch
before_threads=$(tasks)
new_thread 5
assert_eq "-p without --follow: a new thread is not added" "$before_threads" "$(sort -n "$inst/set_event_pid" | tr '\n' ' ')"
stop "-p without --follow"
start follow tpoint --follow -p $workload_pid -o follow.ftz sched:sched_switch
assert_eq "--follow: event-fork on" 1 "$(cat "$inst/options/event-fork")"
new_thread 6
assert_eq "--follow: the new thread is in set_event_pid" "$(tasks)" "$(sort -n "$inst/set_event_pid" | tr '\n' ' ')"
stop "--follow"

# iolat -p: a filter on the start events over every thread (completions unfiltered).
start iolat-p iolat -p $workload_pid -o iolat-p.ftz
for t in $(tasks); do
	grep -q "common_pid == $t\b" "$inst/events/block/block_rq_issue/filter" || fail "iolat -p: thread $t not in the issue filter"
done
assert_eq "iolat -p: completions not filtered" none "$(cat "$inst/events/block/block_rq_complete/filter")"
stop "iolat -p"

# ------------------------------------------------------------------ durations, default names
rm -f ./*.ftz
"$FTREC" iolat -q 1 2>"$tmp/err.iolat"
assert_eq "ftrec iolat 1: exit" 0 $?
assert_eq "ftrec iolat 1: default output iolat.ftz" "iolat.ftz" "$(ls)"
"$FTZDUMP" iolat.ftz >"$tmp/iolat.dump"
assert_contains "ftrec iolat 1: the END section says it stopped by its duration" "$tmp/iolat.dump" "^    stop_reason=duration$"
start_ns=$(sed -n 's/^    start_wall_ns=//p' "$tmp/iolat.dump")
end_ns=$(sed -n 's/^    end_wall_ns=//p' "$tmp/iolat.dump")
ms=$(((end_ns - start_ns) / 1000000))
if [ "$ms" -ge 990 ] && [ "$ms" -lt 5000 ]; then pass "ftrec iolat 1: recorded ${ms} ms (INFO start to END)"; else
	fail "ftrec iolat 1: recorded ${ms} ms, expected about 1000"; fi
rm -f iolat.ftz
"$FTREC" tpoint -qd0.3 sched:sched_switch 2>"$tmp/err.tpoint"
assert_eq "ftrec tpoint -qd0.3: exit" 0 $?
assert_eq "tpoint: default output tpoint.ftz" "tpoint.ftz" "$(ls)"
assert_contains "tpoint -d0.3: stopped by the duration" "$tmp/err.tpoint" "stopped \(duration\)"
rm -f tpoint.ftz
# the function presets refuse here (EPERM / no kprobes) or record; either way no stray file
for c in "funccount vfs_read" "funcslower vfs_read 100" "funcgraph vfs_read" "kprobe p:vfs_read"; do
	name=${c%% *}
	"$FTREC" $c -q -d 0.3 >/dev/null 2>"$tmp/err.$name"
	rc=$?
	if [ $rc = 0 ]; then assert_eq "$name: default output" "$name.ftz" "$(ls)"
	else assert_eq "$name refused: no output file left" "" "$(ls)"; fi
	rm -f ./*.ftz
	assert_no_leftovers
done

kill $workload_pid
wait $workload_pid 2>/dev/null
workload_pid=
assert_state_unchanged "$tmp/before"
finish
