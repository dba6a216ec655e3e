#!/bin/sh
# seconds: 300 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# configure stops with a clear message naming what is missing and, where
# a Debian package provides it, that package. It runs here on a copy of
# the generated script, so the real build tree is left alone.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The runs under /bin/sh (dash on Debian), which configure would leave
# for bash: a third less processor time for the same checks.
CONFIG_SHELL=/bin/sh
export CONFIG_SHELL
mkdir -p "$tmp/src/dtracer" "$tmp/src/lttng-modules" "$tmp/src/tests/vm"
cp "$DT_SRCDIR/configure" "$DT_SRCDIR/Makefile.in" "$tmp/src/"
cp -r "$DT_SRCDIR/build-aux" "$tmp/src/"
cp "$DT_SRCDIR/dtracer/main.c" "$tmp/src/dtracer/"
cp "$DT_SRCDIR/lttng-modules/releases" "$tmp/src/lttng-modules/"
cp "$DT_SRCDIR/tests/vm/config.sh.in" "$tmp/src/tests/vm/"

# The compiler, library and tool checks every run would repeat (about
# 10 s each): one configure of the copy finds them, and each run below
# starts from that cache less what the runs vary: the pkg-config results
# (pkg_cv_*) and the precious variables (ac_cv_env_*, which configure
# refuses to see changed). A variable a run sets (ac_cv_path_SOCAT=...)
# still wins over the cache.
(cd "$tmp/src" && ./configure -q --cache-file="$tmp/full.cache" > "$tmp/full.log" 2>&1)
tap_result $? "configure of the copy, as the runs below start from it"
grep -v -E '^(pkg_cv_|ac_cv_env_)' "$tmp/full.cache" > "$tmp/shared.cache"
rm -f "$tmp/src/tests/vm/config.sh"

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
	cp "$tmp/shared.cache" "$tmp/run.cache"
	# shellcheck disable=SC2086
	out=$(cd "$tmp/src" && env $envs ./configure -q --cache-file="$tmp/run.cache" "$@" 2>&1)
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

# The fork's lttng-modules follows the Debian release of the kernel:
# kernel build folders of a given release (a Makefile and the release in
# utsrelease.h are all configure reads of them), private headers given.
# fake_kernel RELEASE: such a folder, in $tmp/k-RELEASE.
fake_kernel() {
	mkdir -p "$tmp/k-$1/include/generated" "$tmp/private/mm"
	touch "$tmp/k-$1/Makefile" "$tmp/private/mm/slab.h"
	echo "#define UTS_RELEASE \"$1\"" > "$tmp/k-$1/include/generated/utsrelease.h"
}
# expect_fork DESC KERNEL_RELEASE VERSION [CONFIGURE ARGS...]
expect_fork() {
	desc=$1 krel=$2 want=$3
	shift 3
	fake_kernel "$krel"
	# A cache of the compiler and library checks these runs share.
	[ -f "$tmp/fork.cache" ] || cp "$tmp/shared.cache" "$tmp/fork.cache"
	out=$(cd "$tmp/src" && ./configure -q --cache-file="$tmp/fork.cache" --with-kernel="$tmp/k-$krel" \
		--with-kernel-private="$tmp/private" --disable-vm-tests "$@" 2>&1)
	rc=$?
	got=$(sed -n "s/^DT_LTTNG_MODULES_VERSION='\(.*\)'$/\1/p" "$tmp/src/tests/vm/config.sh" 2>/dev/null)
	rm -f "$tmp/src/tests/vm/config.sh"
	tap_result "$([ "$rc" = 0 ] && [ "$got" = "$want" ]; echo $?)" "$desc"
	[ "$rc" = 0 ] && [ "$got" = "$want" ] ||
		printf '%s\n' "exit $rc, lttng-modules '$got'; output:" "$out" | tail -n 5 | tap_diag_stdin
}
expect_fork "Debian 13's kernel (6.12.118+deb13-amd64) gets trixie's lttng-modules 2.13.18" \
	6.12.118+deb13-amd64 2.13.18
expect_fork "Debian 12's kernel (6.1.0-56-amd64) gets bookworm's lttng-modules 2.13.9" \
	6.1.0-56-amd64 2.13.9
expect_fork "Debian 13's 6.12 in Debian 12's backports (6.12.95+bpo-amd64) gets 2.13.18 too" \
	6.12.95+bpo-amd64 2.13.18
expect_fork "--with-debian-release=bookworm overrides the kernel's name" \
	6.12.118+deb13-amd64 2.13.9 --with-debian-release=bookworm
machine=$(. /etc/os-release && echo "$VERSION_CODENAME")
want=$(grep "^$machine " "$DT_SRCDIR/lttng-modules/releases" | cut -d' ' -f2)
if [ -n "$want" ]; then
	expect_fork "a kernel of no known release gets this machine's ($machine: $want)" \
		6.6.3-amd64 "$want"
else
	fake_kernel 6.6.3-amd64
	expect_error "a kernel of no known release on a machine of none ($machine) is refused" \
		"pass --with-debian-release=NAME" -- --with-kernel="$tmp/k-6.6.3-amd64" \
		--with-kernel-private="$tmp/private" --disable-vm-tests
fi
fake_kernel 6.12.95+bpo-amd64
expect_error "an unknown --with-debian-release is refused, naming the known ones" \
	"pass --with-debian-release=NAME, one of: bookworm trixie" -- \
	--with-kernel="$tmp/k-6.12.95+bpo-amd64" --with-kernel-private="$tmp/private" \
	--disable-vm-tests --with-debian-release=sid
tap_done
