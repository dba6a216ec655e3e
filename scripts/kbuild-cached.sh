#!/bin/sh
# Build the lttng-modules fork or our modules, or run a DKMS build of
# dtracer, so that ccache can tell when it compiled the same thing
# before in this run: the main build, make distcheck's, DKMS's in
# tests/build/t-install.sh and the Debian 13 builds compile the same
# sources from folders with different names, and Kbuild hands gcc
# absolute paths (it compiles from the kernel's folder), so ccache's
# base_dir cannot make them equal.
# Here each build sees its folders at one fixed path instead, the one a
# DKMS build of this version has, in a mount namespace of its own
# (nothing stays mounted).
#
#   kbuild-cached.sh fork VERSION RELEASE SRC PRIVATE MAKEARGS...
#       make -C SRC LTTNG_KERNEL_PRIVATE_DIR=PRIVATE MAKEARGS... (the
#       fork's Makefile; MAKEARGS give KERNELDIR= and the target), with
#       SRC at FIXED/dtracer/VERSION/build/lttng-modules and PRIVATE at
#       FIXED/dtracer/VERSION/build/kernel-private/RELEASE
#   kbuild-cached.sh module VERSION KDIR NAME BUILD LMSRC MAKEARGS...
#       make -C KDIR M=.../NAME [LTTNG_SRC=.../lttng-modules] MAKEARGS...:
#       our module NAME (dtracer or probes), with BUILD/dtracer,
#       BUILD/probes and the fork's LMSRC (- for none: dtracer.ko needs
#       no fork) at FIXED/dtracer/VERSION/build/dtracer, probes and
#       lttng-modules (the probe module includes ../dtracer and the
#       fork's headers)
#   kbuild-cached.sh dkms DKMSTREE CMD...
#       CMD (dkms add/build ... --dkmstree "$DT_DKMSTREE") with
#       DT_DKMSTREE=FIXED showing DKMSTREE: DKMS builds in
#       DKMSTREE/dtracer/VERSION/build, the same path as above
#
# FIXED is /run/dtracer-kbuild. Only when DT_CCACHE names ccache's
# folder (scripts/dev.sh sets it), ccache is installed, and this runs as
# root with unshare: otherwise the same build runs where it is, without
# ccache (DT_DKMSTREE=DKMSTREE). The compilers are ccache's (its
# /usr/lib/ccache first in PATH), CCACHE_DIR=DT_CCACHE, in ccache's
# depend mode (CCACHE_DEPEND): a miss compiles once and takes the
# dependencies from Kbuild's own -MMD instead of running the
# preprocessor first (the fork's trace event headers make that costly:
# a cold build of the fork through ccache took 376 processor seconds
# without it, 283 with it, 269 without ccache); hits are the same
# direct-mode hits.
set -eu
CCACHE_DEPEND=1
export CCACHE_DEPEND

fixed=/run/dtracer-kbuild

die() {
	echo "kbuild-cached.sh: $*" >&2
	exit 2
}

cached() {
	[ -n "${DT_CCACHE:-}" ] && [ "$(id -u)" = 0 ] &&
		[ -d /usr/lib/ccache ] && command -v ccache > /dev/null &&
		command -v unshare > /dev/null
}

# The new mount namespace's mounts stay in it: private, as unshare makes
# them; in a chroot (tests/vm/check-kernel.sh's in_root, itself in a
# private namespace), where / is no mount point and cannot be made
# private, they are left as they are.
propagation() {
	if mountpoint -q /; then echo private; else echo unchanged; fi
}

mode=${1:-}
[ $# -gt 0 ] && shift
case $mode in
fork)
	[ $# -ge 4 ] || die "usage: fork VERSION RELEASE SRC PRIVATE MAKEARGS..."
	version=$1 release=$2 src=$3 priv=$4
	shift 4
	if ! cached; then
		exec make -C "$src" LTTNG_KERNEL_PRIVATE_DIR="$priv" "$@"
	fi
	b=$fixed/dtracer/$version/build
	mkdir -p "$fixed" "$DT_CCACHE"
	exec unshare -m --propagation "$(propagation)" sh -c '
		fixed=$1 b=$2 src=$3 priv=$4 release=$5
		shift 5
		mount -t tmpfs -o mode=0755 dtracer-kbuild "$fixed" &&
		mkdir -p "$b/lttng-modules" "$b/kernel-private/$release" &&
		mount --bind "$src" "$b/lttng-modules" &&
		mount --bind "$priv" "$b/kernel-private/$release" || exit 1
		PATH=/usr/lib/ccache:$PATH CCACHE_DIR=$DT_CCACHE
		export PATH CCACHE_DIR
		exec make -C "$b/lttng-modules" \
			LTTNG_KERNEL_PRIVATE_DIR="$b/kernel-private/$release" "$@"' \
		sh "$fixed" "$b" "$(cd "$src" && pwd -P)" "$(cd "$priv" && pwd -P)" \
		"$release" "$@"
	;;
module)
	[ $# -ge 5 ] || die "usage: module VERSION KDIR NAME BUILD LMSRC MAKEARGS..."
	version=$1 kdir=$2 name=$3 build=$4 lmsrc=$5
	shift 5
	if [ "$lmsrc" != - ]; then
		_lm=$(cd "$lmsrc" 2> /dev/null && pwd -P) ||
			die "no fork source at $lmsrc (the fork is built first)"
		lmsrc=$_lm
		set -- LTTNG_SRC="$lmsrc" "$@"
	fi
	if ! cached; then
		exec make -C "$kdir" M="$build/$name" "$@"
	fi
	b=$fixed/dtracer/$version/build
	mkdir -p "$fixed" "$DT_CCACHE"
	exec unshare -m --propagation "$(propagation)" sh -c '
		fixed=$1 b=$2 kdir=$3 name=$4 build=$5 lmsrc=$6
		shift 6
		mount -t tmpfs -o mode=0755 dtracer-kbuild "$fixed" &&
		mkdir -p "$b/dtracer" "$b/probes" "$b/lttng-modules" &&
		mount --bind "$build/dtracer" "$b/dtracer" &&
		mount --bind "$build/probes" "$b/probes" || exit 1
		if [ "$lmsrc" != - ]; then
			shift
			mount --bind "$lmsrc" "$b/lttng-modules" || exit 1
			set -- LTTNG_SRC="$b/lttng-modules" "$@"
		fi
		PATH=/usr/lib/ccache:$PATH CCACHE_DIR=$DT_CCACHE
		export PATH CCACHE_DIR
		exec make -C "$kdir" M="$b/$name" "$@"' \
		sh "$fixed" "$b" "$kdir" "$name" "$(cd "$build" && pwd -P)" \
		"$lmsrc" "$@"
	;;
dkms)
	[ $# -ge 2 ] || die "usage: dkms DKMSTREE CMD..."
	tree=$1
	shift
	mkdir -p "$tree"
	if ! cached; then
		DT_DKMSTREE=$tree
		export DT_DKMSTREE
		exec "$@"
	fi
	mkdir -p "$fixed" "$DT_CCACHE"
	exec unshare -m --propagation "$(propagation)" sh -c '
		fixed=$1 tree=$2
		shift 2
		mount --bind "$tree" "$fixed" || exit 1
		PATH=/usr/lib/ccache:$PATH CCACHE_DIR=$DT_CCACHE DT_DKMSTREE=$fixed
		export PATH CCACHE_DIR DT_DKMSTREE
		exec "$@"' \
		sh "$fixed" "$(cd "$tree" && pwd -P)" "$@"
	;;
*)
	die "usage: kbuild-cached.sh fork VERSION RELEASE SRC PRIVATE MAKEARGS... | module VERSION KDIR NAME BUILD LMSRC MAKEARGS... | dkms DKMSTREE CMD..."
	;;
esac
