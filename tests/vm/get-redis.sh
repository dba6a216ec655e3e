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

out=$1 download=$2

die() {
	echo "tests/vm/get-redis.sh: $*" >&2
	exit 1
}

rm -rf "$out.tmp"
mkdir -p "$out.tmp/deb" "$out.tmp/bin"
cd "$out.tmp/deb"
echo "  GET      redis (Debian's packages, unpacked for the guests)"
for p in redis-server redis-tools libjemalloc2 liblzf1; do
	err=$(sh "$download" "$p") || die "cannot download Debian's $p package ($err)"
done
for deb in *.deb; do
	dpkg-deb -x "$deb" ..
done
cd ..
rm -rf deb
lib=$out/usr/lib/x86_64-linux-gnu
for b in redis-server redis-cli redis-benchmark; do
	[ -e "usr/bin/$b" ] || die "the packages have no usr/bin/$b"
	printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' \
		"$lib" "$out/usr/bin/$b" > "bin/$b"
	chmod +x "bin/$b"
done
cd ..
rm -rf "$out"
mv "$out.tmp" "$out"
v=$("$out/bin/redis-server" --version 2>&1) || {
	rm -rf "$out"
	die "the unpacked redis-server does not run ($(echo "$v" | tail -n 1))"
}
