#!/bin/busybox sh
# /init of the lab's initramfs (built by tests/lab/run.sh). Runs as pid 1 in the guest:
# mounts what ftrace needs, loads the disk drivers (when modules), runs every scenario in
# /lab/scenarios.list ("NAME TIMEOUT_SECONDS" per line) in its own shell with a timeout,
# writing /out as a tar archive straight onto the output disk after each, and powers off.
# Everything printed here goes to the serial console, which the host keeps as console.log.
/bin/busybox --install -s /bin
export PATH=/lab/bin:/bin HOME=/ TERM=dumb
cd /

mkdir -p /proc /sys /dev /tmp /out
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing

say() { echo "lab: $*"; }
# The results go out after every scenario, not only at the end: if a later one hangs or
# crashes the kernel, the host still gets everything done before it.
save_out() { [ -n "$LAB_OUTDEV" ] && tar cf "$LAB_OUTDEV" out && sync; }
finish() { # rc: hand the results to the host and stop the machine
	say "writing /out to ${LAB_OUTDEV:-?}"
	save_out
	say "LAB-DONE rc=$1"
	poweroff -f
}

# Modules, dependencies first (the host resolved the order); "name args..." per line.
while read -r mod args; do
	[ -n "$mod" ] || continue
	# shellcheck disable=SC2086 # module parameters are separate words
	insmod "/lab/modules/$mod.ko" $args || say "insmod $mod failed"
done < /lab/modules.list
mount -t configfs configfs /sys/kernel/config 2>/dev/null

# Devices appear asynchronously after their driver loads.
wait_for() { # path: up to 10 s
	i=0
	while [ ! -e "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$1" ]
}
# null_blk is a module (cloud kernel) or built in (profiler kernel); either way it is in
# /sys/module once loaded. A kernel without it gets no wait.
if [ -d /sys/module/null_blk ]; then wait_for /dev/nullb0 || say "no /dev/nullb0"; else say "no null_blk"; fi
LAB_OUTDEV=
wait_for /sys/block/vda && LAB_OUTDEV=/dev/$(cd /sys/block && ls -d vd* | head -n 1)
[ -n "$LAB_OUTDEV" ] || { say "no virtio output disk"; finish 1; }
export LAB_OUTDEV LAB_NULLB=/dev/nullb0

# Kills what a scenario left running (timeout kills only its shell), so the next one starts
# alone, and names each on stdout. Kernel threads have an empty cmdline and are left alone;
# `read` is a shell builtin: forks are slow in the emulated guest. busybox timeout's own
# watcher (a child that exits within 1 s of the program it watches) is not a leftover.
reap_leftovers() {
	for d in /proc/[0-9]*; do
		p=${d#/proc/}
		cmd=
		read -r cmd < "$d/cmdline" 2>/dev/null
		case $p:$cmd in 1:* | *:timeout*) continue ;; esac
		[ -n "$cmd" ] || continue
		echo "pid $p: $(tr '\0' ' ' < "$d/cmdline")"
		kill -KILL "$p" 2>/dev/null
	done
}

# Which of the lab's kernels this is (run.sh boots one per kernel, all into the same host dir).
read -r LAB_KERNEL < /lab/kernel
say "kernel $(uname -r) ($LAB_KERNEL), $(nproc) cpus, up $(cut -d' ' -f1 /proc/uptime) s"
# Every scenario must leave tracefs as it found it: the host compares against this.
# The reset first also makes the kernel allocate its full ring buffers (any write to
# set_event does), so buffer_size_kb reads the same before and after tracing.
sh /lab/tracefs-state.sh --reset
sh /lab/tracefs-state.sh > "/out/tracefs-before-$LAB_KERNEL.txt" 2>&1
while read -r name limit; do
	[ -n "$name" ] || continue
	dir=/out/$name
	mkdir -p "$dir"
	t0=$(cut -d' ' -f1 /proc/uptime)
	say "scenario $name starting (limit ${limit}s)"
	# Own shell per scenario: a scenario that hangs or dies cannot take the others with it.
	(cd "$dir" && OUT=$dir timeout -s TERM -k 5 "$limit" sh /lab/scenarios/"$name".guest.sh) \
		> "$dir/guest.log" 2>&1
	rc=$?
	echo "$rc" > "$dir/guest.rc"
	reap_leftovers > "$dir/leftovers.txt"
	sh /lab/tracefs-state.sh > "$dir/tracefs-after.txt" 2>&1
	sh /lab/tracefs-state.sh --reset
	t1=$(cut -d' ' -f1 /proc/uptime)
	echo "$t0 $t1" | awk '{ printf "%.1f\n", $2 - $1 }' > "$dir/guest.secs"
	say "scenario $name rc=$rc ($t0 -> $t1 s)"
	save_out
done < /lab/scenarios.list
finish 0
