#!/bin/sh
# The lttng-live re-attach loss, reproduced without dtracer (one guest,
# see guest-reattach.sh; `make repro-reattach`, not part of make check):
# prints how many of the events made while no viewer was attached a new
# viewer shows (docs/limitations.md, "Live"). Its checks are the set-up;
# the loss is the diagnostic it prints and reattach.txt.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/tests/out/reattach
vm_run "$out" "$DT_SRCDIR/tests/collector/guest-reattach.sh" dt-solo
vm_report "$out" dt-solo
cat "$out/dt-solo/reattach.txt" 2> /dev/null
tap_done
