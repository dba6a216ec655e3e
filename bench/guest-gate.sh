# Guest side of bench/gate.sh (sourced after tests/vm/guest-lib.sh).
#
# One unflagged, syscall-heavy workload (dd copying 1 byte at a time: a
# read and a write per byte), timed under four set-ups, interleaved and
# repeated; medians, the ratio of each to "no session", and the trace
# size each session wrote.
sys=/sys/distributed-tracer
bytes=${DT_BENCH_BYTES:-100000}
rounds=${DT_BENCH_ROUNDS:-9}

modprobe dtracer || exit 1
LTTNG_EXTRA_KMOD_PROBES=dtracer lttng-sessiond -d || exit 1

# run: nanoseconds the workload takes.
run() {
	_t0=$(date +%s%N)
	dd if=/dev/zero of=/dev/null bs=1 count=$bytes 2> /dev/null
	_t1=$(date +%s%N)
	echo $((_t1 - _t0))
}

# start SETUP: the session (if any) for that set-up, started.
start() {
	case $1 in
	none) return 0 ;;
	stock) echo off > $sys/gate ;;
	thread) echo thread > $sys/gate ;;
	global) echo global > $sys/gate ;;
	esac
	lttng create "$1" --output="/tmp/bench-$1" > /dev/null &&
		lttng enable-event -k -a > /dev/null &&
		lttng start "$1" > /dev/null
}

stop() {
	[ "$1" = none ] && return 0
	lttng stop "$1" > /dev/null
	lttng destroy "$1" > /dev/null
}

setups="none stock thread global"
r=0
while [ $r -lt $rounds ]; do
	for s in $setups; do
		start $s || { echo "cannot start $s"; exit 1; }
		run >> /tmp/times.$s
		stop $s
	done
	r=$((r + 1))
done

median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

base=$(median /tmp/times.none)
{
	printf '%-8s %12s %8s %12s   %s\n' setup median_ms ratio trace_bytes "all runs (ms)"
	for s in $setups; do
		m=$(median /tmp/times.$s)
		size=0
		[ -d /tmp/bench-$s ] && size=$(du -sb /tmp/bench-$s | cut -f1)
		printf '%-8s %12d %8s %12s   %s\n' $s $((m / 1000000)) \
			"$(awk -v a="$m" -v b="$base" 'BEGIN { printf "%.3f", a / b }')" \
			$size "$(awk '{ printf "%d ", $1 / 1000000 }' /tmp/times.$s)"
	done
	echo "workload: dd of $bytes bytes, 1 byte per read/write ($((4 * bytes)) syscall events); $rounds rounds, interleaved"
	echo "setups: none = no session; stock = lttng enable-event -k -a (all tracepoints and syscalls), gate off;"
	echo "        thread = the same session, gate thread, no flagged thread; global = gate global, nothing flagged"
} | tee "$DT_RESULTS/gate.txt"
