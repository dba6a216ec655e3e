#!/bin/sh
# seconds: 35 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# Two guests on the test LAN: separate machines (own hostname, own
# kernel boot), TCP between them, and a kernel session streamed from
# dt-b to lttng-relayd on dt-a (the collector), where babeltrace2 reads
# it under dt-b's name. See guest-lan.sh.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/tests/out/lan
vm_run "$out" "$DT_SRCDIR/tests/kernel/guest-lan.sh" dt-a dt-b
vm_report "$out" dt-a dt-b

for n in dt-a dt-b; do
	[ "$(cat "$out/$n/hostname" 2>/dev/null)" = "$n" ]
	tap_result $? "guest $n calls itself $n"
	[ "$(cat "$out/$n/release" 2>/dev/null)" = "$DT_KERNEL_RELEASE" ]
	tap_result $? "guest $n runs kernel $DT_KERNEL_RELEASE"
done
a=$(cat "$out/dt-a/boot_id" 2>/dev/null)
b=$(cat "$out/dt-b/boot_id" 2>/dev/null)
[ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ]
tap_result $? "the two guests are two kernel boots (boot ids differ)"
tap_done
