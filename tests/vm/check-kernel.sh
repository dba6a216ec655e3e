#!/bin/sh
# The kernel tests on another Debian release's kernel and user space
# (Debian 13 beside the build machine's Debian 12): our modules built for
# that kernel inside that release's root file system (scripts/
# debian-root.sh: its compiler, its kbuild), and guests that boot that
# kernel with that root (its lttng-tools, babeltrace2, curl, python3...).
#
#   check-kernel.sh build             this source (make distdir)
#                                     configured in the root (configure
#                                     picks the release's lttng-modules
#                                     itself: lttng-modules/releases) and
#                                     built there, as a user of that
#                                     release builds it; its fork,
#                                     dtracer.ko and lttng-probe-dtracer.ko
#                                     are what the guests boot: their
#                                     module tree and initramfs, the
#                                     shadow build folder
#   check-kernel.sh run TEST...       run these t-*.sh there; fail on any
#                                     "not ok"
#   check-kernel.sh install TEST...   that release as the build machine:
#                                     make check TESTS="TEST..." in the
#                                     tree build made (made again first
#                                     if the source changed since)
#                                     (tests/build/t-install.sh: make
#                                     install, DKMS); its logs in
#                                     OUT/install/; fails on a failed step
#
# Environment: DT_SRCDIR, DT_BUILDDIR (the normal build, left alone),
# DT_SUITE (default trixie), DT_SUITE_ROOT (debian-root.sh's OUT, default
# DT_BUILDDIR/tests/vm/build/SUITE), DT_SUITE_OUT (default
# DT_BUILDDIR/tests/vm/build-SUITE).
#
#   OUT/install/dist           the source the tree was built from
#   OUT/install/src            the tree, configured and built in the root
#                              (its fork: lttng-modules/build/src)
#   OUT/kernel-private         the internal headers some probes need
#   OUT/modules/lib/modules/REL, OUT/initramfs.cpio.gz   what guests boot
#   OUT/tree/                  DT_BUILDDIR of the tests
#   OUT/tree/tests/out/TEST/GUEST/   the guests' results
set -eu

cmd=$1
shift
: "${DT_SRCDIR:?}" "${DT_BUILDDIR:?}"
suite=${DT_SUITE:-trixie}
sroot=${DT_SUITE_ROOT:-$DT_BUILDDIR/tests/vm/build/$suite}
out=${DT_SUITE_OUT:-$DT_BUILDDIR/tests/vm/build-$suite}

die() {
	echo "check-kernel: $*" >&2
	exit 1
}
say() {
	echo "  $suite  $*"
}

[ -f "$sroot/env" ] || die "no $suite root in $sroot: run scripts/debian-root.sh $suite $sroot"
. "$sroot/env"
. "$DT_BUILDDIR/tests/vm/config.sh"
rel=$KERNEL_RELEASE
root=$sroot/root

# in_root LOG CMD...: run CMD in the release's root (an environment of
# its own: PATH, DT_CCACHE; no KCFLAGS, as scripts/dev.sh's -g0 would
# leave Debian 13's pahole no DWARF to make module BTF from), with the
# source and build folders (and DT_CCACHE's, scripts/kbuild-cached.sh)
# at their own paths (bind mounts in a mount namespace of its own: nothing stays
# mounted), at nice DT_BUILD_NICE (default 19: make check-kernel's guests
# keep their time beside it; make check-lanes's lane B gives 0, as its
# lane must not wait on the other's guests).
in_root() {
	_log=$1
	shift
	[ -z "${DT_CCACHE:-}" ] || mkdir -p "$DT_CCACHE"
	unshare -m sh -c '
		root=$1 src=$2 build=$3 cc=$4 nice=$5
		shift 5
		for d in "$src" "$build" $cc; do
			mkdir -p "$root$d"
			mount --bind "$d" "$root$d"
		done
		mount -t proc proc "$root/proc"
		exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			LC_ALL=C.UTF-8 HOME=/root ${cc:+DT_CCACHE=$cc} nice -n "$nice" "$@"' \
		sh "$root" "$DT_SRCDIR" "$DT_BUILDDIR" "${DT_CCACHE:-}" \
		"${DT_BUILD_NICE:-19}" "$@" > "$_log" 2>&1 ||
		{ tail -n 40 "$_log" >&2; die "$* failed in the $suite root (log: $_log)"; }
}

# tree: this source (make distdir) configured and built in the root
# (configure picks the release's lttng-modules itself) in OUT/install/src,
# as a user on that release builds it; its modules are what the guests
# boot. Built again only when the source changed: OUT/install/dist is the
# copy it was built from.
tree() {
	i=$out/install
	mkdir -p "$i"
	rm -rf "$i/dist.new"
	make -C "$DT_BUILDDIR" distdir distdir="$i/dist.new" > "$i/distdir.log" 2>&1 ||
		{ tail -n 20 "$i/distdir.log" >&2; die "make distdir failed (log: $i/distdir.log)"; }
	if [ -f "$i/built" ] && diff -r -q "$i/dist" "$i/dist.new" > /dev/null 2>&1; then
		rm -rf "$i/dist.new"
		say "this source, built in the root before (logs: $i/)"
		return 0
	fi
	rm -rf "$i/dist" "$i/src" "$i/built"
	mv "$i/dist.new" "$i/dist"
	cp -a "$i/dist" "$i/src"
	say "this source configured and built in the $suite root (a few minutes; logs: $i/)"
	in_root "$i/configure.log" sh -c "cd '$i/src' && ./configure \
		--with-kernel='$KERNEL_BUILD' --with-kernel-private='$kp' \
		--with-kernel-modules='$KERNEL_MODULES' --disable-vm-tests"
	in_root "$i/make.log" make -C "$i/src" -j2
	touch "$i/built"
}

build() {
	mkdir -p "$out"
	line=$(grep "^$suite " "$DT_SRCDIR/lttng-modules/releases") ||
		die "no lttng-modules version for $suite in lttng-modules/releases"
	lmver=$(echo "$line" | cut -d' ' -f2)
	lmdeb=$(echo "$line" | cut -d' ' -f3)
	# The kernel-internal headers of six probes (kmem, kvm, ...), from
	# the release's linux-source, downloaded with its apt.
	kp=$out/kernel-private
	in_root "$out/kernel-private.log" sh "$DT_SRCDIR/lttng-modules/kernel-private.sh" \
		"$kp" "linux-headers-$rel" "$KERNEL_VERSION"
	# The fork (at the release's lttng-modules version), dtracer.ko and
	# the probe module: the tree's, built in the root through ccache
	# (DT_CCACHE: the install test's DKMS build compiles nothing again).
	tree
	lm=$i/src/lttng-modules/build/src
	for ko in "$i/src/dtracer/dtracer.ko" "$i/src/probes/lttng-probe-dtracer.ko" \
		"$lm/src/lttng-tracer.ko"; do
		[ -f "$ko" ] || die "the tree built in the root has no $ko (log: $i/make.log)"
	done

	say "module tree and initramfs for $rel"
	sh "$DT_SRCDIR/tests/vm/mkmodtree.sh" "$out/modules" "$rel" \
		"$KERNEL_MODULES" "$i/src/dtracer/dtracer.ko" \
		"$i/src/probes/lttng-probe-dtracer.ko" "$lm"
	sh "$DT_SRCDIR/tests/vm/mkinitramfs.sh" "$out/initramfs.cpio.gz" "$rel" \
		"$KERNEL_MODULES" "${BUSYBOX:-/bin/busybox}" \
		"$DT_SRCDIR/tests/vm/initramfs-init"

	# The shadow build folder.
	t=$out/tree
	DT_BUILDDIR=$DT_BUILDDIR sh "$DT_SRCDIR/tests/vm/shadow-tree.sh" "$t" "$lm" \
		"tests/vm/check-kernel.sh: the harness on $suite's kernel and root." <<EOF
DT_KERNEL_RELEASE='$rel'
DT_KERNEL_IMAGE='$KERNEL_IMAGE'
DT_KERNEL_MODULES='$KERNEL_MODULES'
DT_KERNEL_BUILD='$root$KERNEL_BUILD'
DT_KERNEL_PRIVATE='$kp'
DT_VM_INITRAMFS='$out/initramfs.cpio.gz'
DT_VM_MODTREE='$out/modules/lib/modules/$rel'
DT_LTTNG_MODULES_SRC='$lm'
DT_LTTNG_MODULES_VERSION='$lmver'
DT_LTTNG_MODULES_DEB_VERSION='$lmdeb'
# The guests' root: $suite's, not this machine's.
DT_VM_ROOT='$root'
EOF
	say "ready: DT_BUILDDIR=$t sh \$DT_SRCDIR/tests/kernel/t-NAME.sh"
}

run() {
	t=$out/tree
	[ -f "$t/tests/vm/config.sh" ] || die "run 'check-kernel.sh build' first"
	failed="" n=0 start=$(date +%s)
	for test in "$@"; do
		name=$(basename "$test" .sh)
		log=$t/tests/out/$name.log
		t0=$(date +%s)
		rc=0
		DT_BUILDDIR=$t sh "$DT_SRCDIR/$test" > "$log" 2>&1 || rc=$?
		nok=$(grep -c '^not ok' "$log" || true)
		okc=$(grep -c '^ok' "$log" || true)
		n=$((n + 1))
		if [ "$rc" -ne 0 ] || [ "$nok" -ne 0 ] || [ "$okc" -eq 0 ]; then
			failed="$failed $name"
			echo "FAIL: $test on $suite ($okc ok, $nok not ok, exit $rc, $(($(date +%s) - t0)) s)"
			grep -A 12 '^not ok' "$log" | head -n 60 | sed 's/^/    /'
		else
			echo "PASS: $test on $suite ($okc ok, $(($(date +%s) - t0)) s)"
		fi
	done
	echo "check-kernel: $n tests on $suite ($rel) in $(($(date +%s) - start)) s;" \
		"logs in $t/tests/out/"
	[ -z "$failed" ] || die "failed:$failed"
}

install() {
	kp=$out/kernel-private
	[ -f "$kp/.version" ] || die "run 'check-kernel.sh build' first"
	# The tree the build made (made again if the source changed since).
	tree
	say "make check TESTS='$*' in the $suite root (logs: $i/)"
	in_root "$i/check.log" env CI="${CI:-}" make -j2 -C "$i/src" check TESTS="$*"
}

case $cmd in
build) build ;;
run) run "$@" ;;
install) install "$@" ;;
*) die "usage: check-kernel.sh build | run TEST... | install TEST..." ;;
esac
