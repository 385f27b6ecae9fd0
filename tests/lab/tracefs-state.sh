#!/bin/sh
# Guest side: prints the tracefs state a tracing tool could leave behind, one "key=value"
# line each, so the host can compare it after every scenario with the state before the
# first one (a recording, failed or not, must leave nothing behind).
# With --reset, puts the defaults back instead, so the next scenario starts clean.
T=/sys/kernel/tracing
cd "$T" || exit 1

# Kernels differ in which of these files they have (the profiler kernel has no kprobes,
# the cloud kernel no function profiler): only existing ones are written, or read below.
put() { [ -e "$2" ] && echo "$1" > "$2"; }

# The defaults to go back to: the options and buffer size as the kernel booted with them,
# kept by the first --reset (init.sh runs it before the first scenario).
DEFAULTS=/tmp/tracefs-defaults
if [ "${1:-}" = --reset ]; then
	echo 0 > tracing_on
	echo nop > current_tracer
	put 0 function_profile_enabled
	echo > set_event
	echo > set_ftrace_filter
	# Function probes ("func:traceoff:count=3") outlive the truncation: each goes with
	# "!func:cmd", or "!func:cmd:0" for one with a count (another probe type in the kernel).
	grep -v '^#' set_ftrace_filter 2>/dev/null | grep ':' | grep -v ':mod:' | cut -d: -f1,2 |
		while read -r p; do
			echo "!$p" 2>/dev/null >> set_ftrace_filter || echo "!$p:0" 2>/dev/null >> set_ftrace_filter
		done
	echo > set_ftrace_notrace
	put '' set_graph_function
	put '' set_graph_notrace
	echo > set_ftrace_pid
	put '' set_ftrace_notrace_pid
	echo > set_event_pid
	put '' set_event_notrace_pid
	put 0 tracing_thresh
	put 0 max_graph_depth
	for f in $(grep -l -v '^none$' events/*/*/filter 2>/dev/null); do echo 0 > "$f"; done
	for f in $(grep -l '^[^#]' events/*/*/trigger 2>/dev/null); do
		grep '^[^#]' "$f" | sed 's/ if .*//; s/^/!/' | while read -r t; do echo "$t" > "$f"; done
	done
	put '' kprobe_events
	put '' uprobe_events
	for d in instances/*; do [ -d "$d" ] && rmdir "$d"; done
	put 0 /proc/sys/kernel/stack_tracer_enabled
	if [ -f $DEFAULTS ]; then
		while read -r f v; do echo "$v" > "$f"; done < $DEFAULTS
	else
		for f in options/*; do echo "$f $(cat "$f")"; done > $DEFAULTS
		echo "buffer_size_kb $(sed 's/.*expanded: //; s/).*//' buffer_size_kb)" >> $DEFAULTS
		echo "tracing_cpumask $(cat tracing_cpumask)" >> $DEFAULTS
	fi
	echo 1 > tracing_on
	exit 0
fi

# Everything ftrec may touch at the top level: tracer, clock, thresholds, buffer sizes,
# filters and their contents (function probes included), pid lists, probes, synthetic
# event definitions (global, also when made for an instance), options.
# One awk reads every file: forks are slow in the emulated guest. Comment lines are the
# kernel's help text, not state. Before the first trace buffer_size_kb reads
# "7 (expanded: 1408)": the size it will grow to, which is what counts.
awk 'BEGIN {
	for (i = 1; i < ARGC; i++) {
		f = ARGV[i]; v = ""
		if ((r = getline line < f) < 0)	# not on this kernel
			continue
		for (; r > 0; r = getline line < f)
			if (line !~ /^#/)
				v = v (v == "" ? "" : " ") line
		close(f)
		if (v ~ /expanded: /) { sub(/.*expanded: /, "", v); sub(/\).*/, "", v) }
		print f "=" v
	}
}' tracing_on current_tracer function_profile_enabled trace_clock tracing_cpumask \
	tracing_thresh max_graph_depth buffer_size_kb per_cpu/cpu*/buffer_size_kb \
	/proc/sys/kernel/stack_tracer_enabled /proc/sys/kernel/kptr_restrict \
	set_event set_ftrace_filter set_ftrace_notrace set_graph_function set_graph_notrace \
	set_ftrace_pid set_ftrace_notrace_pid set_event_pid set_event_notrace_pid \
	kprobe_events uprobe_events dynamic_events synthetic_events options/*
echo "instances=$(ls instances | tr '\n' ' ')"
# Every event filter and trigger that is set, with its text: ftrec writes filters, and
# a user's must come back as they were.
grep -v '^none$' events/*/*/filter 2>/dev/null | sed 's/^/event filter /'
grep -v '^#' events/*/*/trigger 2>/dev/null | sed 's/^/event trigger /'
echo "events enabled=$(grep -l '^1' events/*/*/enable 2>/dev/null | tr '\n' ' ')"
