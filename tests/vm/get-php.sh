#!/bin/sh
# The fidelity test's FastCGI server: Debian's php-fpm (php8.2-fpm) and
# the libraries a machine without PHP may lack (libargon2-1, libsodium23,
# libapparmor1), unpacked into the build tree and run from there by the
# guests, without a php.ini (-n: no extension but the built-in ones).
# Never installed on this machine.
#
# usage: get-php.sh OUTDIR APT_DOWNLOAD_SH
#   OUTDIR/bin/php-fpm (a wrapper that finds the unpacked libraries)
#   appears only once it runs (`php-fpm -v`).
set -eu

out=$1 download=$2

die() {
	echo "tests/vm/get-php.sh: $*" >&2
	exit 1
}

rm -rf "$out.tmp"
mkdir -p "$out.tmp/deb" "$out.tmp/bin"
cd "$out.tmp/deb"
echo "  GET      php-fpm (Debian's packages, unpacked for the guests)"
for p in php8.2-fpm libargon2-1 libsodium23 libapparmor1; do
	err=$(sh "$download" "$p") || die "cannot download Debian's $p package ($err)"
done
for deb in *.deb; do
	dpkg-deb -x "$deb" ..
done
cd ..
rm -rf deb
[ -e usr/sbin/php-fpm8.2 ] || die "the packages have no usr/sbin/php-fpm8.2"
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s -n "$@"\n' \
	"$out/usr/lib/x86_64-linux-gnu" "$out/usr/sbin/php-fpm8.2" > bin/php-fpm
chmod +x bin/php-fpm
cd ..
rm -rf "$out"
mv "$out.tmp" "$out"
v=$("$out/bin/php-fpm" -v 2>&1) || {
	rm -rf "$out"
	die "the unpacked php-fpm does not run ($(echo "$v" | tail -n 1))"
}
