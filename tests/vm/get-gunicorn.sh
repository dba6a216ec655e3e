#!/bin/sh
# The fidelity test's WSGI server: Debian's gunicorn (python3-gunicorn:
# pure Python, run by this machine's python3 with PYTHONPATH), unpacked
# into the build tree and run from there by the guests. Never installed
# on this machine.
#
# usage: get-gunicorn.sh OUTDIR APT_DOWNLOAD_SH
#   OUTDIR/bin/gunicorn (a wrapper that finds the unpacked package)
#   appears only once it runs (`gunicorn --version`).
set -eu

out=$1 download=$2

die() {
	echo "tests/vm/get-gunicorn.sh: $*" >&2
	exit 1
}

rm -rf "$out.tmp"
mkdir -p "$out.tmp/deb" "$out.tmp/bin"
cd "$out.tmp/deb"
echo "  GET      gunicorn (Debian's package, unpacked for the guests)"
err=$(sh "$download" python3-gunicorn) ||
	die "cannot download Debian's python3-gunicorn package ($err)"
for deb in *.deb; do
	dpkg-deb -x "$deb" ..
done
cd ..
rm -rf deb
[ -d usr/lib/python3/dist-packages/gunicorn ] ||
	die "the package has no usr/lib/python3/dist-packages/gunicorn"
printf '#!/bin/sh\nPYTHONPATH=%s${PYTHONPATH:+:$PYTHONPATH} exec python3 -m gunicorn "$@"\n' \
	"$out/usr/lib/python3/dist-packages" > bin/gunicorn
chmod +x bin/gunicorn
cd ..
rm -rf "$out"
mv "$out.tmp" "$out"
v=$("$out/bin/gunicorn" --version 2>&1) || {
	rm -rf "$out"
	die "the unpacked gunicorn does not run ($(echo "$v" | tail -n 1); python3-pkg-resources installed?)"
}
