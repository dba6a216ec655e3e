#!/bin/sh
# Benchmark: what dtracer costs a web server that does almost nothing
# per request (DeepFlow's worst case: nginx serving a tiny static file to
# many connections), in instruction counts (QEMU's dt-insn plugin, as
# bench/insn.sh): none, stock LTTng, dtracer idle, and dtracer with a
# flagged client among ab -k -c 32's load, side by side in one run; the
# same for a Go tier under dtracer go and a Python thread pool under
# dtracer python (their uprobes' cost). Prints
# the table of bench/guest-nginx.sh; not a pass/fail test.
#
# DT_BENCH_ROUNDS (5), DT_BENCH_REQUESTS (ab's requests a run, 10000),
# DT_BENCH_NGINX_SETUPS (none stock idle flagged), DT_BENCH_WORKLOADS
# (nginx go python). DT_BENCH_PROFILE=1: dt-a's kernel profiles too, per
# interval between marks (profile.N; dt-a's kallsyms saved at the end;
# marks.W.SETUP: "ROUND MARK", the mark that ends each run), for
# bench/insn/profile.sh.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/bench/out/nginx
DT_VM_PLUGIN=$DT_BUILDDIR/bench/insn/dt-insn.so
[ -f "$DT_VM_PLUGIN" ] || {
	echo "bench/nginx.sh: no $DT_VM_PLUGIN: run make bench" >&2
	exit 1
}
# One vCPU each: the plugin counts one CPU's work.
DT_VM_SMP=1
DT_VM_TIMEOUT=${DT_VM_TIMEOUT:-3600}
DT_VM_PASS="${DT_VM_PASS:-} DT_BENCH_ROUNDS DT_BENCH_REQUESTS DT_BENCH_NGINX_SETUPS DT_BENCH_WORKLOADS DT_BENCH_PROFILE"
DT_VM_PROFILE=
[ "${DT_BENCH_PROFILE:-0}" = 1 ] && DT_VM_PROFILE=1
export DT_VM_SMP DT_VM_TIMEOUT DT_VM_PASS DT_VM_PLUGIN DT_VM_PROFILE
vm_run "$out" "$DT_SRCDIR/bench/guest-nginx.sh" dt-a dt-b || {
	echo "bench/nginx.sh: a guest failed; see $out/dt-a and $out/dt-b" >&2
	tail -n 20 "$out/dt-a/script.log" "$out/dt-b/script.log" >&2
	exit 1
}
cat "$out/dt-b/nginx.txt"
