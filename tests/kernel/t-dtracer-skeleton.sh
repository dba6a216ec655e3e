#!/bin/sh
# seconds: 35 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# One guest: dtracer.ko loads, /sys/distributed-tracer/ behaves (probe,
# trace, bad writes refused and changing nothing, root only), the module
# unloads cleanly and reloads. See guest-dtracer-skeleton.sh.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/tests/out/dtracer-skeleton
vm_run "$out" "$DT_SRCDIR/tests/kernel/guest-dtracer-skeleton.sh" dt-solo
vm_report "$out" dt-solo
tap_done
