#!/bin/sh
# The main job, for now: two guests on a private LAN. dt-client loads
# dtracer.ko and our lttng-modules fork, arms dtracer, records a short
# kernel session around a TCP request to dt-server and streams it to
# lttng-relayd on dt-server, the collector, which reads it back with
# babeltrace2. Later issues grow this into the three-host request demo.
set -u
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"

out=$DT_BUILDDIR/demo-out
echo "demo: booting 2 guests (kernel $DT_KERNEL_RELEASE, TCG) ..."
start=$(date +%s)
vm_run "$out" "$DT_SRCDIR/tests/demo/guest-demo.sh" dt-server dt-client
rc=$?
echo "demo: guests done in $(($(date +%s) - start)) s"
for n in dt-server dt-client; do
	sed -n 's/^/  '"$n"': /p' "$out/$n/tap" 2>/dev/null
done
if [ $rc -ne 0 ] || [ ! -s "$out/dt-server/trace.txt" ]; then
	echo "demo: FAILED; see $out/*/script.log and console.log" >&2
	exit 1
fi
echo
echo "demo: dt-client flagged its request; dt-server's list_pid while serving it:"
sed 's/^/  /' "$out/dt-server/list_pid.serving"
for n in dt-client dt-server; do
	printf 'demo: %s stats:' "$n"
	awk '$1 ~ /^(marks_sent|marks_received|propagations|responses)$/ { printf " %s %s", $1, $2 }' "$out/$n/stats"
	echo
done
echo
total=$(wc -l < "$out/dt-server/trace.txt")
echo "demo: the collector received $total events from dt-client (gate thread:"
echo "only the flagged thread's, and interrupts while it was flagged)."
echo "dtracer's own events (the links to dt-server's trace):"
grep -F ' dtracer_' "$out/dt-server/trace.txt" | cut -c 1-250
echo
echo "demo: the request's own events (process dt-tcp, first 25):"
grep -F 'procname = "dt-tcp"' \
	"$out/dt-server/trace.txt" | head -n 25 | cut -c 1-200
echo
echo "demo: whole trace in $out/dt-server/trace.txt, CTF in $out/dt-server/ctf"
