# tpoint: one tracepoint with a filter and kernel stacks (-s) during mixed direct reads
# and writes on null_blk. Only the reads may be recorded, each with a stack. Ground truth
# for the host: the workload (R reads, W writes), the kernel's I/O counters for the disk,
# and this kernel's /proc/kallsyms to resolve the stack addresses independently of ftana.
# lab-timeout: 90
. /lab/guest-lib.sh
rounds=6 reads=2 writes=3
echo $((rounds * reads)) > expected_reads
echo $((rounds * writes)) > expected_writes
cat /sys/block/nullb0/dev > nullb_dev
# Alternate direct reads and writes at fresh offsets, so no request can merge with another.
mixed="i=0; while [ \$i -lt $rounds ]; do
dd if=$LAB_NULLB of=/dev/null bs=4096 count=$reads skip=\$((i * $reads)) iflag=direct 2>/dev/null;
dd if=/dev/zero of=$LAB_NULLB bs=4096 count=$writes seek=\$((i * $writes)) oflag=direct 2>/dev/null;
i=\$((i + 1)); done"
mixed=$(printf %s "$mixed" | tr '\n' ' ')
cat /sys/block/nullb0/stat > stat_before
capture tpoint ftrec tpoint -s -o tpoint.ftz block:block_rq_issue 'rwbs ~ "*R*"' -- sh -c "$mixed"
cat /sys/block/nullb0/stat > stat_after
grep -E ' [tTwW] ' /proc/kallsyms | gzip > kallsyms.gz
