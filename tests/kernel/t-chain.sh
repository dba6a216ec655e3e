#!/bin/sh
# seconds: 80 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# Three guests, each running dtracer: a flagged client (bash) on dt-a,
# socat as the middle on dt-b, a dt-tcp server on dt-c that takes 3 s to
# answer. The mark follows the request hop by hop: the middle's and the
# server's threads are flagged while they serve and unflagged once they
# answer; the client stays flagged; an unflagged request through the
# same chain flags nobody. A request that dt-c's server reads but never
# answers: the server thread is unflagged when its socket is destroyed.
# See guest-chain.sh. DT_TEST_OUT: the results folder (tests/vm/
# t-release.sh's mixed chain), default DT_BUILDDIR/tests/out/chain.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=${DT_TEST_OUT:-$DT_BUILDDIR/tests/out/chain}
vm_run "$out" "$DT_SRCDIR/tests/kernel/guest-chain.sh" dt-a dt-b dt-c
vm_report "$out" dt-a dt-b dt-c
tap_done
