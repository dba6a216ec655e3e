# Guest side of bench/gate.sh (sourced after tests/vm/guest-lib.sh).
#
# One unflagged, syscall-heavy workload (dd copying 1 byte at a time: a
# read and a write per byte), timed under four set-ups, interleaved and
# repeated; medians, the ratio of each to "no session" (median and
# quartiles of the per-round ratios), and the trace size each session
# wrote.
#
# Knobs (bench/guest-flight.sh sets them): DT_BENCH_SETUPS, the set-ups
# to compare; DT_BENCH_FLAGGED=1, flagged requests running beside the
# workload the whole time (a flagged client asking a local server every
# 50 ms: propagation, unflags, the trigger's condition checked);
# DT_BENCH_FLAGGED=idle, one flagged thread that sleeps the whole time;
# DT_BENCH_TABLE, the result file's name.
sys=/sys/distributed-tracer
bytes=${DT_BENCH_BYTES:-200000}
rounds=${DT_BENCH_ROUNDS:-15}
setups=${DT_BENCH_SETUPS:-none stock thread idle global}
table=${DT_BENCH_TABLE:-gate.txt}

# run: "WALL_NS CPU_TICKS": the workload's wall time, and the CPU time
# (user + system, in clock ticks) the kernel charged to it, which is
# where the gate's cost lands; other tasks (lttng's consumer daemon
# polling its buffers) do not count in it.
run() {
	_t0=$(date +%s%N)
	_cpu=$(sh -c 'dd if=/dev/zero of=/dev/null bs=1 count='$bytes' 2> /dev/null; times' |
		awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); n += a[1] * 60 + a[2] } print int(n * 100 + 0.5) }')
	_t1=$(date +%s%N)
	echo "$((_t1 - _t0)) $_cpu"
}

# start SETUP: the session (if any) for that set-up, started.
start() {
	case $1 in
	none) return 0 ;;
	stock) echo off > $sys/gate ;;
	thread) echo thread > $sys/gate ;;
	idle)
		# thread's session with one flagged thread that sleeps: the
		# per-event cost of the gate while some thread is flagged.
		echo thread > $sys/gate
		sh -c 'echo $$ > '$sys'/add_pid && exec sleep 100000' &
		idle_sleeper=$!
		;;
	global) echo global > $sys/gate ;;
	snapshot) echo off > $sys/gate ;;
	armed) echo thread > $sys/gate ;;
	esac
	case $1 in
	snapshot | armed)
		# The flight recorder: ring buffers in memory, a snapshot only
		# when a trigger fires (armed: dtracer record --slower-than's
		# set-up, a threshold no request here reaches).
		lttng create "$1" --snapshot --output="/tmp/bench-$1" > /dev/null &&
			lttng enable-event -k -a > /dev/null || return 1
		if [ "$1" = armed ]; then
			lttng add-trigger --name "bench-$1" \
				--condition=event-rule-matches --type=kernel \
				--name=dtracer_unflag --filter='duration_ns >= 10000000000' \
				--action=snapshot-session "$1" > /dev/null || return 1
		fi
		lttng start "$1" > /dev/null
		;;
	*)
		lttng create "$1" --output="/tmp/bench-$1" > /dev/null &&
			lttng enable-event -k -a > /dev/null &&
			lttng start "$1" > /dev/null
		;;
	esac
}

stop() {
	[ "$1" = none ] && return 0
	if [ "$1" = idle ]; then
		kill "$idle_sleeper"
		wait "$idle_sleeper" 2> /dev/null
	fi
	[ "$1" = armed ] && lttng remove-trigger "bench-$1" > /dev/null
	lttng stop "$1" > /dev/null
	lttng destroy "$1" > /dev/null
}

# bench/guest-insn.sh sources this file for start() and stop().
[ "${DT_BENCH_FUNCS:-0}" = 1 ] && return 0

modprobe dtracer || exit 1
echo 1 > $sys/probe || exit 1
LTTNG_EXTRA_KMOD_PROBES=dtracer lttng-sessiond -d || exit 1

if [ "${DT_BENCH_FLAGGED:-0}" = idle ]; then
	# A flagged thread that does nothing: the gate's per-event cost
	# while some thread is flagged, without a request's own events.
	sh -c 'echo $$ > '$sys'/add_pid && exec sleep 100000' &
	flagged_loop=$!
fi
if [ "${DT_BENCH_FLAGGED:-0}" = 1 ]; then
	tcp=$DT_BUILDDIR/tests/tools/dt-tcp
	$tcp serve 7000 0 > /dev/null 2>&1 &
	$tcp request -w 120 127.0.0.1 7000 ping > /dev/null 2>&1 || exit 1
	sh -c 'echo $$ > '$sys'/add_pid || exit 1
		while :; do '$tcp' request 127.0.0.1 7000 ping > /dev/null; sleep 0.05; done' &
	flagged_loop=$!
fi
# Each round runs every set-up once, starting from a different one, and
# its ratios are taken to that round's own "none": drifts of the host
# (TCG runs on whatever the host has left) hit a round's runs alike.
r=0
while [ $r -lt $rounds ]; do
	order=$(echo $setups | awk -v r=$r '{ for (i = 0; i < NF; i++) printf "%s ", $((i + r) % NF + 1) }')
	for s in $order; do
		start $s || { echo "cannot start $s"; exit 1; }
		echo "$r $(run)" >> /tmp/times.$s
		stop $s
	done
	r=$((r + 1))
done

# stats FILE: "median q1 q3" of the numbers in FILE.
stats() {
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		printf "%s %s %s", v[int((NR + 1) / 2)], v[int((NR + 3) / 4)], v[int((3 * NR + 1) / 4)] }'
}

for s in $setups; do
	awk '{ print $2 }' /tmp/times.$s > /tmp/ns.$s
	awk '{ print $3 }' /tmp/times.$s > /tmp/cpu.$s
	awk 'NR == FNR { base[$1] = $2; next } { printf "%.4f\n", $2 / base[$1] }' \
		/tmp/times.none /tmp/times.$s > /tmp/ratio.$s
	awk 'NR == FNR { base[$1] = $3; next } { printf "%.4f\n", $3 / base[$1] }' \
		/tmp/times.none /tmp/times.$s > /tmp/cratio.$s
done
{
	printf '%-7s %8s %6s %13s %8s %6s %13s %11s\n' setup wall_ms ratio q1-q3 cpu_ms ratio q1-q3 trace_bytes
	for s in $setups; do
		set -- $(stats /tmp/ns.$s) $(stats /tmp/ratio.$s) $(stats /tmp/cpu.$s) $(stats /tmp/cratio.$s)
		size=0
		[ -d /tmp/bench-$s ] && size=$(du -sb /tmp/bench-$s | cut -f1)
		[ $s = snapshot ] || [ $s = armed ] && size=in-memory
		printf '%-7s %8d %6.3f %6.3f-%-6.3f %8d %6.3f %6.3f-%-6.3f %11s\n' $s \
			$(($1 / 1000000)) $4 $5 $6 $(($7 * 10)) ${10} ${11} ${12} $size
	done
	echo "workload: dd of $bytes bytes, 1 byte per read/write ($((4 * bytes)) syscall events when traced)"
	echo "$rounds rounds, each running every set-up once (rotating order); ratios: per round, to that round's 'none',"
	echo "median and quartiles; cpu: user + system time charged to the workload (10 ms ticks)"
	echo "setups: none = no session; stock = lttng enable-event -k -a (all tracepoints and syscalls), gate off;"
	case $setups in
	*armed*)
		echo "        snapshot = lttng create --snapshot, enable-event -k -a, gate off (ring buffers in memory);"
		echo "        armed = the same with gate thread and a trigger on dtracer_unflag duration_ns >= 10 s"
		echo "        (dtracer record --slower-than's set-up); beside the workload, a flagged client asks a"
		echo "        local server every 50 ms in every set-up: $(awk '$1 == "propagations" { print $2 }' $sys/stats) propagations, $(awk '$1 == "unflags" { print $2 }' $sys/stats) unflags"
		;;
	*)
		echo "        thread = the same session, gate thread, no flagged thread; global = gate global, nothing flagged;"
		echo "        idle = thread's session with one flagged thread asleep (the gate's cost while a thread is flagged)"
		;;
	esac
} | tee "$DT_RESULTS/$table"
[ -z "${flagged_loop:-}" ] || kill "$flagged_loop"
