#!/bin/sh
# Benchmark: the per-packet path as dtracer's tables grow (1, 100 and
# 10000 flagged threads and followed connections): the request/response
# rate of one flagged connection at each scale, side by side in one guest,
# as a ratio to scale 1. Prints the table of bench/guest-scale.sh; not a
# pass/fail test.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/bench/out/scale
# One vCPU (see bench/gate.sh); 10000 threads and 20000 sockets need the
# memory.
DT_VM_SMP=${DT_VM_SMP:-1}
DT_VM_MEM=${DT_VM_MEM:-2048}
DT_VM_TIMEOUT=${DT_VM_TIMEOUT:-1200}
DT_VM_PASS="${DT_VM_PASS:-} DT_BENCH_ROUNDS DT_BENCH_SECONDS DT_BENCH_SCALES"
export DT_VM_SMP DT_VM_MEM DT_VM_TIMEOUT DT_VM_PASS
vm_run "$out" "$DT_SRCDIR/bench/guest-scale.sh" dt-solo || {
	echo "bench/scale.sh: the guest failed; see $out/dt-solo" >&2
	tail -n 20 "$out/dt-solo/script.log" >&2
	exit 1
}
cat "$out/dt-solo/scale.txt"
