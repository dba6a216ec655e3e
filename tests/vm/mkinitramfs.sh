#!/bin/sh
# Build the test guests' initramfs: busybox-static, the drivers needed to
# reach the host's root over virtio 9p (in dependency order, computed by
# modprobe from the kernel's own modules.dep) and initramfs-init. Drivers
# the kernel has built in (modules.builtin: the debug kernel's) are left
# out; the list of modules to load may then be empty.
#
# usage: mkinitramfs.sh OUT.cpio.gz KERNEL_RELEASE MODULE_DIR BUSYBOX INIT
set -eu

out=$1 rel=$2 moddir=$3 busybox=$4 init=$5

if ldd "$busybox" >/dev/null 2>&1; then
	echo "mkinitramfs: $busybox is dynamically linked; install busybox-static" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/bin" "$tmp/modules"
cp "$busybox" "$tmp/bin/busybox"
cp "$init" "$tmp/init"
chmod 755 "$tmp/init"

# modprobe -d ROOT looks for ROOT/lib/modules/RELEASE.
root=$tmp/modroot
mkdir -p "$root/lib/modules"
ln -s "$(cd "$moddir" && pwd)" "$root/lib/modules/$rel"

: > "$tmp/modules/order"
for want in virtio_pci virtio_net 9pnet_virtio 9p overlay virtio_rng; do
	modprobe -d "$root" -S "$rel" --show-depends "$want" > "$tmp/deps" ||
		{ echo "mkinitramfs: $want: not in $moddir" >&2; exit 1; }
	while read -r cmd path rest; do
		[ "$cmd" = insmod ] || continue
		name=$(basename "$path")
		# compressed modules (Debian 13's) unpacked: busybox's insmod
		# reads plain ones
		case $name in
		*.ko.xz) name=${name%.xz} ;;
		esac
		grep -qx "$name" "$tmp/modules/order" && continue
		src=$moddir/${path##*/lib/modules/$rel/}
		case $src in
		*.xz) xz -dc "$src" > "$tmp/modules/$name" ;;
		*) cp "$src" "$tmp/modules/$name" ;;
		esac
		echo "$name" >> "$tmp/modules/order"
	done < "$tmp/deps"
done
rm -f "$tmp/deps"
rm -rf "$root"

(cd "$tmp" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) |
	gzip -9 > "$out.tmp"
mv "$out.tmp" "$out"
