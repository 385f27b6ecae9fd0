# Smoke: the lab kernel offers full ftrace, the null_blk disk is set up as the other
# scenarios expect, and files round-trip to the host intact. Needs no ftrec.
# lab-timeout: 60
. /lab/guest-lib.sh
cat $T/available_tracers > available_tracers
cat /sys/module/null_blk/parameters/completion_nsec > nullb_completion_nsec
cat /sys/block/nullb0/queue/scheduler > nullb_scheduler

# The function tracer really traces: vfs_read called by dd (which uses read(2)).
run sh -c "echo vfs_read > $T/set_ftrace_filter"
run sh -c "echo function > $T/current_tracer"
dd if=/proc/version of=/dev/null 2>/dev/null
run sh -c "echo 0 > $T/tracing_on"	# switching the tracer would clear the buffer
grep ' vfs_read <-' $T/trace > function_vfs_read.txt
run sh -c "echo nop > $T/current_tracer"
run sh -c "echo 1 > $T/tracing_on"
run sh -c "echo > $T/set_ftrace_filter"

# A kprobe fires: one open() by a known command.
run sh -c "echo 'p:lab/open do_sys_openat2 dfd=%di' > $T/kprobe_events"
run sh -c "echo 1 > $T/events/lab/open/enable"
cat /proc/version > /dev/null
run sh -c "echo 0 > $T/events/lab/open/enable"
grep -c 'cat-[0-9]*  *\[.*open: (do_sys_openat2' $T/trace > kprobe_cat_hits
run sh -c "echo > $T/kprobe_events"
run sh -c "echo > $T/trace"

# Round trip: 300 KiB of random bytes and their checksum, computed here.
run dd if=/dev/urandom of=roundtrip.bin bs=1024 count=300
sha256sum roundtrip.bin > roundtrip.sha256
