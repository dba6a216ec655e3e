#!/bin/sh
# seconds: 300 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# make install DESTDIR=...: the command, its man page, the babeltrace2
# plugin, dtracer.ko, every module of the fork and the probe module in
# their places; the depmod.d override makes depmod take the fork's LTTng
# modules over a same-named copy under updates/dkms/ (what Debian's
# lttng-modules-dkms installs); DKMS builds every module from the
# installed source tree (in scratch DKMS trees: nothing registered on
# this machine); make uninstall leaves no file behind. Modules go under
# DESTDIR + configure's --with-module-root (distcheck sets one).
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"

out=$DT_BUILDDIR/tests/out/install
rel=$DT_KERNEL_RELEASE
rm -rf "$out"
mkdir -p "$out"
d=$out/destdir

make -C "$DT_BUILDDIR" install DESTDIR="$d" > "$out/install.log" 2>&1
tap_result $? "make install DESTDIR=..."
tail -n 3 "$out/install.log" | tap_diag_stdin
grep -q "run \`depmod -a $rel\` on the target" "$out/install.log"
tap_result $? "with a DESTDIR, depmod is left to the target, and said"

mroot=$d$DT_MODULE_ROOT
mods=$mroot/lib/modules/$rel/extra/dtracer
built=$(find "$DT_BUILDDIR/lttng-modules/build/src" -name '*.ko' | wc -l)
got=$(find "$mods/lttng" -name '*.ko' | wc -l)
tap_result $([ -f "$mods/dtracer.ko" ] && [ -f "$mods/lttng/lttng-tracer.ko" ] &&
	[ -f "$mods/lttng/lttng-dtracer-gate.ko" ] &&
	[ -f "$mods/lttng/lttng-probe-dtracer.ko" ] && [ "$got" -eq $((built + 1)) ]; echo $?) \
	"modules in lib/modules/$rel/extra/dtracer: dtracer.ko, the fork's $built and the probe module ($got in lttng/)"
cmp -s "$mods/dtracer.ko" "$DT_BUILDDIR/dtracer/dtracer.ko"
tap_result $? "... the ones built here"

bin=$(find "$d" -path '*/bin/dtracer' -type f)
"$bin" --help > "$out/help.txt" 2>&1
tap_result $([ -n "$bin" ] && grep -q '^usage: dtracer COMMAND' "$out/help.txt"; echo $?) \
	"the dtracer command: ${bin#"$d"}"

man1=$(find "$d" -path '*/man1/dtracer.1' -type f)
LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$man1" > "$out/man.txt" 2> "$out/man.err"
warn=$(groff -man -ww -z "$man1" 2>&1 | wc -l)
tap_result $([ -n "$man1" ] && [ -s "$out/man.txt" ] && [ "$warn" -eq 0 ]; echo $?) \
	"the man page: ${man1#"$d"}, renders with no groff warning ($warn)"
# Every command `dtracer --help` names has its entry in the page.
missing=
for c in $(awk '/^  [a-z]+ / { print $1 }' "$out/help.txt"); do
	grep -q "^       $c\b" "$out/man.txt" || missing="$missing $c"
done
tap_result $([ -z "$missing" ] && grep -q 'slower-than' "$out/man.txt"; echo $?) \
	"the man page describes every command of --help (missing:${missing:- none})"

so=$(find "$d" -name babeltrace-plugin-dtracer.so)
babeltrace2 --plugin-path="$(dirname "${so:-/nonexistent/x}")" list-plugins > "$out/plugins.txt" 2>&1
tap_result $([ -n "$so" ] && grep -q 'filter.dtracer.sync' "$out/plugins.txt" &&
	grep -q 'filter.dtracer.dedup' "$out/plugins.txt"; echo $?) \
	"the babeltrace2 plugin: ${so#"$d"}, with flt.dtracer.sync and flt.dtracer.dedup"

# The override's kernel version is a regular expression to depmod: it
# must match this release, whole, and no other.
conf=$mroot/etc/depmod.d/dtracer.conf
pat=$(awk '$1 == "override" && $2 == "lttng-tracer" && $4 == "extra/dtracer/lttng" { print $3 }' "$conf" 2>/dev/null)
tap_result $([ -n "$pat" ] && echo "$rel" | grep -q -E -x -e "$pat" &&
	! echo "${rel}x" | grep -q -E -e "$pat" &&
	! echo "$rel" | sed 's/\./x/' | grep -q -E -e "$pat"; echo $?) \
	"etc/depmod.d/dtracer.conf overrides lttng-tracer for $rel (${pat:-none}), only there"

# depmod on a copy of this kernel's module tree, with our modules and a
# stand-in for lttng-modules-dkms's: which lttng-tracer.ko does it pick?
root=$out/root
tree=$root/lib/modules/$rel
mkdir -p "$tree/updates/dkms" "$root/nodepmod"
cp -al "$DT_KERNEL_MODULES/kernel" "$tree/kernel" 2> /dev/null ||
	cp -a "$DT_KERNEL_MODULES/kernel" "$tree/kernel"
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -f "$DT_KERNEL_MODULES/$f" ] && cp "$DT_KERNEL_MODULES/$f" "$tree/"
done
cp -a "$mroot/lib/modules/$rel/extra" "$tree/"
cp "$mods/lttng/lttng-tracer.ko" "$tree/updates/dkms/"
# picked CONFDIR: the path modules.dep gives lttng-tracer
picked() {
	depmod -b "$root" -C "$1" "$rel" 2> "$out/depmod.err" &&
		sed -n 's|^\([^:]*/lttng-tracer\.ko\):.*|\1|p' "$tree/modules.dep"
}
p=$(picked "$root/nodepmod")
tap_result $([ "$p" = updates/dkms/lttng-tracer.ko ]; echo $?) \
	"without the override, depmod picks updates/dkms's lttng-tracer ($p)"
p=$(picked "$mroot/etc/depmod.d")
tap_result $([ "$p" = extra/dtracer/lttng/lttng-tracer.ko ]; echo $?) \
	"with it, the fork's ($p)"
rm -rf "$root"

# DKMS: the source tree make install left, built by dkms for this kernel
# (sign_file unset to a missing tool: no signing, no key made here).
src=$mroot/usr/src/dtracer-$DT_VERSION
n=$(grep -c '^BUILT_MODULE_NAME' "$src/dkms.conf" 2>/dev/null)
tap_result $([ "${n:-0}" -eq $((built + 2)) ] && [ -f "$src/dkms.mk" ] &&
	[ -f "$src/lttng-modules/src/lttng-dtracer-gate.c" ]; echo $?) \
	"the DKMS source tree: dkms.conf names the $((built + 2)) modules, with the patched fork (${n:-0})"
if command -v dkms > /dev/null; then
	dk=$out/dkms
	mkdir -p "$dk"
	# scripts/kbuild-cached.sh: with DT_CCACHE, at the fork's fixed path
	# (DT_DKMSTREE), through ccache: what make compiled is not again.
	( cd "$out" &&
	  sh "$DT_SRCDIR/scripts/kbuild-cached.sh" dkms "$dk" sh -c '
		dkms add -m dtracer -v "$1" --sourcetree "$2" \
			--dkmstree "$DT_DKMSTREE" &&
		sign_file=/nonexistent dkms build -m dtracer -v "$1" -k "$3" \
			--kernelsourcedir "$4" --sourcetree "$2" \
			--dkmstree "$DT_DKMSTREE"' \
		sh "$DT_VERSION" "$mroot/usr/src" "$rel" "$DT_KERNEL_BUILD" ) \
		> "$out/dkms.log" 2>&1
	tap_result $? "dkms add and dkms build for $rel"
	tail -n 3 "$out/dkms.log" | tap_diag_stdin
	m=$dk/dtracer/$DT_VERSION/$rel/x86_64/module
	got=$(ls "$m" 2> /dev/null | grep -c '\.ko')
	vm=$(modinfo -F vermagic "$m/dtracer.ko" 2> /dev/null | cut -d' ' -f1)
	tap_result $([ "$got" -eq $((built + 2)) ] && [ "$vm" = "$rel" ]; echo $?) \
		"DKMS built every module ($got of $((built + 2))) for $rel (${vm:-no vermagic})"
	rm -rf "$dk"
else
	for t in "dkms add and dkms build" "DKMS built every module"; do
		tap_skip "$t" "dkms is not installed (Debian package: dkms)"
	done
fi

make -C "$DT_BUILDDIR" uninstall DESTDIR="$d" > "$out/uninstall.log" 2>&1
tap_result $? "make uninstall DESTDIR=..."
left=$(find "$d" ! -type d | wc -l)
tap_result $([ "$left" -eq 0 ]; echo $?) "make uninstall leaves no file behind ($left)"
find "$d" ! -type d | head -n 5 | tap_diag_stdin
tap_done
