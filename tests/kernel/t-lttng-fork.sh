#!/bin/sh
# seconds: 45 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# One guest: the fork's modules load through lttng-sessiond and record a
# kernel session (timer_hrtimer_start with was_armed, sched_switch,
# syscalls) that babeltrace2 reads back. See guest-lttng-fork.sh.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/tests/out/lttng-fork
vm_run "$out" "$DT_SRCDIR/tests/kernel/guest-lttng-fork.sh" dt-solo
vm_report "$out" dt-solo
tap_done
