#!/bin/sh
# Benchmark: what dtracer's gate costs an unflagged workload, against no
# session and against stock full tracing, side by side in one guest.
# Prints the table of bench/guest-gate.sh; not a pass/fail test.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/bench/out/gate
# One vCPU: with single-threaded TCG two vCPUs share one host thread, and
# the workload would pay for whatever the other one runs.
DT_VM_SMP=${DT_VM_SMP:-1}
export DT_VM_SMP
vm_run "$out" "$DT_SRCDIR/bench/guest-gate.sh" dt-solo || {
	echo "bench/gate.sh: the guest failed; see $out/dt-solo" >&2
	tail -n 20 "$out/dt-solo/script.log" >&2
	exit 1
}
cat "$out/dt-solo/gate.txt"
