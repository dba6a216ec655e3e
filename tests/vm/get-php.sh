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

out=$1 download=$2 me=tests/vm/get-php.sh
. "$(dirname "$0")/debs-lib.sh"

debs_unpack php-fpm php8.2-fpm libargon2-1 libsodium23 libapparmor1
[ -e usr/sbin/php-fpm8.2 ] || die "the packages have no usr/sbin/php-fpm8.2"
debs_wrap php-fpm "LD_LIBRARY_PATH=$out/usr/lib/x86_64-linux-gnu" \
	"$out/usr/sbin/php-fpm8.2 -n"
debs_done "$out/bin/php-fpm -v"
