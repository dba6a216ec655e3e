#!/bin/sh
# seconds: 170 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# Two guests, both running dtracer. dtracer.ko is loaded, armed and
# unloaded again and again while a flagged iperf3 stream flows (marking
# on dt-b, detection and propagation on dt-a; HTTP/2 client prefaces on
# dt-a's loopback have each round hook tcp_recvmsg, racing its unload);
# then 100 flagged short-lived clients (each a new thread and a new
# socket) and 100 children of a flagged shell come and go. The kernel log stays clean
# and stats shows both tables back at zero. See guest-churn.sh.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/tests/out/churn
vm_run "$out" "$DT_SRCDIR/tests/kernel/guest-churn.sh" dt-a dt-b
vm_report "$out" dt-a dt-b
tap_done
