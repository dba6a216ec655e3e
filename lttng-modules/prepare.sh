#!/bin/sh
# Prepare the source of our lttng-modules fork: the lttng-modules source
# that Debian ships in lttng-modules-dkms (downloaded, never installed:
# its postinst runs a DKMS build that fails on the current kernel and
# leaves dpkg half-configured), checked against the pinned sha256, with
# patches/series applied in order.
#
# usage: prepare.sh SRCDIR WORKDIR DEB_VERSION UPSTREAM_VERSION
#   SRCDIR   this folder in the source tree (SHA256SUMS, patches/,
#            patches/UPSTREAM_VERSION/ for a version's own copy of a patch)
#   WORKDIR  where the .deb is cached and WORKDIR/src is produced
#
# WORKDIR/src appears only once every patch applied: a failure leaves
# no half-patched tree behind.
set -eu

srcdir=$1 work=$2 debver=$3 version=$4
deb=lttng-modules-dkms_${debver}_all.deb

die() {
	echo "lttng-modules/prepare.sh: $*" >&2
	exit 1
}

grep -q -F "  $deb" "$srcdir/SHA256SUMS" ||
	die "no sha256 pinned for $deb in $srcdir/SHA256SUMS"

mkdir -p "$work"
cd "$work"

if ! (grep -F "  $deb" "$srcdir/SHA256SUMS" | sha256sum -c --status) 2>/dev/null; then
	rm -f "$deb"
	echo "  GET      $deb"
	err=$(sh "$srcdir/apt-download.sh" "lttng-modules-dkms=$debver") ||
		die "cannot download lttng-modules-dkms=$debver ($err). If Debian" \
		    "no longer serves this version, check the new one and update" \
		    "SHA256SUMS, releases and the patches."
	grep -F "  $deb" "$srcdir/SHA256SUMS" | sha256sum -c --status ||
		die "$deb does not match the sha256 pinned in $srcdir/SHA256SUMS"
fi

rm -rf src src.tmp unpack
mkdir unpack
dpkg-deb -x "$deb" unpack
[ -d "unpack/usr/src/lttng-modules-$version" ] ||
	die "$deb holds no usr/src/lttng-modules-$version"
mv "unpack/usr/src/lttng-modules-$version" src.tmp
rm -rf unpack

# A patch whose context differs in one upstream version has that
# version's own copy in patches/VERSION/ (same name, same change).
while read -r p; do
	case $p in '' | '#'*) continue ;; esac
	f=$srcdir/patches/$p
	[ -f "$srcdir/patches/$version/$p" ] && f=$srcdir/patches/$version/$p
	echo "  PATCH    ${f#"$srcdir/patches/"}"
	patch -d src.tmp -p1 --batch --forward --quiet < "$f" ||
		{ rm -rf src.tmp; die "patch ${f#"$srcdir/patches/"} does not apply"; }
done < "$srcdir/patches/series"
mv src.tmp src
