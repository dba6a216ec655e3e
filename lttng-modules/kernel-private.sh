#!/bin/sh
# Kernel-internal headers for the probes that need them. Debian's
# linux-headers packages hold the kernel's public headers only, so
# lttng-modules' Kbuild leaves out the kmem, kvm-x86, btrfs, compaction,
# ext4 and regmap probes ("Use full kernel source tree to enable it").
# This extracts the few internal headers they use from Debian's
# linux-source package of exactly the headers' version (downloaded with
# apt-get, which checks it against the signed archive; never installed)
# into OUTDIR, laid out at their kernel paths. Patch 0002 of the fork
# lets Kbuild search there. The kernel's scripts/checkpatch.pl (which the
# headers package lacks too) comes along for the style test.
#
# usage: kernel-private.sh OUTDIR HEADERS_PACKAGE [VERSION]
#   HEADERS_PACKAGE  the Debian package of the kernel headers in use, as
#                    configure found it (e.g. linux-headers-6.1.0-56-amd64)
#   VERSION          its version, for headers unpacked rather than
#                    installed (tests/vm/check-kernel.sh's); else dpkg's
# OUTDIR appears only when complete; it is reused while its version
# matches the headers'.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=$1 hpkg=$2 ver=${3:-}

die() {
	echo "lttng-modules/kernel-private.sh: $*" >&2
	exit 1
}

[ -n "$ver" ] || ver=$(dpkg-query -W -f='${Version}' "$hpkg") ||
	die "$hpkg is not installed; run configure again"
series=$(echo "$ver" | sed -n 's/^\([0-9]*\.[0-9]*\)\..*/\1/p')
src=linux-source-$series

stamp="$src=$ver headers+checkpatch"
if [ "$(cat "$out/.version" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi

tmp=$out.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
cd "$tmp"
echo "  GET      $src=$ver (internal headers for the kmem, kvm, btrfs, compaction, ext4, regmap probes)"
err=$(sh "$here/apt-download.sh" "$src=$ver") ||
	die "cannot download $src=$ver, the source of $hpkg ($err)." \
	    "If Debian has moved on, upgrade the kernel headers (apt-get install" \
	    "linux-headers-amd64 linux-image-amd64) and run configure again."

top=$src
dpkg-deb --fsys-tarfile "${src}_"*.deb | tar -xO "./usr/src/$src.tar.xz" |
	xz -dc | tar -x --wildcards \
		"$top/mm/*.h" "$top/fs/btrfs/*.h" "$top/fs/ext4/*.h" \
		"$top/arch/x86/kvm/*.h" "$top/virt/kvm/*.h" \
		"$top/drivers/base/regmap/*.h" \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch" ||
	die "cannot extract the headers from $src=$ver"
rm -f ./*.deb
for f in mm/slab.h mm/internal.h fs/ext4/ext4.h fs/btrfs/ctree.h \
	arch/x86/kvm/lapic.h drivers/base/regmap/trace.h scripts/checkpatch.pl; do
	[ -f "$top/$f" ] || die "$src=$ver has no $f"
done
# The probes reach these headers as <../fs/ext4/ext4.h> and
# <../../mm/slab.h>, i.e. from include/ and include/uapi/.
mkdir -p "$top/include/uapi"
echo "$stamp" > "$top/.version"
cd - >/dev/null
rm -rf "$out"
mv "$tmp/$top" "$out"
rm -rf "$tmp"
