#!/bin/sh
# Build the debug kernel `make check-debug` boots: Debian's linux-source
# of exactly the Debian kernel's version, configured from
# x86_64_defconfig + kvm_guest.config + tests/vm/debug-kernel.config
# (KASAN, lockdep, kmemleak, DEBUG_ATOMIC_SLEEP, the harness's drivers
# built in), built at nice 19 so that guests running beside it keep
# their CPU. Cached outside the clone and reused while the source
# version and the config fragment are the same (a stamp of both).
#
# usage: debug-kernel.sh [HEADERS_PACKAGE]
#   HEADERS_PACKAGE  the Debian kernel headers package whose version
#                    the source must match (configure's
#                    KERNEL_HEADERS_PKG); default: linux-image-amd64's
#                    version
# environment:
#   DT_DEBUG_KERNEL_CACHE  cache folder (default /var/cache/dtracer/debug-kernel)
#   DT_DEBUG_KERNEL_JOBS   make -j (default 2)
#
# The cache, once built:
#   CACHE/linux/            the configured, built source tree: KERNELDIR
#                           for external modules (Module.symvers kept)
#   CACHE/linux/arch/x86/boot/bzImage
#   CACHE/modroot/lib/modules/RELEASE/   modules_install (modules.builtin)
#   CACHE/kernel.env        DT_DEBUG_KERNELDIR, _IMAGE, _RELEASE, _MODULES
#   CACHE/stamp             source version and checksums it was built from
#   CACHE/build.log, CACHE/build-seconds
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
frag=$here/tests/vm/debug-kernel.config
cache=${DT_DEBUG_KERNEL_CACHE:-/var/cache/dtracer/debug-kernel}
jobs=${DT_DEBUG_KERNEL_JOBS:-2}

die() {
	echo "debug-kernel.sh: $*" >&2
	exit 1
}
say() {
	echo "  DEBUGK   $*"
}

[ -f "$frag" ] || die "no config fragment $frag"

# The version: the headers' package (what our modules are built
# against), else the installed linux-image-amd64.
if [ $# -ge 1 ] && [ -n "$1" ]; then
	ver=$(dpkg-query -W -f='${Version}' "$1" 2>/dev/null) ||
		die "$1 is not installed"
else
	ver=$(dpkg-query -W -f='${Version}' linux-image-amd64 2>/dev/null) ||
		die "linux-image-amd64 is not installed (sh scripts/deps.sh)"
fi
series=$(echo "$ver" | sed -n 's/^\([0-9]*\.[0-9]*\)\..*/\1/p')
[ -n "$series" ] || die "cannot read a kernel series from version $ver"
srcpkg=linux-source-$series
tarball=/usr/src/$srcpkg.tar.xz

# What the build needs, installed only if missing: one apt-get update,
# one apt-get install.
need=
for p in "$srcpkg" bc bison flex libelf-dev libssl-dev dwarves cpio xz-utils \
	kmod make gcc perl rsync; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	case $p in
	"$srcpkg")
		[ "$st" = installed ] &&
			[ "$(dpkg-query -W -f='${Version}' "$p")" = "$ver" ] ||
			need="$need $p=$ver"
		;;
	*) [ "$st" = installed ] || need="$need $p" ;;
	esac
done
if [ -n "$need" ]; then
	[ "$(id -u)" = 0 ] || die "missing Debian packages:$need (run as root)"
	say "installing$need"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null ||
		die "apt-get update failed"
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $need ||
		die "cannot install$need. If Debian has moved on, upgrade the" \
		    "kernel (apt-get install linux-image-amd64 linux-headers-amd64)."
fi
[ -f "$tarball" ] || die "$srcpkg=$ver installed but $tarball is missing"

sum() {
	sha256sum "$1" | cut -d' ' -f1
}
# The tarball's checksum would cost a read of 130 MB on each run: the
# package's version and dpkg's md5sum of the tarball stand for it.
tsum=$(sed -n "s|^\([0-9a-f]*\)  ${tarball#/}\$|\1|p" \
	"/var/lib/dpkg/info/$srcpkg.md5sums" 2>/dev/null || true)
stamp="source $srcpkg=$ver md5 ${tsum:-none}
fragment $(sum "$frag")"

if [ -f "$cache/kernel.env" ] && [ "$(cat "$cache/stamp" 2>/dev/null)" = "$stamp" ]; then
	say "cached in $cache ($srcpkg=$ver)"
	exit 0
fi

mkdir -p "$cache"
# One build at a time per cache.
exec 9> "$cache/.lock"
if command -v flock >/dev/null; then
	flock 9
	if [ -f "$cache/kernel.env" ] && [ "$(cat "$cache/stamp" 2>/dev/null)" = "$stamp" ]; then
		say "cached in $cache ($srcpkg=$ver)"
		exit 0
	fi
fi

rm -f "$cache/stamp" "$cache/kernel.env"
rm -rf "$cache/linux" "$cache/linux.tmp" "$cache/modroot"
say "unpacking $srcpkg=$ver into $cache/linux"
mkdir "$cache/linux.tmp"
tar -xJf "$tarball" -C "$cache/linux.tmp" --strip-components=1 ||
	die "cannot unpack $tarball"
mv "$cache/linux.tmp" "$cache/linux"

kdir=$cache/linux
log=$cache/build.log
: > "$log"
kmake() {
	nice -n 19 make -C "$kdir" "$@" >> "$log" 2>&1 ||
		{ tail -n 40 "$log" >&2; die "make $* failed (log: $log)"; }
}

say "configuring (x86_64_defconfig kvm_guest.config + $frag)"
kmake x86_64_defconfig kvm_guest.config
(cd "$kdir" && nice -n 19 ./scripts/kconfig/merge_config.sh -m .config "$frag") \
	>> "$log" 2>&1 || die "merge_config.sh failed (log: $log)"
kmake olddefconfig

# Every line of the fragment must be in the final config as written.
bad=
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) want=$line ;;
	"# CONFIG_"*" is not set") want=$line ;;
	*) continue ;;
	esac
	opt=${want#\# }
	opt=${opt%%[= ]*}
	if ! grep -qxF "$want" "$kdir/.config"; then
		case $want in
		"#"*) grep -q "^$opt=" "$kdir/.config" || continue ;;
		esac
		bad="$bad
  want: $want
  got:  $(grep -E "^$opt=|^# $opt is not set" "$kdir/.config" || echo "(absent)")"
	fi
done < "$frag"
[ -z "$bad" ] || die "options of $frag did not survive olddefconfig:$bad"

start=$(date +%s)
say "building with make -j$jobs at nice 19 (about 25 minutes on 2 cores; log: $log)"
kmake -j"$jobs" bzImage modules
end=$(date +%s)
rel=$(cat "$kdir/include/config/kernel.release")
kmake INSTALL_MOD_PATH="$cache/modroot" modules_install
[ -f "$kdir/Module.symvers" ] || die "no Module.symvers in $kdir"
echo "$((end - start))" > "$cache/build-seconds"

cat > "$cache/kernel.env" <<ENV
DT_DEBUG_KERNELDIR='$kdir'
DT_DEBUG_IMAGE='$kdir/arch/x86/boot/bzImage'
DT_DEBUG_RELEASE='$rel'
DT_DEBUG_MODULES='$cache/modroot/lib/modules/$rel'
ENV
printf '%s\n' "$stamp" > "$cache/stamp"
say "built $rel in $((end - start)) s: $cache"
