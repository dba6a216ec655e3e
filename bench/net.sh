#!/bin/sh
# Benchmark: what dtracer costs the network path between two guests:
# iperf3 throughput and a request/response rate with dtracer.ko not
# loaded, loaded and idle, and with the traffic's own thread flagged
# (every segment marked), side by side in one run of two guests. Prints
# the table of bench/guest-net.sh; not a pass/fail test.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/bench/out/net
# One vCPU each (see bench/gate.sh); the client drives the rounds.
DT_VM_SMP=${DT_VM_SMP:-1}
DT_VM_TIMEOUT=${DT_VM_TIMEOUT:-1800}
DT_VM_PASS="${DT_VM_PASS:-} DT_BENCH_ROUNDS DT_BENCH_SECONDS DT_BENCH_SETUPS DT_BENCH_ALT_MODULE"
export DT_VM_SMP DT_VM_TIMEOUT DT_VM_PASS
vm_run "$out" "$DT_SRCDIR/bench/guest-net.sh" dt-a dt-b || {
	echo "bench/net.sh: a guest failed; see $out/dt-a and $out/dt-b" >&2
	tail -n 20 "$out/dt-a/script.log" "$out/dt-b/script.log" >&2
	exit 1
}
cat "$out/dt-b/net.txt"
