#!/bin/sh
# The README's set-up commands, as root on Debian 12:
#
#   sh scripts/dev.sh check   install what is missing, build, run all tests,
#                             then make distcheck (the tarball builds and
#                             installs from a read-only source tree)
#   sh scripts/dev.sh demo    install what is missing, build, run the demo
#
# Both are idempotent: a second run rebuilds only what changed.
set -eu
cd "$(dirname "$0")/.."

case ${1:-} in
check | demo) ;;
*) echo "usage: sh scripts/dev.sh check|demo" >&2; exit 2 ;;
esac

sh scripts/deps.sh
[ -x configure ] || ./autogen.sh
[ -f Makefile ] || ./configure
make -j"$(nproc)"
make "$1"
if [ "$1" = check ]; then
	make distcheck
fi
