#!/bin/sh
# The fidelity test's event-loop store: Debian's Redis (redis-server,
# redis-cli, redis-benchmark) and the two libraries this machine lacks
# (libjemalloc2, liblzf1), unpacked into the build tree and run from
# there by the guests. Never installed on this machine.
#
# usage: get-redis.sh OUTDIR APT_DOWNLOAD_SH
#   OUTDIR/bin/{redis-server,redis-cli,redis-benchmark} (wrappers that
#   find the unpacked libraries) appear only once the server runs
#   (`redis-server --version`).
set -eu

out=$1 download=$2 me=tests/vm/get-redis.sh
. "$(dirname "$0")/debs-lib.sh"

debs_unpack redis redis-server redis-tools libjemalloc2 liblzf1
for b in redis-server redis-cli redis-benchmark; do
	[ -e "usr/bin/$b" ] || die "the packages have no usr/bin/$b"
	debs_wrap "$b" "LD_LIBRARY_PATH=$out/usr/lib/x86_64-linux-gnu" \
		"$out/usr/bin/$b"
done
debs_done "$out/bin/redis-server --version"
