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

out=$1 download=$2 me=tests/vm/get-gunicorn.sh
. "$(dirname "$0")/debs-lib.sh"

debs_unpack gunicorn python3-gunicorn
[ -d usr/lib/python3/dist-packages/gunicorn ] ||
	die "the package has no usr/lib/python3/dist-packages/gunicorn"
debs_wrap gunicorn "PYTHONPATH=$out/usr/lib/python3/dist-packages" \
	"python3 -m gunicorn"
debs_done "$out/bin/gunicorn --version" "python3-pkg-resources installed?"
