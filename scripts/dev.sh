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
# configure again when a package it probes for (clang for the fuzzers,
# dkms, ...) was installed or changed since it ran: a tree configured
# before would skip what it did not find for good. config.deps holds
# the packages' state that configure last saw.
# shellcheck disable=SC2046
pkgs=$(dpkg-query -W -f='${Package} ${Version} ${db:Status-Status}\n' \
	$(sh scripts/deps.sh --list) 2>/dev/null || true)
if [ ! -f Makefile ] || [ ! -f config.status ]; then
	./configure
elif [ "$pkgs" != "$(cat config.deps 2>/dev/null)" ]; then
	echo "dev: packages changed since configure ran: configure again (same options)"
	./config.status --recheck
	./config.status
fi
printf '%s\n' "$pkgs" > config.deps
make -j"$(nproc)"
make "$1"
if [ "$1" = check ]; then
	make distcheck
fi
