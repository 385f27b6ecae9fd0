# Sourced by tests/lab/run.sh (after kernel.sh): gets the lab's second kernel, the one with
# the function profiler (CONFIG_FUNCTION_PROFILER: tracefs function_profile_enabled and
# trace_stat/function<CPU>), which no Debian kernel package enables. It is built from
# Debian's own source package (linux-source-6.1, fetched with apt-get download) as
# `make tinyconfig` + tests/lab/profiler.config + `make olddefconfig`: a small kernel, no
# modules, everything the lab needs built in.
#
# The result is cached as CACHE/linux-profiler-<source version>-<fragment hash>.bzImage
# (with its .config and build log beside it), so a changed fragment or a newer source
# package builds a new one. LAB_PROFILER_BZIMAGE=FILE uses a given kernel instead;
# LAB_KSRC_DEB=FILE.deb a given source package.

LAB_KSRC_PKG=linux-source-6.1
# What building it takes beyond a C toolchain (tools/deps.sh installs them).
LAB_KBUILD_TOOLS="make gcc flex bison bc xz dpkg-deb"

lab_pkernel_src_pkg() { echo "$LAB_KSRC_PKG"; }

# Sets LAB_PVMLINUZ (the bzImage) and LAB_PKNAME (its name for humans); returns 1 with
# LAB_WHY set when the kernel cannot be had (no tools, no package), 2 when it failed to
# build (a real failure, not a missing dependency).
lab_pkernel_get() { # cache dir, config fragment
	local cache=$1 frag=$2 sdeb ver hash
	if [ -n "${LAB_PROFILER_BZIMAGE:-}" ]; then
		LAB_PVMLINUZ=$LAB_PROFILER_BZIMAGE LAB_PKNAME=$(basename "$LAB_PROFILER_BZIMAGE")
		[ -f "$LAB_PVMLINUZ" ] || { LAB_WHY="no kernel $LAB_PVMLINUZ"; return 1; }
		return 0
	fi
	mkdir -p "$cache" || { LAB_WHY="cannot create $cache"; return 1; }
	sdeb=${LAB_KSRC_DEB:-$(ls "$cache/${LAB_KSRC_PKG}"_*_all.deb 2>/dev/null | sort -V | tail -n 1)}
	if [ -z "$sdeb" ]; then
		command -v apt-get >/dev/null || { LAB_WHY="no apt-get to fetch $LAB_KSRC_PKG"; return 1; }
		echo "lab: downloading $LAB_KSRC_PKG (about 140 MB)"
		sdeb=$(lab_apt_download "$cache" lab_pkernel_src_pkg) ||
			{ LAB_WHY="could not download $LAB_KSRC_PKG with apt-get"; return 1; }
	fi
	ver=$(dpkg-deb -f "$sdeb" Version) || { LAB_WHY="cannot read $sdeb"; return 1; }
	hash=$(sha256sum < "$frag" | cut -c1-12)
	LAB_PKNAME=linux-profiler-$ver-$hash
	LAB_PVMLINUZ=$cache/$LAB_PKNAME.bzImage
	[ -f "$LAB_PVMLINUZ" ] && return 0
	# One build at a time: a lab in another build tree waits, then finds the kernel cached.
	local lock rc
	exec {lock}> "$cache/.profiler-build.lock" || { LAB_WHY="cannot write to $cache"; return 1; }
	flock "$lock"
	rc=0
	[ -f "$LAB_PVMLINUZ" ] || _lab_pkernel_build "$sdeb" "$frag" "$cache/$LAB_PKNAME" || rc=$?
	exec {lock}>&-
	return $rc
}

# Builds into a temporary dir beside the result and renames at the end: a killed build
# leaves no half kernel under the final name.
_lab_pkernel_build() { # source .deb, fragment, result path without suffix
	local sdeb=$1 frag dest=$3 t0=$SECONDS tool tmp src log=$3.build.log opt rc=0
	frag=$(realpath "$2")	# merge_config.sh runs in the source tree
	for tool in $LAB_KBUILD_TOOLS; do
		command -v "$tool" >/dev/null ||
			{ LAB_WHY="$tool not installed: cannot build the profiler kernel (make deps)"; return 1; }
	done
	# objtool (built and run for every x86 kernel with ftrace) needs libelf's headers.
	echo '#include <gelf.h>' | gcc -E -x c - >/dev/null 2>&1 ||
		{ LAB_WHY="no gelf.h: cannot build the profiler kernel (make deps: libelf-dev)"; return 1; }
	tmp=$(mktemp -d "$dest.tmp.XXXXXX") || { LAB_WHY="cannot write beside $dest"; return 1; }
	src=$tmp/src
	echo "lab: building $(basename "$dest") from $(basename "$sdeb"), log $log"
	: > "$log"
	# The package holds the source as usr/src/linux-source-6.1.tar.xz: stream it out.
	if ! { mkdir "$src" && dpkg-deb --fsys-tarfile "$sdeb" |
		tar -xO --wildcards './usr/src/linux-source-*.tar.xz' |
		tar -xJ -C "$src" --strip-components=1; } >> "$log" 2>&1; then
		LAB_WHY="cannot unpack the kernel source from $sdeb"; rc=2
	elif ! _lab_pkernel_make "$src" "$log" tinyconfig ||
	     ! (cd "$src" && scripts/kconfig/merge_config.sh -m .config "$frag") >> "$log" 2>&1 ||
	     ! _lab_pkernel_make "$src" "$log" olddefconfig; then
		LAB_WHY="configuring the profiler kernel failed"; rc=2
	else
		# olddefconfig drops what it cannot satisfy without a word: check each line.
		while read -r opt; do
			case $opt in '' | '#'*) continue ;; esac
			grep -qxF "$opt" "$src/.config" && continue
			LAB_WHY="$opt of $frag is not in the built kernel's config (seen: $(grep -F "${opt%%=*}" "$src/.config" | grep -E "${opt%%=*}[= ]" || echo none); a dependency missing from the fragment?)"
			rc=2
			break
		done < "$frag"
	fi
	if [ $rc = 0 ] && ! _lab_pkernel_make "$src" "$log" -j"$(nproc)" bzImage; then
		LAB_WHY="building the profiler kernel failed (log $log)"; rc=2
	fi
	if [ $rc = 0 ]; then
		cp "$src/.config" "$dest.config" &&
			cp "$src/arch/x86/boot/bzImage" "$tmp/bzImage" && mv "$tmp/bzImage" "$dest.bzImage" ||
			{ LAB_WHY="cannot save the kernel to $dest.bzImage"; rc=1; }
	fi
	rm -rf "$tmp"
	if [ $rc = 0 ]; then
		echo "lab: built $(basename "$dest").bzImage in $((SECONDS - t0))s"
	else
		echo "lab: building $(basename "$dest") failed after $((SECONDS - t0))s; last lines of $log:"
		tail -n 25 "$log"
	fi
	return $rc
}

# make in the kernel tree, output to the log. Fixed user/host/version: the kernel's banner
# (uname -v, /proc/version) says what it is instead of where it was built.
_lab_pkernel_make() { # source dir, log, make arguments...
	local src=$1 log=$2
	shift 2
	make -C "$src" LOCALVERSION=-lab-profiler KBUILD_BUILD_USER=lab KBUILD_BUILD_HOST=lab \
		"$@" >> "$log" 2>&1
}
