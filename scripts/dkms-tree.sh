#!/bin/sh
# `make install` / `make uninstall` of the DKMS source tree,
# ROOT/usr/src/dtracer-VERSION/, from which DKMS rebuilds dtracer.ko, the
# fork of lttng-modules and lttng-probe-dtracer.ko for each new kernel:
#
#   dkms.conf       names the modules and where they go (generated here)
#   dkms.mk         the build (scripts/dkms.mk)
#   dtracer/ probes/        the sources of our two modules
#   lttng-modules/  the fork: Debian's lttng-modules source with our
#                   patches applied (made afresh by lttng-modules/prepare.sh
#                   from the .deb this build downloaded)
#   kernel-private/RELEASE/ the internal headers this build used, and
#   kernel-private.sh, apt-download.sh to get them for another kernel
#
# Registering it with DKMS is the administrator's step (dkms add/build/
# install), as is `dkms remove` before `make uninstall`.
#
# usage: dkms-tree.sh install ROOT VERSION SRCDIR LM_WORK KPRIV RELEASE DEBVER UPVER FILE...
#        (FILE...: dtracer's and the probe module's sources, relative to SRCDIR)
#        dkms-tree.sh uninstall ROOT VERSION
set -eu

die() {
	echo "dkms-tree.sh: $*" >&2
	exit 1
}

what=${1:-} root=${2:-} version=${3:-}
[ -n "$version" ] || die "usage: install|uninstall ROOT VERSION ..."
tree=$root/usr/src/dtracer-$version

case $what in
install)
	[ $# -ge 10 ] || die "usage: install ROOT VERSION SRCDIR LM_WORK KPRIV RELEASE DEBVER UPVER FILE..."
	srcdir=$4 lm=$5 kpriv=$6 rel=$7 debver=$8 upver=$9
	shift 9
	deb=$lm/lttng-modules-dkms_${debver}_all.deb
	[ -f "$deb" ] || die "$deb is missing (run make)"
	tmp=$tree.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp/prepare"
	cp "$deb" "$tmp/prepare/"
	sh "$srcdir/lttng-modules/prepare.sh" "$srcdir/lttng-modules" \
		"$tmp/prepare" "$debver" "$upver" > /dev/null
	mv "$tmp/prepare/src" "$tmp/lttng-modules"
	rm -rf "$tmp/prepare"
	for f in "$@"; do
		mkdir -p "$tmp/$(dirname "$f")"
		cp "$srcdir/$f" "$tmp/$f"
	done
	# Only the headers the probes use (kpriv may be a whole source tree).
	mkdir -p "$tmp/kernel-private/$rel"
	(cd "$kpriv" && find mm fs/btrfs fs/ext4 arch/x86/kvm virt/kvm \
		drivers/base/regmap -name '*.h' 2> /dev/null) > "$tmp/priv.list"
	[ -s "$tmp/priv.list" ] || die "no internal headers under $kpriv"
	tar -C "$kpriv" -cf - -T "$tmp/priv.list" | tar -C "$tmp/kernel-private/$rel" -xf -
	rm -f "$tmp/priv.list"
	# The probes reach them as <../../mm/slab.h> from include/uapi/.
	mkdir -p "$tmp/kernel-private/$rel/include/uapi"
	echo "installed by make install for $rel" > "$tmp/kernel-private/$rel/.version"
	cp "$srcdir/scripts/dkms.mk" "$srcdir/lttng-modules/kernel-private.sh" \
		"$srcdir/lttng-modules/apt-download.sh" "$tmp/"
	# The modules the fork builds: every obj-m of its Kbuild files,
	# found by building it here would take minutes; the list of .ko this
	# build made is the same for every kernel that builds all probes.
	{
		echo "# dtracer $version: DKMS rebuilds these for each kernel (make install)."
		echo "PACKAGE_NAME=dtracer"
		echo "PACKAGE_VERSION=$version"
		echo "MAKE[0]=\"make -f dkms.mk KVER=\$kernelver KDIR=\$kernel_source_dir\""
		echo "CLEAN=\"make -f dkms.mk KVER=\$kernelver KDIR=\$kernel_source_dir clean\""
		echo "AUTOINSTALL=yes"
		i=0
		find "$lm/src" -name '*.ko' | sort | while read -r ko; do
			loc=lttng-modules/${ko#"$lm/src/"}
			echo "BUILT_MODULE_NAME[$i]=$(basename "$ko" .ko)"
			echo "BUILT_MODULE_LOCATION[$i]=$(dirname "$loc")"
			echo "DEST_MODULE_LOCATION[$i]=/extra/dtracer/lttng"
			i=$((i + 1))
		done > "$tmp/modules.lines"
		cat "$tmp/modules.lines"
		n=$(grep -c '^BUILT_MODULE_NAME' "$tmp/modules.lines")
		echo "BUILT_MODULE_NAME[$n]=dtracer"
		echo "BUILT_MODULE_LOCATION[$n]=dtracer"
		echo "DEST_MODULE_LOCATION[$n]=/extra/dtracer"
		n=$((n + 1))
		echo "BUILT_MODULE_NAME[$n]=lttng-probe-dtracer"
		echo "BUILT_MODULE_LOCATION[$n]=probes"
		echo "DEST_MODULE_LOCATION[$n]=/extra/dtracer/lttng"
	} > "$tmp/dkms.conf.new"
	rm -f "$tmp/modules.lines"
	mv "$tmp/dkms.conf.new" "$tmp/dkms.conf"
	rm -rf "$tree"
	mv "$tmp" "$tree"
	echo "  DKMS source tree in $tree (dkms add dtracer/$version; dkms install dtracer/$version)"
	;;
uninstall)
	rm -rf "$tree"
	echo "  removed $tree"
	;;
*)
	die "usage: install|uninstall ROOT VERSION ..."
	;;
esac
