# Sourced by tests/lab/run.sh: gets the lab's kernel and orders its modules. (The second,
# self-built kernel with the function profiler is tests/lab/kernel-build.sh.)
#
# The kernel is Debian 12's cloud kernel, unsigned flavour (6.1, full ftrace: function,
# function_graph, kprobes, stack tracer, hist triggers). It is fetched with apt-get download
# (never installed: it is only unpacked with dpkg -x) and cached in tests/lab/cache/.
# Set LAB_KERNEL_DEB=/path/to/linux-image-...-unsigned_*.deb to use a given package file, or
# LAB_KERNEL_PKG=linux-image-6.1.0-NN-cloud-amd64-unsigned to download that one (when the
# cache holds no kernel yet).

LAB_KCONFIG_NEEDED="FUNCTION_TRACER FUNCTION_GRAPH_TRACER DYNAMIC_FTRACE KPROBE_EVENTS
	STACK_TRACER BLK_DEV_IO_TRACE HIST_TRIGGERS DEVTMPFS BLK_DEV_INITRD"

# The exact package name changes with every kernel ABI bump: ask apt which one the
# cloud meta-package depends on now, else take the newest 6.1 one apt knows.
lab_kernel_pkg_name() {
	local signed
	if [ -n "${LAB_KERNEL_PKG:-}" ]; then	# pinned by the caller
		echo "$LAB_KERNEL_PKG"
		return
	fi
	signed=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null |
		 sed -n 's/^ *Depends: \(linux-image-6\.1\.0-[0-9]*-cloud-amd64\)$/\1/p' | head -n 1)
	if [ -n "$signed" ]; then
		echo "$signed-unsigned"
		return
	fi
	apt-cache pkgnames linux-image-6.1.0- 2>/dev/null |
		grep -E '^linux-image-6\.1\.0-[0-9]+-cloud-amd64-unsigned$' | sort -V | tail -n 1
}

# apt-get download into a cache dir; prints the .deb's path. The package name comes from a
# command, asked again after an apt-get update (the name may only be known then).
lab_apt_download() { # cache dir, command printing the package name...
	local cache=$1 pkg
	shift
	pkg=$("$@")
	if [ -z "$pkg" ] || ! (cd "$cache" && apt-get download -q "$pkg" >&2); then
		# A fresh machine or CI image may not have fetched the package lists yet.
		echo "lab: package ${pkg:-for the lab kernel} not known to apt yet: running apt-get update" >&2
		apt-get update -qq >&2 || return 1
		pkg=$("$@")
		[ -n "$pkg" ] || return 1
		(cd "$cache" && apt-get download -q "$pkg" >&2) || return 1
	fi
	ls "$cache/${pkg}"_*.deb | sort -V | tail -n 1
}

# Sets LAB_KDEB, LAB_KROOT (unpacked package), LAB_KVER, LAB_VMLINUZ; returns 1 with
# LAB_WHY set when the kernel cannot be had.
lab_kernel_get() { # cache dir
	local cache=$1 opt
	mkdir -p "$cache" || { LAB_WHY="cannot create $cache"; return 1; }
	LAB_KDEB=${LAB_KERNEL_DEB:-$(ls "$cache"/linux-image-*-cloud-amd64-unsigned_*.deb 2>/dev/null |
				     sort -V | tail -n 1)}
	if [ -z "$LAB_KDEB" ]; then
		command -v apt-get >/dev/null || { LAB_WHY="no apt-get to fetch the lab kernel"; return 1; }
		LAB_KDEB=$(lab_apt_download "$cache" lab_kernel_pkg_name) ||
			{ LAB_WHY="could not download the lab kernel package with apt-get"; return 1; }
	fi
	LAB_KROOT=$cache/$(basename "$LAB_KDEB" .deb)
	if [ ! -d "$LAB_KROOT" ]; then
		# Unpack beside it and rename: two labs (other build trees) may start at once.
		local tmp
		tmp=$(mktemp -d "$cache/.unpack.XXXXXX") || { LAB_WHY="cannot write to $cache"; return 1; }
		if ! dpkg -x "$LAB_KDEB" "$tmp"; then
			rm -rf "$tmp"
			LAB_WHY="cannot unpack $LAB_KDEB"
			return 1
		fi
		mv -T "$tmp" "$LAB_KROOT" 2>/dev/null || rm -rf "$tmp"
	fi
	LAB_KVER=$(ls "$LAB_KROOT/lib/modules" | head -n 1)
	LAB_VMLINUZ=$LAB_KROOT/boot/vmlinuz-$LAB_KVER
	[ -f "$LAB_VMLINUZ" ] || { LAB_WHY="no kernel image in $LAB_KDEB"; return 1; }
	for opt in $LAB_KCONFIG_NEEDED; do
		grep -q "^CONFIG_$opt=y" "$LAB_KROOT/boot/config-$LAB_KVER" ||
			{ LAB_WHY="$LAB_KDEB lacks CONFIG_$opt=y"; return 1; }
	done
}

# Copies the given modules and what they depend on into DEST as uncompressed NAME.ko
# (busybox insmod takes no compressed modules) and prints their names, dependencies first;
# modules built into the kernel are left out. Dependencies come from each module's .modinfo
# section, because the package has no modules.dep (depmod runs at install time) and the
# host may have no kmod.
lab_kernel_modules() { # dest dir, module names...
	local dest=$1 mdir=$LAB_KROOT/lib/modules/$LAB_KVER seen=" " m
	shift
	_lab_mod() {
		local name=$1 ko dep
		case $seen in *" $name "*) return 0 ;; esac
		seen="$seen$name "
		grep -q "/$name\.ko" "$mdir/modules.builtin" && return 0
		ko=$(find "$mdir/kernel" -name "$name.ko*" | head -n 1)
		[ -n "$ko" ] || { echo "lab: module $name not in $LAB_KDEB" >&2; return 1; }
		case $ko in
		*.xz) xz -dc "$ko" ;; *.zst) zstd -qdc "$ko" ;; *.gz) gzip -dc "$ko" ;; *) cat "$ko" ;;
		esac > "$dest/$name.ko" || return 1
		for dep in $(objcopy -O binary --only-section=.modinfo "$dest/$name.ko" /dev/stdout |
			     tr '\0' '\n' | sed -n 's/^depends=//p' | tr ',' ' '); do
			_lab_mod "$dep" || return 1
		done
		echo "$name"
	}
	for m in "$@"; do _lab_mod "$m" || return 1; done
}
