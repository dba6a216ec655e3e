# Guest side of t-churn.sh (sourced after tests/vm/guest-lib.sh).
#
#   dt-b                                  dt-a
#   iperf3 -c dt-a                 ---->  iperf3 -s
#   load/probe/add_pid/unload x6
#   load, probe, add_pid (stays)   -7401> load/probe/unload x6 (marked
#                                         stream arriving all along,
#                                         HTTP/2 prefaces on lo too)
#   stream still up? stop it     <-7405-  "rounds done"
#   "iperf done"                   -7402> modprobe, probe 1, echo server
#   100 flagged dt-tcp requests    -7400> (flagged while serving each)
#   "done"                         -7404> stats: tables at zero
tcp=$DT_BUILDDIR/tests/tools/dt-tcp
sys=/sys/distributed-tracer

tables_empty() {
	[ "$(stat_of threads)" = 0 ] && [ "$(stat_of sockets)" = 0 ]
}

# cycle N PIDS: load, arm, flag PIDS, let traffic flow, unload; N times.
# Odd rounds disarm before unloading, even rounds unload while armed.
cycle() {
	_bad=0 _i=0
	while [ $_i -lt "$1" ]; do
		_i=$((_i + 1))
		modprobe dtracer && echo 1 > $sys/probe || _bad=$((_bad + 1))
		[ -z "$2" ] || echo "$2" > $sys/add_pid || _bad=$((_bad + 1))
		sleep 1
		echo "$(stat_of marks_sent) $(stat_of marks_received) $(stat_of propagations)" \
			"$(stat_of h2_streams)" >> /tmp/rounds
		[ $((_i % 2)) -eq 1 ] && { echo 0 > $sys/probe || _bad=$((_bad + 1)); }
		rmmod dtracer || _bad=$((_bad + 1))
	done
	[ $_bad -eq 0 ]
}

case $DT_HOST in
dt-a)
	iperf3 -s -p 5201 > /tmp/iperf-s.log 2>&1 &
	iperf=$!
	check "dt-b's marked iperf3 stream is flowing" timeout $(slow 300) $tcp serve -4 7401 1
	# HTTP/2 client prefaces all along (curl to an echo server): each
	# round's connections are followed and their streams counted
	# (dtracer/h2.c, slots holding sockets), racing the round's unload.
	$tcp serve -4 7406 0 > /dev/null 2>&1 &
	h2srv=$!
	# Two loops, each curl given up after 0.3 s (the echo server
	# answers no HTTP/2): a few connections in each round's second.
	# One curl first: the first from the 9p root takes seconds.
	curl -s -m 1 -o /dev/null --http2-prior-knowledge http://127.0.0.1:7406/
	sh -c 'while :; do
		curl -s -m 0.3 -o /dev/null --http2-prior-knowledge http://127.0.0.1:7406/
		sleep 0.05
	done' > /dev/null 2>&1 &
	h2cli=$!
	sh -c 'while :; do
		curl -s -m 0.3 -o /dev/null --http2-prior-knowledge http://127.0.0.1:7406/
		sleep 0.05
	done' > /dev/null 2>&1 &
	h2cli2=$!
	check "6 load/arm/unload rounds under the stream" cycle 6
	kill $h2cli $h2cli2 $h2srv
	n=$(awk '$2 > 0 && $3 > 0' /tmp/rounds | wc -l)
	[ "$n" -eq 6 ] && ok "marked segments arrived and flagged the iperf3 server in each round" ||
		not_ok "marked segments arrived and flagged the iperf3 server in $n rounds of 6: $(cat /tmp/rounds)"
	n=$(awk '$4 > 0' /tmp/rounds | wc -l)
	check "HTTP/2 streams counted in $n rounds of 6 (at least 5; each round's: $(awk '{ printf "%s ", $4 }' /tmp/rounds))" \
		test "$n" -ge 5
	check "told dt-b our rounds are done" $tcp request -w 120 dt-b 7405 done
	check "dt-b's stream is over" timeout $(slow 300) $tcp serve -4 7402 1
	kill $iperf

	check "modprobe dtracer" modprobe dtracer
	check "probe armed" sh -c "echo 1 > $sys/probe"
	$tcp serve -4 7400 0 > /tmp/serve.log 2>&1 &
	srv=$!
	$tcp serve -4 7403 1 > /dev/null 2>&1 &
	# A flagged shell's 100 children, each exiting at once.
	check "100 children of a flagged shell ran" \
		flagged sh -c 'i=0; while [ $i -lt 100 ]; do /bin/true || exit 1; i=$((i + 1)); done'
	check "dt-b's 100 requests are done" timeout $(slow 300) $tcp serve -4 7404 1
	check "tables back at zero (threads, sockets)" wait_for 30 tables_empty
	diag "$(cat $sys/stats)"
	check "stats: 100 propagations, 100 responses" \
		sh -c "[ $(stat_of propagations) = 100 ] && [ $(stat_of responses) = 100 ]"
	check "stats: 100 inherits" test "$(stat_of inherits)" = 100
	kill $srv
	check "rmmod dtracer" rmmod dtracer
	;;
dt-b)
	check "dt-a's iperf3 server is up" wait_for $(slow 120) sh -c "iperf3 -c dt-a -p 5201 -t 1 > /dev/null"
	# Unflagged for now: each round of cycle loads dtracer and flags it.
	# Long enough for both guests' rounds, even on the debug kernel (where
	# dt-a's six took over 300 s); stopped once they are done.
	iperf3 -c dt-a -p 5201 -t 1800 -P 2 > /tmp/iperf-c.log 2>&1 &
	iperf=$!
	check "6 load/arm/flag/unload rounds under the stream" cycle 6 "$iperf"
	n=$(awk '$1 > 0' /tmp/rounds | wc -l)
	[ "$n" -eq 6 ] && ok "segments left marked in each round" ||
		not_ok "segments left marked in $n rounds of 6: $(cat /tmp/rounds)"
	# Now a steady marked stream for dt-a's rounds.
	check "modprobe dtracer" modprobe dtracer
	check "probe armed, iperf3 flagged" sh -c "echo 1 > $sys/probe && echo $iperf > $sys/add_pid"
	check "told dt-a the marked stream flows" $tcp request -w 120 dt-a 7401 go
	check "dt-a's rounds are done" timeout $(slow 1200) $tcp serve -4 7405 1
	check "the iperf3 stream is still flowing after all rounds" kill -0 $iperf
	kill $iperf
	wait $iperf
	check "rmmod dtracer" rmmod dtracer
	check "told dt-a the stream is over" $tcp request -w 120 dt-a 7402 over

	check "modprobe dtracer" modprobe dtracer
	check "probe armed" sh -c "echo 1 > $sys/probe"
	check "dt-a's echo server is up" $tcp request -w 120 dt-a 7403 ping
	bad=0 i=0
	while [ $i -lt 100 ]; do
		i=$((i + 1))
		flagged $tcp request dt-a 7400 "request $i" > /dev/null || bad=$((bad + 1))
	done
	[ $bad -eq 0 ] && ok "100 flagged short-lived clients got their answers" ||
		not_ok "100 flagged short-lived clients got their answers ($bad failed)"
	check "tables back at zero (threads, sockets)" wait_for 30 tables_empty
	diag "$(cat $sys/stats)"
	n=$(stat_of marks_sent)
	[ "$n" -ge 100 ] && ok "stats: marks_sent $n" || not_ok "stats: marks_sent $n, expected at least 100"
	check "told dt-a we are done" $tcp request -w 120 dt-a 7404 done
	check "rmmod dtracer" rmmod dtracer
	;;
esac
dt_finish
