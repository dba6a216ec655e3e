#!/bin/sh
# PID 1 of a test guest once it has switched to the shared root (the
# host's root, read-only, under a tmpfs overlay). Sets up the machine
# described by /results/.guest.env (hostname, address on the test LAN,
# our module tree), runs the guest script, and leaves in /results what
# the harness checks: started (written before the script runs), status
# (the script's exit code, written last), dmesg, tainted. No status file
# means the guest failed.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

# Under emulation a process costs the guest about 0.1 s to start, so
# this runs as few as it can (6 instead of 22: about 1.5 s of each boot):
# shell built-ins where they do, one mount for the API file systems, one
# ip for the addresses.
#
# /proc first: until it is mounted, /proc is the host's (the shared
# root), and mount -a would take the host's mounts for the guest's.
mount -t proc proc /proc
printf '%s\n' \
	"sysfs /sys sysfs defaults 0 0" \
	"tmpfs /tmp tmpfs mode=1777 0 0" \
	"tmpfs /run tmpfs mode=0755 0 0" \
	"devpts /dev/pts devpts X-mount.mkdir 0 0" \
	"tmpfs /dev/shm tmpfs X-mount.mkdir 0 0" \
	"debugfs /sys/kernel/debug debugfs nofail 0 0" > /etc/fstab
mount -a

. /results/.guest.env

# nonempty DIR: DIR has an entry (built-ins only).
nonempty() {
	for _f in "$1"/* "$1"/.[!.]* "$1"/..?*; do
		[ -e "$_f" ] || [ -L "$_f" ] && return 0
	done
	return 1
}

# A source or build folder under /tmp (a CI clone, say) is hidden by the
# guest's own /tmp, and another release's root has none (or an empty
# mount point, check-kernel.sh's): bind them back from the host's root.
for d in "$DT_SRCDIR" "$DT_BUILDDIR"; do
	case $d in
	/tmp/*) ;;
	*) nonempty "$d" && continue ;;
	esac
	mkdir -p "$d"
	mountpoint -q "$d" || mount --bind "/.dt-host$d" "$d"
done

echo "$DT_HOST" > /proc/sys/kernel/hostname
echo "$DT_HOST" > /etc/hostname
{
	echo "127.0.0.1 localhost"
	_ifs=$IFS
	IFS=,
	for _l in $DT_HOSTS_LINES; do
		echo "$_l"
	done
	IFS=$_ifs
} > /etc/hosts

ip -batch - <<IP
link set lo up
link set eth0 up
addr add $DT_ADDR/24 dev eth0
addr add $DT_ADDR6/64 dev eth0 nodad
IP

# Our modules and the kernel's, with a modules.dep made on the host
# (a kernel the host has no folder for, the debug kernel, gets one).
# (read: dash reads a byte at a time, which proc_dostring answers
# whole; an integer sysctl, tainted, would give its first digit only.)
read -r rel < /proc/sys/kernel/osrelease
mkdir -p "/lib/modules/$rel" /etc/modprobe.d
mount --bind "$DT_MODTREE" "/lib/modules/$rel"

# dtracer honours marks from loopback only unless told otherwise: the
# test LAN is trusted too, as an administrator would set it on real
# hosts. (guest-lib.sh's DT_TRUST_CONF; a test of the default removes it.)
echo "options dtracer trust=127.0.0.0/8,::1/128,${DT_ADDR%.*}.0/24,${DT_ADDR6%::*}::/64" \
	> /etc/modprobe.d/dtracer-test-lan.conf

# Tells the harness the guest got as far as its script.
echo "$rel" > /results/started

# A kernel with kmemleak (the debug kernel of make check-debug): forget
# what boot left unreferenced, so that the scan after the script reports
# what happened during it.
kmemleak=/sys/kernel/debug/kmemleak
if [ -w "$kmemleak" ]; then
	echo scan > "$kmemleak"
	echo clear > "$kmemleak"
fi

# make check-debug's fault-injection pass (DT_VM_FAIL_ALLOC=PERCENT, a
# kernel with CONFIG_FAIL_FUNCTION): dt_mem_fail_atomic() says "fail"
# that often, so dtracer's allocations that cannot sleep fail
# (drops_nomem), whenever the module is loaded: the tests load and
# unload it themselves, and fail_function forgets a module's function
# when it goes, so a loop of built-ins (and one sleep a second) puts it
# back. Quietly (verbose 0): its stack dumps would be kernel reports.
# The largest drops_nomem seen goes to /results/drops_nomem (the
# harness's proof that failures were injected).
fail=/sys/kernel/debug/fail_function
if [ -n "${DT_FAIL_ALLOC:-}" ] && [ -d "$fail" ]; then
	echo "$DT_FAIL_ALLOC" > "$fail/probability"
	echo 1 > "$fail/interval"
	echo -1 > "$fail/times"
	echo 0 > "$fail/verbose"
	(
		while :; do
			if [ -d /sys/module/dtracer ]; then
				cur=
				read -r cur < "$fail/inject" 2> /dev/null
				[ -n "$cur" ] ||
					echo dt_mem_fail_atomic > "$fail/inject" 2> /dev/null
				while read -r k v; do
					[ "$k" = drops_nomem ] && [ "$v" -gt "${most:-0}" ] &&
						most=$v && echo "$v" > /results/drops_nomem
				done < /sys/distributed-tracer/stats 2> /dev/null
			fi
			sleep 1
		done
	) &
	failer=$!
	echo "$DT_FAIL_ALLOC" > /results/fail-alloc
fi

export HOME=/root DT_HOST DT_ADDR DT_ADDR6 DT_HOSTS DT_HOSTS_LINES DT_INDEX DT_RESULTS=/results
export DT_SRCDIR DT_BUILDDIR DT_GUEST_TIMEOUT
cd /tmp
sh -c ". '$DT_SRCDIR/tests/vm/guest-lib.sh' && . '$DT_SCRIPT'" \
	> /results/script.log 2>&1 < /dev/null
rc=$?
[ -z "${failer:-}" ] || kill "$failer" 2> /dev/null

# kmemleak: two scans (an object whose contents changed since the
# previous scan is given one more, which spares allocations caught in
# use), then the report for vm.sh's vm_log_problems.
if [ -w "$kmemleak" ]; then
	echo scan > "$kmemleak"
	sleep 6
	echo scan > "$kmemleak"
	cat "$kmemleak" > /results/kmemleak
fi

dmesg > /results/dmesg
cat /proc/sys/kernel/tainted > /results/tainted
echo "$rc" > /results/status
sync
# reboot(2) at once: a slower shutdown would tear down the 9p root
# under this very script.
exec busybox poweroff -f
