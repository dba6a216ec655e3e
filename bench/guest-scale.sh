# Guest side of bench/scale.sh (sourced after tests/vm/guest-lib.sh).
#
# The per-packet path as dtracer's tables grow: N flagged threads and N
# followed connections (2 N sockets: both ends are on this host), for N
# in 1, 100, 10000, while one flagged connection's request/response rate
# is measured (dt-tcp rr against a local echo server: each request is
# marked, flags the server's thread, whose answer unflags it).
#
# dt-crowd holds the crowd: 10000 sleeping threads and 10000 loopback
# connections, both ends open. For each scale, in rotating order each
# round: the probe is disarmed and armed again (the socket table empties),
# the previous scale's threads are unflagged, the first N threads flagged
# (the crowd's main thread among them), and the main thread writes one
# byte on each of the first N connections: dtracer follows both ends.
. "$DT_SRCDIR/bench/stats.sh"
sys=/sys/distributed-tracer
tcp=$DT_BUILDDIR/tests/tools/dt-tcp
crowd=$DT_BUILDDIR/tests/tools/dt-crowd
rounds=${DT_BENCH_ROUNDS:-7}
secs=${DT_BENCH_SECONDS:-3}
scales=${DT_BENCH_SCALES:-1 100 10000}
max=$(echo $scales | tr ' ' '\n' | sort -n | tail -n 1)

sysctl -qw kernel.threads-max=$((4 * max + 10000)) || exit 1
ulimit -n $((2 * max + 1000)) || exit 1
modprobe dtracer || exit 1
echo $((2 * max + 1000)) > $sys/max_threads || exit 1
echo $((4 * max + 1000)) > $sys/max_sockets || exit 1
echo 1 > $sys/probe || exit 1

$tcp serve 7000 0 > /tmp/serve.log 2>&1 &
check "the echo server answers" $tcp request -w 120 127.0.0.1 7000 ping

mkfifo /tmp/crowd.in
t0=$(date +%s)
$crowd $max $max < /tmp/crowd.in > /tmp/crowd.out 2> /tmp/crowd.err &
exec 3> /tmp/crowd.in
wait_for 900 grep -q '^ready' /tmp/crowd.out
check "dt-crowd starts $max threads and $max connections ($(($(date +%s) - t0)) s)" \
	grep -q "^ready $max $max" /tmp/crowd.out

# crowd COMMAND: one command to dt-crowd; true if it answered "ok".
crowd() {
	_n=$(wc -l < /tmp/crowd.out)
	echo "$*" >&3
	wait_for 300 sh -c "[ \$(wc -l < /tmp/crowd.out) -gt $_n ]" || return 1
	tail -n 1 /tmp/crowd.out | grep -q '^ok'
}

prev=0
r=0
while [ $r -lt $rounds ]; do
	for n in $(bench_order $r $scales); do
		t0=$(date +%s%N)
		{ echo 0 > $sys/probe && echo 1 > $sys/probe; } ||
			{ not_ok "probe re-armed"; break 2; }
		[ $prev -eq 0 ] || crowd ids $prev $sys/remove_pid ||
			{ not_ok "unflag $prev threads: $(tail -n 1 /tmp/crowd.out)"; break 2; }
		crowd ids $n $sys/add_pid ||
			{ not_ok "flag $n threads: $(tail -n 1 /tmp/crowd.out)"; break 2; }
		prev=$n
		crowd mark $n || { not_ok "mark $n connections: $(tail -n 1 /tmp/crowd.out)"; break 2; }
		t1=$(date +%s%N)
		# The same pause at every scale after the re-arm (kprobes patched
		# in, RCU): at scale 10000 the set-up itself takes seconds.
		sleep 2
		th=$(stat_of threads)
		so=$(stat_of sockets)
		m0=$(stat_of marks_sent)
		q=$(flagged $tcp rr 127.0.0.1 7000 $secs | cut -d' ' -f1)
		[ -n "$q" ] || { not_ok "dt-tcp rr at scale $n"; break 2; }
		m1=$(stat_of marks_sent)
		echo "$r $q $th $so $((m1 - m0)) $(((t1 - t0) / 1000000))" >> /tmp/scale.$n
	done
	r=$((r + 1))
done
exec 3>&-
base=$(echo $scales | cut -d' ' -f1)
for n in $scales; do
	[ -f /tmp/scale.$n ] && [ "$(wc -l < /tmp/scale.$n)" -eq $rounds ] ||
		not_ok "$rounds rounds at scale $n"
done
for s in drops_threads drops_sockets drops_nomem; do
	[ "$(stat_of $s)" = 0 ] && ok "no $s" || not_ok "no $s ($(stat_of $s))"
done
{
	printf '%-6s %8s %8s %9s %13s %8s %12s\n' scale threads sockets rr/s ratio q1-q3 marks/run
	for n in $scales; do
		[ -f /tmp/scale.$n ] || continue
		set -- $(bench_col /tmp/scale.$n 3 | bench_stats) \
			$(bench_col /tmp/scale.$n 4 | bench_stats) \
			$(bench_col /tmp/scale.$n 2 | bench_stats) \
			$(bench_ratios /tmp/scale.$base /tmp/scale.$n 2 | bench_stats) \
			$(bench_col /tmp/scale.$n 5 | bench_stats)
		printf '%-6s %8s %8s %9.0f %6.3f %6.3f-%-6.3f %8s\n' $n $1 $4 $7 ${10} ${11} ${12} ${13}
	done
	echo "one guest ($(nproc) vCPU, TCG, $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) MiB); scale N: N threads flagged (sleeping, dt-crowd's)"
	echo "and N loopback connections written to by a flagged thread (2 N followed sockets); threads and"
	echo "sockets: /sys/distributed-tracer/stats before the measurement (the rr client adds 1 thread, 2 sockets)"
	echo "measured: dt-tcp rr, flagged, against a local echo server for $secs s (1-byte requests, one connection;"
	echo "every request marked, propagated and answered); marks/run: marks_sent during it"
	echo "$rounds rounds, each running every scale once (rotating order); ratios: per round, to that round's"
	echo "scale $base, median and quartiles. Target: flat (ratio about 1 at every scale)"
} | tee "$DT_RESULTS/scale.txt"
# The rounds: "ROUND RR/S THREADS SOCKETS MARKS SETUP_MS" per scale.
cp /tmp/scale.* "$DT_RESULTS/"
dt_finish
