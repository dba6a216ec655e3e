#!/bin/sh
# The demo's reverse proxy: nginx from Debian's package, unpacked into
# the build tree and run from there by the guests. Never installed on
# this machine, so no web server starts here and nothing is left behind.
#
# usage: get-nginx.sh OUTDIR APT_DOWNLOAD_SH
#   OUTDIR/usr/sbin/nginx appears only once it runs (`nginx -v`).
set -eu

out=$1 download=$2

die() {
	echo "demo/get-nginx.sh: $*" >&2
	exit 1
}

rm -rf "$out.tmp"
mkdir -p "$out.tmp/deb"
cd "$out.tmp/deb"
echo "  GET      nginx (Debian's package, unpacked for the demo's guests)"
err=$(sh "$download" nginx) || die "cannot download Debian's nginx package ($err)"
deb=$(ls nginx_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || die "apt-get download nginx left no nginx_*.deb"
dpkg-deb -x "$deb" ..
cd ..
rm -rf deb
./usr/sbin/nginx -v 2>/dev/null ||
	die "the unpacked nginx does not run (missing libraries? $(./usr/sbin/nginx -v 2>&1 | tail -n 1))"
cd ..
rm -rf "$out"
mv "$out.tmp" "$out"
