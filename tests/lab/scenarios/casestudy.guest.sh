# casestudy: Gregg's "Ftrace: the hidden light switch" investigation, staged and replayed.
# A database stand-in (workload faults) opens its data file on an ext2 filesystem once,
# with the disk's readahead at 2048 KB, and reads it through mmap: one page fault per page,
# pages in a random order, 20 ms apart. The readahead is then lowered to 128 KB, which does
# not reach the open file (file_ra_state_init copies the disk's value into the file at
# open). ftrec records each step of the article while the workload faults; the workload
# then reopens its file and the steps that show the size are recorded again.
# Ground truth for the host: the readahead configured at each open (blockdev --getra), the
# workload's own answers (pages touched, getrusage's major faults), the disk's counters
# (/sys/block/nullb1/stat) around each capture, and the disk's request size limit.
# The captures are named caseNN_* in the order of the article (docs/CASE-STUDY.md).
# lab-timeout: 300
. /lab/guest-lib.sh
RA_OLD=4096	# sectors: 2048 KB, the article's readahead
RA_NEW=256	# sectors: 128 KB, the kernel's default
MAX_SECTORS=1024	# the disk's largest request: 512 KB (null_blk's default is 255 sectors)
DISK=nullb1 MNT=/mnt/case
# Pages 768 + k * 1024 of a 32 MB file: with 2048 KB readahead each fault reads pages
# [1024k + 512, 1024k + 1024), with 128 KB [1024k + 752, 1024k + 784): the windows never
# overlap (so each touch is a fault that reads the disk) and never contain logical block
# 12 + 1024m, where ext2 puts an indirect block between two runs of data blocks (so each
# readahead is one contiguous run on the disk).
STRIDE=1024 OFFSET=768 INTERVAL_MS=20
cfg=/sys/kernel/config/nullb/$DISK
ctl=/tmp/casestudy.ctl	# the workload's commands, a FIFO: kept out of /out (a tar archive for the host)
wl_pid=

cleanup() {
	[ -n "$wl_pid" ] && kill "$wl_pid" 2>/dev/null && wait "$wl_pid"
	umount "$MNT" 2>/dev/null
	exec 3>&-
	rm -f "$ctl"
	[ -d "$cfg" ] && { echo 0 > "$cfg/power"; rmdir "$cfg"; }
}
trap cleanup EXIT

# ---- the disk: a second null_blk, memory-backed (it keeps what is written), made with
# configfs so /dev/nullb0 stays as the other scenarios know it. Same 2 ms per request.
[ -d /sys/kernel/config/nullb ] || fail "no null_blk configfs (/sys/kernel/config/nullb)"
mkdir "$cfg" || fail "cannot create $cfg"
for kv in size=64 memory_backed=1 queue_mode=2 irqmode=2 completion_nsec=2000000 \
	max_sectors=$MAX_SECTORS; do
	echo "${kv#*=}" > "$cfg/${kv%%=*}" || fail "cannot set null_blk ${kv%%=*}"
done
echo 1 > "$cfg/power" || fail "cannot power on $DISK"
i=0
while [ ! -b /dev/$DISK ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -b /dev/$DISK ] || fail "no /dev/$DISK"
# mq-deadline, so block_rq_insert fires (without a scheduler requests go straight to issue).
echo mq-deadline > /sys/block/$DISK/queue/scheduler 2>/dev/null
cat /sys/block/$DISK/queue/scheduler > disk_scheduler
cat /sys/block/$DISK/dev > disk_dev
cat /sys/block/$DISK/queue/max_sectors_kb > disk_max_sectors_kb
run mke2fs -q -b 4096 /dev/$DISK
mkdir -p "$MNT"
run mount -t ext2 /dev/$DISK "$MNT"
run dd if=/dev/zero of="$MNT/db.dat" bs=1048576 count=32
sync

# ---- the incident: the database opens its file with the large readahead...
run blockdev --setra $RA_OLD /dev/$DISK
blockdev --getra /dev/$DISK > ra_at_open
mkfifo "$ctl"
# Held open read-write here too, so that a write to it never blocks, even when the workload
# has died (drive then sees it gone).
exec 3<> "$ctl"
workload faults "$MNT/db.dat" "$ctl" $STRIDE $OFFSET $INTERVAL_MS > workload.out 2> workload.err &
wl_pid=$!
# drive COMMAND: hands one command to the workload and waits for its answer line.
cat > drive <<EOF
#!/bin/sh
n=\$(wc -l < $OUT/workload.out)
echo "\$*" > $ctl
i=0
while [ "\$(wc -l < $OUT/workload.out)" -le "\$n" ]; do
	# gone: an answer it wrote as it ended still counts (quit's)
	grep -qs '^State:.[^Z]' /proc/$wl_pid/status || [ "\$(wc -l < $OUT/workload.out)" -gt "\$n" ] ||
		{ echo "drive: the workload exited: \$(cat $OUT/workload.err)" >&2; exit 1; }
	i=\$((i + 1))
	[ \$i -le 1200 ] || { echo "drive: no answer to '\$*'" >&2; exit 1; }
	sleep 0.05
done
tail -n 1 $OUT/workload.out
EOF
chmod +x drive
./drive touch 2 > warmup.workload || fail "workload: $(cat workload.err)"
# ... and the tuning that did not help: the disk's readahead lowered while the file is open.
run blockdev --setra $RA_NEW /dev/$DISK
blockdev --getra /dev/$DISK > ra_tuned
cat /sys/block/$DISK/queue/read_ahead_kb > ra_tuned_kb

# step NAME COMMAND...: one capture around one command to the workload, with the disk's
# counters before and after, ftrec's own output and the workload's answer.
# settle: wait (at most 5 s) until the disk has nothing in flight and read nothing new for
# 0.3 s. The disk's counters bracket a whole step while ftrec traces only inside it: an
# earlier touch's readahead still arriving counted 8 reads in case01's counters that no
# capture could hold (the staging check saw 40960 sectors for 32768).
settle() {
	s=0 still=0 last=
	while [ $s -lt 50 ] && [ $still -lt 3 ]; do
		now=$(cat /sys/block/$DISK/stat)
		if [ "$(cat /sys/block/$DISK/inflight)" = "$(printf '%8d %8d' 0 0)" ] && [ "$now" = "$last" ]; then
			still=$((still + 1))
		else
			still=0
		fi
		last=$now
		s=$((s + 1))
		sleep 0.1
	done
}

step() {
	name=$1
	shift
	settle
	cat /sys/block/$DISK/stat > "$name.stat_before"
	(capture "$name" "$@") > "$name.out" 2>&1
	rc=$?
	cat /sys/block/$DISK/stat > "$name.stat_after"
	tail -n 1 workload.out > "$name.workload"
	cat "$name.out"
	[ $rc = 0 ] || exit 1
}
dev=$(cat disk_dev)
IOLAT="ftrec iolat -D ${dev%:*},${dev#*:}"
RA_PROBE='p:ra page_cache_ra_unbounded nr_to_read=$arg2:u64'
SIZE_PROBE='p:ra_size page_cache_ra_order ra_pages=+16($arg2):u32 size=+8($arg2):u32'
# 1. iosnoop: the I/O still comes in large requests.
step case01_iolat $IOLAT -o case01_iolat.ftz -- ./drive touch 8
# 2. tpoint -s: where the reads come from.
step case02_tpoint ftrec tpoint -s -o case02_tpoint.ftz block:block_rq_insert 'rwbs ~ "*R*"' -- ./drive touch 2
# 3. funccount: bios against page faults. On 6.1 submit_bio takes the filesystem's bios,
# as large as the readahead; submit_bio_noacct also takes the pieces the block layer
# splits them into, at most the disk's request size: those are 3.x's submit_bio calls.
FUNCS="submit_bio submit_bio_noacct filemap_fault"
step case03_funccount ftrec funccount -o case03_funccount.ftz $FUNCS -- ./drive touch 8
# 4. funcslower: the faults are slow.
step case04_funcslower ftrec funcslower -P -o case04_funcslower.ftz filemap_fault 1000 -- ./drive touch 4
# 5. funcgraph: what a fault does, 5 levels deep (all of it is 70,000 calls per fault).
step case05_funcgraph ftrec funcgraph -P -m 5 -o case05_funcgraph.ftz filemap_fault -- ./drive touch 1
# 6. kprobe: how much each readahead reads, and the size the open file carries.
step case06_kprobe_ra ftrec kprobe -o case06_kprobe_ra.ftz "$RA_PROBE" -- ./drive touch 4
step case07_kprobe_size ftrec kprobe -o case07_kprobe_size.ftz "$SIZE_PROBE" -- ./drive touch 4
# The fix: the file is reopened; file_ra_state_init runs, from open.
step case08_kprobe_open ftrec kprobe -s -o case08_kprobe_open.ftz 'p:file_ra_state_init file_ra_state_init' -- ./drive reopen
blockdev --getra /dev/$DISK > ra_at_reopen
# After the reopen: the same steps show the new size.
step case09_iolat $IOLAT -o case09_iolat.ftz -- ./drive touch 8
step case10_funccount ftrec funccount -o case10_funccount.ftz $FUNCS -- ./drive touch 8
step case11_kprobe_ra ftrec kprobe -o case11_kprobe_ra.ftz "$RA_PROBE" -- ./drive touch 4
step case12_kprobe_size ftrec kprobe -o case12_kprobe_size.ftz "$SIZE_PROBE" -- ./drive touch 4
./drive quit > /dev/null || fail "workload did not quit"
wait "$wl_pid" || fail "workload exited $?: $(cat workload.err)"
wl_pid=
