#!/bin/sh
# qemu-plugin-h.sh DIR: QEMU's plugin API header, qemu-plugin.h, into DIR,
# taken from Debian's QEMU source (the release bookworm ships; its
# tarball is checksum-pinned here), for bench/insn/dt-insn.c. The header
# is downloaded at build time, never committed. Does nothing when
# DIR/qemu-plugin.h is already there.
set -eu

dir=$1
url=http://deb.debian.org/debian/pool/main/q/qemu/qemu_7.2+dfsg.orig.tar.xz
sum=91aca71520040edc40b8d437aa3004dae614f58e286cf653ee8996c07af2962f
member=qemu-7.2.0/include/qemu/qemu-plugin.h

[ -f "$dir/qemu-plugin.h" ] && exit 0
command -v curl > /dev/null || {
	echo "qemu-plugin-h.sh: needs curl (Debian package curl)" >&2
	exit 1
}
mkdir -p "$dir"
tmp=$dir/qemu-src.tar.xz
curl -fsS -o "$tmp" "$url" || {
	echo "qemu-plugin-h.sh: cannot download $url" >&2
	rm -f "$tmp"
	exit 1
}
[ "$(sha256sum "$tmp" | cut -d' ' -f1)" = "$sum" ] || {
	echo "qemu-plugin-h.sh: $url: checksum mismatch (want $sum)" >&2
	rm -f "$tmp"
	exit 1
}
tar -xJf "$tmp" -C "$dir" --no-same-owner --strip-components=3 "$member"
rm -f "$tmp"
[ -f "$dir/qemu-plugin.h" ]
