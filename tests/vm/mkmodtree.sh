#!/bin/sh
# Make the module tree the guests use as /lib/modules/RELEASE: the
# kernel's own modules (hard links where possible), ours under extra/,
# and a modules.dep made here by depmod -b.
#
# usage: mkmodtree.sh OUTDIR RELEASE KERNEL_MODULE_DIR DTRACER_KO PROBE_KO LTTNG_SRC
set -eu

out=$1 rel=$2 kmod=$3 dtracer=$4 probe=$5 lttng=$6
tmp=$out.tmp
tree=$tmp/lib/modules/$rel

rm -rf "$tmp"
mkdir -p "$tree/extra/lttng"
# A kernel with everything built in (the debug kernel) may have no kernel/.
if [ -d "$kmod/kernel" ]; then
	cp -al "$kmod/kernel" "$tree/kernel" 2>/dev/null ||
		cp -a "$kmod/kernel" "$tree/kernel"
fi
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -f "$kmod/$f" ] && cp "$kmod/$f" "$tree/"
done
cp "$dtracer" "$tree/extra/"
find "$lttng" -name '*.ko' -exec cp {} "$tree/extra/lttng/" \;
cp "$probe" "$tree/extra/lttng/"
depmod -b "$tmp" "$rel"
rm -rf "$out"
mv "$tmp" "$out"
