#!/bin/sh
# Flight recorder (issue 10, first part): three hosts record with
# `dtracer record --slower-than 1s`: a snapshot session (the trace kept
# in memory, ring buffers overwritten) and an LTTng trigger on
# dtracer_unflag's duration_ns that sends a snapshot to the collector.
# The client makes 14 requests through dt-b's socat to dt-c's server,
# which answers the 7th and the 14th after 2 s. On the collector: dt-b
# and dt-c sent exactly one snapshot per slow request, each holding that
# request's slow unflag; the fast requests sent nothing; nothing but
# snapshots reached the collector. The client (a manual flag, which has
# no unflag per request) sent one snapshot, when its flag was removed at
# the end (> 1 s): per-request ends on the client are still to come.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/tests/out/flight
vm_run "$out" "$DT_SRCDIR/tests/collector/guest-flight.sh" dt-a dt-b dt-c dt-d
vm_report "$out" dt-a dt-b dt-c dt-d

traces=$out/dt-d/traces
slow=2
# snapshots HOST: the snapshot directories HOST sent.
snapshots() {
	find "$traces/$1" -type d -name 'snapshot-*' 2> /dev/null | sort
}
for h in dt-b dt-c; do
	n=$(snapshots $h | wc -l)
	tap_result $([ "$n" -eq $slow ]; echo $?) \
		"$h sent one snapshot per slow request ($n of $slow)"
	bad=0
	k=0
	for s in $(snapshots $h); do
		k=$((k + 1))
		babeltrace2 "$s" > "$out/$h-snapshot-$k.txt" 2> /dev/null
		long=$(awk '/dtracer_unflag:/ && match($0, /duration_ns = [0-9]+/) {
			if (substr($0, RSTART + 14, RLENGTH - 14) + 0 >= 1000000000) n++ }
			END { print n + 0 }' "$out/$h-snapshot-$k.txt")
		[ "$long" -ge 1 ] || bad=$((bad + 1))
		tap_diag "$h $(basename "$s"): $(grep -c . "$out/$h-snapshot-$k.txt") events, $long unflag(s) of 1 s or more"
	done
	tap_result $([ "$n" -gt 0 ] && [ "$bad" -eq 0 ]; echo $?) \
		"$h: each snapshot holds the slow request's unflag (duration_ns >= 1 s)"
	other=$(find "$traces/$h" -name metadata 2> /dev/null | grep -vc '/snapshot-')
	tap_result $([ "$other" -eq 0 ]; echo $?) \
		"$h: nothing but snapshots reached the collector ($other other traces)"
done
n=$(snapshots dt-a | wc -l)
tap_result $([ "$n" -eq 1 ]; echo $?) \
	"dt-a (the client, one manual flag for the whole run) sent one snapshot, at its unflag ($n)"

# --slower-than's values, on this host (no dtracer.ko here: a value that
# parses gets as far as that check).
dtracer=$DT_BUILDDIR/collector/dtracer
for bad in 0ms 5 -1s 1.5 10m ms 1e30s; do
	"$dtracer" record --collector dt-d --slower-than "$bad" > /dev/null 2> "$out/bad.err"
	st=$?
	tap_result $([ "$st" = 2 ] && grep -q "is not a duration" "$out/bad.err"; echo $?) \
		"record --slower-than $bad: refused, named (exit $st)"
done
for good in 50ms 1.5s 800us 20000ns; do
	"$dtracer" record --collector dt-d --slower-than "$good" > /dev/null 2> "$out/good.err"
	st=$?
	tap_result $([ "$st" = 1 ] && grep -q "dtracer.ko is not loaded" "$out/good.err"; echo $?) \
		"record --slower-than $good: accepted (then: no dtracer.ko here)"
done
tap_done
