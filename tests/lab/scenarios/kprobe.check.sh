# Host side of kprobe: $1 is its output dir (kprobe_read.ftz, kprobe_open.ftz, read.out, open.out).
. "$(dirname "$0")/../check-lib.sh"
cd "$1" || exit 1
rpid=$(sed -n 's/^pid=//p' read.out) ret=$(sed -n 's/^read=//p' read.out)
opid=$(sed -n 's/^pid=//p' open.out) path=$(sed -n 's/^open=\([^ ]*\) .*/\1/p' open.out)
expect "workload: bytes read" 12345 "$ret"
expect "ftana: ksys_read returns of $ret by the workload" 1 \
	"$(q kprobe_read.ftz "SELECT count(*) FROM kread WHERE pid = $rpid AND ret = $ret")"
"$FTANA" report kprobe kprobe_read.ftz > read.txt 2>&1
expect "report kprobe exit" 0 $?
# $retval is an x64 fetch: printed as the kernel prints it, 0x%Lx
ret_hex=$(printf '0x%x' "$ret")
expect "report: the workload's hit with ret=$ret_hex" 1 "$(grep -c -- "-$rpid .* kread: (.* <- ksys_read) ret=$ret_hex\$" read.txt)"
expect "ftana: opens of $path by the workload" 1 \
	"$(q kprobe_open.ftz "SELECT count(*) FROM kopen WHERE pid = $opid AND path = '$path'")"
"$FTANA" report kprobe kprobe_open.ftz --probe kopen > open.txt 2>&1
expect "report kprobe --probe exit" 0 $?
expect "report: the workload's open of $path" 1 \
	"$(grep -c -- "-$opid .* kopen: (do_sys_openat2+0x0) path=\"$path\"\$" open.txt)"
# The hit's stack (-s), printed below it: " => FRAME" lines, the system call among them.
expect "report: the open's stack shows openat(2)" 1 \
	"$(awk -v hit="-$opid " 'index($0, hit) && /kopen:/ { on = 1; next } on && /^ => / { if ($2 ~ /sys_openat$/) n++; next } { on = 0 } END { print n + 0 }' open.txt)"
check_done
