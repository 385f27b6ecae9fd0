#!/usr/bin/env bash
# The kernel lab: boots a real kernel with full ftrace (function, function_graph, kprobes...)
# under qemu, runs every scenario in ONE boot per kernel, brings the outputs back and checks
# them on the host. Called by `make lab` and by tests/run.sh (make check).
#
# Two kernels: "cloud" (Debian 12's cloud kernel, kernel.sh; the default) and "profiler"
# (built here from Debian's kernel source with the function profiler, kernel-build.sh). Each
# kernel with at least one selected scenario is booted once.
#
#   BUILD=build tests/lab/run.sh            all scenarios
#   LAB_SCENARIOS="smoke iolat" ...         only these (names of tests/lab/scenarios/*.guest.sh)
#   LAB_KERNEL_DEB=FILE.deb / LAB_KERNEL_PKG=NAME   a given cloud kernel package (kernel.sh)
#   LAB_PROFILER_BZIMAGE=FILE / LAB_KSRC_DEB=FILE.deb   a given profiler kernel / its source
#   LAB_CACHE=DIR  where the kernels are kept (default tests/lab/cache)
#   LAB_QEMU_TIMEOUT=SECONDS (default per boot: sum of its scenarios' limits + 90), LAB_TCG=ACCEL
#
# A scenario is two files in tests/lab/scenarios/ (see tests/lab/README.md):
#   NAME.guest.sh  runs in the guest (busybox sh) in /out/NAME, with OUT=/out/NAME; ftrec,
#                  busybox and the static helpers built from tests/lab/*.c are in PATH;
#                  exit status non-zero = failure. "# lab-timeout: SECONDS" sets its limit (60),
#                  "# lab-kernel: profiler" the kernel it runs on (default: cloud).
#   NAME.check.sh  runs on the host with the scenario's output dir as $1 and FTANA set;
#                  prints expected vs seen and exits non-zero on failure (tests/lab/check-lib.sh).
# Outputs land in $BUILD/lab/out/NAME/ (guest.log, guest.rc, tracefs-after.txt, captures) and
# stay there; the guest consoles are $BUILD/lab/console.log (cloud) and console-KERNEL.log.
#
# No qemu or a kernel that cannot be had: exit 77 with the reason last; in CI (CI=true) exit 1.
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
. "$LAB/kernel-build.sh"
LAB_CACHE=${LAB_CACHE:-$LAB/cache}
mkdir -p "$WORK" || die "cannot create $WORK"

# ------------------------------------------------------------------ scenarios
if [ -n "${LAB_SCENARIOS:-}" ]; then
	scenarios=$LAB_SCENARIOS
else
	scenarios=$(cd "$LAB/scenarios" && ls *.guest.sh | sed 's/\.guest\.sh$//')
fi
# The scenarios of each kernel, in the order given.
declare -A on_kernel=()
for s in $scenarios; do
	[ -f "$LAB/scenarios/$s.guest.sh" ] || die "no scenario $LAB/scenarios/$s.guest.sh"
	k=$(sed -n 's/^# lab-kernel: *\([^ ]*\).*/\1/p' "$LAB/scenarios/$s.guest.sh" | head -n 1)
	k=${k:-cloud}
	case $k in
	cloud | profiler) on_kernel[$k]="${on_kernel[$k]:-}$s " ;;
	*) die "$LAB/scenarios/$s.guest.sh: unknown lab-kernel '$k' (cloud or profiler)" ;;
	esac
done
kernels=$(for k in cloud profiler; do [ -n "${on_kernel[$k]:-}" ] && echo "$k"; done)

# ------------------------------------------------------------------ kernels
# Every kernel needed is got before the first boot, so a missing one is reported at once.
# kernel_NAME sets kimage[NAME] (what qemu boots) and kcmdline[NAME] (what it needs on the
# command line besides LAB_CMDLINE); modules_NAME DIR LIST puts the modules the guest loads
# into DIR and their list into LIST ("name args..." per line, dependencies first).
declare -A kimage=() kcmdline=()
# null_blk: a request-based disk (queue_mode=2 is blk-mq) on which every I/O takes 2 ms
# (irqmode=2 completes from a timer after completion_nsec).
NULLB_PARAMS="queue_mode=2 irqmode=2 completion_nsec=2000000 nr_devices=1"
kernel_cloud() {
	lab_kernel_get "$LAB_CACHE" || unavailable "$LAB_WHY"
	echo "lab: cloud kernel $LAB_KVER from $(basename "$LAB_KDEB")"
	basename "$LAB_KDEB" .deb > "$WORK/kernel-package"
	kimage[cloud]=$LAB_VMLINUZ kcmdline[cloud]=
}
modules_cloud() { # dir, list: the output disk (virtio_blk) and null_blk
	local mods m
	mods=$(lab_kernel_modules "$1" virtio_pci virtio_blk null_blk) ||
		unavailable "modules missing from $LAB_KDEB"
	for m in $mods; do
		case $m in null_blk) echo "$m $NULLB_PARAMS" ;; *) echo "$m" ;; esac
	done > "$2"
}
kernel_profiler() {
	lab_pkernel_get "$LAB_CACHE" "$LAB/profiler.config"
	case $? in 0) ;; 1) unavailable "$LAB_WHY" ;; *) die "$LAB_WHY" ;; esac
	echo "lab: profiler kernel $LAB_PKNAME"
	# No modules: everything is built in, null_blk takes its parameters from the command line.
	# shellcheck disable=SC2086 # one word per parameter
	kimage[profiler]=$LAB_PVMLINUZ kcmdline[profiler]=$(printf ' null_blk.%s' $NULLB_PARAMS)
}
modules_profiler() { : > "$2"; }
for k in $kernels; do "kernel_$k"; done

# ------------------------------------------------------------------ initramfs, common part
rm -rf "$WORK/common" "$WORK/out" "$WORK/root" "$WORK/initramfs.cpio" "$WORK/out.img"
mkdir -p "$WORK/bin" "$WORK/common/bin" "$WORK/common/lab/bin" || die "cannot create $WORK"
# Static helper programs for the guest: every tests/lab/*.c becomes /lab/bin/NAME.
for c in "$LAB"/*.c; do
	[ -f "$c" ] || continue
	exe=$WORK/bin/$(basename "$c" .c)
	if [ ! -x "$exe" ] || [ "$c" -nt "$exe" ]; then
		${CC:-cc} -static -pthread -O2 -g -Wall -Wextra -std=gnu11 -o "$exe" "$c" || die "cannot build $c"
	fi
	cp "$exe" "$WORK/common/lab/bin/"
done
if [ -x "$FTREC_STATIC" ]; then
	is_static "$FTREC_STATIC" || die "$FTREC_STATIC is not statically linked"
	cp "$FTREC_STATIC" "$WORK/common/lab/bin/ftrec"
else
	echo "lab: warning: no $FTREC_STATIC: scenarios that record will fail"
fi
cp "$BUSYBOX" "$WORK/common/bin/busybox"
cp "$LAB/init.sh" "$WORK/common/init"
cp "$LAB/tracefs-state.sh" "$LAB/guest-lib.sh" "$WORK/common/lab/"
chmod +x "$WORK/common/init"

# ------------------------------------------------------------------ boot
# A kernel stuck in a loop (soft lockup: a CPU not scheduling for 2 x watchdog_thresh s)
# panics, and a panic ends qemu (panic=-1 reboots, -no-reboot exits) instead of waiting for
# the host's timeout. loglevel=5 lets warnings with their stack traces reach the console.
LAB_CMDLINE='console=ttyS0 quiet loglevel=5 panic=-1 softlockup_panic=1 watchdog_thresh=30'
# thread=single: one host thread runs both vCPUs in turn. With multi-threaded TCG, turning
# function_graph off (ftrace patching kernel text, waiting on an IPI to the other vCPU in
# smp_call_function_many_cond) locked up 2 of about 15 runs; with it, none of 26,
# and it is no slower on a 2-core host.
LAB_TCG=${LAB_TCG:-tcg,thread=single}
guest_secs=0 all_done=true
console_of() { [ "$1" = cloud ] && echo "$WORK/console.log" || echo "$WORK/console-$1.log"; }

# Boots one kernel with its scenarios; what the guest saved lands in $WORK/out (the
# scenarios' dirs and tracefs-before-KERNEL.txt). Sets all_done=false if it did not finish.
boot() { # kernel, scenarios...
	local k=$1 dir=$WORK/$1 console s limit timeout_s rc t0 secs
	shift
	console=$(console_of "$k")
	rm -rf "$dir"
	mkdir -p "$dir" && cp -a "$WORK/common" "$dir/root" &&
		mkdir -p "$dir/root/lab/scenarios" "$dir/root/lab/modules" || die "cannot create $dir"
	echo "$k" > "$dir/root/lab/kernel"
	for s; do
		cp "$LAB/scenarios/$s.guest.sh" "$dir/root/lab/scenarios/"
		limit=$(sed -n 's/^# lab-timeout: *\([0-9][0-9]*\).*/\1/p' "$LAB/scenarios/$s.guest.sh")
		echo "$s ${limit:-60}"
	done > "$dir/root/lab/scenarios.list"
	"modules_$k" "$dir/root/lab/modules" "$dir/root/lab/modules.list"
	(cd "$dir/root" && find . | cpio -o -H newc --quiet) > "$dir/initramfs.cpio" ||
		die "cannot build the initramfs"
	# Each scenario is killed at its own limit, so the whole boot is bounded by their sum
	# plus time to boot and to write the results.
	timeout_s=${LAB_QEMU_TIMEOUT:-$(awk '{ t += $2 } END { print t + 90 }' "$dir/root/lab/scenarios.list")}
	# The output disk is raw: the guest writes a tar archive straight onto it.
	truncate -s 512M "$dir/out.img"
	echo "lab: booting the $k kernel ($(du -k "$dir/initramfs.cpio" | cut -f1) KiB initramfs; scenarios: $*)"
	t0=$SECONDS
	timeout "$timeout_s" qemu-system-x86_64 -accel "$LAB_TCG" -cpu max -m 512 -smp 2 \
		-kernel "${kimage[$k]}" -initrd "$dir/initramfs.cpio" \
		-append "$LAB_CMDLINE${kcmdline[$k]}" -nographic -no-reboot -nic none \
		-drive file="$dir/out.img",format=raw,if=virtio < /dev/null > "$console" 2>&1
	rc=$?
	secs=$((SECONDS - t0))
	guest_secs=$((guest_secs + secs))
	# Whatever the guest saved is checked, also when it did not finish: the scenario it was
	# running then fails with "did not finish", and the console says why.
	if ! grep -q 'LAB-DONE' "$console"; then
		all_done=false
		echo "---- guest console ($console), last 60 lines:"
		tail -n 60 "$console"
		if [ $rc = 124 ]; then
			echo "lab: $k guest did not finish within ${timeout_s}s"
		else
			echo "lab: $k guest did not finish (qemu exit $rc; a kernel panic ends it)"
		fi
	fi
	tar xf "$dir/out.img" -C "$WORK" 2>/dev/null || echo "lab: the $k guest saved no results"
	echo "lab: guest ran ${secs}s ($(sed -n 's/.*lab: \(kernel .*\)/\1/p' "$console" | tr -d '\r'))"
}

# ------------------------------------------------------------------ checks
pass=0 fail=0 failed_consoles=
details=$WORK/failures.txt
: > "$details"
# Why scenario S of kernel K failed, on stdout; returns 1 if it did.
check_one() { # kernel, scenario
	local dir=$WORK/out/$2 before=$WORK/out/tracefs-before-$1.txt
	if [ ! -f "$dir/guest.rc" ]; then
		echo "scenario did not finish in the guest (hang or kernel panic? see the console)"
		return 1
	fi
	if [ "$(cat "$dir/guest.rc")" != 0 ]; then
		case $(cat "$dir/guest.rc") in
		137 | 143) echo "guest side killed by its lab-timeout; guest.log:" ;;
		*) echo "guest side exited $(cat "$dir/guest.rc"); guest.log:" ;;
		esac
		tail -n 40 "$dir/guest.log"
		return 1
	fi
	if [ -s "$dir/leftovers.txt" ]; then
		echo "processes still running after the scenario ended (killed):"
		cat "$dir/leftovers.txt"
		return 1
	fi
	if ! diff -q "$before" "$dir/tracefs-after.txt" >/dev/null; then
		echo "tracefs state left behind (before | after):"
		diff -y --suppress-common-lines -W 160 "$before" "$dir/tracefs-after.txt"
		return 1
	fi
	[ ! -f "$LAB/scenarios/$2.check.sh" ] || bash "$LAB/scenarios/$2.check.sh" "$PWD/$dir"
}
check() { # kernel, scenarios...
	local k=$1 s log t0
	shift
	for s; do
		log=$(mktemp)
		t0=$SECONDS
		if check_one "$k" "$s" > "$log" 2>&1; then
			pass=$((pass + 1))
			printf 'lab: PASS  %-20s guest %5ss, check %3ds\n' "$s" "$(cat "$WORK/out/$s/guest.secs")" $((SECONDS - t0))
		else
			fail=$((fail + 1)); printf 'lab: FAIL  %-20s\n' "$s"
			{ echo "lab: FAIL  $s ($WORK/out/$s, $k kernel)"; sed 's/^/    | /' "$log"; } >> "$details"
			case " $failed_consoles " in *" $k "*) ;; *) failed_consoles="$failed_consoles $k" ;; esac
		fi
		rm -f "$log"
	done
}

for k in $kernels; do
	# shellcheck disable=SC2086 # one word per scenario
	boot "$k" ${on_kernel[$k]}
	# shellcheck disable=SC2086
	check "$k" ${on_kernel[$k]}
done
# Failure details come last, after the consoles, so a caller showing only the end of this
# output (tests/run.sh shows 60 lines) shows why.
if [ $fail -gt 0 ]; then
	for k in $failed_consoles; do
		echo "---- guest console ($(console_of "$k")), last 15 lines:"
		tail -n 15 "$(console_of "$k")"
	done
	cat "$details"
fi
$all_done || echo "lab: FAILED: the guest did not finish (see the console above)"
echo "lab: $pass passed, $fail failed; guest ${guest_secs}s, whole lab $((SECONDS - lab_t0))s"
[ $fail -eq 0 ] && $all_done
