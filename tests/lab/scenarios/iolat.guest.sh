# iolat: N direct 64 KiB reads from null_blk, whose every request takes >= 2 ms
# (completion_nsec=2000000), recorded with ftrec. Ground truth for the host: the workload
# (N reads of 65536 bytes), null_blk's fixed latency, and the kernel's own I/O counters
# for the disk (/sys/block/nullb0/stat) read before and after.
# lab-timeout: 90
. /lab/guest-lib.sh
N=20
dev=$(cat /sys/block/nullb0/dev)		# MAJ:MIN
echo "$N" > expected_reads
echo "$dev" > nullb_dev
cat /sys/block/nullb0/stat > stat_before
capture iolat ftrec iolat -D "${dev%:*},${dev#*:}" -o iolat.ftz -- \
	dd if="$LAB_NULLB" of=/dev/null bs=65536 count="$N" iflag=direct
cat /sys/block/nullb0/stat > stat_after
