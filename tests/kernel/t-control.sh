#!/bin/sh
# seconds: 130 (expected on 2 cores under make check-lanes; scripts/times.sh flags twice that)
# One guest: the thread-flag interface of /sys/distributed-tracer/
# (add_pid, remove_pid, list_pid, inherit, max_threads, max_sockets,
# stats): every malformed write refused with its errno and nothing
# changed, flags dropped at exit, inherited at fork, root only. Then on
# loopback: remove_pid of a stream's subscriber ends the stream's
# request on the server at its next push (a stop), later pushes
# unmarked; a UDP exchange inside a request leaves its context as it
# is. See guest-control.sh.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/tests/out/control
vm_run "$out" "$DT_SRCDIR/tests/kernel/guest-control.sh" dt-solo
vm_report "$out" dt-solo
tap_done
