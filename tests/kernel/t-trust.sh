#!/bin/sh
# seconds: 100 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# Two guests, both running dtracer: whose marks are honoured. dt-a's
# flagged client sends marked requests to dt-b while dt-b trusts
# loopback only (the default), the IPv4 LAN only, or one IPv6 prefix and
# a foreign IPv4 host: dt-b flags its server thread (and marks its
# answer, seen on dt-a's wire) only for trusted sources, and counts the
# others. Then dt-b's propagation rate limit: 60 requests with
# max_propagations 5, and 20 with no limit; forged marks in and out of
# the window; a kernel thread (nfsd) reading a marked request flags
# nobody; and a kept-alive connection's socket entries go after
# socket_idle_ms while it stays open. See guest-trust.sh.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/tests/out/trust
vm_run "$out" "$DT_SRCDIR/tests/kernel/guest-trust.sh" dt-a dt-b
vm_report "$out" dt-a dt-b
tap_done
