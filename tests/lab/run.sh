#!/usr/bin/env bash
# The kernel lab: boots a real kernel with full ftrace (function, function_graph, kprobes...)
# under qemu, runs every scenario in ONE boot, brings the outputs back and checks them on
# the host. Called by `make lab` and by tests/run.sh (make check).
#
#   BUILD=build tests/lab/run.sh            all scenarios
#   LAB_SCENARIOS="smoke iolat" ...         only these (names of tests/lab/scenarios/*.guest.sh)
#   LAB_KERNEL_DEB=FILE.deb / LAB_KERNEL_PKG=NAME   a given kernel package (see kernel.sh)
#   LAB_QEMU_TIMEOUT=SECONDS (default: sum of the scenarios' limits + 90), LAB_TCG=ACCEL
#
# A scenario is two files in tests/lab/scenarios/ (see tests/lab/README.md):
#   NAME.guest.sh  runs in the guest (busybox sh) in /out/NAME, with OUT=/out/NAME; ftrec,
#                  busybox and the static helpers built from tests/lab/*.c are in PATH;
#                  exit status non-zero = failure. "# lab-timeout: SECONDS" sets its limit (60).
#   NAME.check.sh  runs on the host with the scenario's output dir as $1 and FTANA set;
#                  prints expected vs seen and exits non-zero on failure (tests/lab/check-lib.sh).
# Outputs land in $BUILD/lab/out/NAME/ (guest.log, guest.rc, tracefs-after.txt, captures) and
# stay there; the guest console is $BUILD/lab/console.log.
#
# No qemu or no kernel package: exit 77 with the reason last; in CI (CI=true) exit 1.
set -u
cd "$(dirname "$0")/../.." || exit 1
LAB=tests/lab
BUILD=${BUILD:-build}
WORK=$BUILD/lab
export FTANA=${FTANA:-$PWD/$BUILD/ftana}
FTREC_STATIC=${FTREC_STATIC:-$PWD/$BUILD/ftrec}
lab_t0=$SECONDS

unavailable() {
	if [ "${CI:-}" = true ]; then
		echo "lab: FAILED (CI must run the lab): $*" >&2
		exit 1
	fi
	echo "lab: cannot run: $*"
	exit 77
}
die() { echo "lab: $*" >&2; exit 1; }
is_static() { ! readelf -l "$1" 2>/dev/null | grep -q 'interpreter'; }

command -v qemu-system-x86_64 >/dev/null || unavailable "qemu-system-x86_64 not installed (make deps)"
command -v cpio >/dev/null || unavailable "cpio not installed (make deps)"
BUSYBOX=$(command -v busybox) || unavailable "busybox not installed (make deps: busybox-static)"
is_static "$BUSYBOX" || unavailable "$BUSYBOX is not static (make deps: busybox-static)"

. "$LAB/kernel.sh"
lab_kernel_get "$LAB/cache" || unavailable "$LAB_WHY"
echo "lab: kernel $LAB_KVER from $(basename "$LAB_KDEB")"
mkdir -p "$WORK" && basename "$LAB_KDEB" .deb > "$WORK/kernel-package"

# ------------------------------------------------------------------ scenarios
if [ -n "${LAB_SCENARIOS:-}" ]; then
	scenarios=$LAB_SCENARIOS
else
	scenarios=$(cd "$LAB/scenarios" && ls *.guest.sh | sed 's/\.guest\.sh$//')
fi
for s in $scenarios; do
	[ -f "$LAB/scenarios/$s.guest.sh" ] || die "no scenario $LAB/scenarios/$s.guest.sh"
done

# ------------------------------------------------------------------ initramfs
rm -rf "$WORK/root" "$WORK/out"
mkdir -p "$WORK/bin" "$WORK/root/bin" "$WORK/root/lab/bin" "$WORK/root/lab/modules" \
	 "$WORK/root/lab/scenarios" || die "cannot create $WORK"
# Static helper programs for the guest: every tests/lab/*.c becomes /lab/bin/NAME.
for c in "$LAB"/*.c; do
	[ -f "$c" ] || continue
	exe=$WORK/bin/$(basename "$c" .c)
	if [ ! -x "$exe" ] || [ "$c" -nt "$exe" ]; then
		${CC:-cc} -static -O2 -g -Wall -Wextra -std=gnu11 -o "$exe" "$c" || die "cannot build $c"
	fi
	cp "$exe" "$WORK/root/lab/bin/"
done
if [ -x "$FTREC_STATIC" ]; then
	is_static "$FTREC_STATIC" || die "$FTREC_STATIC is not statically linked"
	cp "$FTREC_STATIC" "$WORK/root/lab/bin/ftrec"
else
	echo "lab: warning: no $FTREC_STATIC: scenarios that record will fail"
fi
cp "$BUSYBOX" "$WORK/root/bin/busybox"
cp "$LAB/init.sh" "$WORK/root/init"
cp "$LAB/tracefs-state.sh" "$LAB/guest-lib.sh" "$WORK/root/lab/"
chmod +x "$WORK/root/init"
for s in $scenarios; do
	cp "$LAB/scenarios/$s.guest.sh" "$WORK/root/lab/scenarios/"
	limit=$(sed -n 's/^# lab-timeout: *\([0-9][0-9]*\).*/\1/p' "$LAB/scenarios/$s.guest.sh")
	echo "$s ${limit:-60}"
done > "$WORK/root/lab/scenarios.list"
# Each scenario is killed at its own limit, so the whole boot is bounded by their sum plus
# time to boot and to write the results.
QEMU_TIMEOUT=${LAB_QEMU_TIMEOUT:-$(awk '{ t += $2 } END { print t + 90 }' "$WORK/root/lab/scenarios.list")}
# The output disk (virtio_blk) and a request-based disk on which every I/O takes 2 ms
# (null_blk: queue_mode=2 is blk-mq, irqmode=2 completes from a timer after completion_nsec).
mods=$(lab_kernel_modules "$WORK/root/lab/modules" virtio_pci virtio_blk null_blk) ||
	unavailable "modules missing from $LAB_KDEB"
for m in $mods; do
	case $m in
	null_blk) echo "$m queue_mode=2 irqmode=2 completion_nsec=2000000 nr_devices=1" ;;
	*) echo "$m" ;;
	esac
done > "$WORK/root/lab/modules.list"
(cd "$WORK/root" && find . | cpio -o -H newc --quiet) > "$WORK/initramfs.cpio" ||
	die "cannot build the initramfs"

# ------------------------------------------------------------------ boot
# The output disk is raw: the guest writes a tar archive straight onto it.
rm -f "$WORK/out.img"
truncate -s 512M "$WORK/out.img"
echo "lab: booting ($(du -k "$WORK/initramfs.cpio" | cut -f1) KiB initramfs; scenarios: $(echo "$scenarios" | paste -sd " " -))"
# A kernel stuck in a loop (soft lockup: a CPU not scheduling for 2 x watchdog_thresh s)
# panics, and a panic ends qemu (panic=-1 reboots, -no-reboot exits) instead of waiting for
# the host's timeout. loglevel=5 lets warnings with their stack traces reach the console.
LAB_CMDLINE='console=ttyS0 quiet loglevel=5 panic=-1 softlockup_panic=1 watchdog_thresh=30'
# thread=single: one host thread runs both vCPUs in turn. With multi-threaded TCG, turning
# function_graph off (ftrace patching kernel text, waiting on an IPI to the other vCPU in
# smp_call_function_many_cond) locked up 2 of about 15 runs; with it, none of 26,
# and it is no slower on a 2-core host.
LAB_TCG=${LAB_TCG:-tcg,thread=single}
boot_t0=$SECONDS
timeout "$QEMU_TIMEOUT" qemu-system-x86_64 -accel "$LAB_TCG" -cpu max -m 512 -smp 2 \
	-kernel "$LAB_VMLINUZ" -initrd "$WORK/initramfs.cpio" \
	-append "$LAB_CMDLINE" -nographic -no-reboot -nic none \
	-drive file="$WORK/out.img",format=raw,if=virtio < /dev/null > "$WORK/console.log" 2>&1
qemu_rc=$?
boot_secs=$((SECONDS - boot_t0))
show_console() { echo "---- guest console ($WORK/console.log), last 60 lines:"; tail -n 60 "$WORK/console.log"; }
# Whatever the guest saved is checked, also when it did not finish: the scenario it was
# running then fails with "did not finish" below, and the console says why.
guest_done=true
if ! grep -q 'LAB-DONE' "$WORK/console.log"; then
	guest_done=false
	show_console
	if [ $qemu_rc = 124 ]; then
		echo "lab: guest did not finish within ${QEMU_TIMEOUT}s"
	else
		echo "lab: guest did not finish (qemu exit $qemu_rc; a kernel panic ends it)"
	fi
fi
tar xf "$WORK/out.img" -C "$WORK" 2>/dev/null || { $guest_done || die "the guest saved no results"; die "cannot read the output disk"; }
echo "lab: guest ran ${boot_secs}s ($(sed -n 's/.*lab: \(kernel .*\)/\1/p' "$WORK/console.log" | tr -d '\r'))"

# ------------------------------------------------------------------ checks
pass=0 fail=0
before=$WORK/out/tracefs-before.txt
details=$WORK/failures.txt
: > "$details"
for s in $scenarios; do
	dir=$WORK/out/$s
	log=$(mktemp)
	t0=$SECONDS
	ok=true
	{
		if [ ! -f "$dir/guest.rc" ]; then
			echo "scenario did not finish in the guest (hang or kernel panic? see the console)"
			ok=false
		elif [ "$(cat "$dir/guest.rc")" != 0 ]; then
			case $(cat "$dir/guest.rc") in
			137 | 143) echo "guest side killed by its lab-timeout; guest.log:" ;;
			*) echo "guest side exited $(cat "$dir/guest.rc"); guest.log:" ;;
			esac
			tail -n 40 "$dir/guest.log"; ok=false
		fi
		if $ok && [ -s "$dir/leftovers.txt" ]; then
			echo "processes still running after the scenario ended (killed):"
			cat "$dir/leftovers.txt"; ok=false
		fi
		if $ok && ! diff -q "$before" "$dir/tracefs-after.txt" >/dev/null; then
			echo "tracefs state left behind (before | after):"
			diff -y --suppress-common-lines -W 160 "$before" "$dir/tracefs-after.txt"; ok=false
		fi
		if $ok && [ -f "$LAB/scenarios/$s.check.sh" ]; then
			bash "$LAB/scenarios/$s.check.sh" "$PWD/$dir" || ok=false
		fi
	} > "$log" 2>&1
	if $ok; then
		pass=$((pass + 1))
		printf 'lab: PASS  %-20s guest %5ss, check %3ds\n' "$s" "$(cat "$dir/guest.secs")" $((SECONDS - t0))
	else
		fail=$((fail + 1)); printf 'lab: FAIL  %-20s\n' "$s"
		{ echo "lab: FAIL  $s ($dir)"; sed 's/^/    | /' "$log"; } >> "$details"
	fi
	rm -f "$log"
done
# Failure details come last, after the console, so a caller showing only the end of this
# output (tests/run.sh shows 60 lines) shows why.
if [ $fail -gt 0 ]; then
	echo "---- guest console ($WORK/console.log), last 15 lines:"
	tail -n 15 "$WORK/console.log"
	cat "$details"
fi
$guest_done || echo "lab: FAILED: the guest did not finish (see the console above)"
echo "lab: $pass passed, $fail failed; guest ${boot_secs}s, whole lab $((SECONDS - lab_t0))s"
[ $fail -eq 0 ] && $guest_done
