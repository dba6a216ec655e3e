#!/bin/sh
# Install the Debian packages dtracer's build, tests and demo need, if
# any is missing (apt-get update once, then one apt-get install). Needs
# root. Does nothing when everything is there. clang and
# libclang-rt-14-dev (libFuzzer and the sanitizer runtimes, only a
# recommendation of clang-14) build the fuzz targets of tests/fuzz/.
#
#   sh scripts/deps.sh          install what is missing
#   sh scripts/deps.sh --list   print the package list
#   sh scripts/deps.sh --bench  install what only the benchmarks use
#                               (make bench-fidelity's asyncio and Java
#                               tiers, make bench-pool-order's strace)
set -eu

pkgs="autoconf automake make gcc libc6-dev pkg-config patch file kmod
cpio gzip xz-utils zstd tar perl iproute2 util-linux procps busybox-static qemu-system-x86
linux-image-amd64 linux-headers-amd64 lttng-tools babeltrace2
libbabeltrace2-dev libglib2.0-dev libjson-c-dev libtool tcpdump iperf3 socat ethtool libpcap-dev ca-certificates
chromium fonts-dejavu-core curl python3 libssl3 libpcre2-8-0 dkms valgrind
clang libclang-rt-14-dev debootstrap ccache nodejs apache2-utils golang-go
nghttp2-client liburing-dev python3-pkg-resources"

# --list: the packages, for scripts/dev.sh's check that nothing changed
# since configure probed for them.
if [ "${1:-}" = --list ]; then
	echo $pkgs
	exit 0
fi
[ "${1:-}" = --bench ] && pkgs="python3-aiohttp default-jdk-headless strace"

missing=
for p in $pkgs; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages:$missing (run as root to install them)" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# Under CI=true (a machine used for one run, .ci/run), the kernel the
# guests boot is installed without an initramfs of this machine's own:
# INITRD=No, which Debian's kernel hook (/etc/kernel/postinst.d/
# initramfs-tools) honours. Nothing boots that file: the guests boot
# tests/vm/mkinitramfs.sh's. Making it took 145 of the 197 s of a fresh
# machine's install (the hook, then initramfs-tools' trigger). Anywhere
# else the kernel is installed as Debian installs it: a machine that
# may boot it keeps its initramfs.
if [ "${CI:-}" = true ]; then
	INITRD=No
	export INITRD
fi
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
