#!/bin/sh
# seconds: 45 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# Two guests: dt-b runs dtracer, dt-a only watches its wire. A flagged
# thread's segments carry the mark and an unflagged thread's do not, at
# the same time and even on the same socket; 1 MiB writes (TSO, software
# GSO), retransmissions under loss, software checksums, IPv6, and probe 0
# (nothing marked). See guest-mark.sh.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/tests/out/mark
vm_run "$out" "$DT_SRCDIR/tests/kernel/guest-mark.sh" dt-a dt-b
vm_report "$out" dt-a dt-b
tap_done
