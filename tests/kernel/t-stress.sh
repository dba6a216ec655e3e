#!/bin/sh
# seconds: 120 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# Two guests, both running dtracer, under load at the tables' scale:
# thousands of flagged threads that exit while flagged, the thread and
# socket tables at their limits (drops counted), thousands of short
# marked connections, a tenth of them reset mid-request, and the probe
# toggled and the module unloaded and reloaded on both hosts while
# connections flow. Every answer stays right, the kernel log clean, and
# the tables and the module's memory (stats mem_threads, mem_sockets)
# come back to zero. See guest-stress.sh.
#
# DT_STRESS_THREADS (default 2000) and DT_STRESS_CONNS (default 2000)
# set the scale; `make stress` runs the issue's 10,000 and 100,000.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

DT_STRESS_THREADS=${DT_STRESS_THREADS:-2000}
DT_STRESS_CONNS=${DT_STRESS_CONNS:-2000}
export DT_STRESS_THREADS DT_STRESS_CONNS
DT_VM_PASS="${DT_VM_PASS:-} DT_STRESS_THREADS DT_STRESS_CONNS"
export DT_VM_PASS
# Long enough for 100,000 connections under TCG.
DT_VM_TIMEOUT=${DT_VM_TIMEOUT:-3000}
export DT_VM_TIMEOUT

out=$DT_BUILDDIR/tests/out/stress
vm_run "$out" "$DT_SRCDIR/tests/kernel/guest-stress.sh" dt-a dt-b
vm_report "$out" dt-a dt-b
tap_done
