#!/bin/sh
# `make install` / `make uninstall` of the kernel modules: dtracer.ko,
# the fork's LTTng modules and lttng-probe-dtracer.ko, all under
# DESTDIR/lib/modules/RELEASE/extra/dtracer/ (a folder of ours alone),
# and DESTDIR/etc/depmod.d/dtracer.conf, whose `override` lines make
# depmod (so modprobe and lttng-sessiond) take the fork's LTTng modules
# over any other copy of the same name, such as the ones Debian's
# lttng-modules-dkms puts under updates/dkms/ (which depmod prefers
# otherwise).
#
# usage: modules-install.sh install DESTDIR RELEASE DTRACER_KO PROBE_KO LTTNG_SRC
#        modules-install.sh uninstall DESTDIR RELEASE
#
# depmod runs for RELEASE when DESTDIR is empty (a real installation);
# with a DESTDIR (staging, packaging) it is left to the target, and said.
set -eu

what=${1:-} destdir=${2:-} rel=${3:-}
ours=lib/modules/$rel/extra/dtracer
conf=etc/depmod.d/dtracer.conf

die() {
	echo "modules-install.sh: $*" >&2
	exit 1
}

run_depmod() {
	if [ -n "$destdir" ]; then
		echo "  (DESTDIR set: run \`depmod -a $rel\` on the target after copying)"
	elif [ -d "/lib/modules/$rel" ]; then
		echo "  depmod -a $rel"
		depmod -a "$rel" || die "depmod -a $rel failed"
	else
		echo "  (no /lib/modules/$rel here: run \`depmod -a $rel\` on the hosts running that kernel)"
	fi
}

[ -n "$rel" ] || die "no kernel release given"

case $what in
install)
	[ $# -eq 6 ] || die "usage: install DESTDIR RELEASE DTRACER_KO PROBE_KO LTTNG_SRC"
	dtracer=$4 probe=$5 lttng=$6
	for f in "$dtracer" "$probe"; do
		[ -f "$f" ] || die "$f is not built (run make)"
	done
	kos=$(find "$lttng" -name '*.ko' | sort)
	[ -n "$kos" ] || die "no module of the fork under $lttng (run make)"
	rm -rf "$destdir/$ours.tmp"
	mkdir -p "$destdir/$ours.tmp/lttng" "$destdir/etc/depmod.d"
	install -m 0644 "$dtracer" "$destdir/$ours.tmp/"
	# shellcheck disable=SC2086
	install -m 0644 $kos "$probe" "$destdir/$ours.tmp/lttng/"
	# depmod reads an override's kernel version as a regular expression
	# (ERE) and its configuration parser drops backslashes: a release's
	# dots and plus signs (6.12.118+deb13-amd64: "8+" is "one or more
	# 8") go in brackets, and the whole is anchored.
	relre=^$(printf '%s' "$rel" | sed 's/[.+*?(){}|$]/[&]/g')\$
	{
		echo "# dtracer (make install): the fork of lttng-modules in"
		echo "# /$ours/lttng wins over other copies."
		for f in $kos "$probe"; do
			m=$(basename "$f" .ko)
			echo "override $m $relre extra/dtracer/lttng"
		done
		echo "override dtracer $relre extra/dtracer"
	} > "$destdir/$conf.tmp"
	# Everything in place, then switched in: no half-installed tree.
	rm -rf "$destdir/$ours"
	mv "$destdir/$ours.tmp" "$destdir/$ours"
	mv "$destdir/$conf.tmp" "$destdir/$conf"
	echo "  installed $(($(echo "$kos" | wc -l) + 2)) modules in $destdir/$ours, $destdir/$conf"
	run_depmod
	;;
uninstall)
	[ $# -eq 3 ] || die "usage: uninstall DESTDIR RELEASE"
	rm -rf "$destdir/$ours"
	rm -f "$destdir/$conf"
	echo "  removed $destdir/$ours, $destdir/$conf"
	run_depmod
	;;
*)
	die "usage: install|uninstall ..."
	;;
esac
