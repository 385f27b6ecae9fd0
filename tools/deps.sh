#!/usr/bin/env bash
# Installs the Debian packages ftrec/ftana need to build, test and run the kernel lab.
# Skips what is already installed; run as root on Debian 12.
set -eu
pkgs=(build-essential pkg-config libzstd-dev zstd libtraceevent-dev libtracefs-dev
      libsqlite3-dev sqlite3 libcmocka-dev trace-cmd libtracecmd-dev libreadline-dev
      qemu-system-x86 busybox-static cpio perf-tools-unstable
      flex bison bc libelf-dev xz-utils)
# (flex ... xz-utils: to build the kernel lab's profiler kernel, tests/lab/kernel-build.sh)
pkgs+=(clang libclang-rt-14-dev time) # make fuzz (libFuzzer); /usr/bin/time: test_hostile.sh's RSS bounds
pkgs+=(chromium) # tests/test_svg_render.sh renders the SVG pictures headless (about 30 s to install)
pkgs+=(python3-zstandard) # tests/ftz_reader.py (test_conformance.sh): the independent .ftz reader decompresses with it
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing ${missing[*]}; run 'make deps' as root (apt-get install)" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
