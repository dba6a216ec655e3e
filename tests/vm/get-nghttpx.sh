#!/bin/sh
# The fidelity test's HTTP/2 proxy: Debian's nghttpx (nghttp2-proxy,
# and the libraries a machine without it may lack: libev4, libjemalloc2,
# libc-ares2), unpacked into the build tree and run from there by the
# guests through OUTDIR/bin/nghttpx. Never installed on this machine.
#
# usage: get-nghttpx.sh OUTDIR APT_DOWNLOAD_SH
#   OUTDIR/bin/nghttpx appears only once it runs (`nghttpx --version`).
set -eu

out=$1 download=$2 me=tests/vm/get-nghttpx.sh
. "$(dirname "$0")/debs-lib.sh"

debs_unpack nghttpx nghttp2-proxy libev4 libjemalloc2 libc-ares2
[ -x usr/sbin/nghttpx ] || die "the package has no usr/sbin/nghttpx"
debs_wrap nghttpx "LD_LIBRARY_PATH=$out/usr/lib/x86_64-linux-gnu" \
	"$out/usr/sbin/nghttpx"
debs_done "$out/bin/nghttpx --version"
