# Guest side of t-stress.sh (sourced after tests/vm/guest-lib.sh).
#
#   dt-a (clients)                          dt-b (servers)
#   1. T flagged threads (inherited), all
#      exit while flagged; then T with
#      max_threads T/2: T/2 refused;
#      500 loopback connections marked
#      with max_sockets 100: the rest
#      refused
#   2. C short flagged connections, one  -> echo server 7500; propagations
#      in ten reset mid-request
#   3. flagged connections in batches    -> echo server 7501; probe toggled
#      of 20 until both are done; probe     20 times, rmmod/modprobe 5 times
#      toggled 10 times, rmmod/modprobe
#      3 times (the client flagged again
#      after each load)
#   Both: tables and mem_* back at zero, final rmmod; the harness checks
#   the kernel log.
T=$DT_STRESS_THREADS
C=$DT_STRESS_CONNS
tcp=$DT_BUILDDIR/tests/tools/dt-tcp
crowd=$DT_BUILDDIR/tests/tools/dt-crowd
sys=/sys/distributed-tracer

at_rest() {
	for _k in threads sockets mem_threads mem_sockets; do
		[ "$(stat_of $_k)" = 0 ] || { echo "$_k is $(stat_of $_k)"; return 1; }
	done
}

loaded() {
	modprobe dtracer && echo 1 > $sys/probe && echo 0 > $sys/max_propagations &&
		echo 0 > /sys/module/dtracer/parameters/max_propagations_per_peer
}

# chaos TOGGLES RELOADS [PID]: while traffic flows, disarm and arm the
# probe TOGGLES times, then unload and reload RELOADS times (flagging PID
# again after each load); before each unload, "marks_sent propagations"
# of that load go to /tmp/rounds.
chaos() {
	_bad=0 _i=0
	: > /tmp/rounds
	while [ $_i -lt "$1" ]; do
		_i=$((_i + 1))
		echo 0 > $sys/probe && sleep 0.2 && echo 1 > $sys/probe || _bad=$((_bad + 1))
		sleep 0.3
	done
	_i=0
	while [ $_i -lt "$2" ]; do
		_i=$((_i + 1))
		# This load's first marks: within a second here, several on a
		# debug kernel (a batch of 20 connections takes 2 s there).
		_w=0
		sleep 1
		while [ "$(stat_of marks_sent)" = 0 ] && [ "$(stat_of propagations)" = 0 ] &&
			[ $_w -lt 30 ]; do
			sleep 1
			_w=$((_w + 1))
		done
		echo "$(stat_of marks_sent) $(stat_of propagations)" >> /tmp/rounds
		rmmod dtracer && sleep 0.2 && loaded || _bad=$((_bad + 1))
		[ -z "${3:-}" ] || echo "$3" > $sys/add_pid || _bad=$((_bad + 1))
	done
	[ $_bad -eq 0 ] || { echo "$_bad steps failed"; return 1; }
}

# traffic PORT: batches of 20 short connections to dt-b until /tmp/stop
# exists; true if every batch got every answer right.
traffic() {
	_bad=0 _n=0
	while [ ! -e /tmp/stop ]; do
		$tcp conns dt-b "$1" 20 > /tmp/batch.out 2>&1 ||
			{ _bad=$((_bad + 1)); cat /tmp/batch.out >> /tmp/batch.err; }
		_n=$((_n + 1))
	done
	echo "$_n batches, $_bad failed" > /tmp/traffic.out
	[ $_bad -eq 0 ]
}

slab() {
	awk '$1 == "Slab:" { print $2 " kB" }' /proc/meminfo
}

diag "scale: $T threads, $C connections; slab before loading: $(slab)"
check "modprobe dtracer, probe armed, no propagation limit" loaded
check "at rest after loading: tables and memory at zero" at_rest

case $DT_HOST in
dt-a)
	sysctl -qw net.ipv4.ip_local_port_range="1024 65535" net.ipv4.tcp_tw_reuse=1
	sysctl -qw kernel.threads-max=$((4 * T + 10000))
	ulimit -n 4096

	# 1. Many flagged threads, exiting while flagged.
	echo $((T + 100)) > $sys/max_threads
	u0=$(stat_of unflags)
	mkfifo /tmp/crowd.in
	t0=$(date +%s)
	flagged $crowd $T 0 < /tmp/crowd.in > /tmp/crowd.out 2> /tmp/crowd.err &
	exec 3> /tmp/crowd.in
	check "a flagged process starts $T threads" wait_for $(slow 600) grep -q "^ready $T 0" /tmp/crowd.out
	n=$(stat_of threads)
	[ "$n" -eq "$T" ] && ok "all $T threads flagged ($(($(date +%s) - t0)) s)" ||
		not_ok "$n threads flagged, expected $T"
	diag "mem_threads $(stat_of mem_threads), slab $(slab)"
	exec 3>&-
	check "... all exit while flagged: table and memory at zero" wait_for $(slow 300) at_rest
	check "... $T unflags counted" test $(($(stat_of unflags) - u0)) -ge "$T"

	echo $((T / 2)) > $sys/max_threads
	d0=$(stat_of drops_threads)
	flagged $crowd $T 0 < /tmp/crowd.in > /tmp/crowd.out 2> /tmp/crowd.err &
	exec 3> /tmp/crowd.in
	check "max_threads $((T / 2)): a flagged process starts $T threads anyway" \
		wait_for $(slow 600) grep -q "^ready $T 0" /tmp/crowd.out
	n=$(stat_of threads) d=$(($(stat_of drops_threads) - d0))
	[ "$n" -eq $((T / 2)) ] && [ $((n + d)) -ge "$T" ] &&
		ok "... $n flagged, $d refused and counted in drops_threads" ||
		not_ok "... $n flagged and $d counted, expected $((T / 2)) and the rest"
	exec 3>&-
	check "... all exit: table and memory at zero" wait_for $(slow 300) at_rest
	echo 4096 > $sys/max_threads

	echo 100 > $sys/max_sockets
	d0=$(stat_of drops_sockets)
	flagged $crowd 1 500 < /tmp/crowd.in > /tmp/crowd.out 2> /tmp/crowd.err &
	exec 3> /tmp/crowd.in
	check "500 loopback connections open" wait_for $(slow 300) grep -q "^ready 1 500" /tmp/crowd.out
	echo "mark 500" >&3
	check "... marked by a flagged thread" wait_for $(slow 300) grep -q "^ok" /tmp/crowd.out
	n=$(stat_of sockets) d=$(($(stat_of drops_sockets) - d0))
	# Each marked write wants its socket followed, and its arrival the
	# receiving one: once 100 are, the writes of the others are refused
	# (and leave unmarked, so nothing arrives marked).
	[ "$n" -eq 100 ] && [ "$d" -ge 400 ] &&
		ok "max_sockets 100: 100 sockets followed, $d refused and counted" ||
		not_ok "max_sockets 100: $n sockets followed, $d counted; expected 100 and at least 400"
	exec 3>&-
	check "... connections closed: table and memory at zero" wait_for $(slow 300) at_rest
	echo 4096 > $sys/max_sockets

	# 2. Short connections, a tenth reset mid-request.
	step2() {
		t0=$(date +%s)
		flagged $tcp conns dt-b 7500 $C 10 > /tmp/conns.out 2>&1
		rc=$?
		set -- $(cat /tmp/conns.out)
		[ $rc -eq 0 ] && [ "$1" -eq $((C - C / 10)) ] && [ "$2" -eq $((C / 10)) ] &&
			ok "$C short flagged connections: $1 answered right, $2 reset mid-request ($3 a second)" ||
			not_ok "$C short flagged connections: $(cat /tmp/conns.out)"
		diag "step 2 took $(($(date +%s) - t0)) s"
	}
	m0=$(stat_of marks_sent)
	follow 1 7510 dt-b step2
	check "... tables and memory back at zero" wait_for $(slow 120) at_rest
	n=$(($(stat_of marks_sent) - m0))
	[ "$n" -ge "$C" ] && ok "... every connection's request marked ($n marks sent)" ||
		not_ok "... $n marks sent, expected at least $C"

	# 3. Connections while both hosts toggle and reload dtracer.
	step3() {
		# A subshell, flagged before its first batch: its children inherit.
		(sleep 0.5 && traffic 7501) &
		traffic=$!
		echo $traffic > $sys/add_pid
		check "probe toggled 10 times, dtracer reloaded 3 times under load" chaos 10 3 $traffic
		n=$(awk '$1 > 0' /tmp/rounds | wc -l)
		[ "$n" -eq 3 ] && ok "... the client's segments left marked in each of the 3 loads" ||
			not_ok "... marked segments in $n loads of 3: $(cat /tmp/rounds)"
	}
	follow 2 7510 dt-b step3
	stop() {
		touch /tmp/stop
		wait $traffic && ok "... the traffic meanwhile: $(cat /tmp/traffic.out), every answer right" ||
			not_ok "... the traffic meanwhile: $(cat /tmp/traffic.out); $(head -c 300 /tmp/batch.err)"
	}
	follow 3 7510 dt-b stop
	;;
dt-b)
	$tcp serve -4 7500 0 > /tmp/serve-7500.log 2>&1 &
	$tcp serve -4 7501 0 > /tmp/serve-7501.log 2>&1 &
	p0=$(stat_of propagations)
	lead 1 7510 $((C / 20 + 600))
	n=$(($(stat_of propagations) - p0))
	[ "$n" -ge $((C - C / 10)) ] &&
		ok "step 2: $n server threads flagged by the marked requests" ||
		not_ok "step 2: $n propagations, expected at least $((C - C / 10))"
	check "... tables and memory back at zero" wait_for $(slow 120) at_rest
	diag "after step 2: slab $(slab); $(tr '\n' ' ' < $sys/stats)"

	lead 2 7510 &
	led=$!
	check "probe toggled 20 times, dtracer reloaded 5 times under load" chaos 20 5
	n=$(awk '$2 > 0' /tmp/rounds | wc -l)
	[ "$n" -eq 5 ] && ok "... dt-a's marked requests flagged threads in each of the 5 loads" ||
		not_ok "... propagations in $n loads of 5: $(cat /tmp/rounds)"
	wait $led
	lead 3 7510
	check "... tables and memory back at zero" wait_for $(slow 120) at_rest
	;;
esac
diag "$(tr '\n' ' ' < $sys/stats)"
check "final rmmod" rmmod dtracer
diag "slab after unloading: $(slab)"
dt_finish
