#!/bin/sh
# make check-debug: our modules built against the debug kernel of
# scripts/debug-kernel.sh, and the kernel tests run on it in the harness.
#
#   check-debug.sh build SOURCE...   dtracer.ko, the fork and
#                                    lttng-probe-dtracer.ko against the
#                                    debug kernel's tree, its guests'
#                                    module tree and initramfs, and the
#                                    shadow build folder the tests run in
#   check-debug.sh run TEST...       run these t-*.sh with the shadow
#                                    build folder; fail on any "not ok"
#
# SOURCE...: the files of dtracer/ and probes/ that Kbuild needs (the
# Makefile's dtracer_sources and probes_sources), linked into OUT.
#
# Environment: DT_SRCDIR, DT_BUILDDIR (the normal build, left alone),
# DT_DEBUG_OUT (default DT_BUILDDIR/tests/vm/build-debug),
# DT_DEBUG_KERNEL_CACHE (scripts/debug-kernel.sh's cache), BUSYBOX.
#
# Nothing of the normal build is written: the tests run with DT_BUILDDIR
# set to OUT/tree, a folder holding a config.sh that points the harness
# at the debug kernel (and DT_VM_DEBUG=1: vm.sh's stricter log checks),
# links to the normal build's userspace tools and command, and its own
# tests/out/ for the guests' results.
#
#   OUT/dtracer/, OUT/probes/  Kbuild folders (sources linked in)
#   OUT/lttng/src              the fork, prepared by prepare.sh, built
#   OUT/modules/lib/modules/REL, OUT/initramfs.cpio.gz   what guests boot
#   OUT/tree/                  DT_BUILDDIR of the tests
#   OUT/tree/tests/out/TEST/GUEST/   the guests' results
set -eu

cmd=$1
shift
: "${DT_SRCDIR:?}" "${DT_BUILDDIR:?}"
out=${DT_DEBUG_OUT:-$DT_BUILDDIR/tests/vm/build-debug}
cache=${DT_DEBUG_KERNEL_CACHE:-/var/cache/dtracer/debug-kernel}

die() {
	echo "check-debug: $*" >&2
	exit 1
}
say() {
	echo "  DEBUG    $*"
}

[ -f "$cache/kernel.env" ] ||
	die "no debug kernel in $cache: run scripts/debug-kernel.sh first"
. "$cache/kernel.env"
. "$DT_BUILDDIR/tests/vm/config.sh"
kdir=$DT_DEBUG_KERNELDIR
rel=$DT_DEBUG_RELEASE

kbuild() {
	_log=$1
	shift
	nice -n 19 make "$@" > "$_log" 2>&1 ||
		{ tail -n 40 "$_log" >&2; die "make $* failed (log: $_log)"; }
}

build() {
	mkdir -p "$out"
	# The fork: prepare.sh into OUT/lttng (the .deb taken from the normal
	# build when it has it), again whenever the patches change.
	lm=$out/lttng
	mkdir -p "$lm"
	want=$(cat "$DT_SRCDIR/lttng-modules/SHA256SUMS" \
		"$DT_SRCDIR/lttng-modules/patches/series" \
		"$DT_SRCDIR/lttng-modules/patches/"*.patch | sha256sum | cut -d' ' -f1)
	if [ "$(cat "$lm/source.sum" 2>/dev/null)" != "$want" ] || [ ! -d "$lm/src" ]; then
		deb=lttng-modules-dkms_${DT_LTTNG_MODULES_DEB_VERSION}_all.deb
		[ -f "$lm/$deb" ] || [ ! -f "$DT_BUILDDIR/lttng-modules/build/$deb" ] ||
			cp "$DT_BUILDDIR/lttng-modules/build/$deb" "$lm/$deb"
		rm -f "$lm/source.sum" "$lm/built.sum"
		sh "$DT_SRCDIR/lttng-modules/prepare.sh" "$DT_SRCDIR/lttng-modules" \
			"$lm" "$DT_LTTNG_MODULES_DEB_VERSION" "$DT_LTTNG_MODULES_VERSION"
		echo "$want" > "$lm/source.sum"
	fi
	# Rebuilt from clean when the kernel changed (a new stamp).
	ksum=$(sha256sum "$cache/stamp" | cut -d' ' -f1)
	if [ "$(cat "$lm/built.sum" 2>/dev/null)" != "$ksum" ]; then
		say "lttng-modules against $rel (a few minutes; log: $lm/build.log)"
		make -C "$lm/src" KERNELDIR="$kdir" clean > /dev/null 2>&1 || true
		# The full source tree holds the internal headers some probes
		# need (patch 0002): it is its own LTTNG_KERNEL_PRIVATE_DIR.
		kbuild "$lm/build.log" -j2 -C "$lm/src" KERNELDIR="$kdir" \
			LTTNG_KERNEL_PRIVATE_DIR="$kdir" modules
		echo "$ksum" > "$lm/built.sum"
	fi

	# dtracer.ko and the probe module: Kbuild writes next to the
	# sources, so the sources are linked into OUT (as kbuild-links.stamp
	# does for a VPATH build). -g: reports name source lines
	# (scripts/faddr2line OUT/dtracer/dtracer.ko FUNC+OFF).
	for f in "$@"; do
		mkdir -p "$out/$(dirname "$f")"
		ln -sf "$DT_SRCDIR/$f" "$out/$f"
	done
	if [ "$(cat "$out/kernel.sum" 2>/dev/null)" != "$ksum" ]; then
		rm -f "$out/dtracer/"*.o "$out/dtracer/"*.ko "$out/probes/"*.o "$out/probes/"*.ko
		echo "$ksum" > "$out/kernel.sum"
	fi
	say "dtracer.ko and lttng-probe-dtracer.ko against $rel"
	kbuild "$out/dtracer.log" -C "$kdir" M="$out/dtracer" KCFLAGS=-g modules
	kbuild "$out/probes.log" -C "$kdir" M="$out/probes" \
		LTTNG_SRC="$lm/src" KCFLAGS=-g modules

	say "module tree and initramfs for $rel"
	sh "$DT_SRCDIR/tests/vm/mkmodtree.sh" "$out/modules" "$rel" \
		"$DT_DEBUG_MODULES" "$out/dtracer/dtracer.ko" \
		"$out/probes/lttng-probe-dtracer.ko" "$lm/src"
	sh "$DT_SRCDIR/tests/vm/mkinitramfs.sh" "$out/initramfs.cpio.gz" "$rel" \
		"$DT_DEBUG_MODULES" "${BUSYBOX:-/bin/busybox}" \
		"$DT_SRCDIR/tests/vm/initramfs-init"

	# The shadow build folder.
	t=$out/tree
	DT_BUILDDIR=$DT_BUILDDIR sh "$DT_SRCDIR/tests/vm/shadow-tree.sh" "$t" "$lm/src" \
		"tests/vm/check-debug.sh: the harness on the debug kernel." <<EOF
DT_KERNEL_RELEASE='$rel'
DT_KERNEL_IMAGE='$DT_DEBUG_IMAGE'
DT_KERNEL_MODULES='$DT_DEBUG_MODULES'
DT_KERNEL_BUILD='$kdir'
DT_KERNEL_PRIVATE='$kdir'
DT_VM_INITRAMFS='$out/initramfs.cpio.gz'
DT_VM_MODTREE='$out/modules/lib/modules/$rel'
DT_LTTNG_MODULES_SRC='$lm/src'
# KASAN's shadow takes an eighth of the memory; everything runs slower.
DT_VM_MEM=\${DT_VM_MEM:-2048}
DT_VM_TIMEOUT=\${DT_VM_TIMEOUT:-1800}
DT_VM_DEBUG=1
# Under TCG this kernel's ACPI interpreter runs the PCI routing method
# (_PRT) into its 30 s loop timeout, four times at boot: the PCI
# interrupt routing comes from the BIOS tables instead. no5lvl: with
# 5-level paging (QEMU's -cpu max has LA57), an interrupt taken while
# identify_cpu() has cleared the boot CPU's feature bits makes KASAN
# compute the 4-level shadow bounds and report a "wild-memory-access"
# in handle_edge_irq (seen once, at 2 s of boot, before any module).
DT_VM_APPEND="acpi=noirq no5lvl \${DT_VM_APPEND:-}"
EOF
	say "ready: DT_BUILDDIR=$t sh \$DT_SRCDIR/tests/kernel/t-NAME.sh"
}

# fault TEST LOG NAME OK NOT_OK T0: the verdict of a fault-injection
# pass (DT_VM_FAIL_ALLOC=PERCENT: dtracer's allocations that cannot
# sleep fail that often, guest-init.sh). What a failed allocation costs
# is a request not followed, so the test's own checks may fail: they
# are counted, not judged. The pass fails on a kernel report (a guest's
# "kernel log clean" not ok: KASAN, lockdep, a warning, a leak of ours),
# a guest that crashed or hung ("no status"), or no failure injected at
# all (drops_nomem never above 0 in any guest: guest-init.sh writes the
# largest it saw to the guest's results).
fault() {
	_reports=$(grep -c '^not ok.*kernel log clean' "$2" || true)
	_hung=$(grep -c '^# no status' "$2" || true)
	_nomem=$(cat "$t/tests/out/${3#t-}"/*/drops_nomem 2> /dev/null |
		sort -n | tail -n 1)
	_line="$1 ($4 ok, $5 not ok under injected failures, drops_nomem up to ${_nomem:-none seen}, $(($(date +%s) - $6)) s)"
	if [ "$_reports" -ne 0 ] || [ "$_hung" -ne 0 ] || [ "${_nomem:-0}" -eq 0 ]; then
		failed="$failed $3"
		echo "FAIL: $_line: $_reports kernel reports, $_hung guests without status"
		grep -A 12 '^not ok.*kernel log clean\|^# no status' "$2" | head -n 60 | sed 's/^/    /'
	else
		echo "PASS: $_line"
	fi
}

run() {
	t=$out/tree
	[ -f "$t/tests/vm/config.sh" ] || die "run 'check-debug.sh build' first"
	failed="" n=0 start=$(date +%s)
	for test in "$@"; do
		name=$(basename "$test" .sh)
		case $name in
		t-view)
			echo "SKIP: $test (a browser test: boots no guest)"
			continue
			;;
		esac
		log=$t/tests/out/$name.log
		t0=$(date +%s)
		rc=0
		DT_BUILDDIR=$t sh "$DT_SRCDIR/$test" > "$log" 2>&1 || rc=$?
		nok=$(grep -c '^not ok' "$log" || true)
		okc=$(grep -c '^ok' "$log" || true)
		n=$((n + 1))
		if [ -n "${DT_VM_FAIL_ALLOC:-}" ]; then
			fault "$test" "$log" "$name" "$okc" "$nok" "$t0"
			continue
		fi
		if [ "$rc" -ne 0 ] || [ "$nok" -ne 0 ] || [ "$okc" -eq 0 ]; then
			failed="$failed $name"
			echo "FAIL: $test ($okc ok, $nok not ok, exit $rc, $(($(date +%s) - t0)) s)"
			grep -A 12 '^not ok' "$log" | head -n 60 | sed 's/^/    /'
		else
			echo "PASS: $test ($okc ok, $(($(date +%s) - t0)) s)"
		fi
		# kmemleak's objects that are not ours only inform (vm.sh fails
		# a guest on ours).
		k=$(cat "$t/tests/out/${name#t-}"/*/kmemleak 2>/dev/null |
			grep -c '^unreferenced object' || true)
		[ "$k" -eq 0 ] ||
			echo "    kmemleak: $k unreferenced objects in all (tests/out/${name#t-}/*/kmemleak)"
	done
	echo "check-debug: $n tests on $rel in $(($(date +%s) - start)) s;" \
		"logs in $t/tests/out/"
	[ -z "$failed" ] || die "failed:$failed"
}

case $cmd in
build) build "$@" ;;
run) run "$@" ;;
*) die "usage: check-debug.sh build SOURCE... | run TEST..." ;;
esac
