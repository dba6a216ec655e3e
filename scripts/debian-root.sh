#!/bin/sh
# A Debian root file system of another release than this machine's (Debian
# 13 "trixie" beside the build machine's Debian 12): the test guests of
# that release boot their kernel with this as their root (shared
# read-only, as the build machine's own root is for Debian 12 guests), and
# kernel modules for that kernel are built in it with its own compiler
# (chroot: Debian 13's kernel is built with gcc-14, which Debian 12 lacks,
# and its kbuild tools need its C library).
#
# usage: debian-root.sh SUITE OUT
#
# OUT/root    the root file system (debootstrap minbase, the packages
#             below, the suite's updates and security archive), with the
#             suite's current kernel headers and kbuild unpacked into it
# OUT/kernel  that kernel's image and modules (boot/vmlinuz-REL,
#             lib/modules/REL: the .deb unpacked, never installed)
# OUT/env     KERNEL_RELEASE=, KERNEL_IMAGE=, KERNEL_MODULES=,
#             KERNEL_BUILD= (the headers, as seen inside the root),
#             KERNEL_CC= (the compiler the kernel was built with),
#             KERNEL_VERSION= (its Debian package version)
# OUT/stamp   what OUT was made from: the package list below and the
#             root's package=version list (dpkg-query); the other make
#             rules depend on it
#
# Made once (about 3 minutes and 300 MB of downloads); made again only
# when this script changes (make's dependency) or OUT/stamp is missing.
# OUT appears whole or not at all: a failure leaves OUT.tmp to look at.
# Needs root (debootstrap, chroot) and network access to the mirror this
# machine's apt uses.
set -eu

suite=$1 out=$2

die() {
	echo "debian-root: $*" >&2
	exit 1
}
say() {
	echo "  ROOT     $*"
}

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot)"
command -v debootstrap > /dev/null ||
	die "debootstrap is missing (Debian package: debootstrap)"

# What the guests run (the tests' and the demo's tools), what building
# modules needs (gcc-14 for trixie's kernel, pahole for module BTF,
# the kbuild tools' libraries), and what building and installing all of
# dtracer there needs (a Debian 13 build machine: tests/vm/check-kernel.sh
# install; the -dev packages, dkms, man for t-install.sh).
pkgs="kmod iproute2 procps util-linux psmisc coreutils findutils grep sed
mawk gzip xz-utils lttng-tools babeltrace2 tcpdump curl python3 socat
iperf3 ethtool ca-certificates busybox libglib2.0-0t64 libjson-c5 libpcap0.8t64
make gcc-14 gcc libc6-dev patch pahole libelf1t64 libssl3t64 zlib1g
pkg-config libbabeltrace2-dev libglib2.0-dev libjson-c-dev libpcap-dev dkms
man-db groff-base file ccache"

# The mirror this machine's apt uses (deb822 or one-line sources).
mirror=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)$/\1/p' \
	/etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb  *\(http[^ ]*\/debian\)  *.*/\1/p' \
	/etc/apt/sources.list 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
security=${mirror%/debian}/debian-security

tmp=$out.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
say "debootstrap $suite from $mirror (log: $tmp/debootstrap.log)"
# shellcheck disable=SC2086
debootstrap --variant=minbase --arch=amd64 \
	--include="$(echo $pkgs | tr ' ' ',')" \
	"$suite" "$tmp/root" "$mirror" > "$tmp/debootstrap.log" 2>&1 ||
	{ tail -n 20 "$tmp/debootstrap.log" >&2; die "debootstrap $suite failed"; }

# The suite's updates and security archive (the current kernel is there).
cat > "$tmp/root/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb $security $suite-security main
EOF
# in_root CMD...: run in the root, with /proc mounted in a mount
# namespace of its own (nothing stays mounted, whatever happens).
in_root() {
	unshare -m sh -c 'mount -t proc proc "$1/proc" && r=$1 && shift &&
		exec chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"' \
		sh "$tmp/root" "$@"
}
say "$suite-updates, $suite-security"
in_root apt-get update -q > "$tmp/apt.log" 2>&1 &&
	in_root apt-get -y -q upgrade >> "$tmp/apt.log" 2>&1 ||
	{ tail -n 20 "$tmp/apt.log" >&2; die "apt-get in the $suite root failed"; }

# The suite's kernel: linux-image-amd64 names the current image package.
img=$(in_root apt-cache depends linux-image-amd64 |
	sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -n 1)
[ -n "$img" ] || die "no kernel image package in $suite"
rel=${img#linux-image-}
abi=${rel%-amd64}
say "kernel $rel"
mkdir -p "$tmp/root/var/tmp/debs"
in_root sh -c "cd /var/tmp/debs && apt-get download -q $img \
	linux-headers-$rel linux-headers-$abi-common linux-kbuild-$abi" \
	>> "$tmp/apt.log" 2>&1 ||
	{ tail -n 5 "$tmp/apt.log" >&2; die "cannot download $rel's packages"; }
# Headers and kbuild into the root (where their absolute paths point),
# the image beside it: unpacked, not installed (installing pulls an
# initramfs generator and a boot loader hook nobody needs here).
for d in "$tmp/root/var/tmp/debs/"linux-headers-* "$tmp/root/var/tmp/debs/"linux-kbuild-*; do
	dpkg-deb -x "$d" "$tmp/root"
done
mkdir -p "$tmp/kernel"
cp "$tmp/root/var/tmp/debs/${img}_"*.deb "$tmp/kernel.deb"
dpkg-deb -x "$tmp/kernel.deb" "$tmp/kernel"
# Debian 13 keeps modules in /usr/lib/modules (merged /usr).
moddir=$tmp/kernel/lib/modules/$rel
[ -d "$moddir" ] || moddir=$tmp/kernel/usr/lib/modules/$rel
[ -d "$moddir" ] || die "$img holds no modules for $rel"
[ -f "$tmp/kernel/boot/vmlinuz-$rel" ] || die "$img holds no boot/vmlinuz-$rel"
# Its modules.dep, as the package's postinst would make it.
depmod -b "${moddir%/lib/modules/$rel}" "$rel" ||
	die "depmod of $rel's modules failed"
rm -rf "$tmp/root/var/tmp/debs"
in_root apt-get clean

cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' \
	"$tmp/root/usr/src/linux-headers-$rel/.config")
[ -n "$cc" ] || die "no CONFIG_CC_VERSION_TEXT in $rel's headers"
in_root sh -c "command -v $cc" > /dev/null ||
	die "$rel was built with $cc, which the $suite root lacks"

cat > "$tmp/env" <<EOF
KERNEL_RELEASE='$rel'
KERNEL_IMAGE='$out/kernel/boot/vmlinuz-$rel'
KERNEL_MODULES='$out/kernel${moddir#"$tmp/kernel"}'
KERNEL_BUILD='/usr/src/linux-headers-$rel'
KERNEL_CC='$cc'
KERNEL_VERSION='$(dpkg-deb -f "$tmp/kernel.deb" Version)'
EOF
{
	echo "suite $suite"
	echo "packages $pkgs" | tr '\n' ' '
	echo
	in_root dpkg-query -W -f='${Package}=${Version}\n' | LC_ALL=C sort
} > "$tmp/stamp"
rm -f "$tmp/kernel.deb"
rm -rf "$out"
mv "$tmp" "$out"
say "ready: $out (kernel $rel)"
