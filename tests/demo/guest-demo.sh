# Guest side of the demo (sourced after tests/vm/guest-lib.sh).
tcp=$DT_BUILDDIR/tests/tools/dt-tcp
sys=/sys/distributed-tracer

case $DT_HOST in
dt-server)
	check "lttng-relayd (the collector) starts" lttng-relayd -d -o /tmp/relay
	check "load dtracer.ko" modprobe dtracer
	check "arm dtracer (probe = 1)" sh -c "echo 1 > $sys/probe"
	# The server takes 1 s per answer: time to see it flagged.
	$tcp serve -d 1000 7000 0 > /tmp/serve.log 2>&1 &
	srv=$!
	(wait_for 300 grep -q "^$srv " $sys/list_pid &&
		cat $sys/list_pid > "$DT_RESULTS/list_pid.serving") &
	check "dt-client finished its session" timeout 300 $tcp serve 7001 1
	check "the server was flagged while it served dt-client's request" \
		grep -q "^$srv $srv propagated " "$DT_RESULTS/list_pid.serving"
	check "... and unflagged once it had answered" sh -c "! grep -q '^$srv ' $sys/list_pid"
	cat $sys/stats > "$DT_RESULTS/stats"
	dir=$(ls -d /tmp/relay/dt-client/demo-* 2>/dev/null | head -n 1)
	check "the trace arrived under dt-client's name" test -d "$dir/kernel"
	check "babeltrace2 reads it" sh -c "babeltrace2 '$dir' > $DT_RESULTS/trace.txt"
	cp -r "$dir" "$DT_RESULTS/ctf"
	;;
dt-client)
	check "load dtracer.ko" modprobe dtracer
	check "arm dtracer (probe = 1)" sh -c 'echo 1 > /sys/distributed-tracer/probe'
	check "gate thread: record only the flagged request's threads" sh -c "echo thread > $sys/gate"
	check "lttng-sessiond loads the fork and dtracer's events" \
		env LTTNG_EXTRA_KMOD_PROBES=dtracer lttng-sessiond -d
	check "dt-server answers" wait_for 120 $tcp request dt-server 7000 ping
	check "session streamed to dt-server" lttng create demo --set-url=net://dt-server
	check "events enabled" lttng enable-event -k sched_switch,timer_hrtimer_start,net_dev_queue,netif_receive_skb
	check "dtracer's events enabled" lttng enable-event -k 'dtracer_*'
	check "syscalls enabled" lttng enable-event -k --syscall connect,sendto,recvfrom,write,read
	check "process name and thread id on every event" lttng add-context -k -t procname -t tid
	check "tracing" lttng start
	check "a flagged request to dt-server (add_pid, then the request)" \
		sh -c "echo \$\$ > $sys/add_pid && exec $tcp request dt-server 7000 'hello from dt-client' 3"
	check "stop" lttng stop
	check "flush to the collector" lttng destroy demo
	cat $sys/stats > "$DT_RESULTS/stats"
	check "tell dt-server we are done" $tcp request dt-server 7001 done
	;;
esac
dt_finish
