#!/bin/sh
# Benchmark: trace volume. The same recording window (one traced request
# amid unflagged background load) recorded with gate "thread" and with
# stock full tracing (gate "off"), several rounds in one guest; here, the
# bytes each session wrote (du -b), without the metadata file, and the
# events babeltrace2 reads, with the ratio stock/thread per round. Not a
# pass/fail test.
. "$DT_BUILDDIR/tests/vm/config.sh"
. "$DT_SRCDIR/tests/vm/tap.sh"
. "$DT_SRCDIR/tests/vm/vm.sh"
. "$DT_SRCDIR/bench/stats.sh"

out=$DT_BUILDDIR/bench/out/volume
DT_VM_SMP=${DT_VM_SMP:-1}
DT_VM_TIMEOUT=${DT_VM_TIMEOUT:-1200}
DT_VM_PASS="${DT_VM_PASS:-} DT_BENCH_ROUNDS DT_BENCH_BEFORE DT_BENCH_AFTER"
export DT_VM_SMP DT_VM_TIMEOUT DT_VM_PASS
vm_run "$out" "$DT_SRCDIR/bench/guest-volume.sh" dt-solo || {
	echo "bench/volume.sh: the guest failed; see $out/dt-solo" >&2
	tail -n 20 "$out/dt-solo/script.log" >&2
	exit 1
}

res=$out/dt-solo
tmp=$out/tmp
rm -rf "$tmp"
mkdir -p "$tmp"
# Per trace: "ROUND BYTES DATA_BYTES EVENTS DTRACER_EVENTS WINDOW_MS
# REQUEST_EVENTS": the last, events in the context of the threads flagged
# (the client, the server's thread: dtracer_flag names them), in
# both traces: the request itself.
while read -r r s ms _; do
	d=$res/traces/$s-$r
	bytes=$(du -sb "$d" | cut -f1)
	meta=$(find "$d" -name metadata -exec cat {} + | wc -c)
	babeltrace2 "$d" > "$tmp/text" 2> "$tmp/bt.err" || {
		echo "bench/volume.sh: babeltrace2 cannot read $d" >&2
		head -n 5 "$tmp/bt.err" >&2
		exit 1
	}
	events=$(wc -l < "$tmp/text")
	dtev=$(grep -c ' dtracer_' "$tmp/text")
	tids=$(grep -o ' dtracer_flag: { cpu_id = [0-9]* }, { tid = [0-9]*' "$tmp/text" |
		awk '{ printf "%s%s", sep, $NF; sep = "|" }')
	own=$(grep -cE "\{ tid = (${tids:-none}), procname" "$tmp/text")
	echo "$r $bytes $((bytes - meta)) $events $dtev $ms $own" >> "$tmp/vol.$s"
	if [ "$s" = thread ] && [ "$r" = 0 ]; then
		# Who the gated trace holds: its events by procname.
		grep -o 'procname = "[^"]*"' "$tmp/text" | sort | uniq -c |
			sort -rn | head -n 8 > "$tmp/procnames"
	fi
done < "$res/windows"
rm -f "$tmp/text"

{
	printf '%-7s %12s %25s %12s %10s %10s %10s %9s\n' setup bytes q1-q3 data_bytes events request dt_events window_ms
	for s in thread off; do
		set -- $(bench_col "$tmp/vol.$s" 2 | bench_stats) \
			$(bench_col "$tmp/vol.$s" 3 | bench_stats) \
			$(bench_col "$tmp/vol.$s" 4 | bench_stats) \
			$(bench_col "$tmp/vol.$s" 5 | bench_stats) \
			$(bench_col "$tmp/vol.$s" 6 | bench_stats) \
			$(bench_col "$tmp/vol.$s" 7 | bench_stats)
		printf '%-7s %12s %12s-%-12s %12s %10s %10s %10s %9s\n' $s $1 $2 $3 $4 $7 ${16} ${10} ${13}
	done
	printf '%-22s %8s %15s\n' "ratio off/thread" median q1-q3
	for c in 2:bytes 3:data_bytes 4:events; do
		set -- $(bench_ratios "$tmp/vol.thread" "$tmp/vol.off" ${c%%:*} | bench_stats)
		printf '%-22s %8.1f %7.1f-%-7.1f\n' "  ${c#*:}" $1 $2 $3
	done
	n=$(grep -c . "$res/windows")
	echo "one guest ($(cat "$res/machine"), TCG); $((n / 2)) rounds, each recording one window per set-up (rotating"
	echo "order): ${DT_BENCH_BEFORE:-1} s, one flagged dt-tcp request to a local server answering after 200 ms,"
	echo "${DT_BENCH_AFTER:-1} s; meanwhile, unflagged: dd bs=1 in a loop and a dt-tcp request loop to another server"
	echo "session: lttng enable-event -k -a (all tracepoints and syscalls), add-context tid procname;"
	echo "setups: thread = gate thread (dtracer), off = gate off (stock LTTng)"
	echo "bytes: du -b of the session's output; data_bytes: without the metadata file; events: lines of"
	echo "babeltrace2; request: events in the context of the flagged threads (client, server); dt_events:"
	echo "dtracer's own events; medians and quartiles over the rounds;"
	echo "ratios per round. Target: the thread trace at least 50 times smaller."
	echo "the first thread trace's events by procname:"
	sed 's/^/  /' "$tmp/procnames"
} | tee "$out/volume.txt"
# The traces themselves are large (stock ones): kept only on request.
[ "${DT_BENCH_KEEP:-0}" = 1 ] || rm -rf "$res/traces"
