#!/bin/sh
# Download one Debian package (never install it) into the current folder:
# apt-get download PKG=VERSION, refreshing the package lists once (as
# root) when they are stale or missing. On failure, prints apt-get's last
# line on standard output for the caller's message and exits non-zero.
#
# usage: apt-download.sh PKG=VERSION
apt-get download -q "$1" >/dev/null 2>apt-get.log ||
	{ [ "$(id -u)" = 0 ] && apt-get update -q >/dev/null 2>&1 &&
	  apt-get download -q "$1" >/dev/null 2>apt-get.log; } ||
	{ tail -n 1 apt-get.log; rm -f apt-get.log; exit 1; }
rm -f apt-get.log
