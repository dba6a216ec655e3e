# Guest side of bench/volume.sh (sourced after tests/vm/guest-lib.sh).
#
# One traced request (a flagged client asks a local server that answers
# after 200 ms) in the middle of a recording window, while unflagged
# background load runs the whole time (dd copying 1 byte at a time, and
# an unflagged client asking another local server again and again). The
# same window is recorded with LTTng (every kernel tracepoint and system
# call, tid and procname contexts) under gate "thread" (dtracer) and gate
# "off" (stock LTTng), in rotating order, several rounds. The traces are
# copied to the results folder; the host (bench/volume.sh) measures them.
. "$DT_SRCDIR/bench/stats.sh"
sys=/sys/distributed-tracer
tcp=$DT_BUILDDIR/tests/tools/dt-tcp
rounds=${DT_BENCH_ROUNDS:-5}
before=${DT_BENCH_BEFORE:-1}	# seconds recorded before the request
after=${DT_BENCH_AFTER:-1}	# ... and after its answer
setups="thread off"

modprobe dtracer || exit 1
echo 1 > $sys/probe || exit 1
LTTNG_EXTRA_KMOD_PROBES=dtracer lttng-sessiond -d || exit 1

$tcp serve -d 200 7000 0 > /tmp/serve-traced.log 2>&1 &
$tcp serve 7001 0 > /tmp/serve-bg.log 2>&1 &
check "the traced request's server answers" $tcp request -w 120 127.0.0.1 7000 ping
check "the background server answers" $tcp request -w 120 127.0.0.1 7001 ping
# Background load, unflagged, the whole run.
sh -c "while :; do dd if=/dev/zero of=/dev/null bs=1 count=100000 2> /dev/null; done" &
bg_dd=$!
sh -c "while :; do $tcp request 127.0.0.1 7001 bg 100000 > /dev/null; done" &
bg_rr=$!

mkdir -p "$DT_RESULTS/traces"
r=0
while [ $r -lt $rounds ]; do
	for s in $(bench_order $r $setups); do
		name=$s-$r
		echo $s > $sys/gate &&
			lttng create "$name" --output="/tmp/$name" > /dev/null &&
			lttng enable-event -k -a > /dev/null &&
			lttng add-context -k -t tid -t procname > /dev/null &&
			lttng start "$name" > /dev/null || { not_ok "session $name"; break 2; }
		t0=$(date +%s%N)
		sleep $before
		p0=$(stat_of propagations)
		flagged $tcp request 127.0.0.1 7000 traced > /dev/null ||
			not_ok "the traced request of $name answered"
		p1=$(stat_of propagations)
		sleep $after
		lttng stop "$name" > /dev/null
		t1=$(date +%s%N)
		lttng destroy "$name" > /dev/null
		echo "$r $s $(((t1 - t0) / 1000000)) $((p1 - p0))" >> "$DT_RESULTS/windows"
		# Outside the window: the trace to the results folder.
		cp -r "/tmp/$name" "$DT_RESULTS/traces/$name" && rm -rf "/tmp/$name"
	done
	r=$((r + 1))
done
kill $bg_dd $bg_rr
echo "$(uname -r) $(nproc) vCPU" > "$DT_RESULTS/machine"
n=$(grep -c . "$DT_RESULTS/windows")
[ "$n" -eq $((2 * rounds)) ] && ok "$rounds rounds of both set-ups" ||
	not_ok "$rounds rounds of both set-ups ($n windows)"
n=$(awk '$4 < 1' "$DT_RESULTS/windows" | wc -l)
[ "$n" -eq 0 ] && ok "every traced request propagated to its server" ||
	not_ok "every traced request propagated to its server ($n did not)"
dt_finish
