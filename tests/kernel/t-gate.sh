#!/bin/sh
# seconds: 300 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# One guest: dtracer's gate in our lttng-modules fork. Sessions record
# every kernel event and syscall with the tid context: without dtracer.ko
# and with gate "off" they record the same; "global" records everything
# while a thread is flagged and nothing otherwise; "thread" records only
# flagged threads (and interrupts while one is flagged); dtracer's own
# events always pass; rmmod dtracer is refused while a session is active,
# and the module can leave and come back between sessions. See
# guest-gate.sh (the guest: sessions, sysfs, counters) and gate-trace.sh
# (here: the traces it kept, read and checked).
. "$DT_BUILDDIR/tests/vm/config.sh"
# One guest for about 4 minutes alone (6 before its traces were read on
# the host), longer beside other guests (make check-lanes runs it beside
# lane A's): a budget of 20 minutes, not 10.
DT_VM_TIMEOUT=${DT_VM_TIMEOUT:-1200}
export DT_VM_TIMEOUT
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"
. "$DT_SRCDIR/tests/kernel/gate-trace.sh"

out=$DT_BUILDDIR/tests/out/gate
vm_run "$out" "$DT_SRCDIR/tests/kernel/guest-gate.sh" dt-solo
vm_report "$out" dt-solo
gate_trace_checks "$out/dt-solo"
tap_done
