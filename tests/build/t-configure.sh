#!/bin/sh
# configure stops with a clear message naming what is missing and, where
# a Debian package provides it, that package. It runs here on a copy of
# the generated script, so the real build tree is left alone.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/dtracer"
cp "$DT_SRCDIR/configure" "$tmp/src/"
cp -r "$DT_SRCDIR/build-aux" "$tmp/src/"
cp "$DT_SRCDIR/dtracer/main.c" "$tmp/src/dtracer/"

# expect_error DESC TEXT [VAR=VALUE...] -- [CONFIGURE ARGS...]
expect_error() {
	desc=$1 text=$2
	shift 2
	envs=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs="$envs $1"
		shift
	done
	[ $# -gt 0 ] && shift
	# shellcheck disable=SC2086
	out=$(cd "$tmp/src" && env $envs ./configure -q "$@" 2>&1)
	rc=$?
	case $out in
	*"$text"*) [ $rc -ne 0 ] ;;
	*) false ;;
	esac
	res=$?
	tap_result $res "$desc"
	[ $res -eq 0 ] ||
		printf '%s\n' "exit $rc; output:" "$out" | tail -n 5 | tap_diag_stdin
}

expect_error "a --with-kernel that is no build directory is named" \
	"/nonexistent is not a kernel build directory" -- --with-kernel=/nonexistent
expect_error "a missing guest kernel names linux-image-$DT_KERNEL_RELEASE" \
	"(Debian package: linux-image-$DT_KERNEL_RELEASE)" -- --with-kernel-image=/nonexistent
expect_error "a missing guest module tree names linux-image-$DT_KERNEL_RELEASE" \
	"(Debian package: linux-image-$DT_KERNEL_RELEASE)" -- --with-kernel-modules=/nonexistent
expect_error "missing libbabeltrace2 names libbabeltrace2-dev" \
	"(Debian package: libbabeltrace2-dev)" PKG_CONFIG_LIBDIR=/nonexistent PKG_CONFIG_PATH= --
# Only babeltrace2's .pc file visible: GLib is the one missing.
mkdir -p "$tmp/pc"
cp "$(pkg-config --variable=pcfiledir babeltrace2)/babeltrace2.pc" "$tmp/pc/"
expect_error "missing GLib names libglib2.0-dev" \
	"(Debian package: libglib2.0-dev)" PKG_CONFIG_LIBDIR="$tmp/pc" PKG_CONFIG_PATH= --
# babeltrace2's and GLib's (and what GLib requires): json-c is missing.
for pc in glib-2.0 libpcre2-8; do
	cp "$(pkg-config --variable=pcfiledir $pc)/$pc.pc" "$tmp/pc/"
done
expect_error "missing json-c names libjson-c-dev" \
	"(Debian package: libjson-c-dev)" PKG_CONFIG_LIBDIR="$tmp/pc" PKG_CONFIG_PATH= --
# And json-c's: libpcap is missing.
cp "$(pkg-config --variable=pcfiledir json-c)/json-c.pc" "$tmp/pc/"
expect_error "missing libpcap names libpcap-dev" \
	"(Debian package: libpcap-dev)" PKG_CONFIG_LIBDIR="$tmp/pc" PKG_CONFIG_PATH= --
expect_error "a missing guest-side tool names its package (socat)" \
	"(Debian package: socat)" ac_cv_path_SOCAT=/nonexistent/socat --
expect_error "a missing tool names its package (qemu-system-x86)" \
	"(Debian package: qemu-system-x86)" ac_cv_path_QEMU=/nonexistent/qemu-system-x86_64 --
expect_error "a --with-kernel-private without the headers is refused" \
	"no mm/slab.h there" -- --with-kernel-private=/nonexistent
tap_done
