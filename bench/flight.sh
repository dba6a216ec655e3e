#!/bin/sh
# Benchmark: what the always-armed flight recorder (dtracer record
# --slower-than's set-up: snapshot session, gate thread, trigger on
# dtracer_unflag) costs an unflagged workload on a host that serves
# flagged requests meanwhile, against no session and against a stock
# snapshot session, side by side in one guest. Prints the table; not a
# pass/fail test.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/bench/out/flight
DT_VM_SMP=${DT_VM_SMP:-1}
export DT_VM_SMP
vm_run "$out" "$DT_SRCDIR/bench/guest-flight.sh" dt-solo || {
	echo "bench/flight.sh: the guest failed; see $out/dt-solo" >&2
	tail -n 20 "$out/dt-solo/script.log" >&2
	exit 1
}
cat "$out/dt-solo/flight.txt"
