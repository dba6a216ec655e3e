#!/bin/sh
# Benchmark: instruction counts instead of times. The network and gate
# workloads of bench/net.sh and bench/gate.sh, as fixed amounts of work,
# in two guests that run QEMU's dt-insn plugin (bench/insn/dt-insn.c):
# the figures do not move with the host's load. Prints the table of
# bench/guest-insn.sh; not a pass/fail test.
#
# DT_BENCH_PROFILE=1: kernel profiles too (see bench/guest-insn.sh);
# then bench/insn/profile.sh OUT/GUEST/kallsyms OUT/GUEST/profile.N...
# adds them up by kernel function.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/bench/out/insn
DT_VM_PLUGIN=$DT_BUILDDIR/bench/insn/dt-insn.so
[ -f "$DT_VM_PLUGIN" ] || {
	echo "bench/insn.sh: no $DT_VM_PLUGIN: run make bench" >&2
	exit 1
}
# One vCPU each: the plugin counts one CPU's work.
DT_VM_SMP=1
DT_VM_TIMEOUT=${DT_VM_TIMEOUT:-3600}
DT_VM_PASS="${DT_VM_PASS:-} DT_BENCH_ROUNDS DT_BENCH_RR DT_BENCH_MIB DT_BENCH_BYTES DT_BENCH_NET_SETUPS DT_BENCH_GATE_SETUPS DT_BENCH_PROFILE DT_BENCH_ALT_MODULE"
DT_VM_PROFILE=
[ "${DT_BENCH_PROFILE:-0}" = 1 ] && DT_VM_PROFILE=1
export DT_VM_SMP DT_VM_TIMEOUT DT_VM_PASS DT_VM_PLUGIN DT_VM_PROFILE
vm_run "$out" "$DT_SRCDIR/bench/guest-insn.sh" dt-a dt-b || {
	echo "bench/insn.sh: a guest failed; see $out/dt-a and $out/dt-b" >&2
	tail -n 20 "$out/dt-a/script.log" "$out/dt-b/script.log" >&2
	exit 1
}
cat "$out/dt-b/insn.txt"
